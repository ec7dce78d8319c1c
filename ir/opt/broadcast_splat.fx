; broadcast_in_dim of a splat constant is a splat constant of the broadcast shape,
; kept symbolic however large (a small broadcast of a non-uniform constant is folded
; into a literal instead).
func @f(%x: f32[64,64]) -> (f32[64,64], f32[2,3]) {
  %c: f32[] = constant[value=2.5]()
  %b: f32[64,64] = broadcast_in_dim[shape=[64,64], dims=[]](%c)
  %y: f32[64,64] = mul(%x, %b)
  %v: f32[3] = constant[value=[1.0, 2.0, 3.0]]()
  %w: f32[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%v)
  return %y, %w
}
; opt:
; func @f(%0: f32[64,64]) -> (f32[64,64], f32[2,3]) {
;   %1: f32[64,64] = constant[value=2.5]()
;   %2: f32[64,64] = mul(%0, %1)
;   %3: f32[2,3] = constant[value=[1.0,2.0,3.0,1.0,2.0,3.0]]()
;   return %2, %3
; }
