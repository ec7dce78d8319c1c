//! Collectives (`psum`, `pmax`, `pmin`, `pmean`, `all_gather`, `psum_scatter`,
//! `ppermute`, `all_to_all`, `axis_index`): what they mean and how they differentiate.
//!
//! A collective means nothing until its axis is bound, so these checks bind it with
//! `vmap_named` (the definition of every collective) and hold the result against a
//! loop over the members written out here, for axis sizes 1 to 4, with the operand
//! batched or shared. Derivatives: binding after `jvp`/`vjp` (which exercises the
//! collectives' own jvp and transpose rules) equals binding first (which uses only
//! ordinary primitives), first and second order, and forward mode matches central
//! differences. A collective over an axis another vmap binds passes its batch axis
//! through: checked against a loop over that batch. Unbound, every engine refuses a
//! collective with an error naming its axis.

use ferrax_ir::{Array, EvalOptions, Module, eval_entry, parse, verify};
use ferrax_tests::SplitMix;
use ferrax_transform::{Wrt, jvp, vjp, vmap, vmap_named};

/// A dense array of f64 with its shape, for the reference loops.
#[derive(Clone, Debug, PartialEq)]
struct Nd {
    shape: Vec<usize>,
    data: Vec<f64>,
}

impl Nd {
    fn from_fn(shape: &[usize], mut f: impl FnMut(&[usize]) -> f64) -> Nd {
        let n: usize = shape.iter().product();
        let mut data = Vec::with_capacity(n);
        let mut idx = vec![0; shape.len()];
        for _ in 0..n {
            data.push(f(&idx));
            for a in (0..shape.len()).rev() {
                idx[a] += 1;
                if idx[a] < shape[a] {
                    break;
                }
                idx[a] = 0;
            }
        }
        Nd { shape: shape.to_vec(), data }
    }

    fn get(&self, idx: &[usize]) -> f64 {
        let flat = idx.iter().zip(&self.shape).fold(0, |acc, (&i, &n)| acc * n + i);
        self.data[flat]
    }

    /// Members stacked along a new axis 0.
    fn stack(members: &[Nd]) -> Nd {
        let mut shape = vec![members.len()];
        shape.extend(&members[0].shape);
        Nd { shape, data: members.iter().flat_map(|m| m.data.clone()).collect() }
    }

    fn array(&self) -> Array {
        Array::new(self.shape.as_slice(), ferrax_ir::array::Data::F64(self.data.clone())).expect("valid shape")
    }
}

fn with(idx: &[usize], axis: usize, value: usize) -> Vec<usize> {
    let mut i = idx.to_vec();
    i[axis] = value;
    i
}

fn inserted(v: &[usize], at: usize, value: usize) -> Vec<usize> {
    let mut i = v.to_vec();
    i.insert(at, value);
    i
}

fn removed(v: &[usize], at: usize) -> Vec<usize> {
    let mut i = v.to_vec();
    i.remove(at);
    i
}

/// One collective: its text (`{n}` is the axis size), each member's operand shape
/// (`n` the axis size), and its definition over the members.
struct Case {
    op: &'static str,
    shape: fn(usize) -> Vec<usize>,
    reference: fn(&[Nd]) -> Vec<Nd>,
    differentiable: bool,
}

