; The collective family and the Func attribute that declares its axes. `tiled`
; defaults to false; `psum`, `pmax`, `pmin` and `pmean` take a list of axis names;
; `all_gather`, `psum_scatter` and `all_to_all` carry the axis size their result type
; depends on. The canonical form prints every attribute.
func @f[axis_names=["i", "j"]](%x: f32[4,2]) -> (f32[4,2], f32[4,2], f32[4,2,2], f32[2,2], f32[4,2], f32[2,4], i32[], f32[4,2]) {
  %a: f32[4,2] = psum[axes=["i", "j"]](%x)
  %b: f32[4,2] = pmax[axes=["i"]](%x)
  %c: f32[4,2,2] = all_gather[axis_name="j", axis=2, axis_size=2](%x)
  %d: f32[2,2] = psum_scatter[axis_name="i", scatter_dimension=0, tiled=true, axis_size=2](%x)
  %e: f32[4,2] = ppermute[axis_name="i", perm=[[0,1],[1,0]]](%x)
  %g: f32[2,4] = all_to_all[axis_name="i", split_axis=0, concat_axis=1, axis_size=2](%x)
  %k: i32[] = axis_index[axis_name="j"]()
  %m: f32[4,2] = pmean[axes=["j"]](%x)
  return %a, %b, %c, %d, %e, %g, %k, %m
}
; print:
; func @f[axis_names=["i","j"]](%0: f32[4,2]) -> (f32[4,2], f32[4,2], f32[4,2,2], f32[2,2], f32[4,2], f32[2,4], i32[], f32[4,2]) {
;   %1: f32[4,2] = psum[axes=["i","j"]](%0)
;   %2: f32[4,2] = pmax[axes=["i"]](%0)
;   %3: f32[4,2,2] = all_gather[axis_name="j", axis=2, tiled=false, axis_size=2](%0)
;   %4: f32[2,2] = psum_scatter[axis_name="i", scatter_dimension=0, tiled=true, axis_size=2](%0)
;   %5: f32[4,2] = ppermute[axis_name="i", perm=[[0,1],[1,0]]](%0)
;   %6: f32[2,4] = all_to_all[axis_name="i", split_axis=0, concat_axis=1, axis_size=2](%0)
;   %7: i32[] = axis_index[axis_name="j"]()
;   %8: f32[4,2] = pmean[axes=["j"]](%0)
;   return %1, %2, %3, %4, %5, %6, %7, %8
; }
