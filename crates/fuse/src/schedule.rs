//! From a partition to the fused Func: one `call` of a kernel per group, the launches
//! kept as they are, in a depth-first post-order from the results.
//!
//! The order visits each result in turn (the one needing the fewest nodes first) and,
//! before a launch or kernel, its producers in operand order: a branch of the graph is finished before the next one starts, so
//! fewer intermediate buffers are live at once than in a breadth-first order.
//!
//! Reached depth-first, an `offload` would come just before its `reload` (its only
//! reader), keeping the value in memory all along; so each `offload` then moves up to
//! right after the producer of its operand, and the value leaves memory as soon as its
//! other readers are done.

use crate::classify::{Class, class};
use crate::partition::{Partition, partition};
use ferrax_ir::prim::Prim;
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
    let graph = Graph { func, p: &p };
    let order = offloads_early(func, launch_order(&graph), |v| graph.provider(v));
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

/// The graph of kernels and launches of a partitioned Func.
struct Graph<'a> {
    func: &'a Func,
    p: &'a Partition,
}

impl Graph<'_> {
    /// The node computing `v` (`None` for a parameter).
    fn provider(&self, v: Value) -> Option<Node> {
        let d = self.p.defs[v.index()]?;
        if class(&self.func.eqns[d].prim) == Class::Launch {
            Some(Node::Launch(d))
        } else {
            self.p.primary[d].map(Node::Kernel)
        }
    }

    fn inputs(&self, node: Node) -> Vec<Value> {
        match node {
            Node::Kernel(g) => self.p.inputs_of(self.func, g),
            Node::Launch(e) => self.func.eqns[e].inputs.to_vec(),
        }
    }

    fn outputs(&self, node: Node) -> Vec<Value> {
        match node {
            Node::Kernel(g) => kernel_outputs(self.func, self.p, g),
            Node::Launch(e) => self.func.eqns[e].outputs.to_vec(),
        }
    }

    /// Every node once, in the order of their first equations.
    fn nodes(&self) -> Vec<Node> {
        let mut seen = std::collections::HashSet::new();
        (0..self.func.eqns.len())
            .filter_map(|e| self.func.eqns[e].outputs.first().and_then(|&o| self.provider(o)))
            .filter(|n| seen.insert(*n))
            .collect()
    }

    fn bytes(&self, values: &[Value]) -> u64 {
        values.iter().map(|&v| self.func.ty(v).byte_size().unwrap_or(u64::MAX)).fold(0, u64::saturating_add)
    }
}

/// Above this many (result, node) pairs, the results are walked in the order the Func
/// defines them instead of by the size of what they need (which costs that many steps).
const MAX_CONE_WORK: usize = 1 << 22;

/// The launch order: a depth-first post-order from the results, the result that needs
/// the fewest nodes first (ties: the one defined first), in which a node whose operands
/// are all computed is launched at once when that frees at least the bytes it
/// allocates (the last read of an operand). In reverse mode the last layer's gradient
/// needs the fewest nodes, the first input's the most: walking the other way would
/// compute every cotangent first and keep each alive until its weight's gradient.
/// Linear in the program (apart from the bounded cone sizes).
fn launch_order(g: &Graph) -> Vec<Node> {
    let mut walk = Walk::new(g);
    let mut seen = vec![false; walk.nodes.len()];
    let mut roots: Vec<(usize, usize, usize)> = Vec::new();
    for &r in &g.func.results {
        if let (Some(d), Some(i)) = (g.p.defs[r.index()], walk.producer[r.index()])
            && !std::mem::replace(&mut seen[i], true)
        {
            roots.push((0, d, i));
        }
    }
    if roots.len().saturating_mul(walk.nodes.len()) <= MAX_CONE_WORK {
        for root in &mut roots {
            root.0 = walk.cone_size(root.2);
        }
    }
    roots.sort_by_key(|&(cone, d, _)| (cone, d));
    for &(_, _, start) in &roots {
        walk.dfs(start);
    }
    walk.order.iter().map(|&i| walk.nodes[i]).collect()
}

/// The state of [`launch_order`]: the graph with its nodes numbered, each node's
/// distinct operands and its results, and the walk so far.
struct Walk<'g, 'a> {
    g: &'g Graph<'a>,
    nodes: Vec<Node>,
    /// Each node's distinct operands and its results.
    inputs: Vec<Vec<Value>>,
    outputs: Vec<Vec<Value>>,
    /// The node computing each value (by value index; `None` for a parameter).
    producer: Vec<Option<usize>>,
    /// The nodes reading each value, each once, by value index.
    consumers: Vec<Vec<usize>>,
    /// Readers not yet emitted, plus one for a result of the Func (never freed).
    remaining: Vec<usize>,
    /// Producers of each node's operands not yet emitted (each counted once).
    pending: Vec<usize>,
    /// On the stack or emitted.
    visited: Vec<bool>,
    order: Vec<usize>,
}

