; Batched indexing and label lookup: gather and scatter_add with a batch axis; a
; one-hot from iota, eq and convert (no cotangent: it is built from integers); the
; argmax is an integer output, without cotangent.
func @f(%x: f64[2,4], %u: f64[2,3], %idx: i32[2,3], %labels: i32[2]) -> (f64[2,3], f64[2,4], f64[], i32[2]) {
  %g: f64[2,3] = gather[axis=1, batch_dims=1](%x, %idx)
  %gu: f64[2,3] = mul(%g, %u)
  %s: f64[2,4] = scatter_add[axis=1, batch_dims=1](%x, %idx, %gu)
  %iota: i32[2,4] = iota[dtype=i32, shape=[2,4], dim=1]()
  %lb: i32[2,4] = broadcast_in_dim[shape=[2,4], dims=[0]](%labels)
  %hot: bool[2,4] = eq(%iota, %lb)
  %onehot: f64[2,4] = convert[dtype=f64](%hot)
  %picked: f64[2,4] = mul(%onehot, %s)
  %nll: f64[] = reduce_sum[axes=[0,1]](%picked)
  %am: i32[2] = argmax[axis=1](%x)
  return %gu, %s, %nll, %am
}
; in: f64[2,4] = [0.5, -1.0, 1.5, 2.0, -0.25, 0.75, 3.0, -2.0]
; in: f64[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: i32[2,3] = [3, 0, 3, 1, 2, 2]
; in: i32[2] = [1, 3]
; vjp:
; func @f_vjp(%0: f64[2,4], %1: f64[2,3], %2: i32[2,3], %3: i32[2], %4: f64[2,3], %5: f64[2,4], %6: f64[]) -> (f64[2,3], f64[2,4], f64[], i32[2], f64[2,4], f64[2,3]) {
;   %7: f64[2,3] = gather[axis=1, batch_dims=1](%0, %2)
;   %8: f64[2,3] = mul(%7, %1)
;   %9: f64[2,4] = scatter_add[axis=1, batch_dims=1](%0, %2, %8)
;   %10: i32[2,4] = iota[dtype=i32, shape=[2,4], dim=1]()
;   %11: i32[2,4] = broadcast_in_dim[shape=[2,4], dims=[0]](%3)
;   %12: bool[2,4] = eq(%10, %11)
;   %13: f64[2,4] = convert[dtype=f64](%12)
;   %14: f64[2,4] = mul(%13, %9)
;   %15: f64[] = reduce_sum[axes=[0,1]](%14)
;   %16: i32[2] = argmax[axis=1, index_dtype=i32](%0)
;   %17: f64[2,4] = broadcast_in_dim[shape=[2,4], dims=[]](%6)
;   %18: f64[2,4] = mul(%17, %13)
;   %19: f64[2,4] = add(%5, %18)
;   %20: f64[2,3] = gather[axis=1, batch_dims=1](%19, %2)
;   %21: f64[2,3] = add(%4, %20)
;   %22: f64[2,3] = mul(%21, %7)
;   %23: f64[2,3] = mul(%21, %1)
;   %24: f64[2,4] = scatter_add[axis=1, batch_dims=1](%19, %2, %23)
;   return %8, %9, %15, %16, %24, %22
; }
