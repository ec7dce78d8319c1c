//! The partitioner: groups the kernel-able equations of one Func into kernels
//! (the rules are listed in the crate docs).
//!
//! Groups grow consumer-first: equations are visited in reverse order; an equation not
//! yet placed (and still needed) roots a new group, which then considers its producers
//! from the highest index down (so every in-group consumer of a candidate is known when
//! the candidate is judged). A candidate joins as a *primary* member (computed here,
//! written out if needed elsewhere) or as a *copy* (cheap, recomputed here). Every join
//! that could close a cycle between kernels is checked against the graph of groups.

use crate::classify::{Class, class, is_extreme_reduction, view_replicates};
use ferrax_ir::prim::Prim;
use ferrax_ir::{DType, Func, Value};
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The most equations (copies included) in one kernel.
pub const MAX_KERNEL_EQNS: usize = 60;
/// The most buffer parameters of one kernel.
pub const MAX_KERNEL_PARAMS: usize = 16;
/// The most kernels a cheap equation is copied into.
pub const MAX_COPIES: usize = 2;
/// The most copied (non-source) equations in one kernel.
pub const MAX_COPIES_PER_KERNEL: usize = 8;

/// One group (a future kernel).
#[derive(Clone, Debug)]
pub(crate) struct Group {
    /// Every member, primary or copy, by equation index.
    pub members: BTreeSet<usize>,
    /// The reduction, if the group holds one.
    pub reduction: Option<usize>,
    /// The equation the group grew from (its result has the loop shape).
    pub root: usize,
}

/// The result of partitioning one Func.
pub(crate) struct Partition {
    /// The groups.
    pub groups: Vec<Group>,
    /// The group computing each equation (`None`: launch, or only copies of it are used).
    pub primary: Vec<Option<usize>>,
    /// Equations whose every use reads a copy (they get no kernel of their own).
    pub dead: Vec<bool>,
    /// Users of every value (equation indices).
    pub users: Vec<Vec<usize>>,
    /// Values returned by the Func.
    pub is_result: Vec<bool>,
    /// The defining equation of every value.
    pub defs: Vec<Option<usize>>,
    /// The groups holding each equation (as primary member or copy).
    pub member_of: Vec<Vec<usize>>,
    /// Equations computing index constants ([`index_constants`]), copied freely.
    index_constant: Vec<bool>,
    /// A topological order of the graph of groups and lone equations, by node
    /// (`join_keeps_order`): equation `e` is node `e`, group `g` node `n + g`.
    order: Vec<u64>,
    /// The work of partitioning: candidates judged, and nodes and edges visited by the
    /// cycle checks (what grows with the program, for tests of the planner's cost).
    pub work: Cell<usize>,
}

impl Partition {
    /// The groups (other than `own`) and outside needs of `x`'s outputs: `Some(g)` for a
    /// group reading it without a copy, `None` for anything else (a launch, an equation
    /// not yet placed, a Func result).
    pub(crate) fn needers(&self, func: &Func, x: usize, own: Option<usize>) -> Vec<Option<usize>> {
        let mut out = Vec::new();
        for o in &func.eqns[x].outputs {
            if self.is_result[o.index()] {
                out.push(None);
            }
            for &u in &self.users[o.index()] {
                if self.dead[u] {
                    continue;
                }
                match (class(&func.eqns[u].prim), self.primary[u]) {
                    (Class::Launch, _) | (_, None) => out.push(None),
                    (_, Some(_)) => {}
                }
                for &h in &self.member_of[u] {
                    if Some(h) != own && !self.groups[h].members.contains(&x) {
                        out.push(Some(h));
                    }
                }
            }
        }
        out
    }

    /// The values read by group `g` and defined outside it, in first-use order.
    pub(crate) fn inputs_of(&self, func: &Func, g: usize) -> Vec<Value> {
        let members = &self.groups[g].members;
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for &m in members {
            for &v in &func.eqns[m].inputs {
                let inside = self.defs[v.index()].is_some_and(|d| members.contains(&d));
                if !inside && seen.insert(v) {
                    out.push(v);
                }
            }
        }
        out
    }
}

