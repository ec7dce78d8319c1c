//! Reductions over the workers overlapped with the rest of a program, in buckets.
//!
//! A `psum`, `pmean`, `pmax` or `pmin` over one axis (what a data-parallel step does
//! to each gradient) need not stop its worker: the program starts it as soon as its
//! operand is computed and waits for it only where its result is first read. So a
//! program's equations run in an order that moves each such reduction up to just after
//! the equation that computes its operand ([`Overlap::new`]), consecutive reductions of
//! one kind (operation, dtype, axis) are gathered into a *bucket* of at least
//! [`BUCKET_BYTES`] (one rendezvous of the workers for all of them, as PyTorch's DDP
//! buckets gradients), and each bucket becomes two steps: a start (the communicator's
//! `start_all_reduce`, which returns without waiting for the other workers where the
//! engine can) and a finish before the first equation that reads one of its results.
//! While buckets are in flight the runner calls the communicator's `progress` between
//! steps, so a worker writes its share of a bucket as soon as every worker has started
//! it.
//!
//! Buffers: an operand of a started reduction is read by the other workers until the
//! bucket finishes, so its buffer is kept (its last use moves to the finish); a result
//! is written by them meanwhile, so nothing reads it before the finish, which the
//! placement guarantees because its first reader comes after.
//!
//! Compiled with `JitOptions::overlap_collectives` off, every collective is one
//! blocking step in the program's own order.

use super::{Loc, Step, StepAt, err};
use crate::comm::{Communicator, Reduce, ReducePart, Ticket};
use ferrax_ir::prim::{CollectiveOp, Prim};
use ferrax_ir::{DType, Eqn, Error, Func, LastUse, Value};

/// The bytes a bucket gathers before it starts (unless a result of it is needed
/// sooner, or the program ends). Smaller buckets start sooner; larger ones pay fewer
/// rendezvous.
pub(crate) const BUCKET_BYTES: usize = 1 << 20;

/// What a bucket gathers: reductions of one combination, dtype and axis.
pub(crate) type Kind = (Reduce, DType, String);

/// The reduction a collective equation computes, when the program may start it early
/// and finish it later: one operand of a number dtype with elements, one axis, and a
/// result something reads.
fn startable(func: &Func, last: &[LastUse], eqn: &Eqn) -> Option<Kind> {
    let Prim::Collective(op) = &eqn.prim else { return None };
    let (reduce, axes) = Reduce::of(op)?;
    let ([x], [y], [axis]) = (&eqn.inputs[..], &eqn.outputs[..], axes) else { return None };
    let ty = func.ty(*x);
    let used = last.get(y.index()).is_some_and(|l| *l != LastUse::Unused);
    (used && ty.dtype != DType::Bool && ty.element_count().is_some_and(|n| n > 0))
        .then(|| (reduce, ty.dtype, axis.clone()))
}

/// The schedule of a program's overlapped reductions: the order its equations run in,
/// its buckets, and where each starts and finishes.
pub(crate) struct Overlap {
    /// The equations' indices in running order.
    pub order: Vec<usize>,
    /// When each value is last read, by position in `order` (a started reduction's
    /// operand: at its bucket's finish, see `pinned`).
    pub last: Vec<LastUse>,
    /// The bucket of the equation at each position, if it is a started reduction.
    pub member: Vec<Option<usize>>,
    /// The buckets to start before each position (`order.len()`: at the end).
    pub starts: Vec<Vec<usize>>,
    /// The buckets to finish before each position (after that position's starts).
    pub finishes: Vec<Vec<usize>>,
    /// Each bucket's operands whose buffers are freed at its finish.
    pub pinned: Vec<Vec<Value>>,
    /// Each bucket's kind (reduction, dtype, axis) and its member positions.
    pub buckets: Vec<(Kind, Vec<usize>)>,
    /// The last read of each value before any pin, by position.
    natural: Vec<LastUse>,
    /// The bucket holding each pinned value, and its finish (a value two buckets read
    /// stays until the later finish).
    pinned_by: std::collections::HashMap<Value, (usize, usize)>,
}

