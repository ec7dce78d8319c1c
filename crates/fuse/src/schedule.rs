//! From a partition to the fused Func: one `call` of a kernel per group, the launches
//! kept as they are, in a depth-first post-order from the results.
//!
//! The order visits each result in turn (in the order the Func defines them) and,
//! before a launch or kernel, its producers in operand order: a branch of the graph is finished before the next one starts, so
//! fewer intermediate buffers are live at once than in a breadth-first order.
//!
//! Reached depth-first, an `offload` would come just before its `reload` (its only
//! reader), keeping the value in memory all along; so each `offload` then moves up to
//! right after the producer of its operand, and the value leaves memory as soon as its
//! other readers are done.

use crate::classify::{Class, class};
use crate::partition::{Partition, partition};
use ferrax_ir::prim::{MemoryOp, Prim};
use ferrax_ir::{AttrValue, Eqn, Func, Value};
use std::collections::HashMap;

/// A node of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// A group, by index.
    Kernel(usize),
    /// An equation kept as it is, by index.
    Launch(usize),
}

/// `func` (without calls) as a schedule of launches, and its kernels, and the
/// partitioner's work (`Partition::work`). `name_kernel` gives the `i`-th kernel its
/// name.
pub(crate) fn schedule(func: &Func, name_kernel: &mut dyn FnMut(usize) -> String) -> (Func, Vec<Func>, usize) {
    let p = partition(func);
    let provider = |v: Value| -> Option<Node> {
        let d = p.defs[v.index()]?;
        if class(&func.eqns[d].prim) == Class::Launch { Some(Node::Launch(d)) } else { p.primary[d].map(Node::Kernel) }
    };
    let inputs = |node: Node| -> Vec<Value> {
        match node {
            Node::Kernel(g) => p.inputs_of(func, g),
            Node::Launch(e) => func.eqns[e].inputs.to_vec(),
        }
    };
    // Iterative depth-first post-order, from the results in the order the Func computes
    // them: reverse mode produces the last layer's gradient first, and starting there
    // lets each layer's cotangent die at its layer instead of living until the end.
    let mut roots: Vec<(usize, Value)> = func.results.iter().filter_map(|&r| Some((p.defs[r.index()]?, r))).collect();
    roots.sort_by_key(|&(d, _)| d);
    let mut order = Vec::new();
    let mut visited = std::collections::HashSet::new();
    for &(_, r) in &roots {
        let Some(start) = provider(r) else { continue };
        if !visited.insert(start) {
            continue;
        }
        let mut stack: Vec<(Node, Vec<Value>, usize)> = vec![(start, inputs(start), 0)];
        while let Some((node, ins, next)) = stack.last_mut() {
            if *next < ins.len() {
                let v = ins[*next];
                *next += 1;
                if let Some(pred) = provider(v)
                    && visited.insert(pred)
                {
                    let pred_inputs = inputs(pred);
                    stack.push((pred, pred_inputs, 0));
                }
            } else {
                order.push(*node);
                stack.pop();
            }
        }
    }
    let order = offloads_early(func, order, provider);
    let mut fused = func.clone();
    fused.eqns.clear();
    let mut kernels = Vec::new();
    for node in order {
        match node {
            Node::Launch(e) => fused.eqns.push(func.eqns[e].clone()),
            Node::Kernel(g) => {
                let outputs = kernel_outputs(func, &p, g);
                let ins = p.inputs_of(func, g);
                let name = name_kernel(kernels.len());
                kernels.push(build_kernel(func, &p, g, &name, &ins, &outputs));
                fused.eqns.push(Eqn {
                    prim: Prim::call(name),
                    inputs: ins.into_iter().collect(),
                    outputs: outputs.into_iter().collect(),
                    loc: None,
                });
            }
        }
    }
    crate::merge::merge_elementwise(&mut fused, &mut kernels);
    (fused, kernels, p.work.get())
}

/// `order` with every `offload` moved to right after the node producing its operand (to
/// the start when a parameter is its operand).
fn offloads_early(func: &Func, order: Vec<Node>, provider: impl Fn(Value) -> Option<Node>) -> Vec<Node> {
    let is_offload = |n: &Node| matches!(n, Node::Launch(e) if func.eqns[*e].prim == Prim::Memory(MemoryOp::Offload));
    let mut after: HashMap<Option<Node>, Vec<Node>> = HashMap::new();
    for &n in order.iter().filter(|n| is_offload(n)) {
        let Node::Launch(e) = n else { continue };
        let producer = func.eqns[e].inputs.first().and_then(|&v| provider(v));
        after.entry(producer).or_default().push(n);
    }
    if after.is_empty() {
        return order;
    }
    let mut out = after.remove(&None).unwrap_or_default();
    for n in order.into_iter().filter(|n| !is_offload(n)) {
        out.push(n);
        if let Some(moved) = after.remove(&Some(n)) {
            out.extend(moved);
        }
    }
    // An offload of another offload's result (its producer is moved itself) keeps its
    // place after it.
    let mut rest: Vec<Node> = after.into_values().flatten().collect();
    while !rest.is_empty() {
        let before = rest.len();
        rest.retain(|&n| {
            let Node::Launch(e) = n else { return false };
            let producer = func.eqns[e].inputs.first().and_then(|&v| provider(v));
            match producer.and_then(|p| out.iter().position(|&m| m == p)) {
                Some(at) => {
                    out.insert(at + 1, n);
                    false
                }
                None => true,
            }
        });
        if rest.len() == before {
            out.append(&mut rest);
        }
    }
    out
}

/// The values computed by group `g` that are read outside it, in definition order.
fn kernel_outputs(func: &Func, p: &Partition, g: usize) -> Vec<Value> {
    let mut out = Vec::new();
    for &m in &p.groups[g].members {
        if p.primary[m] != Some(g) {
            continue;
        }
        let needed = !p.needers(func, m, Some(g)).is_empty();
        if needed {
            for &o in &func.eqns[m].outputs {
                let read_outside = p.is_result[o.index()]
                    || p.users[o.index()].iter().any(|&u| {
                        !p.dead[u]
                            && (class(&func.eqns[u].prim) == Class::Launch
                                || p.member_of[u].iter().any(|&h| h != g && !p.groups[h].members.contains(&m)))
                    });
                if read_outside {
                    out.push(o);
                }
            }
        }
    }
    out
}

/// The kernel Func of group `g`.
fn build_kernel(func: &Func, p: &Partition, g: usize, name: &str, ins: &[Value], outs: &[Value]) -> Func {
    let mut k = Func::new(name);
    k.set_attr("kind", AttrValue::Str("fusion".into()));
    let mut map: HashMap<Value, Value> = HashMap::new();
    for &v in ins {
        let nv = k.new_value(func.ty(v).clone());
        k.params.push(nv);
        map.insert(v, nv);
    }
    for &m in &p.groups[g].members {
        let eqn = &func.eqns[m];
        let copy = k.copy_eqn(func, eqn, &mut map);
        k.eqns.push(copy);
    }
    k.results = outs.iter().map(|o| map[o]).collect();
    k.result_types = outs.iter().map(|&o| func.ty(o).clone()).collect();
    k
}
