//! The native-code side of an executable: the host ISA (every detected feature up to the
//! level of `crate::isa`, with
//! `opt_level=speed`, the verifier on in debug builds only, `is_pic=false`) and the ONE
//! `JITModule` that holds every kernel of every program. Kernels are defined into it and
//! finalized in one batch; its memory is freed when the executable is dropped (a
//! dropped `JITModule` would otherwise leak its pages).

use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use ferrax_ir::{Error, Place};

fn err(msg: String) -> Error {
    Error::eval(Place::default(), format!("jit: {msg}"))
}

/// Cranelift's x86-64 flags a cap of the vector level turns off: the AVX-512 ones (off below
/// [`crate::isa::VectorIsa::Avx512`]), then AVX2 (off at the baseline). FMA and AVX's
/// three-operand forms stay: they widen nothing, and the inline math's bits follow FMA.
const CAPPABLE_FLAGS: [&str; 6] =
    ["has_avx512bitalg", "has_avx512dq", "has_avx512vbmi", "has_avx512vl", "has_avx512f", "has_avx2"];
/// How many of [`CAPPABLE_FLAGS`] (the first) are AVX-512's.
const AVX512_COUNT: usize = 5;

/// The code memory of one executable.
pub(crate) struct Code {
    module: Option<JITModule>,
}

impl Code {
    /// A fresh module for the host.
    pub(crate) fn new() -> Result<Code, Error> {
        let mut flags = settings::builder();
        let verifier = if cfg!(debug_assertions) { "true" } else { "false" };
        for (k, v) in [
            ("opt_level", "speed"),
            ("enable_verifier", verifier),
            ("is_pic", "false"),
            ("use_colocated_libcalls", "false"),
        ] {
            flags.set(k, v).map_err(|e| err(format!("setting {k}: {e}")))?;
        }
        let level = crate::isa::vector_isa().map_err(err)?;
        let mut isa = cranelift_native::builder().map_err(|e| err(format!("host ISA: {e}")))?;
        // Under a cap, Cranelift's instruction choices stay within it too (the flags exist
        // on x86-64 only; elsewhere there is nothing to cap).
        if cfg!(target_arch = "x86_64") {
            let off = match level {
                crate::isa::VectorIsa::Avx512 => 0,
                crate::isa::VectorIsa::Avx2 => AVX512_COUNT,
                crate::isa::VectorIsa::Baseline => CAPPABLE_FLAGS.len(),
            };
            for k in &CAPPABLE_FLAGS[..off] {
                isa.set(k, "false").map_err(|e| err(format!("capping the ISA at {}: {k}: {e}", level.name())))?;
            }
        }
        let isa = isa.finish(settings::Flags::new(flags)).map_err(|e| err(format!("host ISA: {e}")))?;
        let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        for (name, ptr) in crate::kernel::libcalls::symbols() {
            builder.symbol(name, ptr);
        }
        Ok(Code { module: Some(JITModule::new(builder)) })
    }

    /// The module, for defining kernels.
    pub(crate) fn module(&mut self) -> Option<&mut JITModule> {
        self.module.as_mut()
    }

    /// Finalizes every function defined so far (one batch: relocations + R+X pages).
    pub(crate) fn finalize(&mut self) -> Result<(), Error> {
        match &mut self.module {
            Some(m) => m.finalize_definitions().map_err(|e| err(format!("finalize: {e}"))),
            None => Ok(()),
        }
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the executable owning this code is being dropped, so no function
            // pointer into the module can be called any more.
            unsafe { m.free_memory() };
        }
    }
}
