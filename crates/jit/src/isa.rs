//! The widest x86-64 vector instructions the JIT's own code uses on this host: the
//! precompiled tile routines of `math::tile` (AVX-512 or AVX2 builds of the same
//! operations) and the instruction forms Cranelift may pick in generated kernels (Cranelift
//! emits 128-bit vectors at every level; AVX-512 only adds a few EVEX forms).
//!
//! The level is the host's ([`host_isa`]) unless the environment variable
//! [`MAX_ISA_VAR`] caps it (`avx2`: no AVX-512 instruction in ferrax's own code; `avx512`:
//! no cap), which is how the benchmark compares ferrax and XLA at one width on a host that
//! has both (`XLA_FLAGS=--xla_cpu_max_isa=AVX2` on the JAX side). The cap is read once
//! per process. It does not reach the GEMM library, which picks its kernels at run time on
//! its own (as XLA's matrix libraries do under XLA's flag). The results do not depend on the
//! level: every routine performs the same operations lane by lane at either width.

use std::sync::OnceLock;

/// The environment variable that caps [`vector_isa`]: `avx2` or `avx512`.
pub const MAX_ISA_VAR: &str = "FERRAX_MAX_ISA";

/// A level of x86-64 vector instructions, in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VectorIsa {
    /// No AVX2 (or not x86-64): kernels use Cranelift's 128-bit vectors only.
    Baseline,
    /// AVX2 and FMA: 256-bit tile routines.
    Avx2,
    /// AVX-512 (F, DQ, VL) beside AVX2 and FMA: 512-bit tile routines.
    Avx512,
}

impl VectorIsa {
    /// The name [`MAX_ISA_VAR`] takes for this level (`baseline`, `avx2`, `avx512`).
    pub fn name(self) -> &'static str {
        match self {
            VectorIsa::Baseline => "baseline",
            VectorIsa::Avx2 => "avx2",
            VectorIsa::Avx512 => "avx512",
        }
    }

    /// The level named `s` (case-insensitive), if it is one.
    pub fn parse(s: &str) -> Option<VectorIsa> {
        [VectorIsa::Baseline, VectorIsa::Avx2, VectorIsa::Avx512]
            .into_iter()
            .find(|isa| isa.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// The level this host's processor supports.
pub fn host_isa() -> VectorIsa {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if !(has!("avx2") && has!("fma")) {
            VectorIsa::Baseline
        } else if has!("avx512f") && has!("avx512dq") && has!("avx512vl") {
            VectorIsa::Avx512
        } else {
            VectorIsa::Avx2
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        VectorIsa::Baseline
    }
}

/// The cap [`MAX_ISA_VAR`] sets, read once: `Ok(None)` when unset, an error message naming
/// the variable and its value when it names no level.
fn cap() -> &'static Result<Option<VectorIsa>, String> {
    static CAP: OnceLock<Result<Option<VectorIsa>, String>> = OnceLock::new();
    CAP.get_or_init(|| match std::env::var(MAX_ISA_VAR) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(e) => Err(format!("{MAX_ISA_VAR}: {e}")),
        Ok(s) => VectorIsa::parse(&s)
            .map(Some)
            .ok_or_else(|| format!("{MAX_ISA_VAR}={s:?}: expected one of baseline, avx2, avx512")),
    })
}

/// The level the JIT uses: the host's, capped by [`MAX_ISA_VAR`]; an error (the
/// variable's value and the accepted ones) when the variable names no level.
pub fn vector_isa() -> Result<VectorIsa, String> {
    let cap = cap().clone()?;
    Ok(cap.map_or(host_isa(), |c| c.min(host_isa())))
}

/// [`vector_isa`] for code that runs after a compilation has checked the variable (a bad
/// value then cannot reach it): the host's level where the cap is invalid.
pub(crate) fn selected() -> VectorIsa {
    vector_isa().unwrap_or_else(|_| host_isa())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_by_width() {
        for isa in [VectorIsa::Baseline, VectorIsa::Avx2, VectorIsa::Avx512] {
            assert_eq!(VectorIsa::parse(isa.name()), Some(isa));
        }
        assert_eq!(VectorIsa::parse(" AVX2 "), Some(VectorIsa::Avx2));
        assert_eq!(VectorIsa::parse("avx1024"), None);
        assert!(VectorIsa::Baseline < VectorIsa::Avx2 && VectorIsa::Avx2 < VectorIsa::Avx512);
    }

    #[test]
    fn the_selected_level_is_at_most_the_hosts() {
        assert!(selected() <= host_isa());
    }
}