fn cases() -> Vec<Case> {
    fn sum_over(xs: &[Nd], idx: &[usize]) -> f64 {
        xs.iter().map(|x| x.get(idx)).sum()
    }
    vec![
        Case {
            op: "psum[axes=[\"i\"]]",
            shape: |_| vec![2, 3],
            reference: |xs| xs.iter().map(|x| Nd::from_fn(&x.shape, |i| sum_over(xs, i))).collect(),
            differentiable: true,
        },
        Case {
            op: "pmean[axes=[\"i\"]]",
            shape: |_| vec![3],
            reference: |xs| xs.iter().map(|x| Nd::from_fn(&x.shape, |i| sum_over(xs, i) / xs.len() as f64)).collect(),
            differentiable: true,
        },
        Case {
            op: "pmax[axes=[\"i\"]]",
            shape: |_| vec![2, 2],
            reference: |xs| {
                let top = |i: &[usize]| xs.iter().map(|x| x.get(i)).fold(f64::NEG_INFINITY, f64::max);
                xs.iter().map(|x| Nd::from_fn(&x.shape, top)).collect()
            },
            differentiable: true,
        },
        Case {
            op: "pmin[axes=[\"i\"]]",
            shape: |_| vec![4],
            reference: |xs| {
                let low = |i: &[usize]| xs.iter().map(|x| x.get(i)).fold(f64::INFINITY, f64::min);
                xs.iter().map(|x| Nd::from_fn(&x.shape, low)).collect()
            },
            differentiable: true,
        },
        Case {
            op: "all_gather[axis_name=\"i\", axis=1, axis_size={n}]",
            shape: |_| vec![2, 3],
            reference: |xs| {
                let shape = inserted(&xs[0].shape, 1, xs.len());
                let all = Nd::from_fn(&shape, |i| xs[i[1]].get(&removed(i, 1)));
                vec![all; xs.len()]
            },
            differentiable: true,
        },
        Case {
            op: "all_gather[axis_name=\"i\", axis=0, tiled=true, axis_size={n}]",
            shape: |_| vec![2, 3],
            reference: |xs| {
                let c = xs[0].shape[0];
                let shape = with(&xs[0].shape, 0, c * xs.len());
                let all = Nd::from_fn(&shape, |i| xs[i[0] / c].get(&with(i, 0, i[0] % c)));
                vec![all; xs.len()]
            },
            differentiable: true,
        },
        Case {
            op: "psum_scatter[axis_name=\"i\", scatter_dimension=1, axis_size={n}]",
            shape: |n| vec![2, n],
            reference: |xs| {
                let shape = removed(&xs[0].shape, 1);
                (0..xs.len()).map(|m| Nd::from_fn(&shape, |i| sum_over(xs, &inserted(i, 1, m)))).collect()
            },
            differentiable: true,
        },
        Case {
            op: "psum_scatter[axis_name=\"i\", scatter_dimension=0, tiled=true, axis_size={n}]",
            shape: |n| vec![2 * n, 2],
            reference: |xs| {
                let c = xs[0].shape[0] / xs.len();
                let shape = with(&xs[0].shape, 0, c);
                (0..xs.len()).map(|m| Nd::from_fn(&shape, |i| sum_over(xs, &with(i, 0, m * c + i[0])))).collect()
            },
            differentiable: true,
        },
        Case {
            // A cyclic shift with the last pair left out: member 0 receives nothing.
            op: "ppermute[axis_name=\"i\", perm={perm}]",
            shape: |_| vec![3],
            reference: |xs| {
                let n = xs.len();
                (0..n)
                    .map(|dst| {
                        let src = (dst + n - 1) % n;
                        if dst == 0 && n > 1 || n == 1 { Nd::from_fn(&xs[0].shape, |_| 0.0) } else { xs[src].clone() }
                    })
                    .collect()
            },
            differentiable: true,
        },
        Case {
            op: "all_to_all[axis_name=\"i\", split_axis=0, concat_axis=1, axis_size={n}]",
            shape: |n| vec![2 * n, 3],
            reference: |xs| all_to_all(xs, 0, 1),
            differentiable: true,
        },
        Case {
            op: "all_to_all[axis_name=\"i\", split_axis=1, concat_axis=1, axis_size={n}]",
            shape: |n| vec![2, n],
            reference: |xs| all_to_all(xs, 1, 1),
            differentiable: true,
        },
    ]
}

/// `all_to_all` by its definition: member `j` concatenates block `j` of every member.
fn all_to_all(xs: &[Nd], split: usize, concat: usize) -> Vec<Nd> {
    let n = xs.len();
    let s = &xs[0].shape;
    let q = s[split] / n;
    let mut out_shape = with(s, split, q);
    let block_c = out_shape[concat];
    out_shape[concat] = block_c * n;
    (0..n)
        .map(|j| {
            Nd::from_fn(&out_shape, |i| {
                let (m, local) = (i[concat] / block_c, i[concat] % block_c);
                let mut idx = with(i, concat, local);
                idx[split] += j * q;
                xs[m].get(&idx)
            })
        })
        .collect()
}

/// The module `x -> op(x)` over `f64` for `n` members of `shape`, declaring the axis
/// `i` (and `extra` ones); `out` is each member's result shape.
fn module(op: &str, n: usize, shape: &[usize], out: &[usize], extra: &str) -> Module {
    let perm: Vec<String> = (0..n.saturating_sub(1)).map(|k| format!("[{k}, {}]", k + 1)).collect();
    let op = op.replace("{n}", &n.to_string()).replace("{perm}", &format!("[{}]", perm.join(", ")));
    let dims = |s: &[usize]| s.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let (x, y) = (dims(shape), dims(out));
    let text = format!(
        "func @f[axis_names=[\"i\"{extra}]](%x: f64[{x}]) -> (f64[{y}]) {{\n  %y: f64[{y}] = {op}(%x)\n  return %y\n}}"
    );
    let m = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify(&m).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m
}

