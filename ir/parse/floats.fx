; Float literals print in the shortest form that reads back to the same bits at the
; value's dtype: f32 constants are read at f32 (one rounding), f64 at f64.
func @f32s() -> (f32[12]) {
  %0: f32[12] = constant[value=[0.1, -0.0, 1e-45, 3.4028235e38, 1.17549435e-38, 16777217, 2.5e-7, inf, -inf, nan, 1, -123456.789]]()
  return %0
}
; print:
; func @f32s() -> (f32[12]) {
;   %0: f32[12] = constant[value=[0.1,-0.0,1e-45,3.4028235e38,1.1754944e-38,16777216.0,2.5e-7,inf,-inf,nan,1.0,-123456.79]]()
;   return %0
; }

func @f64s() -> (f64[10]) {
  %0: f64[10] = constant[value=[0.1, -0.0, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 9007199254740993, 1e100, inf, -inf, nan]]()
  return %0
}
; print:
; func @f64s() -> (f64[10]) {
;   %0: f64[10] = constant[value=[0.1,-0.0,5e-324,1.7976931348623157e308,2.2250738585072014e-308,9007199254740992.0,1e100,inf,-inf,nan]]()
;   return %0
; }

func @ints_and_bools() -> (i32[4], bool[2], f32[2,2]) {
  %0: i32[4] = constant[value=[2147483647, -2147483648, 0, -1]]()
  %1: bool[2] = constant[value=[true, false]]()
  %2: f32[2,2] = constant[value=0.5]()
  return %0, %1, %2
}
; print:
; func @ints_and_bools() -> (i32[4], bool[2], f32[2,2]) {
;   %0: i32[4] = constant[value=[2147483647,-2147483648,0,-1]]()
;   %1: bool[2] = constant[value=[true,false]]()
;   %2: f32[2,2] = constant[value=0.5]()
;   return %0, %1, %2
; }
