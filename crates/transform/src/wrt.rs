//! Which parameters a transform differentiates.

use ferrax_ir::{Error, Func};

/// The parameters to differentiate: the default of each pass, or an explicit list of
/// parameter indices (each must be a float parameter).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Wrt {
    /// The pass's default: every float parameter (`jvp`, `vjp`, `linearize`), or
    /// parameter 0 (`grad`, as JAX's `argnums=0`).
    #[default]
    Default,
    /// These parameter indices, in this order.
    Params(Vec<usize>),
}

impl Wrt {
    /// The indices for `func`, checked; `default` gives the pass's default.
    pub(crate) fn resolve(&self, func: &Func, default: impl FnOnce(&Func) -> Vec<usize>) -> Result<Vec<usize>, Error> {
        let indices = match self {
            Wrt::Default => default(func),
            Wrt::Params(list) => list.clone(),
        };
        for (i, &index) in indices.iter().enumerate() {
            let Some(&param) = func.params.get(index) else {
                return Err(crate::error(
                    &func.name,
                    format!("wrt index {index} is out of range: @{} has {} parameters", func.name, func.params.len()),
                ));
            };
            let ty = func.ty(param);
            if !ty.dtype.is_float() {
                return Err(crate::error(
                    &func.name,
                    format!("wrt index {index}: parameter {index} is {ty}, not a float"),
                ));
            }
            if indices[..i].contains(&index) {
                return Err(crate::error(&func.name, format!("wrt index {index} is repeated")));
            }
        }
        Ok(indices)
    }
}

/// Every float parameter of `func`.
pub(crate) fn float_params(func: &Func) -> Vec<usize> {
    func.params.iter().enumerate().filter(|(_, p)| func.ty(**p).dtype.is_float()).map(|(i, _)| i).collect()
}
