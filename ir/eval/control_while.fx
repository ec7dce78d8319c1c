; while[cond, body, max_iters](carry...): runs @body while @cond holds; with
; max_iters=N it stops after at most N iterations.

; a counter plus an accumulator: i counts up to n, s sums 1..n
func @count(%n: i32[]) -> (i32[], i32[], i32[]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %s: i32[], %m: i32[] = while[cond=@below, body=@inc](%zero, %zero, %n)
  return %i, %s, %m
}
; run
; in: i32[] = [5]
; out0: i32[] = [5]
; out1: i32[] = [15]
; out2: i32[] = [5]
; run
; in: i32[] = [0]
; out0: i32[] = [0]
; out1: i32[] = [0]
; out2: i32[] = [0]
; run
; in: i32[] = [-3]
; out0: i32[] = [0]
; out1: i32[] = [0]
; out2: i32[] = [-3]

; Fibonacci with three carries: (k, a, b) -> (k - 1, b, a + b) while k > 0
func @fib(%k: i32[]) -> (i32[], i32[], i32[]) {
  %a: i32[] = constant[value=0]()
  %b: i32[] = constant[value=1]()
  %k1: i32[], %f: i32[], %g: i32[] = while[cond=@positive, body=@fib_step](%k, %a, %b)
  return %k1, %f, %g
}
; run
; in: i32[] = [10]
; out0: i32[] = [0]
; out1: i32[] = [55]
; out2: i32[] = [89]
; run
; in: i32[] = [1]
; out0: i32[] = [0]
; out1: i32[] = [1]
; out2: i32[] = [1]

; max_iters cuts the loop short (10 iterations wanted, 3 run) or does not matter (2)
func @capped(%n: i32[]) -> (i32[], i32[]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %s: i32[], %m: i32[] = while[cond=@below, body=@inc, max_iters=3](%zero, %zero, %n)
  return %i, %s
}
; run
; in: i32[] = [10]
; out0: i32[] = [3]
; out1: i32[] = [6]
; run
; in: i32[] = [2]
; out0: i32[] = [2]
; out1: i32[] = [3]

; max_iters=0 runs no iteration although the predicate holds
func @no_iterations(%n: i32[]) -> (i32[], i32[]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %s: i32[], %m: i32[] = while[cond=@below, body=@inc, max_iters=0](%zero, %zero, %n)
  return %i, %s
}
; run
; in: i32[] = [10]
; out0: i32[] = [0]
; out1: i32[] = [0]

; a float carry halved while it is >= 1; when the predicate is false at the start (also
; for nan), no iteration runs
func @halve(%x: f32[]) -> (f32[]) {
  %y: f32[] = while[cond=@at_least_one, body=@half](%x)
  return %y
}
; run
; in: f32[] = [10.0]
; out0: f32[] = [0.625]
; run
; in: f32[] = [0.5]
; out0: f32[] = [0.5]
; run
; in: f32[] = [nan]
; out0: f32[] = [nan]

; an array carry beside a bool flag: x doubles until a flag computed from it is set
func @until_flag(%x: f64[2]) -> (f64[2], bool[]) {
  %f: bool[] = constant[value=false]()
  %y: f64[2], %g: bool[] = while[cond=@not_done, body=@double_and_check](%x, %f)
  return %y, %g
}
; run
; in: f64[2] = [0.75, -0.5]
; out0: f64[2] = [48.0, -32.0]
; out1: bool[] = [true]

func @below(%i: i32[], %s: i32[], %n: i32[]) -> (bool[]) {
  %p: bool[] = lt(%i, %n)
  return %p
}

func @inc(%i: i32[], %s: i32[], %n: i32[]) -> (i32[], i32[], i32[]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %t: i32[] = add(%s, %j)
  return %j, %t, %n
}

func @positive(%k: i32[], %a: i32[], %b: i32[]) -> (bool[]) {
  %zero: i32[] = constant[value=0]()
  %p: bool[] = gt(%k, %zero)
  return %p
}

func @fib_step(%k: i32[], %a: i32[], %b: i32[]) -> (i32[], i32[], i32[]) {
  %one: i32[] = constant[value=1]()
  %k1: i32[] = sub(%k, %one)
  %c: i32[] = add(%a, %b)
  return %k1, %b, %c
}

func @at_least_one(%x: f32[]) -> (bool[]) {
  %one: f32[] = constant[value=1.0]()
  %p: bool[] = ge(%x, %one)
  return %p
}

func @half(%x: f32[]) -> (f32[]) {
  %h: f32[] = constant[value=0.5]()
  %y: f32[] = mul(%x, %h)
  return %y
}

func @not_done(%x: f64[2], %done: bool[]) -> (bool[]) {
  %p: bool[] = not(%done)
  return %p
}

func @double_and_check(%x: f64[2], %done: bool[]) -> (f64[2], bool[]) {
  %y: f64[2] = add(%x, %x)
  %s: f64[] = reduce_sum[axes=[0]](%y)
  %ten: f64[] = constant[value=10.0]()
  %d: bool[] = gt(%s, %ten)
  return %y, %d
}
