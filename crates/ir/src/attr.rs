//! Attribute values: the static parameters of primitives and the attributes of Funcs.
//!
//! The text form writes them as `name=value`. A primitive declares its attributes once,
//! in one `visit_attrs` method per family that hands every attribute (name, kind,
//! default) to an [`AttrVisitor`]: [`AttrWriter`] collects them for the printer
//! (defaults included, in declared order), [`AttrReader`] fills them from the parsed
//! text and reports a missing, unknown, duplicated or ill-typed attribute by name.

use ferrax_array::{Array, DType, Data, Shape, format_f32, format_f64};
use std::fmt;
use std::str::FromStr;

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
pub struct AttrReader<'t> {
    op: String,
    attrs: Vec<(String, AttrValue)>,
    out_types: &'t [crate::Type],
}

impl<'t> AttrReader<'t> {
    /// A reader over the attributes written for `op`, whose declared result types are
    /// `out_types` (a constant's literal is read at its result type). Duplicates are an
    /// error.
    pub fn new(op: &str, attrs: Vec<(String, AttrValue)>, out_types: &'t [crate::Type]) -> Result<Self, String> {
        let mut seen = std::collections::HashSet::with_capacity(attrs.len());
        for (name, _) in &attrs {
            if !seen.insert(name.as_str()) {
                return Err(format!("{op}: attribute '{name}' given twice"));
            }
        }
        Ok(AttrReader { op: op.to_string(), attrs, out_types })
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

/// Walks the attributes of one primitive in declared order. Each method names one
/// attribute, its kind (the method) and its default (where the text may omit it), and
/// gets the field that holds it: the writer reads the field, the reader fills it.
pub trait AttrVisitor {
    /// A required `i32`.
    fn i32(&mut self, name: &'static str, v: &mut i32) -> Result<(), String>;
    /// A required non-negative integer.
    fn usize(&mut self, name: &'static str, v: &mut usize) -> Result<(), String>;
    /// A non-negative integer that is `default` when omitted or `none`.
    fn usize_or(&mut self, name: &'static str, v: &mut usize, default: usize) -> Result<(), String>;
    /// A non-negative integer or `none` (the default).
    fn opt_usize(&mut self, name: &'static str, v: &mut Option<usize>) -> Result<(), String>;
    /// A list of non-negative integers; `default` when omitted (required when `None`).
    fn usizes(&mut self, name: &'static str, v: &mut Vec<usize>, default: Option<Vec<usize>>) -> Result<(), String>;
    /// A list of `[low, high]` pairs of non-negative integers (a window's padding);
    /// `default` when omitted (required when `None`).
    fn pairs(
        &mut self,
        name: &'static str,
        v: &mut Vec<[usize; 2]>,
        default: Option<Vec<[usize; 2]>>,
    ) -> Result<(), String>;
    /// A required shape (a list of non-negative integers).
    fn shape(&mut self, name: &'static str, v: &mut Shape) -> Result<(), String>;
    /// A required list of integers.
    fn ints(&mut self, name: &'static str, v: &mut Vec<i64>) -> Result<(), String>;
    /// A bool with a default.
    fn bool_or(&mut self, name: &'static str, v: &mut bool, default: bool) -> Result<(), String>;
    /// A dtype; `default` when omitted (required when `None`).
    fn dtype(&mut self, name: &'static str, v: &mut DType, default: Option<DType>) -> Result<(), String>;
    /// A dtype or `none` (the default).
    fn opt_dtype(&mut self, name: &'static str, v: &mut Option<DType>) -> Result<(), String>;
    /// A required string.
    fn string(&mut self, name: &'static str, v: &mut String) -> Result<(), String>;
    /// A value written as a string (`Display`/`FromStr`), `default` when omitted.
    fn parsed<T: fmt::Display + FromStr<Err = String>>(
        &mut self,
        name: &'static str,
        v: &mut T,
        default: &str,
    ) -> Result<(), String>;
    /// A required Func reference.
    fn func(&mut self, name: &'static str, v: &mut String) -> Result<(), String>;
    /// A Func reference or `none` (the default).
    fn opt_func(&mut self, name: &'static str, v: &mut Option<String>) -> Result<(), String>;
    /// A required list of Func references.
    fn funcs(&mut self, name: &'static str, v: &mut Vec<String>) -> Result<(), String>;
    /// A constant's literal (a scalar that splats, or every element) and its shape,
    /// which the text takes from the declared result type.
    fn literal(&mut self, name: &'static str, value: &mut Array, shape: &mut Shape) -> Result<(), String>;
    /// A required list of integer pairs, written `[[lo,hi],...]`.
    fn int_pairs(&mut self, name: &'static str, v: &mut Vec<(i64, i64)>) -> Result<(), String>;
    /// A required list of strings.
    fn strings(&mut self, name: &'static str, v: &mut Vec<String>) -> Result<(), String>;
}

/// Collects a primitive's attributes for the printer: every one, defaults included.
#[derive(Debug, Default)]
pub struct AttrWriter {
    /// The attributes visited so far, in declared order.
    pub attrs: Vec<(&'static str, AttrValue)>,
}

impl AttrWriter {
    fn put(&mut self, name: &'static str, v: AttrValue) -> Result<(), String> {
        self.attrs.push((name, v));
        Ok(())
    }
}

impl AttrVisitor for AttrWriter {
    fn i32(&mut self, name: &'static str, v: &mut i32) -> Result<(), String> {
        self.put(name, AttrValue::Int(i64::from(*v)))
    }
    fn usize(&mut self, name: &'static str, v: &mut usize) -> Result<(), String> {
        self.put(name, AttrValue::Int(*v as i64))
    }
    fn usize_or(&mut self, name: &'static str, v: &mut usize, _: usize) -> Result<(), String> {
        self.put(name, AttrValue::Int(*v as i64))
    }
    fn opt_usize(&mut self, name: &'static str, v: &mut Option<usize>) -> Result<(), String> {
        self.put(name, v.map_or(AttrValue::None, |k| AttrValue::Int(k as i64)))
    }
    fn usizes(&mut self, name: &'static str, v: &mut Vec<usize>, _: Option<Vec<usize>>) -> Result<(), String> {
        self.put(name, AttrValue::ints(v))
    }
    fn pairs(&mut self, name: &'static str, v: &mut Vec<[usize; 2]>, _: Option<Vec<[usize; 2]>>) -> Result<(), String> {
        self.put(name, AttrValue::List(v.iter().map(|p| AttrValue::ints(p)).collect()))
    }
    fn shape(&mut self, name: &'static str, v: &mut Shape) -> Result<(), String> {
        self.put(name, AttrValue::ints(v))
    }
    fn ints(&mut self, name: &'static str, v: &mut Vec<i64>) -> Result<(), String> {
        self.put(name, AttrValue::ints(v))
    }
    fn bool_or(&mut self, name: &'static str, v: &mut bool, _: bool) -> Result<(), String> {
        self.put(name, AttrValue::Bool(*v))
    }
    fn dtype(&mut self, name: &'static str, v: &mut DType, _: Option<DType>) -> Result<(), String> {
        self.put(name, AttrValue::DType(*v))
    }
    fn opt_dtype(&mut self, name: &'static str, v: &mut Option<DType>) -> Result<(), String> {
        self.put(name, v.map_or(AttrValue::None, AttrValue::DType))
    }
    fn string(&mut self, name: &'static str, v: &mut String) -> Result<(), String> {
        self.put(name, AttrValue::Str(v.clone()))
    }
    fn parsed<T: fmt::Display + FromStr<Err = String>>(
        &mut self,
        name: &'static str,
        v: &mut T,
        _: &str,
    ) -> Result<(), String> {
        self.put(name, AttrValue::Str(v.to_string()))
    }
    fn func(&mut self, name: &'static str, v: &mut String) -> Result<(), String> {
        self.put(name, AttrValue::Func(v.clone()))
    }
    fn opt_func(&mut self, name: &'static str, v: &mut Option<String>) -> Result<(), String> {
        self.put(name, v.clone().map_or(AttrValue::None, AttrValue::Func))
    }
    fn funcs(&mut self, name: &'static str, v: &mut Vec<String>) -> Result<(), String> {
        self.put(name, AttrValue::funcs(v))
    }
    fn literal(&mut self, name: &'static str, value: &mut Array, _: &mut Shape) -> Result<(), String> {
        self.put(name, literal_attr(value))
    }
    fn int_pairs(&mut self, name: &'static str, v: &mut Vec<(i64, i64)>) -> Result<(), String> {
        let pairs = v.iter().map(|&(lo, hi)| AttrValue::ints(&[lo, hi])).collect();
        self.put(name, AttrValue::List(pairs))
    }
    fn strings(&mut self, name: &'static str, v: &mut Vec<String>) -> Result<(), String> {
        self.put(name, AttrValue::List(v.iter().cloned().map(AttrValue::Str).collect()))
    }
}

impl AttrVisitor for AttrReader<'_> {
    fn i32(&mut self, name: &'static str, v: &mut i32) -> Result<(), String> {
        let y = self.int(name)?;
        *v = i32::try_from(y).map_err(|_| format!("{}: {name}={y} does not fit i32", self.op))?;
        Ok(())
    }
    fn usize(&mut self, name: &'static str, v: &mut usize) -> Result<(), String> {
        *v = AttrReader::usize(self, name)?;
        Ok(())
    }
    fn usize_or(&mut self, name: &'static str, v: &mut usize, default: usize) -> Result<(), String> {
        *v = AttrReader::opt_usize(self, name)?.unwrap_or(default);
        Ok(())
    }
    fn opt_usize(&mut self, name: &'static str, v: &mut Option<usize>) -> Result<(), String> {
        *v = AttrReader::opt_usize(self, name)?;
        Ok(())
    }
    fn usizes(&mut self, name: &'static str, v: &mut Vec<usize>, default: Option<Vec<usize>>) -> Result<(), String> {
        *v = AttrReader::usizes(self, name, default)?;
        Ok(())
    }
    fn pairs(
        &mut self,
        name: &'static str,
        v: &mut Vec<[usize; 2]>,
        default: Option<Vec<[usize; 2]>>,
    ) -> Result<(), String> {
        let value = match (self.take_opt(name), default) {
            (Some(value), _) => value,
            (None, Some(d)) => {
                *v = d;
                return Ok(());
            }
            (None, None) => return Err(format!("{}: missing attribute '{name}'", self.op)),
        };
        *v = self.list_of(name, value, |r, item| {
            let pair = r.list_of(name, item.clone(), |r, x| r.to_usize(name, x))?;
            <[usize; 2]>::try_from(pair.as_slice())
                .map_err(|_| format!("{}: attribute '{name}' must list [low, high] pairs, got `{item}`", r.op))
        })?;
        Ok(())
    }
    fn shape(&mut self, name: &'static str, v: &mut Shape) -> Result<(), String> {
        *v = AttrReader::usizes(self, name, None)?.into();
        Ok(())
    }
    fn ints(&mut self, name: &'static str, v: &mut Vec<i64>) -> Result<(), String> {
        *v = AttrReader::ints(self, name)?;
        Ok(())
    }
    fn bool_or(&mut self, name: &'static str, v: &mut bool, default: bool) -> Result<(), String> {
        *v = AttrReader::bool_or(self, name, default)?;
        Ok(())
    }
    fn dtype(&mut self, name: &'static str, v: &mut DType, default: Option<DType>) -> Result<(), String> {
        *v = AttrReader::dtype(self, name, default)?;
        Ok(())
    }
    fn opt_dtype(&mut self, name: &'static str, v: &mut Option<DType>) -> Result<(), String> {
        *v = match self.take_opt(name) {
            None | Some(AttrValue::None) => None,
            Some(AttrValue::DType(d)) => Some(d),
            Some(other) => return Err(self.wrong(name, "a dtype or none", &other)),
        };
        Ok(())
    }
    fn string(&mut self, name: &'static str, v: &mut String) -> Result<(), String> {
        *v = AttrReader::string(self, name, None)?;
        Ok(())
    }
    fn parsed<T: fmt::Display + FromStr<Err = String>>(
        &mut self,
        name: &'static str,
        v: &mut T,
        default: &str,
    ) -> Result<(), String> {
        *v = AttrReader::string(self, name, Some(default))?.parse()?;
        Ok(())
    }
    fn func(&mut self, name: &'static str, v: &mut String) -> Result<(), String> {
        *v = AttrReader::func(self, name)?;
        Ok(())
    }
    fn opt_func(&mut self, name: &'static str, v: &mut Option<String>) -> Result<(), String> {
        *v = match self.take_opt(name) {
            None | Some(AttrValue::None) => None,
            Some(AttrValue::Func(f)) => Some(f),
            Some(other) => return Err(self.wrong(name, "a function reference (@name) or none", &other)),
        };
        Ok(())
    }
    fn funcs(&mut self, name: &'static str, v: &mut Vec<String>) -> Result<(), String> {
        *v = AttrReader::funcs(self, name)?;
        Ok(())
    }
    fn literal(&mut self, name: &'static str, value: &mut Array, shape: &mut Shape) -> Result<(), String> {
        let raw = self.raw(name)?;
        let [ty] = self.out_types else {
            return Err(format!("{}: has one result, {} declared", self.op, self.out_types.len()));
        };
        *value = literal_from_attr(&raw, ty)?;
        *shape = ty.shape.clone();
        Ok(())
    }
    fn int_pairs(&mut self, name: &'static str, v: &mut Vec<(i64, i64)>) -> Result<(), String> {
        let raw = self.take(name)?;
        *v = self.list_of(name, raw, |r, item| match item {
            AttrValue::List(pair) => match &pair[..] {
                [lo, hi] => Ok((r.to_int(name, lo)?, r.to_int(name, hi)?)),
                _ => Err(r.wrong(name, "a list of [lo,hi] pairs", item)),
            },
            other => Err(r.wrong(name, "a list of [lo,hi] pairs", other)),
        })?;
        Ok(())
    }
    fn strings(&mut self, name: &'static str, v: &mut Vec<String>) -> Result<(), String> {
        let raw = self.take(name)?;
        *v = self.list_of(name, raw, |r, item| match item {
            AttrValue::Str(s) => Ok(s.clone()),
            other => Err(r.wrong(name, "a list of strings", other)),
        })?;
        Ok(())
    }
}

/// A constant's literal as written: a scalar, or every element in C order.
fn literal_attr(value: &Array) -> AttrValue {
    let element = |i: usize| match value.data() {
        Data::Bool(v) => AttrValue::Bool(v[i]),
        Data::I32(v) => AttrValue::Int(i64::from(v[i])),
        Data::BF16(_) | Data::F16(_) => AttrValue::Float(value.format_element(i)),
        Data::F32(v) => AttrValue::Float(format_f32(v[i])),
        Data::F64(v) => AttrValue::Float(format_f64(v[i])),
    };
    if value.rank() == 0 { element(0) } else { AttrValue::List((0..value.len()).map(element).collect()) }
}

/// The pattern of the attribute kinds that are not numbers (every one named, so that a
/// new kind must be placed).
macro_rules! not_a_number {
    () => {
        AttrValue::Bool(_)
            | AttrValue::None
            | AttrValue::DType(_)
            | AttrValue::Func(_)
            | AttrValue::Str(_)
            | AttrValue::List(_)
    };
}

/// A constant's literal read at its declared result type `ty`: a scalar (which splats)
/// or a list of every element.
fn literal_from_attr(value: &AttrValue, ty: &crate::Type) -> Result<Array, String> {
    // Every kind named, so that a new attribute kind must be placed here.
    let (items, shape): (Vec<&AttrValue>, Shape) = match value {
        AttrValue::List(items) => (items.iter().collect(), ty.shape.clone()),
        AttrValue::Int(_)
        | AttrValue::Float(_)
        | AttrValue::Bool(_)
        | AttrValue::None
        | AttrValue::DType(_)
        | AttrValue::Func(_)
        | AttrValue::Str(_) => (vec![value], Shape::new()),
    };
    let expected = ferrax_array::element_count(&shape).map_err(|e| format!("constant: {e}"))?;
    if items.len() != expected {
        return Err(format!("constant: value has {} elements but the type {ty} needs {expected}", items.len()));
    }
    let bad = |v: &AttrValue| format!("constant: {} `{v}` is not a {} value", v.kind(), ty.dtype);
    let data = match ty.dtype {
        DType::Bool => Data::Bool(
            items
                .iter()
                .map(|v| if let AttrValue::Bool(b) = v { Ok(*b) } else { Err(bad(v)) })
                .collect::<Result<_, _>>()?,
        ),
        DType::I32 => Data::I32(
            items
                .iter()
                .map(|v| match v {
                    AttrValue::Int(i) => i32::try_from(*i).map_err(|_| format!("constant: {i} does not fit i32")),
                    AttrValue::Float(_) | not_a_number!() => Err(bad(v)),
                })
                .collect::<Result<_, _>>()?,
        ),
        DType::F32 | DType::BF16 | DType::F16 => {
            let values: Vec<f32> = items
                .iter()
                .map(|v| match v {
                    AttrValue::Int(i) => Ok(*i as f32),
                    AttrValue::Float(text) => parse_float::<f32>(text).ok_or_else(|| bad(v)),
                    not_a_number!() => Err(bad(v)),
                })
                .collect::<Result<_, _>>()?;
            // A 16-bit literal is read as f32 and rounded once, as it was printed.
            Data::narrow_half(&values, ty.dtype).unwrap_or(Data::F32(values))
        }
        DType::F64 => Data::F64(
            items
                .iter()
                .map(|v| match v {
                    AttrValue::Int(i) => Ok(*i as f64),
                    AttrValue::Float(text) => parse_float::<f64>(text).ok_or_else(|| bad(v)),
                    not_a_number!() => Err(bad(v)),
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    Array::new(shape, data).map_err(|e| format!("constant: {e}"))
}
