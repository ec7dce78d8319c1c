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
use ferrax_ir::{Func, Value};
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
    let mut p = Partition {
        groups: Vec::new(),
        primary: vec![None; n],
        dead: vec![false; n],
        users,
        is_result,
        defs,
        member_of: vec![Vec::new(); n],
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
        // Only a copy (of an equation with operands) or an extra result adds edges that
        // may close a cycle: a producer read by this group alone has it as its only
        // successor, and a source has no operands.
        let may_cycle = match join {
            Join::Copy => class(&func.eqns[c].prim) != Class::Source,
            Join::Primary => extra_result,
        };
        if !fits || (may_cycle && on_cycle(func, p, g)) {
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

/// True when group `g` lies on a cycle of the graph of groups (and of the equations
/// outside every group). The graph had no cycle before `g` last changed and every
/// edge that change added or moved touches `g`, so a new cycle passes through `g`: a
/// search along data edges from `g` looks for `g` again. It visits only what `g`
/// reaches, where checking the whole graph would cost every node and edge per
/// candidate (quadratic in a long program).
fn on_cycle(func: &Func, p: &Partition, g: usize) -> bool {
    let ng = p.groups.len();
    let mut seen = vec![false; ng + func.eqns.len()];
    let mut stack = vec![g];
    let mut computed: Vec<usize> = Vec::new();
    while let Some(node) = stack.pop() {
        // The equations whose values leave `node`: a group's primary members, or the
        // equation itself.
        computed.clear();
        match node < ng {
            true => computed.extend(p.groups[node].members.iter().filter(|&&m| p.primary[m] == Some(node))),
            false => computed.push(node - ng),
        }
        for &d in &computed {
            for o in &func.eqns[d].outputs {
                for &u in &p.users[o.index()] {
                    let alone = (p.primary[u].is_none() && !p.dead[u]).then_some(ng + u);
                    for next in p.member_of[u].iter().copied().chain(alone) {
                        // A group reading `d` as its own (copied) member has no edge.
                        let fresh = next != node && (next == g || !seen[next]);
                        if !fresh || (next < ng && p.groups[next].members.contains(&d)) {
                            continue;
                        }
                        if next == g {
                            return true;
                        }
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
        }
    }
    false
}