impl<'g, 'a> Walk<'g, 'a> {
    fn new(g: &'g Graph<'a>) -> Walk<'g, 'a> {
        let nodes = g.nodes();
        let index: HashMap<Node, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let n_values = g.func.value_types.len();
        let mut producer = vec![None; n_values];
        let outputs: Vec<Vec<Value>> = nodes.iter().map(|&n| g.outputs(n)).collect();
        for (i, outs) in outputs.iter().enumerate() {
            outs.iter().for_each(|o| producer[o.index()] = Some(i));
        }
        let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n_values];
        let mut pending = vec![0usize; nodes.len()];
        let mut inputs = Vec::with_capacity(nodes.len());
        for (i, &node) in nodes.iter().enumerate() {
            let mut ins = g.inputs(node);
            ins.sort_unstable_by_key(|v| v.index());
            ins.dedup();
            let mut producers: Vec<usize> = Vec::new();
            for &v in &ins {
                consumers[v.index()].push(i);
                // A value read by an equation before its node exists (never in a
                // verified Func) counts as a parameter.
                if let Some(p) = g.provider(v).and_then(|p| index.get(&p).copied()) {
                    producers.push(p);
                }
            }
            producers.sort_unstable();
            producers.dedup();
            pending[i] = producers.len();
            inputs.push(ins);
        }
        let mut remaining: Vec<usize> = consumers.iter().map(Vec::len).collect();
        g.func.results.iter().for_each(|r| remaining[r.index()] += 1);
        let visited = vec![false; nodes.len()];
        Walk { g, nodes, inputs, outputs, producer, consumers, remaining, pending, visited, order: Vec::new() }
    }

    /// The number of nodes `root` needs, itself included.
    fn cone_size(&self, root: usize) -> usize {
        let mut seen = vec![false; self.nodes.len()];
        seen[root] = true;
        let (mut stack, mut count) = (vec![root], 1);
        while let Some(n) = stack.pop() {
            for v in &self.inputs[n] {
                if let Some(p) = self.producer[v.index()]
                    && !std::mem::replace(&mut seen[p], true)
                {
                    count += 1;
                    stack.push(p);
                }
            }
        }
        count
    }

    /// Emits `start` after its producers, depth-first.
    fn dfs(&mut self, start: usize) {
        if std::mem::replace(&mut self.visited[start], true) {
            return;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            if let Some(&v) = self.inputs[node].get(*next) {
                *next += 1;
                if let Some(p) = self.producer[v.index()]
                    && !std::mem::replace(&mut self.visited[p], true)
                {
                    stack.push((p, 0));
                }
            } else {
                stack.pop();
                self.emit(node);
            }
        }
    }

    /// Appends `node`, then every node it makes ready that frees memory, transitively.
    /// A node is looked at when its last producer is emitted or when it becomes the last
    /// reader of one of its operands, so the walk is linear in the graph.
    fn emit(&mut self, node: usize) {
        let mut work = vec![node];
        while let Some(node) = work.pop() {
            self.order.push(node);
            let mut candidates: Vec<usize> = Vec::new();
            for k in 0..self.inputs[node].len() {
                let u = self.inputs[node][k].index();
                self.remaining[u] = self.remaining[u].saturating_sub(1);
                if self.remaining[u] == 1 {
                    candidates.extend(self.consumers[u].iter().copied().filter(|&c| !self.visited[c]));
                }
            }
            let mut readers: Vec<usize> =
                self.outputs[node].iter().flat_map(|v| self.consumers[v.index()].iter().copied()).collect();
            readers.sort_unstable();
            readers.dedup();
            for c in readers {
                self.pending[c] = self.pending[c].saturating_sub(1);
                candidates.push(c);
            }
            for c in candidates {
                if !self.visited[c] && self.pending[c] == 0 && self.frees_memory(c) {
                    self.visited[c] = true;
                    work.push(c);
                }
            }
        }
    }

    /// `c` reads some computed value last, and frees at least the bytes it allocates.
    /// Never a memory primitive: a `reload` waits for its reader, and `offload`s are
    /// placed by [`offloads_early`].
    fn frees_memory(&self, c: usize) -> bool {
        if let Node::Launch(e) = self.nodes[c]
            && matches!(self.g.func.eqns[e].prim, Prim::Memory(_))
        {
            return false;
        }
        let freed: Vec<Value> = self.inputs[c]
            .iter()
            .copied()
            .filter(|&u| self.remaining[u.index()] == 1 && self.producer[u.index()].is_some())
            .collect();
        !freed.is_empty() && self.g.bytes(&self.outputs[c]) <= self.g.bytes(&freed)
    }
}

/// `order` with every `offload` moved to right after the node producing its operand (to
/// the start when a parameter is its operand).
fn offloads_early(func: &Func, order: Vec<Node>, provider: impl Fn(Value) -> Option<Node>) -> Vec<Node> {
    let is_offload = |n: &Node| matches!(n, Node::Launch(e) if func.eqns[*e].prim.is_offload());
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
