//! The parser of the text form: builds a [`Module`] from source text.
//!
//! It checks syntax, value names (defined once, before use, within one Func), Func
//! names (unique) and attributes (decoded by [`Prim::from_attrs`]); it does not check
//! types, which is the verifier's job. Value names map to fresh [`Value`] ids in
//! definition order, parameters first. Every error is an [`Error::Parse`] at the
//! 1-based line and column of the offending token. The only recursion is into nested
//! attribute lists, bounded by [`MAX_NESTING`].

use super::lexer::{Lexer, Tok, Token, error_at};
use crate::{AttrValue, DType, Eqn, Error, Func, Module, Prim, Type, Value};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

/// The deepest nesting of attribute lists the parser accepts.
pub const MAX_NESTING: usize = 256;

/// The most attributes an equation may carry (every primitive declares far fewer);
/// the bound keeps attribute decoding, which is quadratic in the count, cheap.
const MAX_PRIM_ATTRS: usize = 64;

/// A 1-based (line, column) position.
type Pos = (usize, usize);

/// Where the Funcs and equations of a parsed module were written.
///
/// Errors of the verifier name a Func and an equation index; this maps them back to
/// the 1-based (line, column) of the source text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    funcs: HashMap<String, FuncSpans>,
}

/// The positions of one Func: its `func` keyword and the start of each equation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FuncSpans {
    header: Pos,
    eqns: Vec<Pos>,
}

impl SourceMap {
    /// The position of the `func` keyword of the Func named `func` (without `@`).
    pub fn func_pos(&self, func: &str) -> Option<(usize, usize)> {
        self.funcs.get(func).map(|f| f.header)
    }

    /// The position where equation `eqn` (0-based) of Func `func` starts.
    pub fn eqn_pos(&self, func: &str, eqn: usize) -> Option<(usize, usize)> {
        self.funcs.get(func)?.eqns.get(eqn).copied()
    }
}

/// Parses a module from its text form.
pub fn parse(text: &str) -> Result<Module, Error> {
    parse_with_spans(text).map(|(module, _)| module)
}

/// Parses a module from its text form and records where each Func and equation was written.
pub fn parse_with_spans(text: &str) -> Result<(Module, SourceMap), Error> {
    let mut parser = Parser::new(text)?;
    let mut module = Module::new();
    let mut spans = SourceMap::default();
    if parser.tok.tok == Tok::Eof {
        return Err(parser.expected("'func' (the module is empty)", ""));
    }
    while parser.tok.tok != Tok::Eof {
        let (func, func_spans) = parser.func(&spans)?;
        spans.funcs.insert(func.name.clone(), func_spans);
        module.push(func);
    }
    Ok((module, spans))
}

/// The values defined so far in one Func, by name.
///
/// An equation's outputs are defined (given ids) as they are read, before its
/// operands, but stay invisible to [`Scope::lookup`] until [`Scope::publish`], so an
/// equation cannot use its own results.
#[derive(Default)]
struct Scope<'a> {
    values: HashMap<&'a str, (Value, Pos)>,
    /// Values with an index below this are visible to uses.
    visible: usize,
}

impl<'a> Scope<'a> {
    /// Defines `name` as a fresh value of `func` with type `ty`; fails if it is taken.
    fn define(&mut self, func: &mut Func, name: &'a str, at: Pos, ty: Type) -> Result<Value, Error> {
        if let Some(&(_, (line, col))) = self.values.get(name) {
            return Err(error_at(at.0, at.1, format!("value %{name} is defined twice (first at {line}:{col})")));
        }
        let value = func.new_value(ty);
        self.values.insert(name, (value, at));
        Ok(value)
    }

    /// Makes every value defined so far visible to uses.
    fn publish(&mut self, func: &Func) {
        self.visible = func.value_types.len();
    }

    /// The value named `name`, which must be defined and visible.
    fn lookup(&self, name: &str, at: Pos) -> Result<Value, Error> {
        match self.values.get(name) {
            Some(&(value, _)) if value.index() < self.visible => Ok(value),
            _ => Err(error_at(at.0, at.1, format!("undefined value %{name}"))),
        }
    }
}

