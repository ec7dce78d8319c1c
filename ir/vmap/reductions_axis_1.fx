; Reductions renumber their axes around a batch axis in the middle.
func @f(%x: f64[2,3]) -> (f64[], i32[3], f64[2,3]) {
  %s: f64[] = reduce_sum[axes=[0,1]](%x)
  %m: i32[3] = argmax[axis=0, index_dtype=i32](%x)
  %c: f64[2,3] = cumsum[axis=1, reverse=true](%x)
  return %s, %m, %c
}
; in_axes: 1
; axis_size: 3
; out_axes: 0,-1,1
; vmap:
; func @f_vmap(%0: f64[2,3,3]) -> (f64[3], i32[3,3], f64[2,3,3]) {
;   %1: f64[3] = reduce_sum[axes=[0,2]](%0)
;   %2: i32[3,3] = argmax[axis=0, index_dtype=i32](%0)
;   %3: f64[2,3,3] = cumsum[axis=2, reverse=true](%0)
;   %4: i32[3,3] = transpose[perm=[1,0]](%2)
;   return %1, %4, %3
; }
