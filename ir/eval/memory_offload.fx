; offload(x) and reload(h) are the identity on values: offload keeps its result in the
; run's spill file instead of memory, reload reads it back. Any equation may read an
; offloaded value (the interpreter reads it back; the JIT copies instead of spilling).

; reloaded twice, after other work, in f32, bf16, i32 and bool
func @round_trip(%x: f32[3], %b: bf16[2], %n: i32[2], %p: bool[2]) -> (f32[3], bf16[2], i32[2], bool[2], f32[]) {
  %h: f32[3] = offload(%x)
  %hb: bf16[2] = offload(%b)
  %hn: i32[2] = offload(%n)
  %hp: bool[2] = offload(%p)
  %s: f32[] = reduce_sum[axes=[0]](%x)
  %a: f32[3] = reload(%h)
  %c: f32[3] = reload(%h)
  %y: f32[3] = mul(%a, %c)
  %yb: bf16[2] = reload(%hb)
  %yn: i32[2] = reload(%hn)
  %yp: bool[2] = reload(%hp)
  return %y, %yb, %yn, %yp, %s
}
; run
; in: f32[3] = [1.5, -2.0, 0.0]
; in: bf16[2] = [0.1, -3.0]
; in: i32[2] = [7, -8]
; in: bool[2] = [true, false]
; out0: f32[3] = [2.25, 4.0, 0.0]
; out1: bf16[2] = [0.1, -3.0]
; out2: i32[2] = [7, -8]
; out3: bool[2] = [true, false]
; out4: f32[] = [-0.5]

; an offloaded value read directly, returned, and offloaded again
func @direct(%x: f64[2]) -> (f64[2], f64[2], f64[2]) {
  %h: f64[2] = offload(%x)
  %y: f64[2] = add(%h, %x)
  %g: f64[2] = offload(%h)
  %z: f64[2] = reload(%g)
  return %y, %h, %z
}
; run
; in: f64[2] = [0.25, -1.0]
; out0: f64[2] = [0.5, -2.0]
; out1: f64[2] = [0.25, -1.0]
; out2: f64[2] = [0.25, -1.0]

; inside a scan body: offloaded and reloaded at every step
func @in_a_loop(%x: f32[4]) -> (f32[], f32[4]) {
  %z: f32[] = constant[value=0.0]()
  %c: f32[], %ys: f32[4] = scan[body=@step, length=4, num_consts=0, num_carry=1](%z, %x)
  return %c, %ys
}
; run
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[] = [10.0]
; out1: f32[4] = [1.0, 4.0, 9.0, 16.0]

func @step(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %h: f32[] = offload(%x)
  %n: f32[] = add(%c, %x)
  %r: f32[] = reload(%h)
  %y: f32[] = mul(%r, %r)
  return %n, %y
}