/// A case's module for `n` members, with its operand shape.
fn case_module(case: &Case, n: usize, extra: &str) -> (Module, Vec<usize>) {
    let shape = (case.shape)(n);
    let probe: Vec<Nd> = (0..n).map(|_| Nd::from_fn(&shape, |_| 0.0)).collect();
    let out = (case.reference)(&probe)[0].shape.clone();
    (module(case.op, n, &shape, &out, extra), shape)
}

fn run(module: &Module, args: &[Array]) -> Vec<Array> {
    verify(module).unwrap_or_else(|e| panic!("{e}\n{module}"));
    eval_entry(module, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("{e}\n{module}"))
}

fn close(a: &Array, b: &Array, tol: f64, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}: shapes");
    for (k, (x, y)) in a.to_f64_vec().into_iter().zip(b.to_f64_vec()).enumerate() {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{what}: element {k}: {x} vs {y}");
    }
}

fn random_members(n: usize, shape: &[usize], rng: &mut SplitMix) -> Vec<Nd> {
    (0..n).map(|_| Nd::from_fn(shape, |_| 4.0 * rng.uniform() - 2.0)).collect()
}

#[test]
fn each_collective_bound_by_vmap_is_its_definition_over_the_members() {
    let mut rng = SplitMix::seeded("collective values");
    for case in cases() {
        for n in 1..=4 {
            let (f, shape) = case_module(&case, n, "");
            let bound = vmap_named(&f, &[Some(0)], &[0], n, "i").unwrap_or_else(|e| panic!("{}: {e}", case.op));
            assert!(bound.entry().unwrap().axis_names().is_empty(), "{bound}");
            // Batched operand: one value per member.
            let xs = random_members(n, &shape, &mut rng);
            let expected = Nd::stack(&(case.reference)(&xs));
            let got = run(&bound, &[Nd::stack(&xs).array()]);
            close(&got[0], &expected.array(), 1e-12, &format!("{} n={n}", case.op));
            // Shared operand: every member holds the same value.
            let shared = vmap_named(&f, &[None], &[0], n, "i").unwrap();
            let same = vec![xs[0].clone(); n];
            let got = run(&shared, &[xs[0].array()]);
            close(&got[0], &Nd::stack(&(case.reference)(&same)).array(), 1e-12, &format!("{} shared n={n}", case.op));
        }
    }
}

#[test]
fn axis_index_is_each_members_position() {
    let f = parse(
        "func @f[axis_names=[\"i\"]](%x: f64[2]) -> (f64[2]) {\n  %k: i32[] = axis_index[axis_name=\"i\"]()\n  \
         %c: f64[] = convert[dtype=f64](%k)\n  %b: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%c)\n  \
         %y: f64[2] = add(%x, %b)\n  return %y\n}",
    )
    .unwrap();
    for n in 1..=4 {
        let bound = vmap_named(&f, &[None], &[0], n, "i").unwrap();
        let got = run(&bound, &[Array::from(vec![10.0, 20.0])]);
        let expected: Vec<f64> = (0..n).flat_map(|m| [10.0 + m as f64, 20.0 + m as f64]).collect();
        assert_eq!(got[0].to_f64_vec(), expected);
        assert_eq!(got[0].shape(), &[n, 2]);
    }
}

/// Binds the axis `i` of a module whose every parameter is per-member.
fn bind(m: &Module, n: usize) -> Module {
    let params = m.entry().unwrap().params.len();
    vmap_named(m, &vec![Some(0); params], &[0], n, "i").unwrap_or_else(|e| panic!("{e}\n{m}"))
}

