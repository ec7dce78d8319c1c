//! Opaque primitives (those the schedule leaves as single equations: `scatter_add`,
//! `dynamic_update_slice`, `cumsum`, `random_bits`, and anything else fuse leaves).
//!
//! `random_bits` is native (the public Threefry helpers of `ferrax_ir`); the others run
//! the interpreter's own rule on a one-equation module, which gives its exact
//! semantics (clamping, wrapping, summation order) at the cost of copying operands in
//! and out. Native loops for them are a follow-up.

use super::buf::{read_array, write_array};
use ferrax_ir::prim::Prim;
use ferrax_ir::prim::random::{key_words, random_words};
use ferrax_ir::{Error, EvalOptions, Func, Module, Type};

/// One opaque equation, ready to run.
pub(crate) enum Opaque {
    /// `random_bits[shape](key)`.
    RandomBits { count: usize },
    /// Any other primitive, through the interpreter.
    Interp { module: Module, ins: Vec<Type>, outs: Vec<Type> },
}

impl Opaque {
    pub(crate) fn new(prim: &Prim, ins: Vec<Type>, outs: Vec<Type>) -> Result<Opaque, String> {
        if let Prim::RandomBits { shape } = prim {
            let count = ferrax_array::element_count(shape).map_err(|e| format!("random_bits: {e}"))?;
            return Ok(Opaque::RandomBits { count });
        }
        let mut f = Func::new("opaque");
        let params: Vec<_> = ins.iter().map(|t| f.new_value(t.clone())).collect();
        let results: Vec<_> = outs.iter().map(|t| f.new_value(t.clone())).collect();
        f.params = params.clone();
        f.results = results.clone();
        f.result_types = outs.clone();
        f.eqns.push(ferrax_ir::Eqn {
            prim: prim.clone(),
            inputs: params.into_iter().collect(),
            outputs: results.into_iter().collect(),
            loc: None,
        });
        let mut module = Module::new();
        module.push(f);
        Ok(Opaque::Interp { module, ins, outs })
    }

    /// Runs the equation on `ins`, writing `outs`.
    ///
    /// # Safety
    /// Every pointer is a valid buffer of its type; outputs do not overlap inputs.
    pub(crate) unsafe fn run(&self, ins: &[*mut u8], outs: &[*mut u8], options: &EvalOptions) -> Result<(), String> {
        match self {
            Opaque::RandomBits { count } => {
                // SAFETY: the key is an i32[2] buffer.
                let key =
                    unsafe { read_array(ins[0], &ferrax_ir::prim::random::key_type()) }.map_err(|e| e.to_string())?;
                let words = random_words(key_words(&key)?, *count);
                let out = outs[0] as *mut i32;
                for (i, w) in words.into_iter().enumerate() {
                    // SAFETY: the result buffer holds `count` i32.
                    unsafe { out.add(i).write_unaligned(w as i32) };
                }
                Ok(())
            }
            Opaque::Interp { module, ins: tys, outs: out_tys } => {
                // SAFETY: by the caller's contract.
                let args = tys
                    .iter()
                    .zip(ins)
                    .map(|(t, &p)| unsafe { read_array(p, t) })
                    .collect::<Result<Vec<_>, Error>>()
                    .map_err(|e| e.to_string())?;
                let results = ferrax_ir::eval(module, "opaque", &args, options).map_err(|e| match e {
                    Error::Eval { message, .. } => message,
                    other => other.to_string(),
                })?;
                for ((r, &p), _) in results.iter().zip(outs).zip(out_tys) {
                    // SAFETY: by the caller's contract.
                    unsafe { write_array(r, p) };
                }
                Ok(())
            }
        }
    }
}
