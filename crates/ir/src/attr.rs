//! Attribute values: the static parameters of primitives and the attributes of Funcs.
//!
//! The text form writes them as `name=value`; a primitive declares its attributes in
//! order (see `prim::Prim::attrs`), and parsing goes through [`AttrReader`], which
//! reports a missing, unknown, duplicated or ill-typed attribute by name.

use ferrax_array::DType;
use std::fmt;

/// One attribute value, as written in the text form.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An integer literal.
    Int(i64),
    /// A float literal, kept as written (`0.1`, `1e-7`, `inf`, `-inf`, `nan`) so that
    /// it can be read at the dtype it is meant for without double rounding.
    Float(String),
    /// `true` or `false`.
    Bool(bool),
    /// `none`.
    None,
    /// A dtype name.
    DType(DType),
    /// A reference to a Func, `@name` (stored without the `@`).
    Func(String),
    /// A string literal (stored unescaped).
    Str(String),
    /// `[v, v, ...]`.
    List(Vec<AttrValue>),
}

impl AttrValue {
    /// A list of integers.
    pub fn ints<T: Copy + TryInto<i64>>(values: &[T]) -> AttrValue {
        AttrValue::List(values.iter().map(|&v| AttrValue::Int(v.try_into().unwrap_or(i64::MAX))).collect())
    }

    /// A list of Func references.
    pub fn funcs(names: &[String]) -> AttrValue {
        AttrValue::List(names.iter().map(|n| AttrValue::Func(n.clone())).collect())
    }

    /// A short description of the value's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            AttrValue::Int(_) => "an integer",
            AttrValue::Float(_) => "a float",
            AttrValue::Bool(_) => "a bool",
            AttrValue::None => "none",
            AttrValue::DType(_) => "a dtype",
            AttrValue::Func(_) => "a function reference",
            AttrValue::Str(_) => "a string",
            AttrValue::List(_) => "a list",
        }
    }

    /// The value as f64 (an integer where a float is expected is that float).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            AttrValue::Int(i) => Some(*i as f64),
            AttrValue::Float(text) => parse_float::<f64>(text),
            _ => None,
        }
    }
}

/// Reads a float literal of the text form at the precision of `T` (`inf`, `-inf`,
/// `nan` included), rounding once.
pub fn parse_float<T: std::str::FromStr + FloatConsts>(text: &str) -> Option<T> {
    match text {
        "inf" => Some(T::INF),
        "-inf" => Some(T::NEG_INF),
        "nan" | "-nan" => Some(T::NAN),
        _ => text.parse().ok(),
    }
}

/// The special values [`parse_float`] needs.
pub trait FloatConsts {
    /// +∞.
    const INF: Self;
    /// −∞.
    const NEG_INF: Self;
    /// The canonical quiet NaN.
    const NAN: Self;
}

impl FloatConsts for f32 {
    const INF: f32 = f32::INFINITY;
    const NEG_INF: f32 = f32::NEG_INFINITY;
    const NAN: f32 = f32::NAN;
}

impl FloatConsts for f64 {
    const INF: f64 = f64::INFINITY;
    const NEG_INF: f64 = f64::NEG_INFINITY;
    const NAN: f64 = f64::NAN;
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(i) => write!(f, "{i}"),
            AttrValue::Float(text) => f.write_str(text),
            AttrValue::Bool(b) => write!(f, "{b}"),
            AttrValue::None => f.write_str("none"),
            AttrValue::DType(d) => write!(f, "{d}"),
            AttrValue::Func(name) => write!(f, "@{name}"),
            AttrValue::Str(s) => {
                f.write_str("\"")?;
                for c in s.chars() {
                    match c {
                        '"' => f.write_str("\\\"")?,
                        '\\' => f.write_str("\\\\")?,
                        '\n' => f.write_str("\\n")?,
                        c => write!(f, "{c}")?,
                    }
                }
                f.write_str("\"")
            }
            AttrValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// Takes named attributes out of a parsed attribute list, with errors that name the
/// attribute; [`AttrReader::finish`] rejects what is left over.
#[derive(Debug)]
pub struct AttrReader {
    op: String,
    attrs: Vec<(String, AttrValue)>,
}

impl AttrReader {
    /// A reader over the attributes written for `op`. Duplicates are an error.
    pub fn new(op: &str, attrs: Vec<(String, AttrValue)>) -> Result<AttrReader, String> {
        let mut seen = std::collections::HashSet::with_capacity(attrs.len());
        for (name, _) in &attrs {
            if !seen.insert(name.as_str()) {
                return Err(format!("{op}: attribute '{name}' given twice"));
            }
        }
        Ok(AttrReader { op: op.to_string(), attrs })
    }

    fn take_opt(&mut self, name: &str) -> Option<AttrValue> {
        let i = self.attrs.iter().position(|(n, _)| n == name)?;
        Some(self.attrs.remove(i).1)
    }

