; Structured primitives inside one another's bodies.

; a scan inside a cond branch: branch 1 returns the running sums of x, branch 0 x reversed
func @scan_in_cond(%p: bool[], %x: f32[4]) -> (f32[4]) {
  %y: f32[4] = cond[branches=[@flip, @prefix_sums]](%p, %x)
  return %y
}
; run
; in: bool[] = [true]
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[4] = [1.0, 3.0, 6.0, 10.0]
; run
; in: bool[] = [false]
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[4] = [4.0, 3.0, 2.0, 1.0]

; a scan inside a while body: the running sums are taken n times (binomial rows)
func @scan_in_while(%n: i32[], %x: i32[4]) -> (i32[], i32[4]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %m: i32[], %y: i32[4] = while[cond=@more, body=@sums_again](%zero, %n, %x)
  return %i, %y
}
; run
; in: i32[] = [3]
; in: i32[4] = [1, 0, 0, 0]
; out0: i32[] = [3]
; out1: i32[4] = [1, 3, 6, 10]
; run
; in: i32[] = [0]
; in: i32[4] = [1, 0, 0, 0]
; out0: i32[] = [0]
; out1: i32[4] = [1, 0, 0, 0]

; a while inside a reverse scan body: for each x, how many halvings bring it below 1
func @while_in_scan(%xs: f32[4]) -> (i32[], i32[4]) {
  %zero: i32[] = constant[value=0]()
  %total: i32[], %counts: i32[4] = scan[body=@halvings, length=4, num_carry=1, reverse=true](%zero, %xs)
  return %total, %counts
}
; run
; in: f32[4] = [1.0, 8.0, 0.5, 100.0]
; out0: i32[] = [12]
; out1: i32[4] = [1, 4, 0, 7]

; a cond inside a scan body inside a cond branch: branch 1 adds the odd x to c and
; subtracts the even ones; branch 0 returns c
func @cond_in_scan_in_cond(%k: i32[], %c: i32[], %xs: i32[3]) -> (i32[]) {
  %y: i32[] = cond[branches=[@keep, @signed_sum]](%k, %c, %xs)
  return %y
}
; run
; in: i32[] = [1]
; in: i32[] = [100]
; in: i32[3] = [1, 2, 3]
; out0: i32[] = [102]
; run
; in: i32[] = [0]
; in: i32[] = [100]
; in: i32[3] = [1, 2, 3]
; out0: i32[] = [100]

func @flip(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = rev[axes=[0]](%x)
  return %y
}

func @prefix_sums(%x: f32[4]) -> (f32[4]) {
  %zero: f32[] = constant[value=0.0]()
  %s: f32[], %ys: f32[4] = scan[body=@add_f32, length=4, num_carry=1](%zero, %x)
  return %ys
}

func @add_f32(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %s: f32[] = add(%c, %x)
  return %s, %s
}

func @more(%i: i32[], %n: i32[], %x: i32[4]) -> (bool[]) {
  %p: bool[] = lt(%i, %n)
  return %p
}

func @sums_again(%i: i32[], %n: i32[], %x: i32[4]) -> (i32[], i32[], i32[4]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %zero: i32[] = constant[value=0]()
  %s: i32[], %ys: i32[4] = scan[body=@add_i32, length=4, num_carry=1](%zero, %x)
  return %j, %n, %ys
}

func @add_i32(%c: i32[], %x: i32[]) -> (i32[], i32[]) {
  %s: i32[] = add(%c, %x)
  return %s, %s
}

func @halvings(%total: i32[], %x: f32[]) -> (i32[], i32[]) {
  %zero: i32[] = constant[value=0]()
  %n: i32[], %y: f32[] = while[cond=@big, body=@halve](%zero, %x)
  %t: i32[] = add(%total, %n)
  return %t, %n
}

func @big(%n: i32[], %x: f32[]) -> (bool[]) {
  %one: f32[] = constant[value=1.0]()
  %p: bool[] = ge(%x, %one)
  return %p
}

func @halve(%n: i32[], %x: f32[]) -> (i32[], f32[]) {
  %one: i32[] = constant[value=1]()
  %m: i32[] = add(%n, %one)
  %h: f32[] = constant[value=0.5]()
  %y: f32[] = mul(%x, %h)
  return %m, %y
}

func @keep(%c: i32[], %xs: i32[3]) -> (i32[]) {
  return %c
}

func @signed_sum(%c: i32[], %xs: i32[3]) -> (i32[]) {
  %s: i32[] = scan[body=@add_or_sub, length=3, num_carry=1](%c, %xs)
  return %s
}

; adds x when x is odd and subtracts it when even (cond on the remainder as an index)
func @add_or_sub(%c: i32[], %x: i32[]) -> (i32[]) {
  %two: i32[] = constant[value=2]()
  %r: i32[] = rem(%x, %two)
  %y: i32[] = cond[branches=[@sub_i32, @add_i32_one]](%r, %c, %x)
  return %y
}

func @sub_i32(%c: i32[], %x: i32[]) -> (i32[]) {
  %y: i32[] = sub(%c, %x)
  return %y
}

func @add_i32_one(%c: i32[], %x: i32[]) -> (i32[]) {
  %y: i32[] = add(%c, %x)
  return %y
}
