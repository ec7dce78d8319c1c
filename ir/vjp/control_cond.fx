; cond in reverse mode: the known cond returns every branch's residuals (zeros in the
; other branches' slots), the linear cond on the same index reads them, and its
; transpose is a cond over the transposed branches.
func @f(%k: i32[], %x: f64[2]) -> (f64[2]) {
  %y: f64[2] = cond[branches=[@neg, @sin, @square]](%k, %x)
  return %y
}
; in: i32[] = [1]
; in: f64[2] = [0.5, -1.5]
; vjp:
; func @f_vjp(%0: i32[], %1: f64[2], %2: f64[2]) -> (f64[2], f64[2]) {
;   %3: f64[2], %4: f64[2], %5: f64[2] = cond[branches=[@neg_jvp_2_known,@sin_jvp_2_known,@square_jvp_2_known]](%0, %1)
;   %6: f64[2] = cond[branches=[@neg_jvp_2_linear_transpose,@sin_jvp_2_linear_transpose,@square_jvp_2_linear_transpose]](%0, %4, %5, %2)
;   return %3, %6
; }
;
; func @neg_jvp_2_known(%0: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %1: f64[2] = neg(%0)
;   %2: f64[2] = constant[value=0.0]()
;   return %1, %2, %2
; }
;
; func @sin_jvp_2_known(%0: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %1: f64[2] = sin(%0)
;   %2: f64[2] = cos(%0)
;   %3: f64[2] = constant[value=0.0]()
;   return %1, %2, %3
; }
;
; func @square_jvp_2_known(%0: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %1: f64[2] = mul(%0, %0)
;   %2: f64[2] = constant[value=0.0]()
;   return %1, %2, %0
; }
;
; func @neg_jvp_2_linear_transpose(%0: f64[2], %1: f64[2], %2: f64[2]) -> (f64[2]) {
;   %3: f64[2] = neg(%2)
;   return %3
; }
;
; func @sin_jvp_2_linear_transpose(%0: f64[2], %1: f64[2], %2: f64[2]) -> (f64[2]) {
;   %3: f64[2] = mul(%2, %0)
;   return %3
; }
;
; func @square_jvp_2_linear_transpose(%0: f64[2], %1: f64[2], %2: f64[2]) -> (f64[2]) {
;   %3: f64[2] = mul(%2, %1)
;   %4: f64[2] = mul(%2, %1)
;   %5: f64[2] = add(%3, %4)
;   return %5
; }

func @neg(%x: f64[2]) -> (f64[2]) {
  %y: f64[2] = neg(%x)
  return %y
}

func @sin(%x: f64[2]) -> (f64[2]) {
  %y: f64[2] = sin(%x)
  return %y
}

func @square(%x: f64[2]) -> (f64[2]) {
  %y: f64[2] = mul(%x, %x)
  return %y
}
