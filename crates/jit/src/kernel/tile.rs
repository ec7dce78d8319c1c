//! Tile staging: the f32 `exp`, `tanh` and `logistic` of a vector loop computed by the
//! precompiled AVX-512 or AVX2 routines of [`crate::math::tile`], one call per tile of the
//! innermost loop, instead of inline in the 128-bit vectors Cranelift emits.
//!
//! A vector loop over `[a, b)` becomes a loop over tiles `[t, min(t + TILE, b))`; in each tile,
//! a *staging loop* generates the operand `x` of each staged value `y = f(x)` in vectors into
//! a stack scratch tile, then the routine runs on the tile in place (stages whose operands
//! read no other stage share one loop: a wave); the loop body that follows
//! (the original one: stores of the results, or the accumulation of a reduction) reads each
//! staged value from its scratch tile where it needs it at the loop's own index, and a later
//! staging loop does the same for a staged value inside another one's operand. A staged value
//! read anywhere else (shifted by a slice or pad) is computed inline there as before. The
//! routines perform the inline code's operations lane by lane, so staging changes no bits.
//!
//! Also staged, on hosts with F16C: the rounding of an f16 result, `convert[f32]` of a
//! `convert[f16]` of an f32 value (the form a legalized 16-bit program rounds in), through
//! [`TileFn::RoundF16`]: its bits are the inline integer code's (NaN payloads aside).
//!
//! Staged: f32 `exp`/`tanh`/`logistic` whose outer axes are the loop's and that the vector
//! analysis reads at the loop's own innermost index (offset 0), at most [`MAX_STAGES`] a loop, when
//! `KernelOptions::tiles` is on, math is not `precise_math`, the host has AVX2 and FMA (the
//! inline code then uses FMA too), and the innermost extent is at least [`MIN_EXTENT`].

use super::lower::{Index, Loop, Lower, mem};
use super::vector::Analysis;
use crate::math::tile::{self, TileFn};
use cranelift_codegen::ir::{
    AbiParam, InstBuilder, Signature, StackSlot, StackSlotData, StackSlotKind, Value as Cv, types,
};
use cranelift_module::Module as _;
use ferrax_ir::prim::UnaryOp;
use ferrax_ir::{DType, Error, Prim, Value};
use std::collections::HashMap;

/// Elements of a tile (f32): 2 KiB of scratch per staged value, a multiple of 4 vectors.
pub(super) const TILE: i64 = 512;
/// Staged values per loop at most (the rest stay inline).
pub(super) const MAX_STAGES: usize = 4;
/// The shortest innermost extent worth a call per tile.
pub(super) const MIN_EXTENT: usize = 64;

/// One staged value: `value = f(input)`, through its scratch tile.
#[derive(Clone, Copy)]
pub(super) struct Stage {
    value: Value,
    input: Value,
    f: TileFn,
    slot: StackSlot,
}

impl Lower<'_, '_> {
    /// The values to stage in a vector loop of `lanes` over the index space `shape` that
    /// generates `roots` (results, or a reduction's input and its in-loop results).
    pub(super) fn stages(&mut self, shape: &[usize], lanes: u32, roots: &[Value]) -> Vec<Stage> {
        let n = shape.last().copied().unwrap_or(0);
        let on = self.opts.tiles && !self.opts.precise_math && self.has_fma && lanes == 4;
        if !on || n < MIN_EXTENT || !tile::available() {
            return Vec::new();
        }
        let mut a = Analysis::new(self.func, self.plan, lanes, self.has_sse41, n);
        if !roots.iter().all(|&r| a.contiguous(r, 0)) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let f16c = tile::f16c_available();
        for eqn in &self.func.eqns {
            let (Some(&value), Some(&input)) = (eqn.outputs.first(), eqn.inputs.first()) else { continue };
            let (f, input) = match eqn.prim {
                Prim::Unary(UnaryOp::Exp) => (TileFn::Exp, input),
                Prim::Unary(UnaryOp::Tanh) => (TileFn::Tanh, input),
                Prim::Unary(UnaryOp::Logistic) => (TileFn::Logistic, input),
                _ => match self.f16_round_trip(eqn).filter(|_| f16c) {
                    Some(x) => (TileFn::RoundF16, x),
                    None => continue,
                },
            };
            let ty = self.func.ty(value);
            // Generated at the loop's index: the outer axes must be the loop's (the vector
            // analysis reads it at the loop's innermost index, so that one is in bounds).
            let same_rows = ty.shape.len() == shape.len() && ty.shape[..shape.len() - 1] == shape[..shape.len() - 1];
            if ty.dtype != DType::F32 || !same_rows || !a.read_in_place(value) || out.len() == MAX_STAGES {
                continue;
            }
            let data = StackSlotData::new(StackSlotKind::ExplicitSlot, (TILE * 4) as u32, 6);
            out.push(Stage { value, input, f, slot: self.fb.create_sized_stack_slot(data) });
        }
        out
    }

