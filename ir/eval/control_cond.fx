; cond[branches](selector, operands...): an i32 index picks its branch, clamped into
; [0, n-1]; a bool picks branch 1 when true and branch 0 when false.

; three branches picked by an index: in range, too large (the last), negative (the first)
func @by_index(%k: i32[], %x: f32[2]) -> (f32[2]) {
  %y: f32[2] = cond[branches=[@neg, @double, @square]](%k, %x)
  return %y
}
; run
; in: i32[] = [0]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [-3.0, 0.5]
; run
; in: i32[] = [1]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [6.0, -1.0]
; run
; in: i32[] = [2]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [9.0, 0.25]
; run
; in: i32[] = [3]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [9.0, 0.25]
; run
; in: i32[] = [2147483647]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [9.0, 0.25]
; run
; in: i32[] = [-1]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [-3.0, 0.5]
; run
; in: i32[] = [-2147483648]
; in: f32[2] = [3.0, -0.5]
; out0: f32[2] = [-3.0, 0.5]

; a bool predicate with several operands and results of several dtypes:
; false runs branch 0 (@sub_and_lt), true runs branch 1 (@add_and_eq)
func @by_pred(%p: bool[], %a: i32[2], %b: i32[2]) -> (i32[2], bool[2]) {
  %y: i32[2], %z: bool[2] = cond[branches=[@sub_and_lt, @add_and_eq]](%p, %a, %b)
  return %y, %z
}
; run
; in: bool[] = [false]
; in: i32[2] = [5, 7]
; in: i32[2] = [5, 9]
; out0: i32[2] = [0, -2]
; out1: bool[2] = [false, true]
; run
; in: bool[] = [true]
; in: i32[2] = [5, 7]
; in: i32[2] = [5, 9]
; out0: i32[2] = [10, 16]
; out1: bool[2] = [true, false]

; a single branch is taken whatever the index; branches without operands
func @single_and_no_operands(%k: i32[]) -> (f64[], f64[]) {
  %a: f64[] = cond[branches=[@one]](%k)
  %b: f64[] = cond[branches=[@one, @two]](%k)
  return %a, %b
}
; run
; in: i32[] = [5]
; out0: f64[] = [1.0]
; out1: f64[] = [2.0]
; run
; in: i32[] = [0]
; out0: f64[] = [1.0]
; out1: f64[] = [1.0]

func @neg(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = neg(%x)
  return %y
}

func @double(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = add(%x, %x)
  return %y
}

func @square(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = mul(%x, %x)
  return %y
}

func @sub_and_lt(%a: i32[2], %b: i32[2]) -> (i32[2], bool[2]) {
  %d: i32[2] = sub(%a, %b)
  %l: bool[2] = lt(%a, %b)
  return %d, %l
}

func @add_and_eq(%a: i32[2], %b: i32[2]) -> (i32[2], bool[2]) {
  %s: i32[2] = add(%a, %b)
  %e: bool[2] = eq(%a, %b)
  return %s, %e
}

func @one() -> (f64[]) {
  %c: f64[] = constant[value=1.0]()
  return %c
}

func @two() -> (f64[]) {
  %c: f64[] = constant[value=2.0]()
  return %c
}
