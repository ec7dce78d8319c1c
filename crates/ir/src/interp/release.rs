//! Last-use analysis: which values an equation is the last to read, so the interpreter
//! drops them right away and keeps the live bytes low.

use crate::{Func, LastUse, Value};
use smallvec::SmallVec;

/// When each value of a Func can be dropped.
#[derive(Debug, Default)]
pub(super) struct Releases {
    /// Per equation: its inputs that no later equation or result reads.
    pub last_inputs: Vec<SmallVec<[Value; 2]>>,
    /// Per equation: its outputs that nothing reads.
    pub dead_outputs: Vec<SmallVec<[Value; 1]>>,
    /// Parameters that nothing reads.
    pub dead_params: Vec<Value>,
}

impl Releases {
    /// The plan of `func`. Values outside the type table are ignored here (running
    /// the Func reports them).
    pub(super) fn new(func: &Func) -> Releases {
        let last = func.last_uses();
        let is = |v: &Value, what: LastUse| last.get(v.index()) == Some(&what);
        let mut plan = Releases::default();
        for (i, eqn) in func.eqns.iter().enumerate() {
            let mut inputs: SmallVec<[Value; 2]> =
                eqn.inputs.iter().copied().filter(|v| is(v, LastUse::Eqn(i))).collect();
            inputs.sort_unstable();
            inputs.dedup();
            plan.last_inputs.push(inputs);
            plan.dead_outputs.push(eqn.outputs.iter().copied().filter(|v| is(v, LastUse::Unused)).collect());
        }
        plan.dead_params = func.params.iter().copied().filter(|v| is(v, LastUse::Unused)).collect();
        plan
    }
}
