//! The single-op runs of `ir/eval`, under the interpreter and the JIT, against JAX's
//! values in the committed fixture (`crates/filetest/fixtures/jax_eval.txt`, made by
//! `make_jax_fixture.py` there; tolerances in `ferrax_filetest::oracle`).

#[test]
fn single_op_eval_runs_agree_with_jax() {
    match ferrax_filetest::check_jax_fixture() {
        Ok(coverage) => {
            println!(
                "{} files, {} runs, {} values ({} under a tolerance), each against the interpreter and the JIT; \
                 {} comparisons left unjudged (overflow in a sum or product of finite operands)",
                coverage.files, coverage.runs, coverage.values, coverage.tolerant, coverage.unbounded
            );
            for (what, ulps) in &coverage.worst {
                println!("  {what}: at most {ulps} ulps from JAX");
            }
            // The criterion must keep covering the corpus' primitives, not silently
            // shrink to nothing.
            assert!(coverage.runs >= 200 && coverage.files >= 45, "{coverage:?}");
        }
        Err(report) => panic!("{report}"),
    }
}
