//! The cost model on small hand-written modules, every figure computed by hand, and
//! the Graphviz export.

use ferrax_ir::{Module, parse, verify};
use ferrax_transform::{FuncCost, Wrt, cost, cost_with_residuals, dot};

fn module(text: &str) -> Module {
    let m = parse(text).expect("the test module parses");
    verify(&m).expect("the test module verifies");
    m
}

fn report(m: &Module, name: &str) -> FuncCost {
    cost(m).expect("cost").func(name).expect("a report for the Func").clone()
}

#[test]
fn straight_line_figures() {
    let m = module(
        "func @f(%x: f32[4], %y: f32[4]) -> (f32[]) {
  %a: f32[4] = mul(%x, %y)
  %b: f32[4] = tanh(%a)
  %c: f32[] = reduce_sum[axes=[0]](%b)
  return %c
}",
    );
    let c = report(&m, "f");
    // mul 4, tanh 4 (transcendental), reduce_sum 4 input elements.
    assert_eq!((c.flops, c.transcendentals), (12, 4));
    // Reads: 16+16, 16, 16; writes: 16, 16, 4.
    assert_eq!((c.bytes_read, c.bytes_written), (64, 36));
    assert_eq!((c.argument_bytes, c.output_bytes), (32, 4));
    // Live while each equation runs: {a}=16, {a,b}=32, {b,c}=20; at the return {c}=4.
    assert_eq!(c.temp_peak_bytes, 32);
    assert_eq!(c.peak_live_bytes, 64);
    assert!(!c.kernel);
    assert_eq!(c.unbounded_whiles, 0);
}

#[test]
fn dot_general_is_two_m_n_k() {
    let m = module(
        "func @mm(%a: f32[2,3], %b: f32[3,5]) -> (f32[2,5]) {
  %c: f32[2,5] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %t: f32[5,2] = transpose[perm=[1,0]](%c)
  %u: f32[2,5] = transpose[perm=[1,0]](%t)
  return %u
}",
    );
    let c = report(&m, "mm");
    assert_eq!(c.flops, 2 * 2 * 5 * 3);
    assert_eq!(c.transcendentals, 0);
    // c, then {c,t}, then {t,u}: 80 bytes at most; the arguments are 24 + 60.
    assert_eq!((c.temp_peak_bytes, c.argument_bytes, c.peak_live_bytes), (80, 84, 164));
}

const CALL: &str = "func @main(%x: f32[8]) -> (f32[8]) {
  %y: f32[8] = call[func=@body](%x)
  return %y
}
func @body(%x: f32[8]) -> (f32[8]) {
  %a: f32[8] = exp(%x)
  %b: f32[8] = exp(%a)
  %c: f32[8] = add(%a, %b)
  return %c
}";

#[test]
fn a_call_costs_its_body_and_its_peak_counts_inside() {
    let m = module(CALL);
    let body = report(&m, "body");
    assert_eq!((body.flops, body.transcendentals), (24, 16));
    // {a}=32, {a,b}=64, {a,b,c}=96, then {c}.
    assert_eq!(body.temp_peak_bytes, 96);
    let main = report(&m, "main");
    assert_eq!((main.flops, main.transcendentals), (24, 16));
    assert_eq!((main.bytes_read, main.bytes_written), (body.bytes_read, body.bytes_written));
    // The body's 96 bytes (its result being the call's output) on top of nothing else.
    assert_eq!((main.temp_peak_bytes, main.peak_live_bytes), (96, 128));
}

#[test]
fn a_kernel_call_reads_inputs_and_writes_outputs_only() {
    let m = module(&CALL.replace("func @body(", "func @body[kind=\"fusion\"]("));
    let body = report(&m, "body");
    assert!(body.kernel);
    assert_eq!((body.bytes_read, body.bytes_written), (32, 32));
    let main = report(&m, "main");
    assert_eq!((main.flops, main.transcendentals), (24, 16));
    assert_eq!((main.bytes_read, main.bytes_written), (32, 32));
    assert_eq!((main.temp_peak_bytes, main.peak_live_bytes), (32, 64));
    assert!(cost(&m).unwrap().to_string().contains("@body (kernel: its values are not buffers)"));
}

