; scan[body, length, num_consts, num_carry, reverse, checkpoint](consts..., carry..., xs...):
; the body maps (consts..., carry..., slice t of each xs) to (carry..., slice t of each
; ys); reverse=true runs t from the last slice to the first, writing each y at t.

; a running sum: the final carry and every partial sum
func @running_sum(%c: f32[], %xs: f32[4]) -> (f32[], f32[4]) {
  %s: f32[], %ys: f32[4] = scan[body=@acc, length=4, num_carry=1](%c, %xs)
  return %s, %ys
}
; run
; in: f32[] = [0.5]
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[] = [10.5]
; out1: f32[4] = [1.5, 3.5, 6.5, 10.5]

; the same scan in reverse: partial sums from the end, each at its slice's position
func @reverse(%c: f32[], %xs: f32[4]) -> (f32[], f32[4]) {
  %s: f32[], %ys: f32[4] = scan[body=@acc, length=4, num_carry=1, reverse=true](%c, %xs)
  return %s, %ys
}
; run
; in: f32[] = [0.5]
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[] = [10.5]
; out1: f32[4] = [10.5, 9.5, 7.5, 4.5]

; checkpoint=K only matters to reverse mode: with K=2 or K=1 the results equal those
; without it
func @checkpointed(%c: f32[], %xs: f32[4]) -> (f32[], f32[4], f32[], f32[4], f32[], f32[4]) {
  %s: f32[], %ys: f32[4] = scan[body=@acc, length=4, num_carry=1, checkpoint=2](%c, %xs)
  %r: f32[], %rs: f32[4] = scan[body=@acc, length=4, num_carry=1, reverse=true, checkpoint=2](%c, %xs)
  %q: f32[], %qs: f32[4] = scan[body=@acc, length=4, num_carry=1, reverse=true, checkpoint=1](%c, %xs)
  return %s, %ys, %r, %rs, %q, %qs
}
; run
; in: f32[] = [0.5]
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[] = [10.5]
; out1: f32[4] = [1.5, 3.5, 6.5, 10.5]
; out2: f32[] = [10.5]
; out3: f32[4] = [10.5, 9.5, 7.5, 4.5]
; out4: f32[] = [10.5]
; out5: f32[4] = [10.5, 9.5, 7.5, 4.5]

