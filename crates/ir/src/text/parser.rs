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
use std::sync::Arc;

/// The deepest nesting of attribute lists the parser accepts.
pub const MAX_NESTING: usize = 256;

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
#[derive(Default)]
struct Scope<'a> {
    values: HashMap<&'a str, (Value, Pos)>,
}

impl<'a> Scope<'a> {
    /// Fails if `name` is already defined.
    fn check_fresh(&self, name: &str, at: Pos) -> Result<(), Error> {
        match self.values.get(name) {
            Some(&(_, (line, col))) => {
                Err(error_at(at.0, at.1, format!("value %{name} is defined twice (first at {line}:{col})")))
            }
            None => Ok(()),
        }
    }

    /// Defines `name` as a fresh value of `func` with type `ty`.
    fn define(&mut self, func: &mut Func, name: &'a str, at: Pos, ty: Type) -> Result<Value, Error> {
        self.check_fresh(name, at)?;
        let value = func.new_value(ty);
        self.values.insert(name, (value, at));
        Ok(value)
    }

    /// The value named `name`, which must be defined.
    fn lookup(&self, name: &str, at: Pos) -> Result<Value, Error> {
        match self.values.get(name) {
            Some(&(value, _)) => Ok(value),
            None => Err(error_at(at.0, at.1, format!("undefined value %{name}"))),
        }
    }
}

/// An output of an equation, read before the equation's operands.
struct Output<'a> {
    name: &'a str,
    at: Pos,
    ty: Type,
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
    fn expected(&self, what: &str, context: &str) -> Error {
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
    fn expect(&mut self, c: char, context: &str) -> Result<(), Error> {
        if self.eat(c)? { Ok(()) } else { Err(self.expected(&format!("'{c}'"), context)) }
    }

    /// After a list item: `true` on `,` (more follow), `false` on `close` (consumed).
    fn list_sep(&mut self, close: char, context: &str) -> Result<bool, Error> {
        if self.eat(',')? {
            Ok(true)
        } else if self.eat(close)? {
            Ok(false)
        } else {
            Err(self.expected(&format!("',' or '{close}'"), context))
        }
    }

    /// A `%name` token.
    fn value_name(&mut self, context: &str) -> Result<(&'a str, Pos), Error> {
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
    fn ident(&mut self, what: &str, context: &str) -> Result<(&'a str, Pos), Error> {
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
            func.attrs = self.attrs()?;
        }
        let mut scope = Scope::default();
        self.params(&mut func, &mut scope)?;
        self.result_types(&mut func)?;
        let eqns = self.body(&mut func, &mut scope)?;
        Ok((func, FuncSpans { header, eqns }))
    }

    /// `( %a: type, ... )`.
    fn params(&mut self, func: &mut Func, scope: &mut Scope<'a>) -> Result<(), Error> {
        let context = format!("after the name of @{}", func.name);
        self.expect('(', &context)?;
        if self.eat(')')? {
            return Ok(());
        }
        loop {
            let (name, at) = self.value_name("as a parameter")?;
            self.expect(':', &format!("after parameter %{name}"))?;
            let ty = self.ty()?;
            let value = scope.define(func, name, at, ty)?;
            func.params.push(value);
            if !self.list_sep(')', &format!("after parameter %{name}"))? {
                return Ok(());
            }
        }
    }

    /// `-> ( type, ... )`.
    fn result_types(&mut self, func: &mut Func) -> Result<(), Error> {
        let context = format!("after the parameters of @{}", func.name);
        if self.tok.tok != Tok::Arrow {
            return Err(self.expected("'->'", &context));
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
        self.expect('[', &format!("after dtype {word}"))?;
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
        self.expect('{', &format!("to open the body of @{}", func.name))?;
        let mut positions = Vec::new();
        loop {
            match self.tok.tok {
                Tok::Value(_) | Tok::Punct('=') => {
                    positions.push(self.pos());
                    let eqn = self.eqn(func, scope)?;
                    func.eqns.push(eqn);
                }
                Tok::Ident("return") => break,
                _ => return Err(self.expected("an equation or 'return'", &format!("in @{}", func.name))),
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
        self.expect('}', &format!("to close the body of @{}", func.name))?;
        Ok(positions)
    }

    /// `%a: type, ... = op[attrs](%x, ...) loc("...")`.
    fn eqn(&mut self, func: &mut Func, scope: &mut Scope<'a>) -> Result<Eqn, Error> {
        let outputs = self.outputs(scope)?;
        self.expect('=', "after the results of the equation")?;
        let (op, op_at) = self.ident("a primitive name", "after '='")?;
        let attrs = if self.at_punct('[') { self.attrs()? } else { Vec::new() };
        let out_types: Vec<Type> = outputs.iter().map(|o| o.ty.clone()).collect();
        let prim = Prim::from_attrs(op, attrs, &out_types).map_err(|msg| error_at(op_at.0, op_at.1, msg))?;
        let inputs = self.operands(op, scope)?;
        let loc = self.loc()?;
        let mut eqn = Eqn { prim, inputs, outputs: SmallVec::new(), loc };
        for out in outputs {
            eqn.outputs.push(scope.define(func, out.name, out.at, out.ty)?);
        }
        Ok(eqn)
    }

    /// The results of an equation, `%a: type, ...` (none when it starts with `=`).
    fn outputs(&mut self, scope: &Scope<'a>) -> Result<Vec<Output<'a>>, Error> {
        let mut outputs: Vec<Output<'a>> = Vec::new();
        while let Tok::Value(name) = self.tok.tok {
            let at = self.pos();
            scope.check_fresh(name, at)?;
            if let Some(first) = outputs.iter().find(|o| o.name == name) {
                let msg = format!("value %{name} is defined twice (first at {}:{})", first.at.0, first.at.1);
                return Err(error_at(at.0, at.1, msg));
            }
            self.advance()?;
            self.expect(':', &format!("after value %{name}"))?;
            let ty = self.ty()?;
            outputs.push(Output { name, at, ty });
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
        self.expect('(', &format!("to open the operands of {op}"))?;
        let mut inputs = SmallVec::new();
        if self.eat(')')? {
            return Ok(inputs);
        }
        loop {
            let (name, at) = self.value_name(&format!("as an operand of {op}"))?;
            inputs.push(scope.lookup(name, at)?);
            if !self.list_sep(')', &format!("in the operands of {op}"))? {
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

    /// `[ name = value, ... ]`, names distinct.
    fn attrs(&mut self) -> Result<Vec<(String, AttrValue)>, Error> {
        self.expect('[', "")?;
        let mut attrs = Vec::new();
        let mut seen = HashSet::new();
        loop {
            let (name, (line, col)) = self.ident("an attribute name", "")?;
            if !seen.insert(name) {
                return Err(error_at(line, col, format!("attribute '{name}' is given twice")));
            }
            self.expect('=', &format!("after attribute name {name}"))?;
            attrs.push((name.to_string(), self.attr_value(0)?));
            if !self.list_sep(']', &format!("after attribute {name}"))? {
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
