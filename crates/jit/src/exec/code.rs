//! The native-code side of an executable: the host ISA (every detected feature, with
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
        let isa = cranelift_native::builder()
            .map_err(|e| err(format!("host ISA: {e}")))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| err(format!("host ISA: {e}")))?;
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
