; `hessian` of ir/fuzz/nested_cond_shared_branches.fx (a cond whose two branches are
; one Func, nested 12 deep) prints a 2.5 MB module: one specialised copy per path.
; The command fuzz harness flagged it when it timed runs by wall-clock; it takes
; about 3 s of CPU time in the dev build. The case bounds it at 10 s.
; A cond whose two branches are one Func, nested 12 deep (the limits test
; `nesting_at_the_limit_runs_everywhere_on_a_small_stack` nests such conds ~50 deep).
; `dce` (run by opt, vjp and others) visited the shared branch once per path (2^depth
; visits: a hang at depth 50), fixed in crates/transform/src/dce.rs (memoised
; `used_params`); reverse mode's partial evaluation split each cond's branches twice
; per level (4^depth), fixed in crates/transform/src/partial/mod.rs (memoised
; `Rewriter::partial`). Still open: vjp's result has about 2^depth Funcs here (one
; specialised copy per path); depth 12 keeps this replay fast.
func @f0(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f1, @f1]](%p, %x)
  return %y
}
func @f1(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f2, @f2]](%p, %x)
  return %y
}
func @f2(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f3, @f3]](%p, %x)
  return %y
}
func @f3(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f4, @f4]](%p, %x)
  return %y
}
func @f4(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f5, @f5]](%p, %x)
  return %y
}
func @f5(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f6, @f6]](%p, %x)
  return %y
}
func @f6(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f7, @f7]](%p, %x)
  return %y
}
func @f7(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f8, @f8]](%p, %x)
  return %y
}
func @f8(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f9, @f9]](%p, %x)
  return %y
}
func @f9(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f10, @f10]](%p, %x)
  return %y
}
func @f10(%x: f64[]) -> (f64[]) {
  %p: bool[] = constant[value=true]()
  %y: f64[] = cond[branches=[@f11, @f11]](%p, %x)
  return %y
}
func @f11(%x: f64[]) -> (f64[]) {
  %y: f64[] = sin(%x)
  return %y
}