impl Overlap {
    /// The schedule of `func` (`enabled` false: its own order, nothing started early).
    pub fn new(func: &Func, enabled: bool) -> Overlap {
        let n = func.eqns.len();
        let natural = func.last_uses();
        let kinds: Vec<Option<Kind>> =
            func.eqns.iter().map(|e| if enabled { startable(func, &natural, e) } else { None }).collect();
        let order = hoisted_order(func, &kinds);
        let mut last = vec![LastUse::Unused; func.value_types.len()];
        for (pos, &e) in order.iter().enumerate() {
            func.eqns[e].inputs.iter().for_each(|v| last[v.index()] = LastUse::Eqn(pos));
        }
        func.results.iter().for_each(|v| last[v.index()] = LastUse::Returned);
        let mut o = Overlap {
            order,
            natural: last.clone(),
            pinned_by: Default::default(),
            last,
            member: vec![None; n],
            starts: vec![Vec::new(); n + 1],
            finishes: vec![Vec::new(); n + 1],
            pinned: Vec::new(),
            buckets: Vec::new(),
        };
        o.bucket(func, &kinds);
        o
    }

    /// Gathers consecutive startable reductions of one kind into buckets, each started
    /// once it holds [`BUCKET_BYTES`] (or before a position that needs one of its
    /// results, or at the end) and finished before its first reader.
    fn bucket(&mut self, func: &Func, kinds: &[Option<Kind>]) {
        let n = self.order.len();
        // The first position reading each value (`n` for none, or a result).
        let mut first_read = vec![n; func.value_types.len()];
        for (pos, &e) in self.order.iter().enumerate().rev() {
            func.eqns[e].inputs.iter().for_each(|v| first_read[v.index()] = pos);
        }
        let mut open: Option<(usize, usize, usize)> = None; // (bucket, bytes, finish position)
        for pos in 0..=n {
            if let Some((b, _, finish)) = open
                && finish <= pos
            {
                self.close(func, b, pos, finish);
                open = None;
            }
            let Some(kind) = self.order.get(pos).and_then(|&e| kinds[e].as_ref()) else { continue };
            let eqn = &func.eqns[self.order[pos]];
            let (x, y) = (eqn.inputs[0], eqn.outputs[0]);
            let bytes = func.ty(x).byte_size().map_or(usize::MAX, |b| usize::try_from(b).unwrap_or(usize::MAX));
            if let Some((b, _, finish)) = open
                && self.buckets[b].0 != *kind
            {
                self.close(func, b, pos, finish);
                open = None;
            }
            let (b, held, finish) = open.unwrap_or_else(|| {
                self.buckets.push((kind.clone(), Vec::new()));
                self.pinned.push(Vec::new());
                (self.buckets.len() - 1, 0, n)
            });
            self.buckets[b].1.push(pos);
            self.member[pos] = Some(b);
            let (held, finish) = (held.saturating_add(bytes), finish.min(first_read[y.index()]));
            open = Some((b, held, finish));
            if held >= BUCKET_BYTES {
                self.close(func, b, pos + 1, finish);
                open = None;
            }
        }
    }

    /// The step starting bucket `b` under `ticket`, over its members' buffers (`parts`).
    pub fn start_step(
        &self,
        func: &Func,
        b: usize,
        ticket: usize,
        parts: Vec<(Loc, Loc, usize)>,
    ) -> Result<StepAt, Error> {
        let ((op, dtype, _), members) = &self.buckets[b];
        let mut what = Vec::new();
        let mut first = None;
        for &e in members.iter().map(|&p| &self.order[p]) {
            let eqn = &func.eqns[e];
            let Prim::Collective(c) = &eqn.prim else {
                return Err(err(
                    &func.name,
                    Some(e),
                    Some(eqn.prim.name()),
                    "jit: a reduction bucket holds a non-collective",
                ));
            };
            what.push(crate::comm::describe(c, &[func.ty(eqn.inputs[0]).clone()]));
            first.get_or_insert_with(|| c.clone());
        }
        let (Some(first), Some(&last)) = (first, members.last()) else {
            return Err(err(&func.name, None, None, "jit: an empty reduction bucket"));
        };
        let what = what.join(" + ");
        let hash = crate::comm::fingerprint(&what);
        let bucket = Bucket { op: *op, dtype: *dtype, what, hash, first };
        let eqn = self.order[last];
        let prim = func.eqns[eqn].prim.name();
        Ok(StepAt { eqn, prim, step: Step::ReduceStart { bucket: Box::new(bucket), parts, ticket } })
    }

