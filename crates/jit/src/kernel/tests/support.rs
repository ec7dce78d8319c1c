//! Test harness of the kernel compiler: builds a host JITModule, compiles one kernel Func
//! parsed from text, runs it on buffers made from `Array`s and compares with the reference
//! interpreter.

use crate::kernel::{KernelCompiler, KernelFn, KernelOptions, define_kernel};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use ferrax_ir::array::Data;
use ferrax_ir::{Array, DType, EvalOptions, Module};

/// A JITModule for the host with the kernel compiler's settings and runtime symbols.
pub fn jit_module() -> JITModule {
    module_for(cranelift_native::builder().unwrap())
}

/// A JITModule for an x86-64 host without any extension past SSE2 (no SSE4.1, AVX, FMA).
pub fn baseline_module() -> JITModule {
    let triple = cranelift_native::builder().unwrap().triple().clone();
    module_for(cranelift_codegen::isa::lookup(triple).unwrap())
}

fn module_for(isa_builder: cranelift_codegen::isa::Builder) -> JITModule {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").unwrap();
    flags.set("enable_verifier", "true").unwrap();
    flags.set("regalloc_algorithm", "backtracking").unwrap();
    flags.set("is_pic", "false").unwrap();
    flags.set("use_colocated_libcalls", "false").unwrap();
    let isa = isa_builder.finish(settings::Flags::new(flags)).unwrap();
    let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    for (name, ptr) in crate::kernel::libcalls::symbols() {
        jb.symbol(name, ptr);
    }
    JITModule::new(jb)
}

/// The little-endian bytes of an array's elements (bool as one byte), in a u64-aligned buffer.
fn to_buffer(a: &Array) -> Vec<u64> {
    let mut out = vec![0u64; (a.len() * a.dtype().size_bytes()).div_ceil(8) + 1];
    // SAFETY: `out` holds at least the array's bytes.
    unsafe { crate::exec::buf::write_array(a, out.as_mut_ptr() as *mut u8) };
    out
}

/// An array of `shape` and `dtype` read from a buffer.
fn from_buffer(buf: &[u64], dtype: DType, shape: &[usize]) -> Array {
    // SAFETY: the buffer holds at least the array's bytes.
    unsafe { crate::exec::buf::read_array(buf.as_ptr() as *const u8, &ferrax_ir::Type::new(dtype, shape)) }.unwrap()
}

/// A compiled kernel with its module.
pub struct Compiled {
    pub jit: JITModule,
    pub f: KernelFn,
    pub outer: i64,
    /// Partial results of a chunked full reduction (0 if none).
    pub partials: usize,
    pub dump: Option<String>,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        let jit = std::mem::replace(&mut self.jit, jit_module());
        // SAFETY: no pointer into the code outlives `self`.
        unsafe { jit.free_memory() };
    }
}

/// Compiles the entry Func of `module` as a kernel.
pub fn compile(module: &Module, opts: &KernelOptions) -> Result<Compiled, ferrax_ir::Error> {
    compile_on(jit_module(), module, opts)
}

/// Compiles the entry Func of `module` as a kernel in `jit`.
pub fn compile_on(mut jit: JITModule, module: &Module, opts: &KernelOptions) -> Result<Compiled, ferrax_ir::Error> {
    let mut cc = KernelCompiler::new();
    let func = module.entry().unwrap();
    let (id, info) = define_kernel(&mut jit, &mut cc, module, func, "kernel", opts)?;
    jit.finalize_definitions().unwrap();
    // SAFETY: the function was defined with the kernel ABI.
    let f: KernelFn = unsafe { std::mem::transmute(jit.get_finalized_function(id)) };
    Ok(Compiled { jit, f, outer: info.outer, partials: info.partials, dump: info.dump })
}

/// Runs a compiled kernel on `args`, over the outer ranges `splits` (the whole range when
/// empty).
pub fn run(c: &Compiled, module: &Module, args: &[Array], splits: &[(i64, i64)]) -> Vec<Array> {
    let func = module.entry().unwrap();
    let mut bufs: Vec<Vec<u64>> = args.iter().map(to_buffer).collect();
    for t in &func.result_types {
        let n: usize = t.shape.iter().product::<usize>() * t.dtype.size_bytes();
        bufs.push(vec![0u64; n.div_ceil(8) + 1]);
    }
    if c.partials > 0 {
        bufs.push(vec![0u64; crate::kernel::MAX_PARTIALS]);
    }
    let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr() as *mut u8).collect();
    let whole = [(0, c.outer)];
    let ranges = if splits.is_empty() { &whole[..] } else { splits };
    for &(s, e) in ranges {
        // SAFETY: the buffers match the kernel's parameter and result types.
        unsafe { (c.f)(ptrs.as_ptr(), s, e) };
    }
    if c.partials > 0 {
        // SAFETY: as above; the combination phase of a chunked kernel.
        unsafe { (c.f)(ptrs.as_ptr(), -1, -1) };
    }
    func.result_types.iter().enumerate().map(|(k, t)| from_buffer(&bufs[args.len() + k], t.dtype, &t.shape)).collect()
}

