//! Runs the `ir/` corpus: one test per subtest directory.

fn run(subtest: &str) {
    match ferrax_filetest::run_subtest(subtest, ferrax_filetest::bless_requested()) {
        Ok(count) => assert!(count > 0, "ir/{subtest} has no .fx files"),
        Err(report) => panic!("ir/{subtest}: {report}"),
    }
}

#[test]
fn parse() {
    run("parse");
}

#[test]
fn verify() {
    run("verify");
}

#[test]
fn eval() {
    run("eval");
}

/// `ir/jvp`: the forward-mode module of each file, and its derivatives checked numerically.
#[test]
fn jvp() {
    run("jvp");
}

/// `ir/vjp`: the reverse-mode module of each file, and its derivatives checked numerically.
#[test]
fn vjp() {
    run("vjp");
}

/// `ir/vmap`: the batched module of each file, checked against a loop over the examples.
#[test]
fn vmap() {
    run("vmap");
}

/// `ir/opt`: the optimised module of each file, checked bit for bit against the original.
#[test]
fn opt() {
    run("opt");
}

/// Every corpus Func, and its jvp, vjp, grad, hvp and vmap, gives bit-identical
/// results after `opt`.
#[test]
fn opt_keeps_the_results_of_every_corpus_program() {
    match ferrax_filetest::check_opt_on_corpus() {
        Ok(count) => {
            println!("{count} corpus modules keep their results under opt");
            assert!(count > 100, "only {count} modules checked")
        }
        Err(report) => panic!("{report}"),
    }
}

#[test]
fn every_corpus_file_round_trips() {
    match ferrax_filetest::check_round_trips() {
        Ok(count) => assert!(count > 0),
        Err(report) => panic!("{report}"),
    }
}

/// Every primitive of the IR appears in some Func of the `eval` corpus.
#[test]
fn every_primitive_is_in_the_eval_corpus() {
    use ferrax_ir::prim::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
    let mut names: Vec<&str> = UnaryOp::MATH.iter().map(|op| op.name()).collect();
    names.extend(BinaryOp::ALL.iter().map(|op| op.name()));
    names.extend(CompareOp::ALL.iter().map(|op| op.name()));
    names.extend(ReduceOp::ALL.iter().map(|op| op.name()));
    names.extend([
        "integer_pow",
        "convert",
        "stop_gradient",
        "name",
        "select",
        "clamp",
        "broadcast_in_dim",
        "reshape",
        "transpose",
        "rev",
        "slice",
        "pad",
        "concatenate",
        "iota",
        "constant",
        "dynamic_slice",
        "dynamic_update_slice",
        "gather",
        "scatter_add",
        "argmax",
        "argmin",
        "cumsum",
        "dot_general",
        "conv_general_dilated",
        "call",
        "cond",
        "while",
        "scan",
        "custom_jvp",
        "custom_vjp",
        "remat",
    ]);
    let dir = ferrax_filetest::corpus_dir().join("eval");
    let mut seen = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("ir/eval exists") {
        let text = std::fs::read_to_string(entry.expect("a directory entry").path()).expect("a readable file");
        let module = ferrax_ir::parse(&text).expect("corpus files parse");
        for func in module.funcs.values() {
            seen.extend(func.eqns.iter().map(|e| e.prim.name()));
        }
    }
    let missing: Vec<&str> = names.into_iter().filter(|n| !seen.contains(n)).collect();
    assert!(missing.is_empty(), "primitives missing from ir/eval: {missing:?}");
}
