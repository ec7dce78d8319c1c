; random_bits[shape](key): element i (flat C order) is word i mod 2 of Threefry-2x32-20
; applied to the key and the 64-bit counter i div 2 (high word, low word). The words
; print as i32 (0x99ba4efe is -1715843330). The Threefry function itself is checked
; against all three published known-answer vectors in prim/random.rs.

; Known answer: key (0, 0), counter (0, 0) gives the block 0x6b200159 0x99ba4efe,
; which is elements 0 and 1.
func @known_answer(%k: i32[2]) -> (i32[2]) {
  %b: i32[2] = random_bits[shape=[2]](%k)
  return %b
}
; run
; in: i32[2] = [0, 0]
; out0: i32[2] = [1797259609, -1715843330]

; Element i depends only on the key and i: a scalar is element 0, and every shape
; holds the same sequence in C order (a longer draw extends a shorter one). An empty
; shape draws nothing.
func @shapes(%k: i32[2]) -> (i32[], i32[5], i32[2,3], i32[0,4]) {
  %s: i32[] = random_bits[shape=[]](%k)
  %v: i32[5] = random_bits[shape=[5]](%k)
  %m: i32[2,3] = random_bits[shape=[2,3]](%k)
  %e: i32[0,4] = random_bits[shape=[0,4]](%k)
  return %s, %v, %m, %e
}
; run
; in: i32[2] = [0, 0]
; out0: i32[] = [1797259609]
; out1: i32[5] = [1797259609, -1715843330, 928981903, -841280227, -148943191]
; out2: i32[2,3] = [1797259609, -1715843330, 928981903, -841280227, -148943191, -1576124287]
; out3: i32[0,4] = []
; run
; in: i32[2] = [-1, -1]
; out0: i32[] = [1094285764]
; out1: i32[5] = [1094285764, 1314454335, 1355514454, -1929874034, 399813750]
; out2: i32[2,3] = [1094285764, 1314454335, 1355514454, -1929874034, 399813750, 1719144391]
; out3: i32[0,4] = []
; run
; in: i32[2] = [0, 1]
; out0: i32[] = [507451445]
; out1: i32[5] = [507451445, 1853169794, 1948878966, -57835448, -1853052655]
; out2: i32[2,3] = [507451445, 1853169794, 1948878966, -57835448, -1853052655, -475325333]
; out3: i32[0,4] = []

; Keys are two unsigned words: the words differ between keys that differ in one bit,
; in either word.
func @nearby_keys() -> (i32[4], i32[4], i32[4]) {
  %a: i32[2] = constant[value=[0, 42]]()
  %b: i32[2] = constant[value=[0, 43]]()
  %c: i32[2] = constant[value=[1, 42]]()
  %ra: i32[4] = random_bits[shape=[4]](%a)
  %rb: i32[4] = random_bits[shape=[4]](%b)
  %rc: i32[4] = random_bits[shape=[4]](%c)
  return %ra, %rb, %rc
}
; run
; out0: i32[4] = [1832780943, 270669613, 64467757, -1378843660]
; out1: i32[4] = [-897029540, 1294208123, 409454506, -1994446810]
; out2: i32[4] = [-75214874, -1534667340, -604810842, -46894281]

; Splitting: row j of random_bits[shape=[n,2]] is block j, used as a new key. Key 1
; of a split of (0, 0) is elements 2 and 3 of @shapes' draw from (0, 0); drawing from it
; starts a new, unrelated sequence.
func @split_then_draw(%k: i32[2]) -> (i32[2], i32[3]) {
  %keys: i32[3,2] = random_bits[shape=[3,2]](%k)
  %row: i32[1,2] = slice[start=[1,0], limit=[2,2]](%keys)
  %k1: i32[2] = reshape[shape=[2]](%row)
  %r: i32[3] = random_bits[shape=[3]](%k1)
  return %k1, %r
}
; run
; in: i32[2] = [0, 0]
; out0: i32[2] = [928981903, -841280227]
; out1: i32[3] = [346279018, 360566543, -326637265]

; The result is allocated like any other: over the budget is an error before any work.
func @too_many(%k: i32[2]) -> (i32[1000000]) {
  %r: i32[1000000] = random_bits[shape=[1000000]](%k)
  return %r
}
; run max_bytes=4096
; in: i32[2] = [0, 0]
; error: in @too_many, equation 0 (random_bits): the result %1: i32[1000000] needs 4000008 live bytes, over the allocation budget of 4096 bytes
