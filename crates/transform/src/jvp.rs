//! Forward mode: the jvp pass.
//!
//! `jvp(f, wrt)` returns a Func taking `(params..., one tangent per wrt param)` and
//! returning `(outs..., one tangent per float out)`. Tangents are symbolic (`None`)
//! until a rule produces one: nothing is emitted for parameters outside `wrt`, for
//! integer and bool values, or behind `stop_gradient`; only the results instantiate
//! zeros. Bodies of structured primitives are differentiated on demand through
//! [`JvpContext`], memoised by (Func, input mask, output mask).

use crate::wrt::{Wrt, float_params};
use ferrax_ir::prim::ControlOp;
use ferrax_ir::prim::ad::{JvpContext, JvpFunc};
use ferrax_ir::{Emitter, Error, Func, MAX_NESTING, Module, Place, Prim, Value};
use std::collections::HashMap;

/// The jvp of `module`'s entry with respect to `wrt` (default: every float parameter).
pub fn jvp(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, float_params)?;
    let mut nonzero = vec![false; f.params.len()];
    for &i in &wrt {
        nonzero[i] = true;
    }
    let instantiate: Vec<bool> = f.result_types.iter().map(|t| t.dtype.is_float()).collect();
    let mut pass = JvpPass::new(module);
    let name = format!("{}_jvp", f.name);
    let jf = pass.transform(&f.name, &nonzero, &instantiate, Some(name)).map_err(|e| pass.error(&f.name, e))?;
    // Tangent parameters follow the params in wrt order (the pass adds them in
    // parameter order; reorder when wrt is not sorted).
    let mut entry =
        pass.out.funcs.get(&jf.name).cloned().ok_or_else(|| crate::error(&f.name, "jvp lost its result"))?;
    let n = f.params.len();
    let mut sorted = wrt.clone();
    sorted.sort_unstable();
    let tangent_params: Vec<Value> = entry.params[n..].to_vec();
    for (k, &i) in wrt.iter().enumerate() {
        let position = sorted.iter().position(|&s| s == i).unwrap_or(k);
        entry.params[n + k] = tangent_params[position];
    }
    Ok(crate::assemble(entry, &pass.out))
}

/// The state of one jvp pass: the source module, the module being built (the source
/// Funcs plus every transformed one), and the memo of transformed Funcs.
pub(crate) struct JvpPass {
    pub(crate) out: Module,
    cache: HashMap<(String, Vec<bool>, Vec<bool>), JvpFunc>,
    depth: usize,
    errors_in: Option<String>,
    /// For reverse mode: `custom_vjp` takes the form that runs its `fwd` and `bwd`
    /// (see [`crate::custom`]) instead of differentiating `func`.
    reverse_mode: bool,
}

impl JvpPass {
    pub(crate) fn new(source: &Module) -> JvpPass {
        JvpPass { out: source.clone(), cache: HashMap::new(), depth: 0, errors_in: None, reverse_mode: false }
    }

    /// A pass for reverse mode (see [`JvpPass::reverse_mode`]).
    pub(crate) fn for_reverse_mode(source: &Module) -> JvpPass {
        JvpPass { reverse_mode: true, ..JvpPass::new(source) }
    }

    pub(crate) fn error(&self, func: &str, message: String) -> Error {
        let at = self.errors_in.clone().unwrap_or_else(|| func.to_string());
        Error::transform(Place { func: at, eqn: None, prim: None }, format!("jvp: {message}"))
    }

    /// The source Func of each Func this pass made (jvp'd name -> source name).
    pub(crate) fn sources(&self) -> HashMap<String, String> {
        self.cache.iter().map(|((source, ..), jf)| (jf.name.clone(), source.clone())).collect()
    }

    /// Transforms the Func `name` (see [`JvpContext::jvp_func`]), naming the result
    /// `result_name` when given.
    pub(crate) fn transform(
        &mut self,
        name: &str,
        nonzero: &[bool],
        instantiate: &[bool],
        result_name: Option<String>,
    ) -> Result<JvpFunc, String> {
        let key = (name.to_string(), nonzero.to_vec(), instantiate.to_vec());
        if let Some(done) = self.cache.get(&key) {
            return Ok(done.clone());
        }
        if self.depth >= MAX_NESTING {
            return Err(format!("bodies nest deeper than {MAX_NESTING}"));
        }
        let func = self.out.func(name).cloned().ok_or_else(|| format!("no Func @{name}"))?;
        let new_name = crate::fresh_name(&self.out, &result_name.unwrap_or_else(|| format!("{name}_jvp")));
        self.depth += 1;
        let built = self.build(&func, &new_name, nonzero, instantiate);
        self.depth -= 1;
        let (func_out, out_nonzero) = built.inspect_err(|_| {
            self.errors_in.get_or_insert_with(|| func.name.clone());
        })?;
        self.out.push(func_out);
        let jf = JvpFunc { name: new_name, out_nonzero };
        self.cache.insert(key, jf.clone());
        Ok(jf)
    }

