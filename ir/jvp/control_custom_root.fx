; custom_root in forward mode: the root's tangent is -@ts(c, x, ∂f/∂c·dc) (the
; implicit function theorem), computed once at the root; the Newton iterations of
; @newton are not differentiated, and x0 gets no tangent (the root does not depend on
; it).
func @f(%c: f64[3], %x0: f64[3]) -> (f64[3]) {
  %x: f64[3] = custom_root[f=@g, solve=@newton, tangent_solve=@ts, num_consts=1](%c, %x0)
  return %x
}
; jvp:
; func @f_jvp(%0: f64[3], %1: f64[3], %2: f64[3], %3: f64[3]) -> (f64[3], f64[3]) {
;   %4: f64[3] = custom_root[f=@g, solve=@newton, tangent_solve=@ts, num_consts=1](%0, %1)
;   %5: f64[3] = call[func=@g_jvp](%2)
;   %6: f64[3] = call[func=@ts_2](%4, %5)
;   %7: f64[3] = neg(%6)
;   return %4, %7
; }
;
; func @g(%0: f64[3], %1: f64[3]) -> (f64[3]) {
;   %2: f64[3] = integer_pow[y=3](%1)
;   %3: f64[3] = add(%2, %1)
;   %4: f64[3] = sub(%3, %0)
;   return %4
; }
;
; func @newton(%0: f64[3], %1: f64[3]) -> (f64[3]) {
;   %2: f64[3] = scan[body=@step, length=30, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%0, %1)
;   return %2
; }
;
; func @ts(%0: f64[3], %1: f64[3], %2: f64[3]) -> (f64[3]) {
;   %3: f64[3] = call[func=@slope](%1)
;   %4: f64[3] = div(%2, %3)
;   return %4
; }
;
; func @g_jvp(%0: f64[3]) -> (f64[3]) {
;   %1: f64[3] = neg(%0)
;   return %1
; }
;
; func @step(%0: f64[3], %1: f64[3]) -> (f64[3]) {
;   %2: f64[3] = call[func=@g](%0, %1)
;   %3: f64[3] = call[func=@slope](%1)
;   %4: f64[3] = div(%2, %3)
;   %5: f64[3] = sub(%1, %4)
;   return %5
; }
;
; func @slope(%0: f64[3]) -> (f64[3]) {
;   %1: f64[3] = mul(%0, %0)
;   %2: f64[3] = constant[value=3.0]()
;   %3: f64[3] = constant[value=1.0]()
;   %4: f64[3] = mul(%1, %2)
;   %5: f64[3] = add(%4, %3)
;   return %5
; }
;
; func @ts_2(%0: f64[3], %1: f64[3]) -> (f64[3]) {
;   %2: f64[3] = call[func=@slope](%0)
;   %3: f64[3] = div(%1, %2)
;   return %3
; }

func @g(%c: f64[3], %x: f64[3]) -> (f64[3]) {
  %x3: f64[3] = integer_pow[y=3](%x)
  %s: f64[3] = add(%x3, %x)
  %r: f64[3] = sub(%s, %c)
  return %r
}

func @newton(%c: f64[3], %x0: f64[3]) -> (f64[3]) {
  %x: f64[3] = scan[body=@step, length=30, num_consts=1, num_carry=1](%c, %x0)
  return %x
}

func @slope(%x: f64[3]) -> (f64[3]) {
  %x2: f64[3] = mul(%x, %x)
  %three: f64[3] = constant[value=3.0]()
  %one: f64[3] = constant[value=1.0]()
  %d3: f64[3] = mul(%x2, %three)
  %d: f64[3] = add(%d3, %one)
  return %d
}

func @step(%c: f64[3], %x: f64[3]) -> (f64[3]) {
  %r: f64[3] = call[func=@g](%c, %x)
  %d: f64[3] = call[func=@slope](%x)
  %q: f64[3] = div(%r, %d)
  %n: f64[3] = sub(%x, %q)
  return %n
}

func @ts(%c: f64[3], %x: f64[3], %rhs: f64[3]) -> (f64[3]) {
  %d: f64[3] = call[func=@slope](%x)
  %dx: f64[3] = div(%rhs, %d)
  return %dx
}