/// Partitions `func` (a Func without calls).
pub(crate) fn partition(func: &Func) -> Partition {
    let n = func.eqns.len();
    let nv = func.value_types.len();
    let mut users = vec![Vec::new(); nv];
    let mut defs = vec![None; nv];
    for (i, eqn) in func.eqns.iter().enumerate() {
        for v in &eqn.inputs {
            users[v.index()].push(i);
        }
        for o in &eqn.outputs {
            defs[o.index()] = Some(i);
        }
    }
    let mut is_result = vec![false; nv];
    for r in &func.results {
        is_result[r.index()] = true;
    }
    let index_constant = index_constants(func, &defs);
    let mut p = Partition {
        index_constant,
        groups: Vec::new(),
        primary: vec![None; n],
        dead: vec![false; n],
        users,
        is_result,
        defs,
        member_of: vec![Vec::new(); n],
        order: (0..2 * n as u64).collect(),
        work: Cell::new(0),
    };
    for i in (0..n).rev() {
        if class(&func.eqns[i].prim) == Class::Launch || p.primary[i].is_some() {
            continue;
        }
        if p.needers(func, i, None).is_empty() {
            p.dead[i] = true;
            continue;
        }
        let reduction = (class(&func.eqns[i].prim) == Class::Reduction).then_some(i);
        p.groups.push(Group { members: BTreeSet::from([i]), reduction, root: i });
        let g = p.groups.len() - 1;
        // The group takes the place of its root's node (same edges, same position).
        p.order[n + g] = p.order[i];
        p.member_of[i].push(g);
        p.primary[i] = Some(g);
        grow(func, &mut p, g);
    }
    p
}

/// How a candidate joins a group.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Join {
    /// Computed here; written out if needed elsewhere.
    Primary,
    /// Recomputed here; the original stays for other readers.
    Copy,
}

fn grow(func: &Func, p: &mut Partition, g: usize) {
    let mut work: BTreeSet<usize> = BTreeSet::new();
    let push_producers = |p: &Partition, m: usize, work: &mut BTreeSet<usize>| {
        for v in &func.eqns[m].inputs {
            if let Some(d) = p.defs[v.index()] {
                work.insert(d);
            }
        }
    };
    push_producers(p, *p.groups[g].members.first().unwrap_or(&0), &mut work);
    while let Some(c) = work.pop_last() {
        p.work.set(p.work.get() + 1);
        if p.groups[g].members.contains(&c) || p.primary[c].is_some() {
            continue;
        }
        let Some(join) = decide(func, p, g, c) else { continue };
        let extra_result = join == Join::Primary && !p.needers(func, c, Some(g)).is_empty();
        p.groups[g].members.insert(c);
        p.member_of[c].push(g);
        if join == Join::Primary {
            p.primary[c] = Some(g);
            if class(&func.eqns[c].prim) == Class::Reduction {
                p.groups[g].reduction = Some(c);
            }
        }
        let computing = p.groups[g].members.iter().filter(|&&m| class(&func.eqns[m].prim) != Class::Source).count();
        let fits = computing <= MAX_KERNEL_EQNS && p.inputs_of(func, g).len() <= MAX_KERNEL_PARAMS;
        // Only an extra result adds edges that may close a cycle (`join_keeps_order`).
        if !fits || (extra_result && !join_keeps_order(func, p, g, c)) {
            p.groups[g].members.remove(&c);
            p.member_of[c].retain(|&h| h != g);
            if join == Join::Primary {
                p.primary[c] = None;
                if p.groups[g].reduction == Some(c) {
                    p.groups[g].reduction = None;
                }
            }
            continue;
        }
        push_producers(p, c, &mut work);
    }
}

