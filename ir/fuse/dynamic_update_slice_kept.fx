; A dynamic_update_slice at a start index known only at run time stays an opaque
; launch between kernels.
func @f(%x: f32[8], %u: f32[2], %i: i32[]) -> (f32[8]) {
  %s: f32[2] = sin(%u)
  %y: f32[8] = dynamic_update_slice(%x, %s, %i)
  %z: f32[8] = mul(%y, %y)
  return %z
}
; fuse:
; func @f(%0: f32[8], %1: f32[2], %2: i32[]) -> (f32[8]) {
;   %3: f32[2] = call[func=@f_k0](%1)
;   %4: f32[8] = dynamic_update_slice(%0, %3, %2)
;   %5: f32[8] = call[func=@f_k1](%4)
;   return %5
; }
;
; func @f_k0[kind="fusion"](%0: f32[2]) -> (f32[2]) {
;   %1: f32[2] = sin(%0)
;   return %1
; }
;
; func @f_k1[kind="fusion"](%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = mul(%0, %0)
;   return %1
; }
; launches: 3
