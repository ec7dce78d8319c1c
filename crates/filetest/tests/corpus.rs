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

#[test]
fn every_corpus_file_round_trips() {
    match ferrax_filetest::check_round_trips() {
        Ok(count) => assert!(count > 0),
        Err(report) => panic!("{report}"),
    }
}
