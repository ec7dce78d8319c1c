; Fuel (`; run fuel=N`) bounds the loop iterations of a whole run: every while
; iteration and every scan step takes one unit; running out is an error naming the loop.

; a while whose predicate never becomes false stops with an error, not a hang
func @forever(%x: i32[]) -> (i32[]) {
  %y: i32[] = while[cond=@always, body=@inc](%x)
  return %y
}
; run fuel=100
; in: i32[] = [0]
; error: in @forever, equation 0 (while): out of fuel after 100 loop iterations
; run fuel=0
; in: i32[] = [0]
; error: in @forever, equation 0 (while): out of fuel after 0 loop iterations

; a loop of exactly 5 iterations runs on 5 units but not on 4; a predicate that is
; false at once needs no fuel
func @five(%x: i32[]) -> (i32[]) {
  %y: i32[] = while[cond=@below_five, body=@inc](%x)
  return %y
}
; run fuel=5
; in: i32[] = [0]
; out0: i32[] = [5]
; run fuel=4
; in: i32[] = [0]
; error: in @five, equation 0 (while): out of fuel after 4 loop iterations
; run fuel=0
; in: i32[] = [5]
; out0: i32[] = [5]

; max_iters bounds an unbounded predicate; each iteration still takes fuel
func @capped(%x: i32[]) -> (i32[]) {
  %y: i32[] = while[cond=@always, body=@inc, max_iters=10](%x)
  return %y
}
; run fuel=10
; in: i32[] = [0]
; out0: i32[] = [10]
; run fuel=9
; in: i32[] = [0]
; error: in @capped, equation 0 (while): out of fuel after 9 loop iterations

; each scan step takes one unit
func @scan4(%xs: f32[4]) -> (f32[], f32[4]) {
  %zero: f32[] = constant[value=0.0]()
  %s: f32[], %ys: f32[4] = scan[body=@acc, length=4, num_carry=1](%zero, %xs)
  return %s, %ys
}
; run fuel=4
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[] = [10.0]
; out1: f32[4] = [1.0, 3.0, 6.0, 10.0]
; run fuel=3
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; error: in @scan4, equation 1 (scan): out of fuel after 3 loop iterations

; the fuel is shared by nested loops: 3 while iterations each running a 2-step scan
; take 9 units; with 8 the last scan step runs out, and the error names that scan
func @nested(%x: i32[]) -> (i32[]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %y: i32[] = while[cond=@three_times, body=@scan_twice](%zero, %x)
  return %y
}
; run fuel=9
; in: i32[] = [0]
; out0: i32[] = [6]
; run fuel=8
; in: i32[] = [0]
; error: in @scan_twice, equation 1 (scan): out of fuel after 8 loop iterations

; a branch not taken costs nothing, even if it would loop forever
func @untaken(%p: bool[], %x: i32[]) -> (i32[]) {
  %y: i32[] = cond[branches=[@ident, @forever]](%p, %x)
  return %y
}
; run fuel=0
; in: bool[] = [false]
; in: i32[] = [7]
; out0: i32[] = [7]
; run fuel=3
; in: bool[] = [true]
; in: i32[] = [7]
; error: in @forever, equation 0 (while): out of fuel after 3 loop iterations

func @always(%x: i32[]) -> (bool[]) {
  %t: bool[] = constant[value=true]()
  return %t
}

func @inc(%x: i32[]) -> (i32[]) {
  %one: i32[] = constant[value=1]()
  %y: i32[] = add(%x, %one)
  return %y
}

func @below_five(%x: i32[]) -> (bool[]) {
  %five: i32[] = constant[value=5]()
  %p: bool[] = lt(%x, %five)
  return %p
}

func @acc(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %s: f32[] = add(%c, %x)
  return %s, %s
}

func @three_times(%i: i32[], %x: i32[]) -> (bool[]) {
  %three: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %three)
  return %p
}

func @scan_twice(%i: i32[], %x: i32[]) -> (i32[], i32[]) {
  %j: i32[] = call[func=@inc](%i)
  %y: i32[] = scan[body=@inc, length=2, num_carry=1](%x)
  return %j, %y
}

func @ident(%x: i32[]) -> (i32[]) {
  return %x
}