    fn build(
        &mut self,
        func: &Func,
        name: &str,
        nonzero: &[bool],
        instantiate: &[bool],
    ) -> Result<(Func, Vec<bool>), String> {
        let mut em = Emitter::new(name);
        let mut primal: Vec<Option<Value>> = vec![None; func.value_types.len()];
        let mut tangent: Vec<Option<Value>> = vec![None; func.value_types.len()];
        for &p in &func.params {
            primal[p.index()] = Some(em.param(func.ty(p).clone()));
        }
        for (i, &p) in func.params.iter().enumerate() {
            if nonzero.get(i).copied().unwrap_or(false) {
                let t = em.param(func.ty(p).clone());
                // Integer and bool parameters never carry tangents (the parameter
                // still exists, so that signatures stay regular).
                if func.ty(p).dtype.is_float() {
                    tangent[p.index()] = Some(t);
                }
            }
        }
        let get = |map: &[Option<Value>], v: Value| map.get(v.index()).copied().flatten();
        for (index, eqn) in func.eqns.iter().enumerate() {
            em.set_loc(eqn.loc.clone());
            let inputs: Vec<Value> = eqn
                .inputs
                .iter()
                .map(|&v| get(&primal, v).ok_or_else(|| format!("equation {index}: undefined value {v}")))
                .collect::<Result<_, _>>()?;
            let tangents: Vec<Option<Value>> = eqn.inputs.iter().map(|&v| get(&tangent, v)).collect();
            let at = |e: String| format!("equation {index} ({}): {e}", eqn.prim.name());
            let (outputs, out_tangents) = if tangents.iter().all(Option::is_none) {
                (em.eqn(&self.out, eqn.prim.clone(), &inputs).map_err(at)?.to_vec(), vec![None; eqn.outputs.len()])
            } else if self.reverse_mode && matches!(eqn.prim, Prim::Control(ControlOp::CustomVjp { .. })) {
                crate::custom::custom_vjp_for_reverse(self, &mut em, &eqn.prim, &inputs, &tangents).map_err(at)?
            } else {
                eqn.prim.jvp_full(&mut em, self, &inputs, &tangents).map_err(at)?
            };
            for (k, &o) in eqn.outputs.iter().enumerate() {
                primal[o.index()] = outputs.get(k).copied();
                let t = out_tangents.get(k).copied().flatten();
                tangent[o.index()] = t.filter(|_| func.ty(o).dtype.is_float());
            }
        }
        let mut results: Vec<Value> = Vec::new();
        for &r in &func.results {
            results.push(get(&primal, r).ok_or_else(|| format!("undefined result {r}"))?);
        }
        let mut out_nonzero = Vec::with_capacity(func.results.len());
        let mut tangent_results = Vec::new();
        for (i, &r) in func.results.iter().enumerate() {
            let t = match get(&tangent, r) {
                Some(t) => Some(t),
                None if instantiate.get(i).copied().unwrap_or(false) => Some(em.zeros(&func.ty(r).clone())?),
                None => None,
            };
            out_nonzero.push(t.is_some());
            tangent_results.extend(t);
        }
        results.extend(tangent_results);
        Ok((em.finish(&results), out_nonzero))
    }
}

impl JvpContext for JvpPass {
    fn module(&self) -> &Module {
        &self.out
    }

    fn jvp_func(&mut self, name: &str, nonzero: &[bool], instantiate: &[bool]) -> Result<JvpFunc, String> {
        self.transform(name, nonzero, instantiate, None)
    }

    fn scan_body_jvp(
        &mut self,
        name: &str,
        groups: [usize; 3],
        nonzero: &[bool],
        num_carry: usize,
        out_nonzero: &[bool],
    ) -> Result<String, String> {
        let func = self.out.func(name).cloned().ok_or_else(|| format!("no Func @{name}"))?;
        let [k, c, x] = groups;
        let n = k + c + x;
        // Tangent parameters, in input order, follow the n primal parameters.
        let mut tangents = func.params[n..].iter();
        let mut groups_t: [Vec<Value>; 3] = Default::default();
        for (i, &nz) in nonzero.iter().enumerate().take(n) {
            if nz {
                let group = if i < k {
                    0
                } else if i < k + c {
                    1
                } else {
                    2
                };
                groups_t[group].extend(tangents.next());
            }
        }
        let p = &func.params;
        let mut params: Vec<Value> = p[..k].to_vec();
        params.extend(&groups_t[0]);
        params.extend(&p[k..k + c]);
        params.extend(&groups_t[1]);
        params.extend(&p[k + c..n]);
        params.extend(&groups_t[2]);
        let n_out = out_nonzero.len();
        let r = &func.results;
        let carry_t = out_nonzero[..num_carry].iter().filter(|b| **b).count();
        let mut results: Vec<Value> = r[..num_carry].to_vec();
        results.extend(&r[n_out..n_out + carry_t]);
        results.extend(&r[num_carry..n_out]);
        results.extend(&r[n_out + carry_t..]);
        let mut regrouped = func.clone();
        regrouped.name = crate::fresh_name(&self.out, &format!("{name}_scan"));
        regrouped.params = params;
        regrouped.result_types = results.iter().map(|&v| func.ty(v).clone()).collect();
        regrouped.results = results;
        let name = regrouped.name.clone();
        self.out.push(regrouped);
        Ok(name)
    }
}
