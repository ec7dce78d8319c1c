; custom_jvp[func, jvp]: evaluating runs `func`; the jvp rule only matters to jvp.
; Here the rule's primal outputs deliberately differ from `func`'s.

; one float primal: x * x, not the rule's 100
func @square(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = custom_jvp[func=@sq, jvp=@sq_jvp](%x)
  return %y
}
; run
; in: f32[3] = [2.0, -0.5, nan]
; out0: f32[3] = [4.0, 0.25, nan]

; several primals and outputs, including an i32 primal: (x * n, n + 1)
func @mixed(%x: f64[2], %n: i32[2]) -> (f64[2], i32[2]) {
  %y: f64[2], %m: i32[2] = custom_jvp[func=@scale, jvp=@scale_jvp](%x, %n)
  return %y, %m
}
; run
; in: f64[2] = [0.5, -3.0]
; in: i32[2] = [4, -2147483648]
; out0: f64[2] = [2.0, 6442450944.0]
; out1: i32[2] = [5, -2147483647]

func @sq(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = mul(%x, %x)
  return %y
}

func @sq_jvp(%x: f32[3], %t: f32[3]) -> (f32[3], f32[3]) {
  %hundred: f32[3] = constant[value=100.0]()
  %two: f32[3] = constant[value=2.0]()
  %d: f32[3] = mul(%two, %x)
  %dt: f32[3] = mul(%d, %t)
  return %hundred, %dt
}

func @scale(%x: f64[2], %n: i32[2]) -> (f64[2], i32[2]) {
  %nf: f64[2] = convert[dtype=f64](%n)
  %y: f64[2] = mul(%x, %nf)
  %one: i32[2] = constant[value=1]()
  %m: i32[2] = add(%n, %one)
  return %y, %m
}

func @scale_jvp(%x: f64[2], %n: i32[2], %tx: f64[2], %tn: i32[2]) -> (f64[2], i32[2], f64[2], i32[2]) {
  %zero: f64[2] = constant[value=0.0]()
  %nf: f64[2] = convert[dtype=f64](%n)
  %ty: f64[2] = mul(%tx, %nf)
  return %zero, %n, %ty, %tn
}