#[test]
fn scan_and_while_multiply_by_trip_count() {
    let m = module(
        "func @s(%c: f32[2], %xs: f32[3,2]) -> (f32[2], f32[3,2]) {
  %c2: f32[2], %ys: f32[3,2] = scan[body=@b, length=3, num_consts=0, num_carry=1](%c, %xs)
  return %c2, %ys
}
func @b(%c: f32[2], %x: f32[2]) -> (f32[2], f32[2]) {
  %n: f32[2] = mul(%c, %x)
  return %n, %n
}",
    );
    let c = report(&m, "s");
    assert_eq!(c.flops, 6);
    assert_eq!((c.bytes_read, c.bytes_written), (48, 24));
    // The scan's outputs (8 + 24) and the body's temp peak (8) while it runs.
    assert_eq!((c.temp_peak_bytes, c.argument_bytes, c.peak_live_bytes), (40, 32, 72));

    let loop_text = "func @w(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = while[cond=@c, body=@b, max_iters=MAX](%x)
  return %y
}
func @c(%x: f32[4]) -> (bool[]) {
  %s: f32[] = reduce_sum[axes=[0]](%x)
  %z: f32[] = constant[value=0.0]()
  %p: bool[] = lt(%s, %z)
  return %p
}
func @b(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = sin(%x)
  return %y
}";
    let bounded = report(&module(&loop_text.replace("MAX", "10")), "w");
    // Each iteration: the predicate (4 + 1) and the body (4).
    assert_eq!((bounded.flops, bounded.transcendentals, bounded.unbounded_whiles), (90, 40, 0));
    let unbounded = cost(&module(&loop_text.replace("MAX", "none"))).unwrap();
    assert_eq!((unbounded.entry().unwrap().flops, unbounded.entry().unwrap().unbounded_whiles), (9, 1));
    assert!(unbounded.to_string().contains("1 while loop(s) without max_iters counted as one iteration"));
}

#[test]
fn residuals_carry_their_source_lines() {
    let m = module(
        "func @f(%x: f32[4]) -> (f32[]) {
  %a: f32[4] = sin(%x) loc(\"src/model.rs:3:9\")
  %b: f32[4] = mul(%a, %a) loc(\"src/model.rs:4:9\")
  %c: f32[] = reduce_sum[axes=[0]](%b)
  return %c
}",
    );
    let report = cost_with_residuals(&m, &Wrt::Default).unwrap();
    let residuals = report.residuals.as_ref().expect("residuals of a differentiable entry");
    assert!(residuals.iter().any(|r| r.loc.as_deref() == Some("src/model.rs:3:9")), "{residuals:?}");
    let text = report.to_string();
    assert!(text.contains("at src/model.rs:3:9"), "{text}");
    assert!(text.contains("residuals of reverse mode through @f:"), "{text}");
}

#[test]
fn a_missing_body_is_an_error_naming_it() {
    let mut m = module(CALL);
    m.funcs.shift_remove("body");
    let err = cost(&m).unwrap_err().to_string();
    assert!(err.contains("no Func @body"), "{err}");
}

const KERNEL: &str = "func @main(%x: f32[8], %y: f32[8]) -> (f32[8], f32[]) {
  %k: f32[8] = call[func=@k0](%x, %y)
  %r: f32[] = reduce_sum[axes=[0]](%k)
  %s: f32[8] = remat[func=@region, policy=\"nothing\"](%k)
  return %s, %r
}
func @k0[kind=\"fusion\"](%a: f32[8], %b: f32[8]) -> (f32[8]) {
  %m: f32[8] = mul(%a, %b)
  %t: f32[8] = tanh(%m)
  return %t
}
func @region(%a: f32[8]) -> (f32[8]) {
  %e: f32[8] = exp(%a)
  return %e
}";

#[test]
fn dot_snapshot() {
    insta::assert_snapshot!("dot_kernel_and_remat", dot(&module(KERNEL), None).unwrap());
}

#[test]
fn dot_is_well_formed() {
    let m = module(KERNEL);
    for func in [None, Some("k0"), Some("region")] {
        let text = dot(&m, func).unwrap();
        let opens = text.matches('{').count();
        assert_eq!(opens, text.matches('}').count(), "{text}");
        assert!(text.starts_with("digraph ") && text.ends_with('}'));
        // Every edge endpoint is a declared node.
        let declared: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(" [") && !l.contains("->"))
            .map(|l| l.trim().split(' ').next().unwrap())
            .collect();
        let edges: Vec<(&str, &str)> = text
            .lines()
            .filter_map(|l| l.trim().split_once(" -> "))
            .map(|(a, b)| (a, b.split([' ', ';']).next().unwrap()))
            .collect();
        assert!(!edges.is_empty());
        for (a, b) in edges {
            assert!(declared.contains(&a) && declared.contains(&b), "{a} -> {b} in\n{text}");
        }
    }
    assert_eq!(dot(&m, None).unwrap().matches("subgraph cluster_").count(), 1);
    let err = dot(&m, Some("nope")).unwrap_err().to_string();
    assert!(err.contains("no Func @nope"), "{err}");
}

