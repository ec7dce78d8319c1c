; The ys of the scan are unused: the body stops returning them and the work only they
; needed (sin) goes. The carry still reads %x, so that xs stays; %zs, read only by
; the dropped ys, goes from the operands and the body's params.
func @f(%c: f32[], %xs: f32[4], %zs: f32[4]) -> (f32[]) {
  %out: f32[], %ys: f32[4] = scan[body=@step, length=4, num_carry=1](%c, %xs, %zs)
  return %out
}
; opt:
; func @f(%0: f32[], %1: f32[4], %2: f32[4]) -> (f32[]) {
;   %3: f32[] = scan[body=@step, length=4, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%0, %1)
;   return %3
; }
;
; func @step(%0: f32[], %1: f32[]) -> (f32[]) {
;   %2: f32[] = add(%0, %1)
;   return %2
; }

func @step(%c: f32[], %x: f32[], %z: f32[]) -> (f32[], f32[]) {
  %n: f32[] = add(%c, %x)
  %s: f32[] = sin(%z)
  return %n, %s
}
