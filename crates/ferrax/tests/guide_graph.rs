//! The computational graph the guide shows (`docs/img/loss_grad.svg`) stays true: the
//! Graphviz text committed next to it must be what `ferrax grad` then `ferrax dot`
//! give for `docs/img/loss.fx` today. To refresh both after a deliberate change:
//!
//!     ferrax grad docs/img/loss.fx --wrt 0 | ferrax dot - > docs/img/loss_grad.dot
//!     dot -Tsvg docs/img/loss_grad.dot > docs/img/loss_grad.svg

use ferrax_transform::{Wrt, grad};

#[test]
fn the_gradient_graph_in_the_guide_is_current() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/img/");
    let source = std::fs::read_to_string(format!("{root}loss.fx")).unwrap();
    let module = ferrax::ir::parse(&source).unwrap();
    let gradient = grad(&module, &Wrt::Params(vec![0]), false).unwrap();
    let dot = ferrax_transform::dot(&gradient, None).unwrap();
    let committed = std::fs::read_to_string(format!("{root}loss_grad.dot")).unwrap();
    assert_eq!(
        dot.trim_end(),
        committed.trim_end(),
        "regenerate docs/img/loss_grad.dot and .svg (see this file's docs)"
    );
    let svg = std::fs::read_to_string(format!("{root}loss_grad.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("broadcast_in_dim"));
}
