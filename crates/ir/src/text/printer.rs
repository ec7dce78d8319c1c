//! The printer of the text form: writes a [`Module`] in canonical form.
//!
//! Values are renumbered `%0..` in definition order (parameters, then equation
//! outputs), every attribute of a primitive is written in its declared order, and
//! source locations appear only when [`PrintOptions::locs`] asks for them, so that
//! printing a parsed module is a fixed point. The printer never fails: a value used
//! but never defined (a malformed Func) prints as `%undef.N` with its raw id, and a
//! value with no type as `?`, which the parser and the verifier then reject by name.

use crate::{AttrValue, Eqn, Func, Module, Value, format_types};
use std::fmt::Write;

/// Options of [`print_with`] and [`print_func`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Append `loc("...")` to equations that have a source location.
    pub locs: bool,
}

/// Prints a module in canonical form, without source locations.
pub fn print(module: &Module) -> String {
    print_with(module, &PrintOptions::default())
}

/// Prints a module in canonical form: Funcs in order, separated by a blank line.
pub fn print_with(module: &Module, options: &PrintOptions) -> String {
    let funcs: Vec<String> = module.funcs.values().map(|f| print_func(f, options)).collect();
    funcs.join("\n")
}

/// Prints one Func in canonical form, ending with a newline.
pub fn print_func(func: &Func, options: &PrintOptions) -> String {
    let mut names = Names::new(func);
    let mut out = format!("func @{}", func.name);
    if !func.attrs.is_empty() {
        out.push_str(&format_attrs(func.attrs.iter().map(|(n, v)| (n.as_str(), v))));
    }
    let params: Vec<String> = func.params.iter().map(|&p| names.define_typed(p)).collect();
    let _ = writeln!(out, "({}) -> {} {{", params.join(", "), format_types(&func.result_types));
    for eqn in &func.eqns {
        let _ = writeln!(out, "  {}", format_eqn(eqn, &mut names, options));
    }
    let results: Vec<String> = func.results.iter().map(|&v| names.use_of(v)).collect();
    if results.is_empty() {
        out.push_str("  return\n}\n");
    } else {
        let _ = writeln!(out, "  return {}\n}}", results.join(", "));
    }
    out
}

/// `%2: f32[2], %3: i32[] = op[a=v](%0, %1) loc("...")`.
fn format_eqn(eqn: &Eqn, names: &mut Names<'_>, options: &PrintOptions) -> String {
    let inputs: Vec<String> = eqn.inputs.iter().map(|&v| names.use_of(v)).collect();
    let outputs: Vec<String> = eqn.outputs.iter().map(|&v| names.define_typed(v)).collect();
    let mut out = outputs.join(", ");
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str("= ");
    out.push_str(eqn.prim.name());
    let attrs = eqn.prim.attrs();
    if !attrs.is_empty() {
        out.push_str(&format_attrs(attrs.iter().map(|(n, v)| (*n, v))));
    }
    let _ = write!(out, "({})", inputs.join(", "));
    if let Some(loc) = eqn.loc.as_deref().filter(|_| options.locs) {
        let _ = write!(out, " loc({})", AttrValue::Str(loc.to_string()));
    }
    out
}

/// `[a=v, b=w]`.
fn format_attrs<'v>(attrs: impl Iterator<Item = (&'v str, &'v AttrValue)>) -> String {
    let items: Vec<String> = attrs.map(|(name, value)| format!("{name}={value}")).collect();
    format!("[{}]", items.join(", "))
}

/// The canonical names of a Func's values, assigned as definitions are printed.
struct Names<'f> {
    func: &'f Func,
    /// Canonical number of each value id, once defined.
    numbers: Vec<Option<usize>>,
    next: usize,
}

impl<'f> Names<'f> {
    fn new(func: &'f Func) -> Names<'f> {
        Names { func, numbers: vec![None; func.value_types.len()], next: 0 }
    }

    /// Gives `value` the next number and returns `%N: type`.
    fn define_typed(&mut self, value: Value) -> String {
        let name = match self.numbers.get_mut(value.index()) {
            Some(slot) => {
                *slot = Some(self.next);
                self.next += 1;
                format!("%{}", self.next - 1)
            }
            None => undefined(value),
        };
        match self.func.value_type(value) {
            Some(ty) => format!("{name}: {ty}"),
            None => format!("{name}: ?"),
        }
    }

    /// The name of a use of `value`.
    fn use_of(&self, value: Value) -> String {
        match self.numbers.get(value.index()).copied().flatten() {
            Some(n) => format!("%{n}"),
            None => undefined(value),
        }
    }
}

/// The name printed for a value that has no definition.
fn undefined(value: Value) -> String {
    format!("%undef.{}", value.0)
}

#[cfg(test)]
#[path = "tests/printer.rs"]
mod tests;