/// A recursive-descent parser with one token of lookahead.
struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The current (not yet consumed) token.
    tok: Token<'a>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Result<Parser<'a>, Error> {
        let mut lexer = Lexer::new(text);
        let tok = lexer.next_token()?;
        Ok(Parser { lexer, tok })
    }

    fn pos(&self) -> Pos {
        (self.tok.line, self.tok.col)
    }

    /// Consumes the current token and returns it.
    fn advance(&mut self) -> Result<Token<'a>, Error> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    /// "expected WHAT CONTEXT, found TOKEN" at the current token.
    fn expected(&self, what: impl fmt::Display, context: impl fmt::Display) -> Error {
        let context = context.to_string();
        let sep = if context.is_empty() { "" } else { " " };
        error_at(self.tok.line, self.tok.col, format!("expected {what}{sep}{context}, found {}", self.tok.tok))
    }

    fn at_punct(&self, c: char) -> bool {
        self.tok.tok == Tok::Punct(c)
    }

    fn at_keyword(&self, word: &str) -> bool {
        self.tok.tok == Tok::Ident(word)
    }

    /// Consumes `c` if it is the current token.
    fn eat(&mut self, c: char) -> Result<bool, Error> {
        let found = self.at_punct(c);
        if found {
            self.advance()?;
        }
        Ok(found)
    }

    /// Consumes the punctuation `c`, or fails naming the context.
    fn expect(&mut self, c: char, context: impl fmt::Display) -> Result<(), Error> {
        if self.eat(c)? { Ok(()) } else { Err(self.expected(format_args!("'{c}'"), context)) }
    }

    /// After a list item: `true` on `,` (more follow), `false` on `close` (consumed).
    fn list_sep(&mut self, close: char, context: impl fmt::Display) -> Result<bool, Error> {
        if self.eat(',')? {
            Ok(true)
        } else if self.eat(close)? {
            Ok(false)
        } else {
            Err(self.expected(format_args!("',' or '{close}'"), context))
        }
    }

    /// A `%name` token.
    fn value_name(&mut self, context: impl fmt::Display) -> Result<(&'a str, Pos), Error> {
        let at = self.pos();
        match self.tok.tok {
            Tok::Value(name) => {
                self.advance()?;
                Ok((name, at))
            }
            _ => Err(self.expected("a value", context)),
        }
    }

    /// A bare word.
    fn ident(&mut self, what: &str, context: impl fmt::Display) -> Result<(&'a str, Pos), Error> {
        let at = self.pos();
        match self.tok.tok {
            Tok::Ident(word) => {
                self.advance()?;
                Ok((word, at))
            }
            _ => Err(self.expected(what, context)),
        }
    }

    /// `func @NAME [attrs] ( params ) -> ( types ) { stmts return vals }`.
    fn func(&mut self, done: &SourceMap) -> Result<(Func, FuncSpans), Error> {
        let header = self.pos();
        if !self.at_keyword("func") {
            return Err(self.expected("'func'", ""));
        }
        self.advance()?;
        let name_at = self.pos();
        let Tok::FuncRef(name) = self.tok.tok else {
            return Err(self.expected("a function name '@name'", "after 'func'"));
        };
        if let Some((line, col)) = done.func_pos(name) {
            let msg = format!("duplicate func @{name} (first defined at {line}:{col})");
            return Err(error_at(name_at.0, name_at.1, msg));
        }
        self.advance()?;
        let mut func = Func::new(name);
        if self.at_punct('[') {
            func.attrs = self.attrs(usize::MAX)?;
        }
        let mut scope = Scope::default();
        self.params(&mut func, &mut scope)?;
        self.result_types(&mut func)?;
        let eqns = self.body(&mut func, &mut scope)?;
        Ok((func, FuncSpans { header, eqns }))
    }

    /// `( %a: type, ... )`.
    fn params(&mut self, func: &mut Func, scope: &mut Scope<'a>) -> Result<(), Error> {
        self.expect('(', format_args!("after the name of @{}", func.name))?;
        if self.eat(')')? {
            return Ok(());
        }
        loop {
            let (name, at) = self.value_name("as a parameter")?;
            self.expect(':', format_args!("after parameter %{name}"))?;
            let ty = self.ty()?;
            let value = scope.define(func, name, at, ty)?;
            func.params.push(value);
            if !self.list_sep(')', format_args!("after parameter %{name}"))? {
                scope.publish(func);
                return Ok(());
            }
        }
    }

    /// `-> ( type, ... )`.
    fn result_types(&mut self, func: &mut Func) -> Result<(), Error> {
        if self.tok.tok != Tok::Arrow {
            return Err(self.expected("'->'", format_args!("after the parameters of @{}", func.name)));
        }
        self.advance()?;
        self.expect('(', "to open the result types")?;
        if self.eat(')')? {
            return Ok(());
        }
        loop {
            func.result_types.push(self.ty()?);
            if !self.list_sep(')', "in the result types")? {
                return Ok(());
            }
        }
    }

    /// `DTYPE [ dims ]`.
    fn ty(&mut self) -> Result<Type, Error> {
        let (word, at) = self.ident("a type such as 'f32[2]'", "")?;
        let dtype = DType::from_name(word).ok_or_else(|| error_at(at.0, at.1, format!("unknown dtype '{word}'")))?;
        self.expect('[', format_args!("after dtype {word}"))?;
        let mut shape = SmallVec::new();
        if self.eat(']')? {
            return Ok(Type { dtype, shape });
        }
        loop {
            shape.push(self.dim()?);
            if !self.list_sep(']', "in the shape")? {
                return Ok(Type { dtype, shape });
            }
        }
    }

    /// One dimension: a non-negative integer that fits in `usize`.
    fn dim(&mut self) -> Result<usize, Error> {
        let (line, col) = self.pos();
        let Tok::Int(text) = self.tok.tok else {
            return Err(self.expected("a dimension (an integer >= 0)", ""));
        };
        if text.starts_with('-') {
            return Err(error_at(line, col, format!("a dimension must be >= 0, found {text}")));
        }
        let dim = text.parse().map_err(|_| error_at(line, col, format!("dimension {text} is too large")))?;
        self.advance()?;
        Ok(dim)
    }

    /// `{ stmt* return vals }`; returns the position of each equation.
    fn body(&mut self, func: &mut Func, scope: &mut Scope<'a>) -> Result<Vec<Pos>, Error> {
        self.expect('{', format_args!("to open the body of @{}", func.name))?;
        let mut positions = Vec::new();
        loop {
            match self.tok.tok {
                Tok::Value(_) | Tok::Punct('=') => {
                    positions.push(self.pos());
                    let eqn = self.eqn(func, scope)?;
                    func.eqns.push(eqn);
                }
                Tok::Ident("return") => break,
                _ => return Err(self.expected("an equation or 'return'", format_args!("in @{}", func.name))),
            }
        }
        self.advance()?;
        if matches!(self.tok.tok, Tok::Value(_)) {
            loop {
                let (name, at) = self.value_name("")?;
                func.results.push(scope.lookup(name, at)?);
                if !self.eat(',')? {
                    break;
                }
            }
        }
        self.expect('}', format_args!("to close the body of @{}", func.name))?;
        Ok(positions)
    }

    /// `%a: type, ... = op[attrs](%x, ...) loc("...")`.
    fn eqn(&mut self, func: &mut Func, scope: &mut Scope<'a>) -> Result<Eqn, Error> {
        let first_output = func.value_types.len();
        let outputs = self.outputs(func, scope)?;
        self.expect('=', "after the results of the equation")?;
        let (op, op_at) = self.ident("a primitive name", "after '='")?;
        let attrs = if self.at_punct('[') { self.attrs(MAX_PRIM_ATTRS)? } else { Vec::new() };
        let out_types = func.value_types.get(first_output..).unwrap_or_default();
        let prim = Prim::from_attrs(op, attrs, out_types).map_err(|msg| error_at(op_at.0, op_at.1, msg))?;
        let inputs = self.operands(op, scope)?;
        let loc = self.loc()?;
        scope.publish(func);
        Ok(Eqn { prim, inputs, outputs, loc })
    }

    /// The results of an equation, `%a: type, ...` (none when it starts with `=`).
    fn outputs(&mut self, func: &mut Func, scope: &mut Scope<'a>) -> Result<SmallVec<[Value; 2]>, Error> {
        let mut outputs = SmallVec::new();
        while let Tok::Value(name) = self.tok.tok {
            let at = self.pos();
            self.advance()?;
            self.expect(':', format_args!("after value %{name}"))?;
            let ty = self.ty()?;
            outputs.push(scope.define(func, name, at, ty)?);
            if !self.at_punct(',') {
                break;
            }
            self.advance()?;
            if !matches!(self.tok.tok, Tok::Value(_)) {
                return Err(self.expected("a value", "after ','"));
            }
        }
        Ok(outputs)
    }

    /// `( %x, ... )`, each operand already defined.
    fn operands(&mut self, op: &str, scope: &Scope<'a>) -> Result<SmallVec<[Value; 4]>, Error> {
        self.expect('(', format_args!("to open the operands of {op}"))?;
        let mut inputs = SmallVec::new();
        if self.eat(')')? {
            return Ok(inputs);
        }
        loop {
            let (name, at) = self.value_name(format_args!("as an operand of {op}"))?;
            inputs.push(scope.lookup(name, at)?);
            if !self.list_sep(')', format_args!("in the operands of {op}"))? {
                return Ok(inputs);
            }
        }
    }

    /// An optional `loc("...")`.
    fn loc(&mut self) -> Result<Option<Arc<str>>, Error> {
        if !self.at_keyword("loc") {
            return Ok(None);
        }
        self.advance()?;
        self.expect('(', "after 'loc'")?;
        let Tok::Str(text) = &self.tok.tok else {
            return Err(self.expected("a string", "in loc(...)"));
        };
        let loc = Arc::from(text.as_str());
        self.advance()?;
        self.expect(')', "to close loc(...)")?;
        Ok(Some(loc))
    }

    /// `[ name = value, ... ]`, names distinct, at most `max` of them.
    fn attrs(&mut self, max: usize) -> Result<Vec<(String, AttrValue)>, Error> {
        self.expect('[', "")?;
        let mut attrs = Vec::new();
        let mut seen = HashSet::new();
        loop {
            let (name, (line, col)) = self.ident("an attribute name", "")?;
            if !seen.insert(name) {
                return Err(error_at(line, col, format!("attribute '{name}' is given twice")));
            }
            if attrs.len() == max {
                return Err(error_at(line, col, format!("too many attributes (at most {max} on an equation)")));
            }
            self.expect('=', format_args!("after attribute name {name}"))?;
            attrs.push((name.to_string(), self.attr_value(0)?));
            if !self.list_sep(']', format_args!("after attribute {name}"))? {
                return Ok(attrs);
            }
        }
    }

    /// One attribute value; `depth` is the number of enclosing lists.
    fn attr_value(&mut self, depth: usize) -> Result<AttrValue, Error> {
        let (line, col) = self.pos();
        let value = match &self.tok.tok {
            Tok::Int(text) => match text.parse() {
                Ok(i) => AttrValue::Int(i),
                Err(_) => return Err(error_at(line, col, format!("integer {text} does not fit in 64 bits"))),
            },
            Tok::Float(text) => AttrValue::Float(text.to_string()),
            Tok::Str(text) => AttrValue::Str(text.clone()),
            Tok::FuncRef(name) => AttrValue::Func(name.to_string()),
            Tok::Ident(word) => match keyword_value(word) {
                Some(value) => value,
                None => return Err(self.expected("an attribute value", "")),
            },
            Tok::Punct('[') => return self.attr_list(depth + 1),
            _ => return Err(self.expected("an attribute value", "")),
        };
        self.advance()?;
        Ok(value)
    }

    /// `[ value, ... ]` at nesting `depth` (1 for a list that is not inside another).
    fn attr_list(&mut self, depth: usize) -> Result<AttrValue, Error> {
        if depth > MAX_NESTING {
            return Err(error_at(self.tok.line, self.tok.col, format!("nesting deeper than {MAX_NESTING}")));
        }
        self.advance()?;
        let mut items = Vec::new();
        if self.eat(']')? {
            return Ok(AttrValue::List(items));
        }
        loop {
            items.push(self.attr_value(depth)?);
            if !self.list_sep(']', "in the list")? {
                return Ok(AttrValue::List(items));
            }
        }
    }
}