    /// Starts bucket `b` before position `start` and finishes it before `finish`; an
    /// operand of it that nothing reads after the finish keeps its buffer until then.
    fn close(&mut self, func: &Func, b: usize, start: usize, finish: usize) {
        let finish = finish.max(start);
        self.starts[start].push(b);
        self.finishes[finish].push(b);
        for k in 0..self.buckets[b].1.len() {
            let x = func.eqns[self.order[self.buckets[b].1[k]]].inputs[0];
            if !matches!(self.natural[x.index()], LastUse::Eqn(p) if p < finish) {
                continue;
            }
            match self.pinned_by.get(&x) {
                Some(&(_, earlier)) if earlier >= finish => continue,
                Some(&(other, _)) => self.pinned[other].retain(|&v| v != x),
                None => {}
            }
            self.last[x.index()] = LastUse::Returned;
            self.pinned[b].push(x);
            self.pinned_by.insert(x, (b, finish));
        }
    }
}

/// The equations of `func` in order, except that each startable reduction (`kinds`)
/// runs right after the equation computing its operand (first of all when the operand
/// is a parameter).
fn hoisted_order(func: &Func, kinds: &[Option<Kind>]) -> Vec<usize> {
    let n = func.eqns.len();
    let mut defined_at = vec![None; func.value_types.len()];
    for (i, e) in func.eqns.iter().enumerate() {
        e.outputs.iter().for_each(|v| defined_at[v.index()] = Some(i));
    }
    // Reductions waiting for each equation (by index); `n` for parameters.
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, e) in func.eqns.iter().enumerate().filter(|(i, _)| kinds[*i].is_some()) {
        let producer = e.inputs.iter().filter_map(|v| defined_at[v.index()]).max();
        after[producer.unwrap_or(n)].push(i);
    }
    let mut order = std::mem::take(&mut after[n]);
    for i in (0..n).filter(|&i| kinds[i].is_none()) {
        order.push(i);
        order.append(&mut after[i]);
    }
    // A reduction whose operand another reduction computes follows it.
    let mut k = 0;
    while k < order.len() {
        let tail = std::mem::take(&mut after[order[k]]);
        order.splice(k + 1..k + 1, tail);
        k += 1;
    }
    order
}

/// A bucket of reductions, ready to start: what the workers agree on, and how.
pub(crate) struct Bucket {
    pub op: Reduce,
    pub dtype: DType,
    /// The members' descriptions, for the workers' agreement and errors.
    pub what: String,
    pub hash: u64,
    /// A member, for the error without workers.
    pub first: CollectiveOp,
}

