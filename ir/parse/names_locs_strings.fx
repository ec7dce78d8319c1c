; Value names are renumbered; locations are kept (printed only with --locs); strings
; keep their escapes.
func @f(%input.x: f32[2], %_y1: f32[2]) -> (f32[2]) {
  %sum: f32[2] = add(%input.x, %_y1) loc("src/model.rs:42:17")
  %tagged: f32[2] = name[name="quote \" and backslash \\ inside"](%sum)
  %7: f32[2] = stop_gradient(%tagged) loc("src/model.rs:43:5")
  return %7
}
; print:
; func @f(%0: f32[2], %1: f32[2]) -> (f32[2]) {
;   %2: f32[2] = add(%0, %1)
;   %3: f32[2] = name[name="quote \" and backslash \\ inside"](%2)
;   %4: f32[2] = stop_gradient(%3)
;   return %4
; }