#[test]
fn derivatives_through_collectives_equal_binding_first_and_finite_differences() {
    let mut rng = SplitMix::seeded("collective derivatives");
    for case in cases().into_iter().filter(|c| c.differentiable) {
        for n in [1, 2, 3] {
            let (f, shape) = case_module(&case, n, "");
            let out_shape = f.entry().unwrap().result_types[0].shape.to_vec();
            let x = Nd::stack(&random_members(n, &shape, &mut rng)).array();
            let t = Nd::stack(&random_members(n, &shape, &mut rng)).array();
            let ct = Nd::stack(&random_members(n, &out_shape, &mut rng)).array();
            let label = format!("{} n={n}", case.op);
            // Forward: the collective's jvp rule against jvp of the bound program.
            let first = run(&bind(&jvp(&f, &Wrt::Default).unwrap(), n), &[x.clone(), t.clone()]);
            let bound = bind(&f, n);
            let second = run(&jvp(&bound, &Wrt::Default).unwrap(), &[x.clone(), t.clone()]);
            close(&first[1], &second[1], 1e-12, &format!("{label}: jvp"));
            // ... and against central differences of the bound program.
            let h = 1e-6;
            let step = |s: f64| {
                let xs: Vec<f64> = x.to_f64_vec().iter().zip(t.to_f64_vec()).map(|(a, b)| a + s * h * b).collect();
                run(&bound, &[Array::new(x.shape(), ferrax_ir::array::Data::F64(xs)).unwrap()])[0].to_f64_vec()
            };
            let fd: Vec<f64> = step(1.0).iter().zip(step(-1.0)).map(|(a, b)| (a - b) / (2.0 * h)).collect();
            let fd = Array::new(first[1].shape(), ferrax_ir::array::Data::F64(fd)).unwrap();
            close(&first[1], &fd, 1e-6, &format!("{label}: jvp vs finite differences"));
            // Reverse: the transpose rule against vjp of the bound program (the objective
            // is the sum over the members).
            let first = run(&bind(&vjp(&f, &Wrt::Default).unwrap(), n), &[x.clone(), ct.clone()]);
            let second = run(&vjp(&bound, &Wrt::Default).unwrap(), &[x.clone(), ct.clone()]);
            close(&first[1], &second[1], 1e-12, &format!("{label}: vjp"));
            // The adjoint identity: <ct, J t> = <J^T ct, t>, both through the collectives' rules.
            let dy = run(&bind(&jvp(&f, &Wrt::Default).unwrap(), n), &[x.clone(), t.clone()])[1].to_f64_vec();
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
            let (lhs, rhs) = (dot(&ct.to_f64_vec(), &dy), dot(&first[1].to_f64_vec(), &t.to_f64_vec()));
            assert!((lhs - rhs).abs() <= 1e-12 * (1.0 + lhs.abs()), "{label}: adjoint identity {lhs} vs {rhs}");
            // Second order: forward over reverse.
            let hvp = jvp(&vjp(&f, &Wrt::Default).unwrap(), &Wrt::Default).unwrap();
            let first = run(&bind(&hvp, n), &[x.clone(), ct.clone(), t.clone(), ct.clone()]);
            let hvp_bound = jvp(&vjp(&bound, &Wrt::Default).unwrap(), &Wrt::Default).unwrap();
            let second = run(&hvp_bound, &[x.clone(), ct.clone(), t.clone(), ct.clone()]);
            for k in 0..first.len() {
                close(&first[k], &second[k], 1e-12, &format!("{label}: jvp of vjp, result {k}"));
            }
        }
    }
}

#[test]
fn the_gradient_of_a_sum_of_sin_of_psum_is_the_axis_size_times_its_cosine() {
    // JAX's convention: the objective of a multi-member program sums every member's.
    let f = parse(
        "func @f[axis_names=[\"i\"]](%x: f64[2]) -> (f64[]) {\n  %s: f64[2] = psum[axes=[\"i\"]](%x)\n  \
         %y: f64[2] = sin(%s)\n  %z: f64[] = reduce_sum[axes=[0]](%y)\n  return %z\n}",
    )
    .unwrap();
    let xs = [0.1, -0.4, 0.7, 0.2, -1.3, 0.5];
    let x = Array::new(&[3, 2][..], ferrax_ir::array::Data::F64(xs.to_vec())).unwrap();
    let ones = Array::from(vec![1.0, 1.0, 1.0]);
    let grads = run(&bind(&vjp(&f, &Wrt::Default).unwrap(), 3), &[x, ones]);
    let s = [xs[0] + xs[2] + xs[4], xs[1] + xs[3] + xs[5]];
    let expected: Vec<f64> = (0..3).flat_map(|_| s.map(|v| 3.0 * v.cos())).collect();
    close(&grads[1], &Array::new(&[3, 2][..], ferrax_ir::array::Data::F64(expected)).unwrap(), 1e-14, "grad");
}