impl Bucket {
    /// Starts the bucket on `comm` over `parts` (operand, result and bytes of each).
    ///
    /// # Safety
    /// Each part's buffers are valid for its bytes and stay so, the operand unchanged
    /// and the result untouched, until the ticket is finished or abandoned.
    pub unsafe fn start(
        &self,
        parts: &[(*mut u8, *mut u8, usize)],
        comm: Option<&dyn Communicator>,
    ) -> Result<Ticket, String> {
        let Some(comm) = comm else { return Err(ferrax_ir::prim::collective::unbound(&self.first)) };
        comm.agree(&self.what, self.hash)?;
        let parts: Vec<ReducePart> =
            parts.iter().map(|&(send, recv, len)| ReducePart { send: send as *const u8, recv, len }).collect();
        // SAFETY: by the caller's contract.
        unsafe { comm.start_all_reduce(self.op, self.dtype, &parts) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str, enabled: bool) -> (Func, Overlap) {
        let module = ferrax_ir::parse(text).unwrap();
        let func = module.entry().unwrap().clone();
        let plan = Overlap::new(&func, enabled);
        (func, plan)
    }

    /// A backward pass in miniature: two gradients, each reduced, then a value that
    /// reads one reduced gradient.
    const STEP: &str = r#"
func @step[axis_names=["i"]](%x: f32[4], %w: f32[100000]) -> (f32[4], f32[100000], f32[4]) {
  %g1: f32[4] = sin(%x)
  %g2: f32[100000] = cos(%w)
  %t: f32[100000] = mul(%g2, %g2)
  %r1: f32[4] = pmean[axes=["i"]](%g1)
  %r2: f32[100000] = pmean[axes=["i"]](%g2)
  %u: f32[4] = exp(%r1)
  return %u, %r2, %x
}
"#;

    #[test]
    fn reductions_move_up_to_their_operands_and_share_a_bucket() {
        let (func, o) = plan(STEP, true);
        // sin, pmean(g1), cos, pmean(g2), mul, exp.
        assert_eq!(o.order, [0, 3, 1, 4, 2, 5]);
        assert_eq!(o.buckets.len(), 1, "both pmeans in one bucket");
        assert_eq!(o.buckets[0].1, [1, 3]);
        // 400 kB do not fill the bucket: it waits for more until exp needs r1, then
        // starts and finishes there.
        assert_eq!(o.starts[5], [0]);
        assert_eq!(o.finishes[5], [0]);
        // g1 and g2 keep their buffers until the finish; g2 is read by mul at 4 < 5.
        let g2 = func.eqns[1].outputs[0];
        assert!(o.pinned[0].contains(&g2));
        assert_eq!(o.last[g2.index()], LastUse::Returned);
    }

    #[test]
    fn a_large_reduction_starts_at_once_and_disabled_keeps_the_order() {
        let text = STEP.replace("100000", "300000");
        let (_, o) = plan(&text, true);
        // 1.2 MB fill the bucket: started right after pmean(g2), before the mul runs,
        // and finished before exp.
        assert_eq!(o.starts[4], [0]);
        assert_eq!(o.finishes[5], [0]);
        let (func, off) = plan(STEP, false);
        assert_eq!(off.order, (0..func.eqns.len()).collect::<Vec<_>>());
        assert!(off.buckets.is_empty());
        assert_eq!(off.last, func.last_uses());
    }

    #[test]
    fn a_value_two_buckets_read_stays_until_the_later_finish() {
        let text = r#"
func @f[axis_names=["i"]](%x: f32[3]) -> (f32[3], f32[3]) {
  %s: f32[3] = sin(%x)
  %a: f32[3] = psum[axes=["i"]](%s)
  %b: f32[3] = pmax[axes=["i"]](%s)
  %c: f32[3] = exp(%a)
  %d: f32[3] = exp(%b)
  return %c, %d
}
"#;
        let (func, o) = plan(text, true);
        assert_eq!(o.buckets.len(), 2);
        let s = func.eqns[0].outputs[0];
        // The psum finishes before exp(a), the pmax later: only the pmax frees s.
        let holders: Vec<usize> = (0..2).filter(|&b| o.pinned[b].contains(&s)).collect();
        let finish = |b: usize| o.finishes.iter().position(|f| f.contains(&b)).unwrap();
        assert_eq!(holders.len(), 1);
        assert_eq!(finish(holders[0]), (0..2).map(finish).max().unwrap());
    }

    #[test]
    fn reductions_of_other_kinds_go_in_other_buckets() {
        let text = r#"
func @f[axis_names=["i", "j"]](%x: f32[3]) -> (f32[3], f32[3], f32[3], f32[3]) {
  %a: f32[3] = psum[axes=["i"]](%x)
  %b: f32[3] = pmax[axes=["i"]](%x)
  %c: f32[3] = psum[axes=["j"]](%x)
  %d: f32[3] = psum[axes=["i", "j"]](%x)
  return %a, %b, %c, %d
}
"#;
        let (_, o) = plan(text, true);
        // psum over two axes is not started early; the other three differ in kind.
        assert_eq!(o.buckets.len(), 3);
        assert!(o.buckets.iter().all(|b| b.1.len() == 1));
        assert!(o.member.iter().filter(|m| m.is_some()).count() == 3);
    }
}