/// The interpreter's results for the entry of `module`.
pub fn interp(module: &Module, args: &[Array]) -> Vec<Array> {
    let name = module.entry().unwrap().name.clone();
    ferrax_ir::eval(module, &name, args, &EvalOptions::default()).unwrap()
}

/// Whether two arrays are identical bit for bit (any NaN equals any NaN).
pub fn same_bits(a: &Array, b: &Array) -> bool {
    if a.shape() != b.shape() || a.dtype() != b.dtype() {
        return false;
    }
    match (a.data(), b.data()) {
        (Data::F32(x), Data::F32(y)) => {
            x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
        }
        (Data::F64(x), Data::F64(y)) => {
            x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
        }
        (x, y) => x == y,
    }
}

/// Parses `text`, runs its entry on the JIT (fma off) and on the interpreter, and asserts
/// bit-identical results; returns the results.
pub fn check(text: &str, args: &[Array]) -> Vec<Array> {
    check_with(text, args, &KernelOptions { fma: false, simd: true, dump: false, precise_math: true, tiles: true })
}

/// [`check`] with options.
pub fn check_with(text: &str, args: &[Array], opts: &KernelOptions) -> Vec<Array> {
    let module = ferrax_ir::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let c = compile(&module, opts).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let got = run(&c, &module, args, &[]);
    let want = interp(&module, args);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            same_bits(g, w),
            "result {k} differs\n{text}\njit:    {}\ninterp: {}",
            g.describe(Some(64)),
            w.describe(Some(64))
        );
    }
    got
}

/// Deterministic test values of `dtype`: a mix of ordinary values and, for floats, the
/// special ones (±0, ±inf, NaN, denormals) when `special`.
pub fn values(dtype: DType, shape: &[usize], seed: u64, special: bool) -> Array {
    let n: usize = shape.iter().product();
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) as u32
    };
    let fspecial = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-310, -2.5, 0.5, 1.5, 2.5];
    let data = match dtype {
        DType::Bool => Data::Bool((0..n).map(|_| next() & 1 == 1).collect()),
        DType::I32 => {
            let ispecial = [0, 1, -1, i32::MIN, i32::MAX, 7, -7, 2];
            Data::I32(
                (0..n)
                    .map(|_| {
                        let r = next();
                        if special && r % 4 == 0 { ispecial[(r as usize / 4) % 8] } else { (r % 41) as i32 - 20 }
                    })
                    .collect(),
            )
        }
        DType::F32 | DType::F64 | DType::BF16 | DType::F16 => {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    let r = next();
                    if special && r % 5 == 0 {
                        fspecial[(r as usize / 5) % fspecial.len()]
                    } else {
                        (r % 2001) as f64 / 100.0 - 10.0
                    }
                })
                .collect();
            let narrow: Vec<f32> = v.iter().map(|&x| if x == 1e-310 { 1e-40 } else { x as f32 }).collect();
            match dtype {
                DType::F64 => Data::F64(v),
                DType::BF16 | DType::F16 => Data::narrow_half(&narrow, dtype).unwrap(),
                _ => Data::F32(narrow),
            }
        }
    };
    Array::new(shape, data).unwrap()
}

/// Parses `text` and runs its entry on the JIT with `opts`.
pub fn run_text(text: &str, args: &[Array], opts: &KernelOptions) -> Vec<Array> {
    let module = ferrax_ir::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let c = compile(&module, opts).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&c, &module, args, &[])
}

/// Whether float arrays agree within `rel · (1 + |b|)` per element (NaN with NaN, inf
/// with the same inf); other dtypes must be identical.
pub fn close(a: &Array, b: &Array, rel: f64) -> bool {
    if a.shape() != b.shape() || a.dtype() != b.dtype() {
        return false;
    }
    if !a.dtype().is_float() {
        return a == b;
    }
    a.to_f64_vec()
        .iter()
        .zip(b.to_f64_vec())
        .all(|(&x, y)| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= rel * (1.0 + y.abs()))
}

/// Options of the exact scalar path.
pub const SCALAR: KernelOptions =
    KernelOptions { fma: false, simd: false, dump: false, precise_math: true, tiles: true };
/// Options of the vector path without contraction.
pub const SIMD: KernelOptions = KernelOptions { fma: false, simd: true, dump: false, precise_math: true, tiles: true };
