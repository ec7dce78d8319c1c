; The allocation budget (`; run max_bytes=N`) bounds the bytes of all live buffers,
; arguments included; a value is freed after its last use. Exceeding it is an error
; naming the equation, raised before anything is allocated.

; arguments alone over the budget: 10 f32 are 40 bytes
func @arguments(%x: f32[10]) -> (f32[10]) {
  return %x
}
; run max_bytes=40
; in: f32[10] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
; out0: f32[10] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
; run max_bytes=39
; in: f32[10] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
; error: in @arguments: the arguments of @arguments needs 40 live bytes, over the allocation budget of 39 bytes

; a chain of negations of 4 f32 (16 bytes each) peaks at 48 live bytes: the argument,
; the operand and the result; earlier links are freed
func @chain(%x: f32[4]) -> (f32[4]) {
  %a: f32[4] = neg(%x)
  %b: f32[4] = neg(%a)
  %c: f32[4] = neg(%b)
  %d: f32[4] = neg(%c)
  return %d
}
; run max_bytes=48
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[4] = [1.0, 2.0, 3.0, 4.0]
; run max_bytes=47
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; error: in @chain, equation 1 (neg): the result %2: f32[4] needs 48 live bytes, over the allocation budget of 47 bytes

; an intermediate far larger than its inputs and results: 10^12 f32 are rejected from
; the declared type before any allocation
func @huge_intermediate(%x: f32[]) -> (f32[1]) {
  %b: f32[1000000,1000000] = broadcast_in_dim[shape=[1000000,1000000], dims=[]](%x)
  %s: f32[1,1] = slice[start=[0,0], limit=[1,1]](%b)
  %y: f32[1] = reshape[shape=[1]](%s)
  return %y
}
; run max_bytes=1000000
; in: f32[] = [1.0]
; error: in @huge_intermediate, equation 0 (broadcast_in_dim): the result %1: f32[1000000,1000000] needs 4000000000004 live bytes, over the allocation budget of 1000000 bytes

; the stacked outputs of a scan are checked before the first step
func @scan_outputs(%c: f64[]) -> (f64[], f64[1000,100]) {
  %s: f64[], %ys: f64[1000,100] = scan[body=@spread, length=1000, num_carry=1](%c)
  return %s, %ys
}
; run max_bytes=100000
; in: f64[] = [1.0]
; error: in @scan_outputs, equation 0 (scan): the stacked outputs of @spread needs 800008 live bytes, over the allocation budget of 100000 bytes

func @spread(%c: f64[]) -> (f64[], f64[100]) {
  %y: f64[100] = broadcast_in_dim[shape=[100], dims=[]](%c)
  return %c, %y
}