#[test]
fn an_entry_without_reverse_mode_still_gets_its_costs() {
    let m = module(
        "func @w(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = while[cond=@c, body=@b](%x)
  return %y
}
func @c(%x: f32[4]) -> (bool[]) {
  %s: f32[] = reduce_sum[axes=[0]](%x)
  %z: f32[] = constant[value=0.0]()
  %p: bool[] = lt(%s, %z)
  return %p
}
func @b(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = sin(%x)
  return %y
}",
    );
    let report = cost_with_residuals(&m, &Wrt::Default).unwrap();
    assert!(report.residuals.is_none());
    let why = report.residuals_unavailable.as_deref().expect("a reason");
    assert!(report.to_string().contains("residuals: reverse mode does not apply"), "{why}");
    assert!(cost_with_residuals(&m, &Wrt::Params(vec![0])).is_err());
}

/// The forward values reverse mode saves, per dtype: a bf16 computation keeps half the
/// bytes of the same one in f32 (parameters excluded).
#[test]
fn saved_forward_values_are_counted_per_dtype() {
    let program = |dtype: &str| {
        "func @f(%x: DT[64], %w: DT[64]) -> (DT[]) {
  %a: DT[64] = mul(%x, %w)
  %b: DT[64] = tanh(%a)
  %c: DT[64] = sin(%b)
  %d: DT[] = reduce_sum[axes=[0]](%c)
  return %d
}
"
        .replace("DT", dtype)
    };
    let by_dtype = |dtype: &str| {
        let m = module(&program(dtype));
        let residuals = cost_with_residuals(&m, &Wrt::Default).unwrap().residuals.unwrap();
        ferrax_transform::residual_bytes_by_dtype(&residuals)
    };
    let wide = by_dtype("f32");
    let narrow = by_dtype("bf16");
    assert_eq!(wide.len(), 1);
    assert_eq!(narrow, vec![(ferrax_ir::DType::BF16, wide[0].1 / 2)]);
    assert!(wide[0].1 > 0);
    let text = cost_with_residuals(&module(&program("bf16")), &Wrt::Default).unwrap().to_string();
    assert!(text.contains(&format!("forward values saved, by dtype (bytes): bf16 {}", narrow[0].1)), "{text}");
}

/// At the peak, the live bytes split by dtype (parameters included) add up to the peak
/// with what lives inside bodies; an offloaded value is not live, and its bytes are
/// the bytes offloaded.
#[test]
fn live_bytes_at_the_peak_are_split_by_dtype() {
    let m = module(
        "func @f(%x: f32[64], %h: bf16[32]) -> (f32[], bf16[32]) {
  %a: f32[64] = sin(%x)
  %k: f32[64] = offload(%a)
  %b: bf16[32] = mul(%h, %h)
  %c: f32[64] = cos(%x)
  %r: f32[64] = reload(%k)
  %d: f32[64] = mul(%r, %c)
  %s: f32[] = reduce_sum[axes=[0]](%d)
  return %s, %b
}
",
    );
    let f = report(&m, "f");
    let total: u64 = f.live_at_peak_by_dtype.iter().map(|(_, b)| b).sum();
    assert_eq!(total + f.live_at_peak_in_bodies, f.peak_live_bytes, "{f}");
    // The peak is at `mul(%r, %c)`: x, h, b, c, r and d are live; a is offloaded.
    assert_eq!(f.live_at_peak_by_dtype, vec![(ferrax_ir::DType::BF16, 128), (ferrax_ir::DType::F32, 4 * 256)]);
    assert_eq!(f.offloaded_bytes, 256);
    assert!(f.to_string().contains("live at the peak, by dtype (bytes): bf16 128, f32 1024"), "{f}");
}

/// Reverse mode recomputes the entry's casts of its own parameters instead of saving
/// them (the caller holds the parameters): a bf16 computation on f32 parameters keeps
/// only the bf16 values it computed, not a bf16 copy of every input.
#[test]
fn casts_of_parameters_are_recomputed_not_saved() {
    let m = module(
        "func @f(%x: f32[64], %w: f32[64]) -> (f32[]) {
  %xb: bf16[64] = convert[dtype=bf16](%x)
  %wb: bf16[64] = convert[dtype=bf16](%w)
  %a: bf16[64] = mul(%xb, %wb)
  %b: bf16[64] = tanh(%a)
  %s: bf16[] = reduce_sum[axes=[0]](%b)
  %o: f32[] = convert[dtype=f32](%s)
  return %o
}
",
    );
    let residuals = cost_with_residuals(&m, &Wrt::Default).unwrap().residuals.unwrap();
    // tanh's output; the casts of x and w come back from the parameters.
    assert_eq!(ferrax_transform::residual_bytes_by_dtype(&residuals), vec![(ferrax_ir::DType::BF16, 128)]);
}
