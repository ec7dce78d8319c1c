; custom_vjp[func, fwd, bwd]: evaluating runs `func`; fwd and bwd only matter to
; reverse mode. Here fwd's outputs deliberately differ from `func`'s.

; exp(x) from `func`, not fwd's -1
func @exp_vjp(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = custom_vjp[func=@exp, fwd=@exp_fwd, bwd=@exp_bwd](%x)
  return %y
}
; run
; in: f32[3] = [0.0, 1.0, -inf]
; out0: f32[3] = [1.0, 2.7182817, 0.0]

; a float and an i32 primal, two outputs: (x / n, n * n); bwd returns a cotangent for x only
func @mixed(%x: f64[2], %n: i32[2]) -> (f64[2], i32[2]) {
  %y: f64[2], %m: i32[2] = custom_vjp[func=@div_sq, fwd=@div_sq_fwd, bwd=@div_sq_bwd](%x, %n)
  return %y, %m
}
; run
; in: f64[2] = [1.0, 6.0]
; in: i32[2] = [4, -3]
; out0: f64[2] = [0.25, -2.0]
; out1: i32[2] = [16, 9]

func @exp(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = exp(%x)
  return %y
}

func @exp_fwd(%x: f32[3]) -> (f32[3], f32[3]) {
  %wrong: f32[3] = constant[value=-1.0]()
  %y: f32[3] = exp(%x)
  return %wrong, %y
}

func @exp_bwd(%y: f32[3], %ct: f32[3]) -> (f32[3]) {
  %g: f32[3] = mul(%y, %ct)
  return %g
}

func @div_sq(%x: f64[2], %n: i32[2]) -> (f64[2], i32[2]) {
  %nf: f64[2] = convert[dtype=f64](%n)
  %y: f64[2] = div(%x, %nf)
  %m: i32[2] = mul(%n, %n)
  return %y, %m
}

func @div_sq_fwd(%x: f64[2], %n: i32[2]) -> (f64[2], i32[2], f64[2]) {
  %nf: f64[2] = convert[dtype=f64](%n)
  return %x, %n, %nf
}

func @div_sq_bwd(%nf: f64[2], %ct: f64[2], %ctm: i32[2]) -> (f64[2]) {
  %g: f64[2] = div(%ct, %nf)
  return %g
}