    /// The f32 operand `x` when `eqn` is `convert[f32](convert[f16](x))`'s outer convert:
    /// the rounding after an f16 result in a program the JIT computes in f32.
    fn f16_round_trip(&self, eqn: &ferrax_ir::Eqn) -> Option<Value> {
        let h = *eqn.inputs.first()?;
        if eqn.prim.convert_dtype() != Some(DType::F32) || self.func.ty(h).dtype != DType::F16 {
            return None;
        }
        let (e, _) = self.plan.defs[h.index()]?;
        let narrow = &self.func.eqns[e];
        let x = *narrow.inputs.first()?;
        (narrow.prim.convert_dtype() == Some(DType::F16) && self.func.ty(x).dtype == DType::F32).then_some(x)
    }

    /// The address of element `i - t` of `stage`'s scratch tile.
    fn scratch_at(&mut self, stage: &Stage, t: Cv, i: Cv) -> Cv {
        let base = self.fb.ins().stack_addr(types::I64, stage.slot, 0);
        let d = self.fb.ins().isub(i, t);
        let off = self.fb.ins().ishl_imm_s(d, 2);
        self.fb.ins().iadd(base, off)
    }

    /// The operands of the stages `wave` at the 4-lane vectors `idx[last] + 4j`, `j <
    /// copies`, into their scratch tiles (the tile starts at `t`), with the stages `before`
    /// seeded: operands shared between the wave's stages are loaded and computed once.
    fn stage_body(
        &mut self,
        before: &[Stage],
        wave: &[Stage],
        idx: &mut Index,
        last: usize,
        t: Cv,
        copies: i64,
    ) -> Result<(), Error> {
        let iv = idx[last];
        let addrs: Vec<Cv> = wave.iter().map(|s| self.scratch_at(s, t, iv)).collect();
        let inputs: Vec<Value> = wave.iter().map(|s| s.input).collect();
        let seeds = self.read_by(&inputs, before);
        self.memo.clear();
        let mut vmemo = HashMap::new();
        for j in 0..copies {
            idx[last] = if j == 0 { iv } else { self.fb.ins().iadd_imm_s(iv, 4 * j) };
            self.seed_stages(&seeds, idx, last, t, &mut vmemo);
            for (&input, &addr) in inputs.iter().zip(&addrs) {
                let x = self.vec_at(input, idx, &mut vmemo)?;
                self.fb.ins().store(mem(), x, addr, (16 * j) as i32);
            }
        }
        idx[last] = iv;
        Ok(())
    }

    /// The stages among `stages` that the values `from` read directly: through equations
    /// that are not themselves staged (a stage read only inside another stage's operand is
    /// not), for [`Lower::seed_stages`].
    pub(super) fn read_by(&self, from: &[Value], stages: &[Stage]) -> Vec<Stage> {
        let hit = self.reached(from, stages);
        stages.iter().zip(hit).filter(|&(_, h)| h).map(|(s, _)| *s).collect()
    }

