//! The performance harness (the benchmark issue); empty for now.