#[test]
fn a_collective_over_another_axis_carries_the_batch_axis_through() {
    let mut rng = SplitMix::seeded("collective other axis");
    let (n, b) = (3, 2);
    for case in cases() {
        let (f, shape) = case_module(&case, n, ", \"j\"");
        for at in 0..=shape.len() {
            // Batch over an unrelated axis first (it binds nothing), then bind `i`.
            let batched = vmap(&f, &[Some(at as isize)], &[0], b).unwrap();
            assert_eq!(batched.entry().unwrap().axis_names(), ["i", "j"], "{batched}");
            let both = vmap_named(&batched, &[Some(0)], &[1], n, "i").unwrap();
            assert_eq!(both.entry().unwrap().axis_names(), ["j"]);
            let xs: Vec<Vec<Nd>> = (0..b).map(|_| random_members(n, &shape, &mut rng)).collect();
            // Argument: members on axis 0, the batch at `at + 1` of each member's value.
            let per_member: Vec<Nd> = (0..n)
                .map(|m| {
                    let mut s = shape.clone();
                    s.insert(at, b);
                    Nd::from_fn(&s, |i| xs[i[at]][m].get(&removed(i, at)))
                })
                .collect();
            let got = run(&both, &[Nd::stack(&per_member).array()]);
            // Expected: result [batch, member, ...], each batch entry by the definition.
            let expected: Vec<Nd> = xs.iter().map(|x| Nd::stack(&(case.reference)(x))).collect();
            close(&got[0], &Nd::stack(&expected).array(), 1e-12, &format!("{} batched at {at}", case.op));
        }
    }
}

#[test]
fn an_unbound_or_undeclared_axis_is_an_error_that_names_it() {
    let undeclared =
        parse("func @f(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = psum[axes=[\"i\"]](%x)\n  return %y\n}").unwrap();
    let e = verify(&undeclared).unwrap_err().to_string();
    assert!(e.contains("axis `i`") && e.contains("psum"), "{e}");
    let sizes = parse(
        "func @f[axis_names=[\"i\"]](%x: f64[2]) -> (f64[2,2], f64[3,2]) {\n  \
         %a: f64[2,2] = all_gather[axis_name=\"i\", axis=0, axis_size=2](%x)\n  \
         %b: f64[3,2] = all_gather[axis_name=\"i\", axis=0, axis_size=3](%x)\n  return %a, %b\n}",
    )
    .unwrap();
    let e = verify(&sizes).unwrap_err().to_string();
    assert!(e.contains("axis_size 3") && e.contains('2'), "{e}");
    let f = module("psum[axes=[\"i\"]]", 2, &[2], &[2], "");
    let e = eval_entry(&f, &[Array::from(vec![1.0, 2.0])], &EvalOptions::default()).unwrap_err().to_string();
    assert!(e.contains("axis `i` is not bound"), "{e}");
    // The JIT compiles the collective as a step for workers; a plain call has none.
    let exe = ferrax_jit::compile(&f, &Default::default()).unwrap();
    let e = exe.call(&[Array::from(vec![1.0, 2.0])]).unwrap_err().to_string();
    assert!(e.contains("axis `i` is not bound"), "{e}");
    let e = vmap_named(&f, &[Some(0)], &[0], 2, "k").unwrap_err().to_string();
    assert!(e.contains("declares no axis `k`"), "{e}");
    let g = module("all_gather[axis_name=\"i\", axis=0, axis_size={n}]", 2, &[2], &[2, 2], "");
    let e = vmap_named(&g, &[Some(0)], &[0], 3, "i").unwrap_err().to_string();
    assert!(e.contains("axis_size is 2") && e.contains("3 members"), "{e}");
    let bad = parse(
        "func @f[axis_names=[\"i\"]](%x: i32[2]) -> (i32[2]) {\n  %y: i32[2] = pmean[axes=[\"i\"]](%x)\n  return %y\n}",
    );
    let e = bad.and_then(|m| verify(&m)).unwrap_err().to_string();
    assert!(e.contains("pmean") && e.contains("not a float"), "{e}");
}

#[test]
fn cost_counts_the_bytes_each_collective_hands_to_the_others() {
    let m = parse(
        "func @f[axis_names=[\"i\"]](%x: f64[3]) -> (f64[3], f64[2,3]) {\n  \
         %s: f64[3] = psum[axes=[\"i\"]](%x)\n  \
         %g: f64[2,3] = all_gather[axis_name=\"i\", axis=0, axis_size=2](%s)\n  return %s, %g\n}",
    )
    .unwrap();
    let report = ferrax_transform::cost(&m).unwrap();
    let entry = report.entry().unwrap();
    // psum and all_gather each hand over their 24-byte operand; neither computes.
    assert_eq!((entry.communicated_bytes, entry.flops), (48, 0));
    assert!(entry.to_string().contains("communicated bytes  48"), "{entry}");
}
