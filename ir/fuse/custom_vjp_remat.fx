; custom_vjp and remat mean nothing for evaluation: they become calls, are inlined,
; and their bodies fuse with the code around them into one kernel.
func @f(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = custom_vjp[func=@ex, fwd=@ex_fwd, bwd=@ex_bwd](%x)
  %z: f32[3] = remat[func=@sq, policy="nothing"](%y)
  %o: f32[3] = add(%z, %x)
  return %o
}
; fuse:
; func @f(%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = call[func=@f_k0](%0)
;   return %1
; }
;
; func @f_k0[kind="fusion"](%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = exp(%0)
;   %2: f32[3] = mul(%1, %1)
;   %3: f32[3] = add(%2, %0)
;   return %3
; }
; launches: 1

func @ex(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = exp(%x)
  return %y
}

func @ex_fwd(%x: f32[3]) -> (f32[3], f32[3]) {
  %y: f32[3] = exp(%x)
  return %y, %y
}

func @ex_bwd(%y: f32[3], %ct: f32[3]) -> (f32[3]) {
  %g: f32[3] = mul(%y, %ct)
  return %g
}

func @sq(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = mul(%x, %x)
  return %y
}