/// Whether and how candidate `c` (a producer of a member of `g`) joins `g`.
fn decide(func: &Func, p: &Partition, g: usize, c: usize) -> Option<Join> {
    let group = &p.groups[g];
    let needed_elsewhere = !p.needers(func, c, Some(g)).is_empty();
    match class(&func.eqns[c].prim) {
        Class::Launch => None,
        Class::Source => Some(Join::Copy),
        Class::Reduction => {
            if group.reduction.is_some() || !epilogue_ok(func, p, g, c) {
                return None;
            }
            // A reduction needed elsewhere is a result of shape S_out: allowed.
            Some(Join::Primary)
        }
        Class::Elementwise { expensive } => {
            if !needed_elsewhere {
                return (!expensive || once(func, p, g, c, &mut HashMap::new())).then_some(Join::Primary);
            }
            if !expensive && copy_ok(func, p, g, c) {
                return Some(Join::Copy);
            }
            multi_output_ok(func, p, g, c).then_some(Join::Primary)
        }
        Class::View => {
            if !needed_elsewhere {
                return Some(Join::Primary);
            }
            if copy_ok(func, p, g, c) {
                return Some(Join::Copy);
            }
            multi_output_ok(func, p, g, c).then_some(Join::Primary)
        }
    }
}

/// The members of `g` that read (directly) a value of equation `x`.
fn users_in(func: &Func, p: &Partition, g: usize, x: usize) -> BTreeSet<usize> {
    let members = &p.groups[g].members;
    func.eqns[x]
        .outputs
        .iter()
        .flat_map(|o| p.users[o.index()].iter().copied())
        .filter(|u| members.contains(u))
        .collect()
}

/// True when member `x` of `g` reaches `g`'s reduction through members.
fn upstream_of_reduction(func: &Func, p: &Partition, g: usize, x: usize) -> bool {
    let Some(r) = p.groups[g].reduction else { return false };
    let mut stack = vec![x];
    let mut seen = HashSet::new();
    while let Some(m) = stack.pop() {
        if m == r {
            return true;
        }
        if seen.insert(m) {
            stack.extend(users_in(func, p, g, m));
        }
    }
    false
}

/// True when the values of `x` would be computed once per element inside `g`: every
/// path to the kernel's results keeps one index (elementwise users at one index, a
/// reduction, views that read each element at most once).
fn once(func: &Func, p: &Partition, g: usize, x: usize, memo: &mut HashMap<usize, bool>) -> bool {
    if let Some(&known) = memo.get(&x) {
        return known;
    }
    let answer = once_uncached(func, p, g, x, memo);
    memo.insert(x, answer);
    answer
}

fn once_uncached(func: &Func, p: &Partition, g: usize, x: usize, memo: &mut HashMap<usize, bool>) -> bool {
    let users = users_in(func, p, g, x);
    let classes: Vec<Class> = users.iter().map(|&u| class(&func.eqns[u].prim)).collect();
    if users.len() >= 2 {
        let all_pointwise = classes.iter().all(|c| matches!(c, Class::Elementwise { .. } | Class::Reduction));
        let ups: HashSet<bool> = users.iter().map(|&u| upstream_of_reduction(func, p, g, u)).collect();
        if !all_pointwise || ups.len() > 1 {
            return false;
        }
    }
    users.iter().zip(&classes).all(|(&u, c)| match c {
        Class::Reduction => true,
        Class::Elementwise { .. } => once(func, p, g, u, memo),
        Class::View => {
            let eqn = &func.eqns[u];
            let elems = |v: &Value| func.ty(*v).shape.iter().product::<usize>();
            let reads = eqn.inputs.first().map_or(0, elems);
            let writes = eqn.outputs.first().map_or(0, elems);
            !view_replicates(&eqn.prim, reads, writes) && once(func, p, g, u, memo)
        }
        Class::Source | Class::Launch => false,
    })
}

/// A reduction `r` may join `g` when every member that depends on it is elementwise
/// (the epilogue, on the reduced shape).
fn epilogue_ok(func: &Func, p: &Partition, g: usize, r: usize) -> bool {
    let mut stack: Vec<usize> = users_in(func, p, g, r).into_iter().collect();
    let mut seen = HashSet::new();
    while let Some(m) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        if !matches!(class(&func.eqns[m].prim), Class::Elementwise { .. }) {
            return false;
        }
        stack.extend(users_in(func, p, g, m));
    }
    true
}

