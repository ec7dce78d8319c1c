//! The fusion pass over the corpus: the `ir/fuse` files (one per fusion decision) and
//! every program of the corpus with its derivatives, checked bit for bit.

/// `ir/fuse`: the fused module of each file, its launch count, the kernel contract,
/// and bit-identical results.
#[test]
fn fuse() {
    match ferrax_filetest::run_subtest("fuse", ferrax_filetest::bless_requested()) {
        Ok(count) => assert!(count >= 12, "only {count} files in ir/fuse"),
        Err(report) => panic!("{report}"),
    }
}

/// Every corpus Func and its jvp, vjp, grad, hvp and vmap keeps its results after
/// `fuse` and after `opt` then `fuse`.
#[test]
fn fuse_keeps_the_results_of_every_corpus_program() {
    match ferrax_filetest::check_fuse_on_corpus() {
        Ok(count) => {
            println!("{count} modules fused and checked");
            assert!(count > 300, "only {count} modules checked")
        }
        Err(report) => panic!("{report}"),
    }
}
