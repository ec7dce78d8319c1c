//! Graphviz export of a Func (`ferrax dot`).
//!
//! [`dot`] draws one Func as a `digraph`: an ellipse per parameter, a box per equation
//! labelled with its primitive and result types, an ellipse per result, and an edge
//! from each value's definition to each use (labelled with the output index when an
//! equation has several). A `call` of a kernel (a Func marked `[kind="fusion"]`) is
//! drawn as a `subgraph cluster_<k>` holding the kernel's equations, wired to the
//! caller's values; any other structured primitive is a single box naming its bodies.

use ferrax_ir::{AttrValue, Error, Func, Module, Value};
use std::fmt::Write;

/// The Graphviz text of `func` (default: the entry) of `module`.
pub fn dot(module: &Module, func: Option<&str>) -> Result<String, Error> {
    let f = match func {
        Some(name) => module.func(name).ok_or_else(|| crate::error(name, format!("dot: no Func @{name}")))?,
        None => crate::entry(module)?,
    };
    let mut g = Graph { out: String::new(), clusters: 0, indent: "  " };
    let _ = writeln!(g.out, "digraph {} {{", quote(&f.name));
    let _ = writeln!(g.out, "  node [shape=box, fontname=\"monospace\"];");
    let mut env: Vec<Option<(String, Option<usize>)>> = vec![None; f.value_types.len()];
    for (i, &p) in f.params.iter().enumerate() {
        let id = format!("p{i}");
        let _ = writeln!(g.out, "  {id} [shape=ellipse, label={}];", quote(&format!("param {i}: {}", f.ty(p))));
        env[p.index()] = Some((id, None));
    }
    for (i, eqn) in f.eqns.iter().enumerate() {
        let kernel = eqn.prim.callee().and_then(|func| module.func(func)).filter(|k| is_kernel(k));
        match kernel {
            Some(k) => g.cluster(k, &eqn.inputs, &eqn.outputs, &mut env, i),
            None => {
                let id = format!("e{i}");
                let types: Vec<String> = eqn.outputs.iter().map(|&o| f.ty(o).to_string()).collect();
                let callees = eqn.prim.callees();
                let bodies = if callees.is_empty() {
                    String::new()
                } else {
                    format!(" {}", callees.iter().map(|c| format!("@{c}")).collect::<Vec<_>>().join(" "))
                };
                let label = format!("{}{bodies}\n{}", eqn.prim.name(), types.join(", "));
                let _ = writeln!(g.out, "  {id} [label={}];", quote(&label));
                for &v in &eqn.inputs {
                    g.edge(&env, v, &id);
                }
                let many = eqn.outputs.len() > 1;
                for (j, &o) in eqn.outputs.iter().enumerate() {
                    env[o.index()] = Some((id.clone(), many.then_some(j)));
                }
            }
        }
    }
    for (i, &r) in f.results.iter().enumerate() {
        let id = format!("r{i}");
        let _ = writeln!(g.out, "  {id} [shape=ellipse, label={}];", quote(&format!("result {i}: {}", f.ty(r))));
        g.edge(&env, r, &id);
    }
    g.out.push('}');
    Ok(g.out)
}

struct Graph {
    out: String,
    clusters: usize,
    /// Leading spaces of a line (deeper inside a cluster).
    indent: &'static str,
}

impl Graph {
    /// An edge from the definition of `v` (in `env`) to node `to`.
    fn edge(&mut self, env: &[Option<(String, Option<usize>)>], v: Value, to: &str) {
        match env.get(v.index()).cloned().flatten() {
            Some((from, Some(j))) => {
                let _ = writeln!(self.out, "{}{from} -> {to} [label=\"{j}\"];", self.indent);
            }
            Some((from, None)) => {
                let _ = writeln!(self.out, "{}{from} -> {to};", self.indent);
            }
            None => {}
        }
    }

    /// The kernel `k` called by equation `i` as a cluster; its results become
    /// the call's outputs in `env`.
    fn cluster(
        &mut self,
        k: &Func,
        inputs: &[Value],
        outputs: &[Value],
        env: &mut [Option<(String, Option<usize>)>],
        i: usize,
    ) {
        let c = self.clusters;
        self.clusters += 1;
        let _ = writeln!(self.out, "  subgraph cluster_{c} {{");
        self.indent = "    ";
        let _ = writeln!(self.out, "    label={};", quote(&format!("@{} (kernel, equation {i})", k.name)));
        let mut inner: Vec<Option<(String, Option<usize>)>> = vec![None; k.value_types.len()];
        for (&p, &v) in k.params.iter().zip(inputs) {
            inner[p.index()] = env.get(v.index()).cloned().flatten();
        }
        for (j, eqn) in k.eqns.iter().enumerate() {
            let id = format!("k{c}_e{j}");
            let types: Vec<String> = eqn.outputs.iter().map(|&o| k.ty(o).to_string()).collect();
            let _ = writeln!(
                self.out,
                "    {id} [label={}];",
                quote(&format!("{}\n{}", eqn.prim.name(), types.join(", ")))
            );
            for &v in &eqn.inputs {
                self.edge(&inner, v, &id);
            }
            let many = eqn.outputs.len() > 1;
            for (m, &o) in eqn.outputs.iter().enumerate() {
                inner[o.index()] = Some((id.clone(), many.then_some(m)));
            }
        }
        self.indent = "  ";
        let _ = writeln!(self.out, "  }}");
        for (&r, &o) in k.results.iter().zip(outputs) {
            env[o.index()] = inner.get(r.index()).cloned().flatten();
        }
    }
}

fn is_kernel(func: &Func) -> bool {
    matches!(func.attr("kind"), Some(AttrValue::Str(s)) if s == "fusion")
}

/// A Graphviz double-quoted string.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