/// A cheap candidate may be copied: only kernels read it (a copy saves nothing when a
/// launch or a Func result needs the buffer anyway), few copies, not the input of a
/// max/min reduction (softmax's shared `x`), and the group's copy budget not spent.
fn copy_ok(func: &Func, p: &Partition, g: usize, c: usize) -> bool {
    let buffer_needed = func.eqns[c].outputs.iter().any(|o| {
        p.is_result[o.index()] || p.users[o.index()].iter().any(|&u| class(&func.eqns[u].prim) == Class::Launch)
    });
    if buffer_needed {
        return false;
    }
    if p.index_constant[c] {
        return true;
    }
    let copies = p.member_of[c].len();
    let group_copies = p.groups[g]
        .members
        .iter()
        .filter(|&&m| p.primary[m] != Some(g) && matches!(class(&func.eqns[m].prim), Class::Elementwise { .. }))
        .count();
    // A view only re-indexes a buffer: its copies cost no arithmetic.
    let view = class(&func.eqns[c].prim) == Class::View;
    (view || (copies < MAX_COPIES && group_copies < MAX_COPIES_PER_KERNEL)) && !feeds_extreme(func, p, c, 4)
}

/// How many cheap equations above its sources an index constant may be.
const INDEX_CONSTANT_DEPTH: usize = 8;

/// For every equation, whether it computes an *index constant*: integers or bools from
/// sources alone (`iota`, `constant`) through cheap elementwise ops and views, at most
/// [`INDEX_CONSTANT_DEPTH`] equations above them (a causal mask `le(iota, iota)`
/// broadcast over the batch, a one-hot's positions). Such a value is copied into every
/// kernel that reads it, like a source: integer and bool arithmetic is exact, so every
/// copy has the same bits (the concern that keeps softmax's `x` from being copied does
/// not arise), and a few integer ops per element cost less than the buffer they
/// replace, which is also bytes that a vector loop could not load. One pass in
/// equation order (operands come first), so the partitioner only looks the answer up.
fn index_constants(func: &Func, defs: &[Option<usize>]) -> Vec<bool> {
    // Equations above the sources, for the index constants.
    let mut height: Vec<Option<usize>> = vec![None; func.eqns.len()];
    for (i, eqn) in func.eqns.iter().enumerate() {
        let exact = eqn.outputs.iter().all(|o| matches!(func.ty(*o).dtype, DType::I32 | DType::Bool));
        let above = |h: &[Option<usize>]| {
            eqn.inputs.iter().try_fold(0, |m, v| defs[v.index()].and_then(|d| h[d]).map(|k| m.max(k)))
        };
        height[i] = match class(&eqn.prim) {
            Class::Source => Some(0),
            Class::Elementwise { expensive: false } | Class::View => {
                above(&height).map(|k| k + 1).filter(|&k| k <= INDEX_CONSTANT_DEPTH)
            }
            Class::Elementwise { expensive: true } | Class::Reduction | Class::Launch => None,
        }
        .filter(|_| exact);
    }
    height.iter().map(Option::is_some).collect()
}

/// True when `x`'s value reaches a max/min reduction through at most `depth` cheap
/// equations.
fn feeds_extreme(func: &Func, p: &Partition, x: usize, depth: usize) -> bool {
    func.eqns[x].outputs.iter().flat_map(|o| p.users[o.index()].iter()).any(|&u| {
        let prim: &Prim = &func.eqns[u].prim;
        is_extreme_reduction(prim)
            || (depth > 0
                && matches!(class(prim), Class::Elementwise { expensive: false } | Class::View)
                && feeds_extreme(func, p, u, depth - 1))
    })
}

