; exp, log, log1p and expm1 on f32 and f64: exact points, overflow and underflow, special values.

; exp on f32: exp(+-0) = 1, overflow to inf past ~88.72, subnormal and zero underflow.
func @exp_f32(%x: f32[11]) -> (f32[11]) {
  %y: f32[11] = exp(%x)
  return %y
}
; run
; in: f32[11] = [0.0, -0.0, 1.0, -1.0, 0.5, 88.0, 89.0, -100.0, -110.0, -inf, inf]
; out0: f32[11] = [1.0, 1.0, 2.7182817, 0.36787945, 1.6487212, 1.6516363e38, inf, 3.8e-44, 0.0, 0.0, inf]
; run
; in: f32[11] = [nan, 10.0, -10.0, 1e-7, -1e-7, 2.0, 3.0, 20.0, -20.0, 80.0, -87.0]
; out0: f32[11] = [nan, 22026.465, 4.539993e-5, 1.0000001, 0.9999999, 7.389056, 20.085537, 485165200.0, 2.0611537e-9, 5.5406225e34, 1.6458115e-38]

; exp on f64: overflow past ~709.78, the smallest subnormal at -745.
func @exp_f64(%x: f64[10]) -> (f64[10]) {
  %y: f64[10] = exp(%x)
  return %y
}
; run
; in: f64[10] = [0.0, 1.0, -1.0, 709.0, 710.0, -745.0, -746.0, inf, -inf, nan]
; out0: f64[10] = [1.0, 2.718281828459045, 0.36787944117144233, 8.218407461554972e307, inf, 5e-324, 0.0, inf, 0.0, nan]

; log on f32: log(+-0) = -inf, negative gives NaN, log(1) = 0, subnormal argument.
func @log_f32(%x: f32[10]) -> (f32[10]) {
  %y: f32[10] = log(%x)
  return %y
}
; run
; in: f32[10] = [1.0, 2.7182817, 0.0, -0.0, -1.0, inf, nan, 1e-45, 10.0, 0.5]
; out0: f32[10] = [0.0, 0.99999994, -inf, -inf, nan, inf, nan, -103.27893, 2.3025851, -0.6931472]

; log on f64.
func @log_f64(%x: f64[8]) -> (f64[8]) {
  %y: f64[8] = log(%x)
  return %y
}
; run
; in: f64[8] = [1.0, 2.718281828459045, 0.0, -0.0, -1e-300, inf, 5e-324, 1e300]
; out0: f64[8] = [0.0, 1.0, -inf, -inf, nan, inf, -744.4400719213812, 690.7755278982137]

; log1p on f32: accurate near 0 (keeps -0), -1 gives -inf, below -1 NaN.
func @log1p_f32(%x: f32[9]) -> (f32[9]) {
  %y: f32[9] = log1p(%x)
  return %y
}
; run
; in: f32[9] = [0.0, -0.0, 1e-10, -1.0, -2.0, inf, nan, 1.0, -0.5]
; out0: f32[9] = [0.0, -0.0, 1e-10, -inf, nan, inf, nan, 0.6931472, -0.6931472]

; log1p on f64.
func @log1p_f64(%x: f64[6]) -> (f64[6]) {
  %y: f64[6] = log1p(%x)
  return %y
}
; run
; in: f64[6] = [1e-20, -0.0, -1.0, 1.0, inf, -1.5]
; out0: f64[6] = [1e-20, -0.0, -inf, 0.6931471805599453, inf, nan]

; expm1 on f32: accurate near 0 (keeps -0), -inf gives -1, large negative saturates at -1.
func @expm1_f32(%x: f32[9]) -> (f32[9]) {
  %y: f32[9] = expm1(%x)
  return %y
}
; run
; in: f32[9] = [0.0, -0.0, 1e-10, -inf, inf, nan, 1.0, -100.0, 89.0]
; out0: f32[9] = [0.0, -0.0, 1e-10, -1.0, inf, nan, 1.7182817, -1.0, inf]

; expm1 on f64.
func @expm1_f64(%x: f64[6]) -> (f64[6]) {
  %y: f64[6] = expm1(%x)
  return %y
}
; run
; in: f64[6] = [1e-20, -0.0, -inf, 1.0, 710.0, -1.0]
; out0: f64[6] = [1e-20, -0.0, -1.0, 1.718281828459045, inf, -0.6321205588285577]
