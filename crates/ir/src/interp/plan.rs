//! Last-use analysis: which values an equation is the last to read, so the interpreter
//! drops them right away and keeps the live bytes low.

use crate::{Func, Value};
use smallvec::SmallVec;

/// When each value of a Func can be dropped.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Per equation: its inputs that no later equation or result reads.
    pub last_inputs: Vec<SmallVec<[Value; 2]>>,
    /// Per equation: its outputs that nothing reads.
    pub dead_outputs: Vec<SmallVec<[Value; 1]>>,
    /// Parameters that nothing reads.
    pub dead_params: Vec<Value>,
}

/// How a value is last used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Unused,
    Eqn(usize),
    Returned,
}

impl Plan {
    /// The plan of `func`. Values outside the type table are ignored here (running
    /// the Func reports them).
    pub(super) fn new(func: &Func) -> Plan {
        let mut last = vec![Last::Unused; func.value_types.len()];
        for (i, eqn) in func.eqns.iter().enumerate() {
            for v in &eqn.inputs {
                if let Some(slot) = last.get_mut(v.index()) {
                    *slot = Last::Eqn(i);
                }
            }
        }
        for v in &func.results {
            if let Some(slot) = last.get_mut(v.index()) {
                *slot = Last::Returned;
            }
        }
        let is = |v: &Value, what: Last| last.get(v.index()) == Some(&what);
        let mut plan = Plan::default();
        for (i, eqn) in func.eqns.iter().enumerate() {
            let mut inputs: SmallVec<[Value; 2]> = eqn.inputs.iter().copied().filter(|v| is(v, Last::Eqn(i))).collect();
            inputs.sort_unstable();
            inputs.dedup();
            plan.last_inputs.push(inputs);
            plan.dead_outputs.push(eqn.outputs.iter().copied().filter(|v| is(v, Last::Unused)).collect());
        }
        plan.dead_params = func.params.iter().copied().filter(|v| is(v, Last::Unused)).collect();
        plan
    }
}