/// A candidate needed elsewhere may still be computed here, once, and written out as
/// a second result, when it is computed at the loop index: in a group without a
/// reduction, it has the loop shape and reaches the root through elementwise members
/// only; in a group with one, it has the reduction's input shape and reaches the
/// reduction through elementwise members only.
fn multi_output_ok(func: &Func, p: &Partition, g: usize, c: usize) -> bool {
    let group = &p.groups[g];
    let eqn = &func.eqns[c];
    if eqn.outputs.len() != 1 || (crate::classify::is_expensive(&eqn.prim) && !once(func, p, g, c, &mut HashMap::new()))
    {
        return false;
    }
    let shape = &func.ty(eqn.outputs[0]).shape;
    match group.reduction {
        Some(r) => {
            shape == &func.ty(func.eqns[r].inputs[0]).shape
                && users_in(func, p, g, c).iter().all(|&u| upstream_of_reduction(func, p, g, u))
                && pointwise_to(func, p, g, c, r, &mut HashSet::new())
        }
        None => {
            let root = &func.eqns[group.root];
            root.outputs.len() == 1
                && shape == &func.ty(root.outputs[0]).shape
                && pointwise_to(func, p, g, c, group.root, &mut HashSet::new())
        }
    }
}

/// True when every in-group path from `x` reaches `target` through elementwise
/// members only (so `x` is computed at the target's index). `checked` holds the
/// members already visited.
fn pointwise_to(func: &Func, p: &Partition, g: usize, x: usize, target: usize, checked: &mut HashSet<usize>) -> bool {
    if !checked.insert(x) {
        return true;
    }
    users_in(func, p, g, x).into_iter().all(|u| {
        u == target
            || (matches!(class(&func.eqns[u].prim), Class::Elementwise { .. })
                && pointwise_to(func, p, g, u, target, checked))
    })
}

/// The nodes of the graph the cycle check walks: groups, and equations outside every
/// group (not yet placed, or launches). Node ids: equation `e` is `e`, group `g` is
/// `n + g` (`n` equations).
fn group_node(p: &Partition, g: usize) -> usize {
    p.primary.len() + g
}

/// Calls `f` with every successor of node `node`: the groups reading a value computed
/// there (a group reading it through its own copy has no edge) and the lone equations
/// reading it. Counts the edges examined in `p.work`.
fn for_each_successor(func: &Func, p: &Partition, node: usize, mut f: impl FnMut(usize) -> bool) -> bool {
    let n = p.primary.len();
    let mut visit = |d: usize, work: &mut usize| -> bool {
        for o in &func.eqns[d].outputs {
            for &u in &p.users[o.index()] {
                *work += 1;
                let alone = (p.primary[u].is_none() && !p.dead[u]).then_some(u);
                for next in p.member_of[u].iter().map(|&h| n + h).chain(alone) {
                    if next == node || (next >= n && p.groups[next - n].members.contains(&d)) {
                        continue;
                    }
                    if f(next) {
                        return true;
                    }
                }
            }
        }
        false
    };
    let mut work = 0;
    let found = if node >= n {
        let g = node - n;
        p.groups[g].members.iter().filter(|&&m| p.primary[m] == Some(g)).any(|&d| visit(d, &mut work))
    } else {
        visit(node, &mut work)
    };
    p.work.set(p.work.get() + work);
    found
}

/// Calls `f` with every predecessor of node `node`: the node computing each value its
/// equations read from outside it.
fn for_each_predecessor(func: &Func, p: &Partition, node: usize, mut f: impl FnMut(usize)) {
    let n = p.primary.len();
    let mut work = 0;
    let mut visit = |m: usize, own: Option<usize>| {
        for v in &func.eqns[m].inputs {
            work += 1;
            let Some(d) = p.defs[v.index()] else { continue };
            if own.is_some_and(|g| p.groups[g].members.contains(&d)) {
                continue;
            }
            match p.primary[d] {
                Some(h) => f(n + h),
                None if !p.dead[d] => f(d),
                None => {}
            }
        }
    };
    if node >= n {
        let g = node - n;
        p.groups[g].members.iter().for_each(|&m| visit(m, Some(g)));
    } else {
        visit(node, None);
    }
    p.work.set(p.work.get() + work);
}

