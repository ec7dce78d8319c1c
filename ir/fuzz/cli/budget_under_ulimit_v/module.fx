; The default allocation budget (half of physical memory) ignored the process's own
; limits: under `ulimit -v 8000000`, `run` of this 8 GiB constant aborted on the
; allocation (exit 134) instead of refusing it in one line as `--max-bytes` does.
; The default budget is now the least of half of physical memory, the address-space
; and data limits and the cgroup's memory.max.
func @big() -> (f32[2147483648]) {
  %x: f32[2147483648] = constant[value=1.0]()
  return %x
}