/// The attribute value a reserved word stands for (`true`, `none`, `inf`, `f32`, ...).
fn keyword_value(word: &str) -> Option<AttrValue> {
    match word {
        "true" => Some(AttrValue::Bool(true)),
        "false" => Some(AttrValue::Bool(false)),
        "none" => Some(AttrValue::None),
        "inf" | "nan" => Some(AttrValue::Float(word.to_string())),
        _ => DType::from_name(word).map(AttrValue::DType),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text`, expecting an error at `line:col` whose message contains `fragment`.
    #[track_caller]
    fn fails(text: &str, line: usize, col: usize, fragment: &str) {
        match parse(text) {
            Err(Error::Parse { line: l, col: c, message }) => {
                assert_eq!((l, c), (line, col), "wrong position for: {message}");
                assert!(message.contains(fragment), "{message:?} does not contain {fragment:?}");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    /// A one-Func module whose body is `body` (parameters `%0: f32[2]`, `%1: i32[]`).
    fn with_body(body: &str) -> String {
        format!("func @f(%0: f32[2], %1: i32[]) -> (f32[2]) {{\n{body}\n}}\n")
    }

    #[test]
    fn missing_braces() {
        fails("func @f() -> () {\n  return\n", 3, 1, "expected '}' to close the body of @f, found end of input");
        fails("func @f() -> ()\n  return\n}", 2, 3, "expected '{' to open the body of @f, found 'return'");
        fails(
            "func @f() -> () {\n  %0: f32[] = constant[value=1.0]()\n",
            3,
            1,
            "expected an equation or 'return' in @f",
        );
    }

    #[test]
    fn bad_types() {
        fails("func @f(%0: f32) -> () {\n  return\n}", 1, 16, "expected '[' after dtype f32, found ')'");
        fails("func @f(%0: f33[2]) -> () {\n  return\n}", 1, 13, "unknown dtype 'f33'");
        fails("func @f(%0: 3) -> () {\n  return\n}", 1, 13, "expected a type such as 'f32[2]', found '3'");
        fails("func @f() -> (f32[2,-1]) {\n  return\n}", 1, 21, "a dimension must be >= 0, found -1");
        fails(
            "func @f() -> (f32[99999999999999999999999]) {\n  return\n}",
            1,
            19,
            "dimension 99999999999999999999999 is too large",
        );
        fails("func @f() -> (f32[2 3]) {\n  return\n}", 1, 21, "expected ',' or ']' in the shape, found '3'");
    }

    #[test]
    fn expected_colon_after_value() {
        fails(&with_body("  %3 = neg(%0)"), 2, 6, "expected ':' after value %3, found '='");
    }

    #[test]
    fn primitives_and_attributes_are_checked_at_the_op() {
        fails(&with_body("  %2: f32[2] = frobnicate(%0)"), 2, 16, "unknown primitive 'frobnicate'");
        fails(&with_body("  %2: f32[2] = neg[foo=1](%0)"), 2, 16, "neg: unknown attribute 'foo'");
        fails(&with_body("  %2: f32[] = reduce_sum(%0)"), 2, 15, "reduce_sum: missing attribute 'axes'");
        fails(&with_body("  %2: f32[2] = cumsum[axis=1.5](%0)"), 2, 16, "cumsum: attribute 'axis' must be an integer");
        fails(
            &with_body("  %2: f32[2], %3: f32[2] = constant[value=1.0]()"),
            2,
            28,
            "constant: has one result, 2 declared",
        );
        fails(&with_body("  %2: f32[2] = constant[value=[1.0]]()"), 2, 16, "value has 1 elements");
    }

    #[test]
    fn attribute_syntax() {
        fails(&with_body("  %2: f32[2] = cumsum[axis=0, axis=1](%0)"), 2, 31, "attribute 'axis' is given twice");
        fails("func @f[k=1, k=2]() -> () {\n  return\n}", 1, 14, "attribute 'k' is given twice");
        fails(
            &with_body("  %2: f32[2] = cumsum[axis 0](%0)"),
            2,
            28,
            "expected '=' after attribute name axis, found '0'",
        );
        fails(&with_body("  %2: f32[2] = cumsum[axis=zero](%0)"), 2, 28, "expected an attribute value, found 'zero'");
        fails(&with_body("  %2: f32[2] = cumsum[](%0)"), 2, 23, "expected an attribute name, found ']'");
        fails(
            &with_body("  %2: f32[2] = integer_pow[y=99999999999999999999](%0)"),
            2,
            30,
            "integer 99999999999999999999 does not fit",
        );
        fails(&with_body("  %2: f32[2] = integer_pow[y=-9223372036854775809](%0)"), 2, 30, "does not fit in 64 bits");
        fails(&with_body("  %2: f32[2] = neg(%0) loc(12)"), 2, 28, "expected a string in loc(...), found '12'");
    }

    #[test]
    fn equations_carry_a_bounded_number_of_attributes() {
        let attrs: Vec<String> = (0..=MAX_PRIM_ATTRS).map(|i| format!("a{i}=1")).collect();
        let col = 20 + attrs[..MAX_PRIM_ATTRS].iter().map(|a| a.len() + 2).sum::<usize>();
        fails(&with_body(&format!("  %2: f32[2] = neg[{}](%0)", attrs.join(", "))), 2, col, "too many attributes");
        fails(
            &with_body(&format!("  %2: f32[2] = neg[{}](%0)", attrs[1..].join(", "))),
            2,
            16,
            "unknown attribute 'a1'",
        );
        let func_attrs = format!("func @f[{}]() -> () {{\n  return\n}}", attrs.join(", "));
        assert_eq!(parse(&func_attrs).unwrap().entry().unwrap().attrs.len(), MAX_PRIM_ATTRS + 1);
    }

    #[test]
    fn lists_nest_up_to_the_limit() {
        let nest = |n: usize| format!("func @f[a={}{}]() -> () {{\n  return\n}}", "[".repeat(n), "]".repeat(n));
        let module = parse(&nest(MAX_NESTING)).unwrap();
        let mut value = module.entry().unwrap().attr("a").unwrap();
        for _ in 0..MAX_NESTING - 1 {
            value = match value {
                AttrValue::List(items) => &items[0],
                other => panic!("{other:?}"),
            };
        }
        assert_eq!(value, &AttrValue::List(vec![]));
        fails(&nest(MAX_NESTING + 1), 1, 11 + MAX_NESTING, "nesting deeper than 256");
        fails(&nest(100_000), 1, 11 + MAX_NESTING, "nesting deeper than 256");
    }

    #[test]
    fn values_are_defined_once_before_use() {
        fails(&with_body("  %2: f32[2] = neg(%7)"), 2, 20, "undefined value %7");
        fails(&with_body("  %2: f32[2] = neg(%2)"), 2, 20, "undefined value %2");
        fails(&with_body("  return %5"), 2, 10, "undefined value %5");
        fails(&with_body("  %0: f32[2] = neg(%1)"), 2, 3, "value %0 is defined twice (first at 1:9)");
        fails(&with_body("  %2: f32[2], %2: f32[2] = neg(%1)"), 2, 15, "value %2 is defined twice (first at 2:3)");
        fails("func @f(%a: f32[], %a: f32[]) -> () {\n  return\n}", 1, 20, "value %a is defined twice (first at 1:9)");
        // Names are local to a Func.
        assert!(parse("func @f(%a: f32[]) -> () {\n  return\n}\nfunc @g(%a: f32[]) -> () {\n  return\n}").is_ok());
    }

    #[test]
    fn func_names_are_unique() {
        let text = "func @f() -> () {\n  return\n}\n\nfunc @g() -> () {\n  return\n}\n  func @f() -> () {\n  return\n}";
        fails(text, 8, 8, "duplicate func @f (first defined at 1:1)");
    }

    #[test]
    fn unterminated_string() {
        fails("func @f[note=\"abc]() -> () {\n  return\n}", 1, 14, "unterminated string");
    }

    #[test]
    fn empty_comments_only_and_binary_input() {
        fails("", 1, 1, "expected 'func' (the module is empty), found end of input");
        fails("; just a comment\n\n   ; another\n", 4, 1, "found end of input");
        let garbage = String::from_utf8_lossy(&[0xff, 0xfe, 0x00, 0x13, 0x80, b'f', 0xc3]).into_owned();
        fails(&garbage, 1, 1, "unexpected character '\u{fffd}'");
        fails("\u{0}\u{1}\u{2}", 1, 1, "unexpected character '\\0'");
        fails("func @f() -> () {\n  return\n}\u{7f}", 3, 2, "unexpected character '\\u{7f}'");
    }

    #[test]
    fn trailing_garbage_after_the_last_func() {
        fails("func @f() -> () {\n  return\n}\ngarbage", 4, 1, "expected 'func', found 'garbage'");
        fails("func @f() -> () {\n  return\n} }", 3, 3, "expected 'func', found '}'");
        fails("func @f() -> () {\n  return %0 %1\n}", 2, 10, "undefined value %0");
        fails(
            "func @f(%0: f32[]) -> () {\n  return %0 %0\n}",
            2,
            13,
            "expected '}' to close the body of @f, found '%0'",
        );
    }

    #[test]
    fn header_syntax() {
        fails("func f() -> () {\n  return\n}", 1, 6, "expected a function name '@name' after 'func', found 'f'");
        fails("func @f() () {\n  return\n}", 1, 11, "expected '->' after the parameters of @f, found '('");
        fails("func @f(%0: f32[] %1: f32[]) -> () {\n  return\n}", 1, 19, "expected ',' or ')' after parameter %0");
        fails("func @f(x: f32[]) -> () {\n  return\n}", 1, 9, "expected a value as a parameter, found 'x'");
    }

    #[test]
    fn equations_without_results_parse() {
        let module = parse("func @f(%0: f32[]) -> () {\n  = call[func=@g](%0)\n  return\n}").unwrap();
        let eqn = &module.entry().unwrap().eqns[0];
        assert!(eqn.outputs.is_empty());
        assert_eq!(eqn.prim, Prim::call("g".to_string()));
    }

    #[test]
    fn source_map_positions() {
        let text = "; header
func @f(%0: f32[]) -> (f32[]) {
  %1: f32[] = neg(%0)
    %2: f32[] = exp(%1)
  return %2
}

  func @g() -> () {
  = call[func=@f]()
  return
}
";
        let (module, spans) = parse_with_spans(text).unwrap();
        assert_eq!(module.funcs.len(), 2);
        assert_eq!(spans.func_pos("f"), Some((2, 1)));
        assert_eq!(spans.func_pos("g"), Some((8, 3)));
        assert_eq!(spans.func_pos("h"), None);
        assert_eq!(spans.eqn_pos("f", 0), Some((3, 3)));
        assert_eq!(spans.eqn_pos("f", 1), Some((4, 5)));
        assert_eq!(spans.eqn_pos("f", 2), None);
        assert_eq!(spans.eqn_pos("g", 0), Some((9, 3)));
    }

    #[test]
    fn values_get_ids_in_definition_order() {
        let module =
            parse("func @f(%b: f32[], %a: i32[]) -> (f32[]) {\n  %z: f32[] = neg(%b)\n  return %z\n}").unwrap();
        let f = module.entry().unwrap();
        assert_eq!(f.params, vec![Value(0), Value(1)]);
        assert_eq!(f.eqns[0].outputs.as_slice(), &[Value(2)]);
        assert_eq!(f.eqns[0].inputs.as_slice(), &[Value(0)]);
        assert_eq!(f.value_types, vec![Type::scalar(DType::F32), Type::scalar(DType::I32), Type::scalar(DType::F32)]);
        assert_eq!(f.results, vec![Value(2)]);
    }
}