/// Group `g` has just taken `c` as a primary member whose values other nodes read
/// (an extra result): the edges from `c`'s old node to those readers now leave `g`.
/// Returns false (and leaves the order as it was) when one of those readers reaches
/// `g`, which would close a cycle; otherwise keeps `p.order` a topological order of the
/// graph.
///
/// Every other kind of join cannot close a cycle: a copy adds edges from the producers
/// of `c` to `g`, and a producer read by `g` alone moves its in-edges to `g`, both
/// following the existing path through `c`. So only here is a search needed, and it
/// is the incremental topological ordering of Pearce and Kelly (2006): the graph keeps
/// an order in which every edge goes forward; a new edge `g -> s` that goes backward is
/// checked by a search from `s` over the nodes ordered before `g` only, and the nodes
/// found there and those reaching `g` from after `s` swap places. The work is bounded by
/// the region between `s` and `g` in the order, not by everything `g` reaches: a search
/// from `g` over the whole graph costs the length of the program per candidate.
fn join_keeps_order(func: &Func, p: &mut Partition, g: usize, c: usize) -> bool {
    let n = p.primary.len();
    let gn = group_node(p, g);
    let mut readers = Vec::new();
    for o in &func.eqns[c].outputs {
        for &u in &p.users[o.index()] {
            let alone = (p.primary[u].is_none() && !p.dead[u]).then_some(u);
            for next in p.member_of[u].iter().map(|&h| n + h).chain(alone) {
                if next != gn && !(next >= n && p.groups[next - n].members.contains(&c)) {
                    readers.push(next);
                }
            }
        }
    }
    let mut undo: Vec<(usize, u64)> = Vec::new();
    for s in readers {
        if p.order[s] > p.order[gn] {
            continue;
        }
        if !reorder(func, p, gn, s, &mut undo) {
            for (node, old) in undo.into_iter().rev() {
                p.order[node] = old;
            }
            return false;
        }
    }
    true
}

/// One backward edge `x -> y` (`order[y] < order[x]`): false if `y` reaches `x` (a
/// cycle); otherwise the nodes between are reordered so every edge goes forward again,
/// each change logged in `undo`.
fn reorder(func: &Func, p: &mut Partition, x: usize, y: usize, undo: &mut Vec<(usize, u64)>) -> bool {
    let (lower, upper) = (p.order[y], p.order[x]);
    // Forward from `y` over nodes ordered before `x`.
    let mut forward = vec![y];
    let mut seen: HashSet<usize> = HashSet::from([y]);
    let mut stack = vec![y];
    while let Some(node) = stack.pop() {
        let hit = for_each_successor(func, p, node, |next| {
            if next == x {
                return true;
            }
            if p.order[next] < upper && seen.insert(next) {
                forward.push(next);
                stack.push(next);
            }
            false
        });
        if hit {
            return false;
        }
    }
    // Backward from `x` over nodes ordered after `y`.
    let mut backward = vec![x];
    let mut seen_back: HashSet<usize> = HashSet::from([x]);
    let mut stack = vec![x];
    while let Some(node) = stack.pop() {
        let mut found = Vec::new();
        for_each_predecessor(func, p, node, |prev| {
            if p.order[prev] > lower && seen_back.insert(prev) {
                found.push(prev);
            }
        });
        backward.extend(&found);
        stack.extend(found);
    }
    // The nodes reaching `x` take the lowest of the positions, in their old order, then
    // those `y` reaches.
    backward.sort_by_key(|&v| p.order[v]);
    forward.sort_by_key(|&v| p.order[v]);
    let mut slots: Vec<u64> = backward.iter().chain(&forward).map(|&v| p.order[v]).collect();
    slots.sort_unstable();
    for (v, slot) in backward.into_iter().chain(forward).zip(slots) {
        if p.order[v] != slot {
            undo.push((v, p.order[v]));
            p.order[v] = slot;
        }
    }
    p.work.set(p.work.get() + seen.len() + seen_back.len());
    true
}
