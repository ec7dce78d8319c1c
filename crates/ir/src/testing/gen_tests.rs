//! The generator's own tests: reproducibility, verification, and coverage of every
//! family and every differentiable primitive.

use super::*;

#[test]
fn generated_modules_verify_and_are_reproducible() {
    let config = GenConfig::default();
    for seed in 0..300 {
        let module = random_module(seed, &config);
        if let Err(e) = crate::verify(&module) {
            panic!("seed {seed}: {e}\n{module:#?}");
        }
        let again = random_module(seed, &config);
        assert_eq!(format!("{module:?}"), format!("{again:?}"), "seed {seed} is not reproducible");
    }
}

#[test]
fn smooth_modules_are_f64_and_smooth() {
    let config = GenConfig { smooth: true, special_values: false, ..GenConfig::default() };
    for seed in 0..300 {
        let module = random_module(seed, &config);
        crate::verify(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", crate::print(&module)));
        for func in module.funcs.values() {
            for eqn in &func.eqns {
                let name = eqn.prim.name();
                let banned = ["stop_gradient", "abs", "sign", "floor", "ceil", "round", "rem", "argmax", "argmin"];
                assert!(!banned.contains(&name), "seed {seed}: {name}\n{}", crate::print(&module));
                assert!(name != "random_bits" && name != "is_finite", "seed {seed}: {name}");
                if let Prim::Control(ControlOp::While { max_iters, .. }) = &eqn.prim {
                    assert!(max_iters.is_some(), "seed {seed}: an unbounded while");
                }
                // Custom rules are the generator's true ones, never random Funcs.
                if let Prim::Control(ControlOp::CustomJvp { jvp, .. }) = &eqn.prim {
                    assert!(jvp.starts_with("custom_jvp"), "seed {seed}: a random jvp rule @{jvp}");
                }
                if let Prim::Control(ControlOp::CustomVjp { bwd, .. }) = &eqn.prim {
                    assert!(bwd.starts_with("custom_bwd"), "seed {seed}: a random bwd rule @{bwd}");
                }
            }
        }
        let entry = module.entry().unwrap();
        assert!(entry.param_types().iter().all(|t| t.dtype == DType::F64), "seed {seed}");
    }
}

/// Smooth programs reach every differentiable primitive, a parameter-dependent
/// `cond` and custom rules inside loop bodies.
#[test]
fn smooth_generator_covers_every_differentiable_primitive() {
    let config = GenConfig { smooth: true, special_values: false, ..GenConfig::default() };
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..600 {
        let module = random_module(seed, &config);
        for func in module.funcs.values() {
            seen.extend(func.eqns.iter().map(|e| e.prim.name()));
            let in_body = func.name.starts_with("scan") || func.name.starts_with("body");
            for eqn in &func.eqns {
                match &eqn.prim {
                    Prim::Control(ControlOp::CustomJvp { .. }) | Prim::Control(ControlOp::CustomVjp { .. })
                        if in_body =>
                    {
                        seen.insert("custom in a loop")
                    }
                    Prim::Control(ControlOp::Cond { .. }) => {
                        let selector = eqn.inputs[0];
                        let computed = func.eqns.iter().any(|e| {
                            e.outputs.contains(&selector) && !matches!(e.prim, Prim::Shape(ShapeOp::Constant { .. }))
                        });
                        computed && seen.insert("computed cond")
                    }
                    _ => false,
                };
            }
        }
    }
    let wanted = smooth_wanted();
    let missing: Vec<&&str> = wanted.iter().filter(|w| !seen.contains(**w)).collect();
    assert!(missing.is_empty(), "smooth programs never use {missing:?}; saw {seen:?}");
}

/// What smooth programs must reach: every differentiable primitive by name, plus
/// "custom in a loop" (a custom rule in a loop body) and "computed cond" (a `cond`
/// whose selector is computed rather than a literal).
fn smooth_wanted() -> Vec<&'static str> {
    let mut wanted: Vec<&str> = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Expm1,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Tanh,
        UnaryOp::Logistic,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Erf,
    ]
    .iter()
    .map(|op| op.name())
    .collect();
    wanted.extend(
        [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Pow,
            BinaryOp::Max,
            BinaryOp::Min,
            BinaryOp::Atan2,
        ]
        .iter()
        .map(|op| op.name()),
    );
    wanted.extend(ReduceOp::ALL.iter().map(|op| op.name()));
    wanted.extend([
        "integer_pow",
        "select",
        "clamp",
        "cumsum",
        "cummax",
        "cummin",
        "dot_general",
        "conv_general_dilated",
        "broadcast_in_dim",
        "reshape",
        "transpose",
        "rev",
        "slice",
        "pad",
        "concatenate",
        "dynamic_slice",
        "dynamic_update_slice",
        "gather",
        "scatter_add",
        "scan",
        "while",
        "cond",
        "call",
        "remat",
        "custom_jvp",
        "custom_vjp",
        "custom in a loop",
        "computed cond",
    ]);
    wanted
}

#[test]
fn generator_covers_every_family() {
    let config = GenConfig::default();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..400 {
        for func in random_module(seed, &config).funcs.values() {
            seen.extend(func.eqns.iter().map(|e| e.prim.name()));
            for eqn in &func.eqns {
                match &eqn.prim {
                    Prim::Control(ControlOp::Cond { branches }) if branches.len() == 3 => seen.insert("cond3"),
                    Prim::Control(ControlOp::Scan(p)) if p.num_consts == 1 => seen.insert("scan with consts"),
                    Prim::Control(ControlOp::Remat { policy: RematPolicy::Names(_), .. }) => seen.insert("remat names"),
                    Prim::Control(ControlOp::While { max_iters: None, .. }) => seen.insert("unbounded while"),
                    _ => false,
                };
            }
        }
    }
    for name in [
        "scan",
        "while",
        "cond",
        "call",
        "custom_jvp",
        "custom_vjp",
        "remat",
        "gather",
        "scatter_add",
        "dot_general",
        "pad",
        "cumsum",
        "cummax",
        "cummin",
        "argmax",
        "reduce_window",
        "select_and_gather_add",
        "select_and_scatter_add",
        "dynamic_update_slice",
        "random_bits",
        "broadcast_in_dim",
        "clamp",
        "iota",
        "convert",
        "integer_pow",
        "reduce_prod",
        "cond3",
        "scan with consts",
        "remat names",
        "unbounded while",
    ] {
        assert!(seen.contains(name), "the generator never produced {name}; saw {seen:?}");
    }
}
