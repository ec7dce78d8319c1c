func @f(%p: bool[], %x: f32[]) -> (f32[]) {
  %y: f32[] = cond[branches=[@id, @id, @id]](%p, %x) ; error: a bool predicate needs 2 branches, got 3
  return %y
}

func @id(%x: f32[]) -> (f32[]) {
  return %x
}