    fn take(&mut self, name: &str) -> Result<AttrValue, String> {
        self.take_opt(name).ok_or_else(|| format!("{}: missing attribute '{name}'", self.op))
    }

    fn wrong(&self, name: &str, expected: &str, got: &AttrValue) -> String {
        format!("{}: attribute '{name}' must be {expected}, got {} `{got}`", self.op, got.kind())
    }

    fn to_int(&self, name: &str, v: &AttrValue) -> Result<i64, String> {
        match v {
            AttrValue::Int(i) => Ok(*i),
            other => Err(self.wrong(name, "an integer", other)),
        }
    }

    fn to_usize(&self, name: &str, v: &AttrValue) -> Result<usize, String> {
        let i = self.to_int(name, v)?;
        usize::try_from(i).map_err(|_| format!("{}: attribute '{name}' must be non-negative, got {i}", self.op))
    }

    /// A required integer.
    pub fn int(&mut self, name: &str) -> Result<i64, String> {
        let v = self.take(name)?;
        self.to_int(name, &v)
    }

    /// A required non-negative integer.
    pub fn usize(&mut self, name: &str) -> Result<usize, String> {
        let v = self.take(name)?;
        self.to_usize(name, &v)
    }

    /// An optional non-negative integer that may also be `none` (default `none`).
    pub fn opt_usize(&mut self, name: &str) -> Result<Option<usize>, String> {
        match self.take_opt(name) {
            None | Some(AttrValue::None) => Ok(None),
            Some(v) => self.to_usize(name, &v).map(Some),
        }
    }

    /// A required list of integers.
    pub fn ints(&mut self, name: &str) -> Result<Vec<i64>, String> {
        let v = self.take(name)?;
        self.list_of(name, v, |r, v| r.to_int(name, v))
    }

    /// A list of non-negative integers; `default` when omitted (an error when `None`).
    pub fn usizes(&mut self, name: &str, default: Option<Vec<usize>>) -> Result<Vec<usize>, String> {
        match (self.take_opt(name), default) {
            (Some(v), _) => self.list_of(name, v, |r, v| r.to_usize(name, v)),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("{}: missing attribute '{name}'", self.op)),
        }
    }

    fn list_of<T>(
        &self,
        name: &str,
        v: AttrValue,
        mut item: impl FnMut(&Self, &AttrValue) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        match &v {
            AttrValue::List(items) => items.iter().map(|i| item(self, i)).collect(),
            other => Err(self.wrong(name, "a list", other)),
        }
    }

    /// A bool with a default.
    pub fn bool_or(&mut self, name: &str, default: bool) -> Result<bool, String> {
        match self.take_opt(name) {
            None => Ok(default),
            Some(AttrValue::Bool(b)) => Ok(b),
            Some(other) => Err(self.wrong(name, "true or false", &other)),
        }
    }

    /// A required dtype, or `default` when omitted and a default exists.
    pub fn dtype(&mut self, name: &str, default: Option<DType>) -> Result<DType, String> {
        match (self.take_opt(name), default) {
            (Some(AttrValue::DType(d)), _) => Ok(d),
            (Some(other), _) => Err(self.wrong(name, "a dtype", &other)),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("{}: missing attribute '{name}'", self.op)),
        }
    }

    /// A required Func reference.
    pub fn func(&mut self, name: &str) -> Result<String, String> {
        match self.take(name)? {
            AttrValue::Func(f) => Ok(f),
            other => Err(self.wrong(name, "a function reference (@name)", &other)),
        }
    }

    /// A required non-empty list of Func references.
    pub fn funcs(&mut self, name: &str) -> Result<Vec<String>, String> {
        let v = self.take(name)?;
        let funcs = self.list_of(name, v, |r, v| match v {
            AttrValue::Func(f) => Ok(f.clone()),
            other => Err(r.wrong(name, "a function reference (@name)", other)),
        })?;
        Ok(funcs)
    }

    /// A string, or `default` when omitted and a default exists.
    pub fn string(&mut self, name: &str, default: Option<&str>) -> Result<String, String> {
        match (self.take_opt(name), default) {
            (Some(AttrValue::Str(s)), _) => Ok(s),
            (Some(other), _) => Err(self.wrong(name, "a string", &other)),
            (None, Some(d)) => Ok(d.to_string()),
            (None, None) => Err(format!("{}: missing attribute '{name}'", self.op)),
        }
    }

    /// Any value, required.
    pub fn raw(&mut self, name: &str) -> Result<AttrValue, String> {
        self.take(name)
    }

    /// Ends reading: any attribute not taken is unknown to the primitive.
    pub fn finish(self) -> Result<(), String> {
        match self.attrs.first() {
            None => Ok(()),
            Some((name, _)) => Err(format!("{}: unknown attribute '{name}'", self.op)),
        }
    }
}
