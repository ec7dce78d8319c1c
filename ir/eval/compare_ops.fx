; eq ne lt le gt ge on every dtype: floats compare as IEEE values (NaN is unordered, so
; only ne holds; -0 == +0), bools order false < true.

; All six comparisons of the same f32 pairs.
func @compare_f32(%x: f32[9], %y: f32[9]) -> (bool[9], bool[9], bool[9], bool[9], bool[9], bool[9]) {
  %eq: bool[9] = eq(%x, %y)
  %ne: bool[9] = ne(%x, %y)
  %lt: bool[9] = lt(%x, %y)
  %le: bool[9] = le(%x, %y)
  %gt: bool[9] = gt(%x, %y)
  %ge: bool[9] = ge(%x, %y)
  return %eq, %ne, %lt, %le, %gt, %ge
}
; run
; in: f32[9] = [1.0, 1.0, 2.0, nan, nan, 1.0, -0.0, inf, -inf]
; in: f32[9] = [1.0, 2.0, 1.0, 1.0, nan, nan, 0.0, inf, 3.4028235e38]
; out0: bool[9] = [true, false, false, false, false, false, true, true, false]
; out1: bool[9] = [false, true, true, true, true, true, false, false, true]
; out2: bool[9] = [false, true, false, false, false, false, false, false, true]
; out3: bool[9] = [true, true, false, false, false, false, true, true, true]
; out4: bool[9] = [false, false, true, false, false, false, false, false, false]
; out5: bool[9] = [true, false, true, false, false, false, true, true, false]
; run
; in: f32[9] = [1e-45, -1e-45, inf, -inf, 0.0, 16777216.0, 0.1, -1.0, nan]
; in: f32[9] = [0.0, -0.0, nan, -inf, 1e-45, 16777217.0, 0.1, -2.0, inf]
; out0: bool[9] = [false, false, false, true, false, true, true, false, false]
; out1: bool[9] = [true, true, true, false, true, false, false, true, true]
; out2: bool[9] = [false, true, false, false, true, false, false, false, false]
; out3: bool[9] = [false, true, false, true, true, true, true, false, false]
; out4: bool[9] = [true, false, false, false, false, false, false, true, false]
; out5: bool[9] = [true, false, false, true, false, true, true, true, false]

; All six comparisons of the same f64 pairs.
func @compare_f64(%x: f64[5], %y: f64[5]) -> (bool[5], bool[5], bool[5], bool[5], bool[5], bool[5]) {
  %eq: bool[5] = eq(%x, %y)
  %ne: bool[5] = ne(%x, %y)
  %lt: bool[5] = lt(%x, %y)
  %le: bool[5] = le(%x, %y)
  %gt: bool[5] = gt(%x, %y)
  %ge: bool[5] = ge(%x, %y)
  return %eq, %ne, %lt, %le, %gt, %ge
}
; run
; in: f64[5] = [0.1, nan, -0.0, 5e-324, 9007199254740992.0]
; in: f64[5] = [0.1, nan, 0.0, 0.0, 9007199254740994.0]
; out0: bool[5] = [true, false, true, false, false]
; out1: bool[5] = [false, true, false, true, true]
; out2: bool[5] = [false, false, false, false, true]
; out3: bool[5] = [true, false, true, false, true]
; out4: bool[5] = [false, false, false, true, false]
; out5: bool[5] = [true, false, true, true, false]

; All six comparisons of the same i32 pairs (signed order).
func @compare_i32(%x: i32[5], %y: i32[5]) -> (bool[5], bool[5], bool[5], bool[5], bool[5], bool[5]) {
  %eq: bool[5] = eq(%x, %y)
  %ne: bool[5] = ne(%x, %y)
  %lt: bool[5] = lt(%x, %y)
  %le: bool[5] = le(%x, %y)
  %gt: bool[5] = gt(%x, %y)
  %ge: bool[5] = ge(%x, %y)
  return %eq, %ne, %lt, %le, %gt, %ge
}
; run
; in: i32[5] = [-2147483648, 2147483647, -1, 3, 0]
; in: i32[5] = [2147483647, -2147483648, 0, 3, -1]
; out0: bool[5] = [false, false, false, true, false]
; out1: bool[5] = [true, true, true, false, true]
; out2: bool[5] = [true, false, true, false, false]
; out3: bool[5] = [true, false, true, true, false]
; out4: bool[5] = [false, true, false, false, true]
; out5: bool[5] = [false, true, false, true, true]

; All six comparisons of every pair of bools.
func @compare_bool(%x: bool[4], %y: bool[4]) -> (bool[4], bool[4], bool[4], bool[4], bool[4], bool[4]) {
  %eq: bool[4] = eq(%x, %y)
  %ne: bool[4] = ne(%x, %y)
  %lt: bool[4] = lt(%x, %y)
  %le: bool[4] = le(%x, %y)
  %gt: bool[4] = gt(%x, %y)
  %ge: bool[4] = ge(%x, %y)
  return %eq, %ne, %lt, %le, %gt, %ge
}
; run
; in: bool[4] = [false, false, true, true]
; in: bool[4] = [false, true, false, true]
; out0: bool[4] = [true, false, false, true]
; out1: bool[4] = [false, true, true, false]
; out2: bool[4] = [false, true, false, false]
; out3: bool[4] = [true, true, false, true]
; out4: bool[4] = [false, false, true, false]
; out5: bool[4] = [true, false, true, true]