    /// Which of `stages` the values `from` read directly (see [`Lower::read_by`]).
    fn reached(&self, from: &[Value], stages: &[Stage]) -> Vec<bool> {
        let mut hit = vec![false; stages.len()];
        let mut seen = vec![false; self.func.value_types.len()];
        let mut todo = from.to_vec();
        while let Some(v) = todo.pop() {
            if std::mem::replace(&mut seen[v.index()], true) {
                continue;
            }
            if let Some(k) = stages.iter().position(|s| s.value == v) {
                hit[k] = true;
                continue;
            }
            if let Some((e, _)) = self.plan.defs[v.index()] {
                todo.extend(self.func.eqns[e].inputs.iter().copied());
            }
        }
        hit
    }

    /// Records in `vmemo` the vectors at `idx` (innermost index `idx[last]`) of `stages`
    /// (those the loop body reads: [`Lower::read_by`]) as loads from their scratch tiles,
    /// for the tile that starts at `t`.
    pub(super) fn seed_stages(
        &mut self,
        stages: &[Stage],
        idx: &Index,
        last: usize,
        t: Cv,
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) {
        for s in stages {
            let addr = self.scratch_at(s, t, idx[last]);
            let v = self.fb.ins().load(types::F32X4, mem(), addr, 0);
            vmemo.insert((s.value, idx.clone()), v);
        }
    }

    /// Opens the loop over the tiles of `[a, b)` (a multiple of 4 lanes) and emits the
    /// tile's staging loops ([`Lower::emit_stages`]); returns the loop and the tile's end.
    pub(super) fn open_tile(
        &mut self,
        stages: &[Stage],
        idx: &mut Index,
        last: usize,
        a: Cv,
        b: Cv,
    ) -> Result<(Loop, Cv), Error> {
        let tl = self.open_loop(a, b, TILE);
        let te = self.fb.ins().iadd_imm_s(tl.iv, TILE);
        let te = self.fb.ins().smin(te, b);
        self.emit_stages(stages, idx, last, tl.iv, te)?;
        Ok((tl, te))
    }

    /// The staging loops of the tile `[t, te)` (a multiple of 4 lanes): for each wave of
    /// stages, their operands in vectors into their scratch tiles, then their routines.
    /// `idx` is the loop's index with the innermost position `last` free.
    fn emit_stages(&mut self, stages: &[Stage], idx: &mut Index, last: usize, t: Cv, te: Cv) -> Result<(), Error> {
        // Stages in waves: a stage whose operand reads another stage comes in a later wave
        // than it; one staging loop a wave, four vectors an iteration, then one at a time.
        let mut waves = vec![0usize; stages.len()];
        for k in 0..stages.len() {
            let hit = self.reached(&[stages[k].input], &stages[..k]);
            waves[k] = hit.iter().zip(&waves).filter(|&(&h, _)| h).map(|(_, &w)| w + 1).max().unwrap_or(0);
        }
        let n = self.fb.ins().isub(te, t);
        let n16 = self.fb.ins().band_imm_s(n, -16);
        let t16 = self.fb.ins().iadd(t, n16);
        for w in 0..=waves.iter().copied().max().unwrap_or(0) {
            let pick = |f: &dyn Fn(usize) -> bool| -> Vec<Stage> {
                stages.iter().zip(&waves).filter(|&(_, &v)| f(v)).map(|(s, _)| *s).collect()
            };
            let (before, wave) = (pick(&|v| v < w), pick(&|v| v == w));
            for (a, b, step) in [(t, t16, 16), (t16, te, 4)] {
                let l = self.open_loop(a, b, step);
                idx[last] = l.iv;
                self.stage_body(&before, &wave, idx, last, t, step / 4)?;
                self.close_loop(l);
            }
            self.memo.clear();
            for s in &wave {
                let mut sig = Signature::new(self.jit.isa().default_call_conv());
                sig.params.push(AbiParam::new(types::I64));
                sig.params.push(AbiParam::new(types::I64));
                let f = self.imports.import(&mut self.fb, self.jit, s.f.symbol(), sig);
                let f = f.map_err(|m| self.err(None, m))?;
                let base = self.fb.ins().stack_addr(types::I64, s.slot, 0);
                self.fb.ins().call(f, &[base, n]);
            }
        }
        Ok(())
    }
}