; a const passed unchanged to every step: c <- c * w + x on rows of xs, forward and
; reverse (the order matters since the map is not commutative)
func @with_consts(%w: f64[2], %c: f64[2], %xs: f64[3,2]) -> (f64[2], f64[3,2], f64[2], f64[3,2]) {
  %f: f64[2], %fs: f64[3,2] = scan[body=@affine, length=3, num_consts=1, num_carry=1](%w, %c, %xs)
  %r: f64[2], %rs: f64[3,2] = scan[body=@affine, length=3, num_consts=1, num_carry=1, reverse=true](%w, %c, %xs)
  return %f, %fs, %r, %rs
}
; run
; in: f64[2] = [2.0, -1.0]
; in: f64[2] = [1.0, 1.0]
; in: f64[3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; out0: f64[2] = [23.0, 3.0]
; out1: f64[3,2] = [3.0, 1.0, 9.0, 3.0, 23.0, 3.0]
; out2: f64[2] = [35.0, 3.0]
; out3: f64[3,2] = [35.0, 3.0, 17.0, -1.0, 7.0, 5.0]

; two carries (a step counter and a product), two xs and two ys of other dtypes
func @several(%k: i32[], %p: f32[], %xs: f32[3], %ns: i32[3,2]) -> (i32[], f32[], i32[3], bool[3,2]) {
  %k1: i32[], %p1: f32[], %ks: i32[3], %bs: bool[3,2] = scan[body=@multi, length=3, num_carry=2](%k, %p, %xs, %ns)
  return %k1, %p1, %ks, %bs
}
; run
; in: i32[] = [10]
; in: f32[] = [1.0]
; in: f32[3] = [2.0, -3.0, 0.5]
; in: i32[3,2] = [1, 11, 12, 2, 3, 13]
; out0: i32[] = [13]
; out1: f32[] = [-3.0]
; out2: i32[3] = [10, 11, 12]
; out3: bool[3,2] = [false, true, true, false, false, true]

; the same in reverse
func @several_reverse(%k: i32[], %p: f32[], %xs: f32[3], %ns: i32[3,2]) -> (i32[], f32[], i32[3], bool[3,2]) {
  %k1: i32[], %p1: f32[], %ks: i32[3], %bs: bool[3,2] = scan[body=@multi, length=3, num_carry=2, reverse=true](%k, %p, %xs, %ns)
  return %k1, %p1, %ks, %bs
}
; run
; in: i32[] = [10]
; in: f32[] = [1.0]
; in: f32[3] = [2.0, -3.0, 0.5]
; in: i32[3,2] = [1, 11, 12, 2, 3, 13]
; out0: i32[] = [13]
; out1: f32[] = [-3.0]
; out2: i32[3] = [12, 11, 10]
; out3: bool[3,2] = [false, false, true, false, false, true]

; length 0: the carry comes back unchanged and the ys are empty
func @empty(%c: f32[], %xs: f32[0]) -> (f32[], f32[0], f64[2], f64[0,3,2]) {
  %s: f32[], %ys: f32[0] = scan[body=@acc, length=0, num_carry=1](%c, %xs)
  %w: f64[2] = constant[value=3.0]()
  %e: f64[0,2] = constant[value=1.0]()
  %r: f64[2], %rs: f64[0,3,2] = scan[body=@affine_twice, length=0, num_consts=1, num_carry=1, reverse=true](%w, %w, %e)
  return %s, %ys, %r, %rs
}
; run
; in: f32[] = [7.0]
; in: f32[0] = []
; out0: f32[] = [7.0]
; out1: f32[0] = []
; out2: f64[2] = [3.0, 3.0]
; out3: f64[0,3,2] = []

; no xs (a counter makes the ys) and no carry (a map over xs)
func @no_xs_no_carry(%n: i32[], %xs: f32[3]) -> (i32[], i32[4], f32[3]) {
  %m: i32[], %ns: i32[4] = scan[body=@count, length=4, num_carry=1](%n)
  %ys: f32[3] = scan[body=@negate, length=3, num_carry=0](%xs)
  return %m, %ns, %ys
}
; run
; in: i32[] = [5]
; in: f32[3] = [1.0, -0.0, inf]
; out0: i32[] = [9]
; out1: i32[4] = [5, 6, 7, 8]
; out2: f32[3] = [-1.0, 0.0, -inf]

func @acc(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %s: f32[] = add(%c, %x)
  return %s, %s
}

func @affine(%w: f64[2], %c: f64[2], %x: f64[2]) -> (f64[2], f64[2]) {
  %m: f64[2] = mul(%c, %w)
  %y: f64[2] = add(%m, %x)
  return %y, %y
}

func @affine_twice(%w: f64[2], %c: f64[2], %x: f64[2]) -> (f64[2], f64[3,2]) {
  %y: f64[2], %z: f64[2] = call[func=@affine](%w, %c, %x)
  %b: f64[3,2] = broadcast_in_dim[shape=[3,2], dims=[1]](%z)
  return %y, %b
}

; (k, p, x, n) -> (k + 1, p * x, k, n > k)
func @multi(%k: i32[], %p: f32[], %x: f32[], %n: i32[2]) -> (i32[], f32[], i32[], bool[2]) {
  %one: i32[] = constant[value=1]()
  %k1: i32[] = add(%k, %one)
  %p1: f32[] = mul(%p, %x)
  %kb: i32[2] = broadcast_in_dim[shape=[2], dims=[]](%k)
  %g: bool[2] = gt(%n, %kb)
  return %k1, %p1, %k, %g
}

func @count(%n: i32[]) -> (i32[], i32[]) {
  %one: i32[] = constant[value=1]()
  %m: i32[] = add(%n, %one)
  return %m, %n
}

func @negate(%x: f32[]) -> (f32[]) {
  %y: f32[] = neg(%x)
  return %y
}
