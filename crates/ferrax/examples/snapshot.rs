//! Snapshot-testing the IR your code emits, with `insta`.
//!
//! The IR printed by [`ferrax::make_ir`] is plain text with the source line of every
//! equation, so it is easy to review and to pin down: a snapshot test fails when a
//! change to your model (or to ferrax) changes what is traced, and shows the diff.
//! This example prints the IR such a test would pin, the gradient of a small loss.
//! In your own crate:
//!
//! ```text
//! # Cargo.toml
//! [dev-dependencies]
//! insta = "1"
//!
//! // tests/ir.rs
//! use ferrax::{DType, Tensor, Type, grad, make_ir};
//!
//! fn loss([w, x]: [Tensor; 2]) -> Tensor {
//!     (&w * &x).tanh().sum_all()
//! }
//!
//! #[test]
//! fn gradient_ir() {
//!     let spec = [Type::new(DType::F32, &[3]), Type::new(DType::F32, &[3])];
//!     let ir = make_ir(|p: [Tensor; 2]| grad(loss).apply(&p), &spec).unwrap();
//!     insta::assert_snapshot!(ir);
//! }
//! ```
//!
//! The first `cargo test` writes `tests/snapshots/ir__gradient_ir.snap.new`; review it
//! with `cargo insta review` (or accept with `INSTA_UPDATE=always cargo test`) and
//! commit the `.snap` file. ferrax's own copy of this test is
//! `crates/ferrax/tests/snapshot_example.rs`.
//!
//!     cargo run --release --example snapshot

use ferrax::{DType, Tensor, Type, grad, make_ir};

/// The loss whose gradient's IR is pinned.
fn loss([w, x]: [Tensor; 2]) -> Tensor {
    (&w * &x).tanh().sum_all()
}

/// Prints the IR a snapshot test would pin.
pub fn main() -> Result<(), ferrax::Error> {
    let spec = [Type::new(DType::F32, &[3]), Type::new(DType::F32, &[3])];
    let ir = make_ir(|p: [Tensor; 2]| grad(loss).apply(&p), &spec)?;
    println!("the IR of grad(loss) that the snapshot pins:\n\n{ir}");
    Ok(())
}
