//! The lexer of the text form: turns source text into tokens, one at a time.
//!
//! Tokens carry the 1-based line and column (counted in chars) where they start, so
//! that every parse error can point at the offending text. The lexer walks the input
//! char by char and never slices a `&str` except at char boundaries it has reached,
//! so no input can make it panic. Lexing is lazy: the parser asks for the next token
//! when it needs it, so errors are reported in textual order.

use crate::Error;
use std::fmt;

/// The kinds of token of the text form.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok<'a> {
    /// A bare word: keywords, dtype names, primitive and attribute names.
    Ident(&'a str),
    /// `%name`, stored without the `%`.
    Value(&'a str),
    /// `@name`, stored without the `@`.
    FuncRef(&'a str),
    /// An integer literal as written, sign included.
    Int(&'a str),
    /// A float literal as written (`1.5`, `-2e-7`, `-inf`); bare `inf`/`nan` are idents.
    Float(&'a str),
    /// A string literal, unescaped.
    Str(String),
    /// One of `( ) [ ] { } , : =`.
    Punct(char),
    /// `->`.
    Arrow,
    /// The end of the input.
    Eof,
}

/// Longest piece of source text quoted in an error message.
const MAX_QUOTE: usize = 40;

/// Source text for an error message: escaped, and shortened when it is long.
fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(MAX_QUOTE).collect();
    let ellipsis = if chars.next().is_some() { "..." } else { "" };
    format!("{}{ellipsis}", head.escape_debug())
}

/// Source text in single quotes for an error message.
fn quote(text: &str) -> String {
    format!("'{}'", shorten(text))
}

impl fmt::Display for Tok<'_> {
    /// How the token is named in "found ..." messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) | Tok::Int(s) | Tok::Float(s) => f.write_str(&quote(s)),
            Tok::Value(s) => f.write_str(&quote(&format!("%{s}"))),
            Tok::FuncRef(s) => f.write_str(&quote(&format!("@{s}"))),
            Tok::Str(s) => write!(f, "string \"{}\"", shorten(s)),
            Tok::Punct(c) => write!(f, "'{c}'"),
            Tok::Arrow => f.write_str("'->'"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

/// A token and the 1-based position of its first char.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token<'a> {
    /// What was read.
    pub tok: Tok<'a>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in chars.
    pub col: usize,
}

/// A parse error at a 1-based position.
pub(crate) fn error_at(line: usize, col: usize, message: impl Into<String>) -> Error {
    Error::Parse { line, col, message: message.into() }
}

/// Chars that may start a NAME.
fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// Chars that may continue a NAME (digits and dots included).
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Whether a run of name chars is a NAME, `[A-Za-z_][A-Za-z0-9_.]*` (it must not
/// start with a digit or a dot, and must not be empty).
fn is_name(name: &str) -> bool {
    name.chars().next().is_some_and(is_name_start)
}

/// A lazy tokenizer over one source text.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next char; always on a char boundary.
    offset: usize,
    line: usize,
    col: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, offset: 0, line: 1, col: 1 }
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.offset..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// Consumes chars while `pred` holds and returns them.
    fn take_while(&mut self, pred: impl Fn(char) -> bool) -> &'a str {
        let start = self.offset;
        while self.peek().is_some_and(&pred) {
            self.bump();
        }
        self.src.get(start..self.offset).unwrap_or_default()
    }

    /// The source text from byte `start` to the current position.
    fn since(&self, start: usize) -> &'a str {
        self.src.get(start..self.offset).unwrap_or_default()
    }

    fn skip_blanks_and_comments(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' => {
                    self.bump();
                }
                ';' => {
                    self.take_while(|c| c != '\n');
                }
                _ => break,
            }
        }
    }

    /// Reads the next token; at the end of the input, returns [`Tok::Eof`] (repeatedly).
    pub fn next_token(&mut self) -> Result<Token<'a>, Error> {
        self.skip_blanks_and_comments();
        let (line, col) = (self.line, self.col);
        let tok = self.token_kind(line, col)?;
        Ok(Token { tok, line, col })
    }

    fn token_kind(&mut self, line: usize, col: usize) -> Result<Tok<'a>, Error> {
        let Some(c) = self.peek() else {
            return Ok(Tok::Eof);
        };
        match c {
            c if is_name_start(c) => Ok(Tok::Ident(self.take_while(is_name_char))),
            '0'..='9' => self.number(line, col),
            '-' => self.minus(line, col),
            '%' => self.value(line, col),
            '@' => self.func_ref(line, col),
            '"' => self.string(line, col),
            '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':' | '=' => {
                self.bump();
                Ok(Tok::Punct(c))
            }
            other => Err(error_at(line, col, format!("unexpected character {}", quote(&other.to_string())))),
        }
    }

    /// `->`, a negative number, or `-inf`.
    fn minus(&mut self, line: usize, col: usize) -> Result<Tok<'a>, Error> {
        match self.peek_second() {
            Some('>') => {
                self.bump();
                self.bump();
                Ok(Tok::Arrow)
            }
            Some('0'..='9') => self.number(line, col),
            Some(c) if is_name_start(c) => {
                let start = self.offset;
                self.bump();
                let word = self.take_while(is_name_char);
                if word == "inf" {
                    Ok(Tok::Float(self.since(start)))
                } else {
                    Err(error_at(line, col, format!("expected a number after '-', found {}", quote(word))))
                }
            }
            _ => Err(error_at(line, col, "expected a number or '->' after '-'")),
        }
    }

    /// `-? DIGITS ('.' DIGITS?)? ([eE] [+-]? DIGITS)?`; an integer unless it has a
    /// fraction or an exponent.
    fn number(&mut self, line: usize, col: usize) -> Result<Tok<'a>, Error> {
        let start = self.offset;
        if self.peek() == Some('-') {
            self.bump();
        }
        self.take_while(|c| c.is_ascii_digit());
        let mut is_float = false;
        if self.peek() == Some('.') {
            self.bump();
            self.take_while(|c| c.is_ascii_digit());
            is_float = true;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.bump();
            if matches!(self.peek(), Some('+' | '-')) {
                self.bump();
            }
            if self.take_while(|c| c.is_ascii_digit()).is_empty() {
                self.take_while(is_name_char);
                let text = quote(self.since(start));
                return Err(error_at(line, col, format!("malformed number {text}: expected digits in the exponent")));
            }
            is_float = true;
        }
        if self.peek().is_some_and(is_name_char) {
            self.take_while(is_name_char);
            return Err(error_at(line, col, format!("malformed number {}", quote(self.since(start)))));
        }
        let text = self.since(start);
        Ok(if is_float { Tok::Float(text) } else { Tok::Int(text) })
    }

    /// `%` followed by digits or a NAME.
    fn value(&mut self, line: usize, col: usize) -> Result<Tok<'a>, Error> {
        self.bump();
        let name = self.take_while(is_name_char);
        if name.is_empty() {
            return Err(error_at(line, col, "expected a value name or number after '%'"));
        }
        if is_name(name) || name.chars().all(|c| c.is_ascii_digit()) {
            Ok(Tok::Value(name))
        } else {
            Err(error_at(line, col, format!("malformed value name {}", quote(&format!("%{name}")))))
        }
    }

    /// `@` followed by a NAME.
    fn func_ref(&mut self, line: usize, col: usize) -> Result<Tok<'a>, Error> {
        self.bump();
        let name = self.take_while(is_name_char);
        if is_name(name) {
            Ok(Tok::FuncRef(name))
        } else {
            Err(error_at(line, col, "expected a function name after '@'"))
        }
    }

    /// A string literal with `\"`, `\\` and `\n` escapes, on one line.
    fn string(&mut self, line: usize, col: usize) -> Result<Tok<'a>, Error> {
        self.bump();
        let mut text = String::new();
        loop {
            let (esc_line, esc_col) = (self.line, self.col);
            match self.bump() {
                None | Some('\n') => return Err(error_at(line, col, "unterminated string")),
                Some('"') => return Ok(Tok::Str(text)),
                Some('\\') => match self.peek() {
                    Some('"') => text.push('"'),
                    Some('\\') => text.push('\\'),
                    Some('n') => text.push('\n'),
                    None | Some('\n') => return Err(error_at(line, col, "unterminated string")),
                    Some(other) => {
                        let shown = other.escape_debug();
                        let msg = format!("unknown escape '\\{shown}' in string (use \\\", \\\\ or \\n)");
                        return Err(error_at(esc_line, esc_col, msg));
                    }
                },
                Some(c) => {
                    text.push(c);
                    continue;
                }
            }
            self.bump();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(src: &str) -> Result<Vec<(Tok<'_>, usize, usize)>, Error> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token()?;
            if t.tok == Tok::Eof {
                return Ok(out);
            }
            out.push((t.tok, t.line, t.col));
        }
    }

    fn kinds(src: &str) -> Vec<Tok<'_>> {
        lex(src).unwrap().into_iter().map(|t| t.0).collect()
    }

    fn err(src: &str) -> (usize, usize, String) {
        match lex(src) {
            Err(Error::Parse { line, col, message }) => (line, col, message),
            other => panic!("expected a parse error for {src:?}, got {other:?}"),
        }
    }

    #[test]
    fn numbers() {
        use Tok::*;
        assert_eq!(
            kinds("0 -12 1.5 1. -2e-7 3E+8 -inf inf nan 1e5"),
            [Int("0"), Int("-12"), Float("1.5"), Float("1."), Float("-2e-7"), Float("3E+8")]
                .into_iter()
                .chain([Float("-inf"), Ident("inf"), Ident("nan"), Float("1e5")])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn names_values_and_punctuation() {
        use Tok::*;
        assert_eq!(
            kinds("func @f.jvp_1(%0: f32[2], %x.y) -> () {}"),
            vec![
                Ident("func"),
                FuncRef("f.jvp_1"),
                Punct('('),
                Value("0"),
                Punct(':'),
                Ident("f32"),
                Punct('['),
                Int("2"),
                Punct(']'),
                Punct(','),
                Value("x.y"),
                Punct(')'),
                Arrow,
                Punct('('),
                Punct(')'),
                Punct('{'),
                Punct('}'),
            ]
        );
    }

    #[test]
    fn positions_count_chars_and_skip_comments() {
        let toks = lex("; héllo ünïcode\n  é").map(|_| ()).unwrap_err();
        assert_eq!(toks, error_at(2, 3, "unexpected character 'é'"));
        let toks = lex("\"αβγ\" x ; c\n\n   y").unwrap();
        assert_eq!(toks[1], (Tok::Ident("x"), 1, 7));
        assert_eq!(toks[2], (Tok::Ident("y"), 3, 4));
    }

    #[test]
    fn strings_unescape() {
        assert_eq!(kinds(r#""a\"b\\c\nd""#), vec![Tok::Str("a\"b\\c\nd".to_string())]);
        assert_eq!(kinds("\"tab\there\""), vec![Tok::Str("tab\there".to_string())]);
    }

    #[test]
    fn errors() {
        assert_eq!(err("  \"abc"), (1, 3, "unterminated string".to_string()));
        assert_eq!(err("\"abc\ndef\""), (1, 1, "unterminated string".to_string()));
        let (line, col, message) = err("\"a\\tb\"");
        assert_eq!((line, col), (1, 3));
        assert!(message.starts_with("unknown escape '\\t' in string"), "{message}");
        assert_eq!(err("x 12abc").1, 3);
        assert!(err("12abc").2.contains("malformed number '12abc'"));
        assert!(err("1.2.3").2.contains("malformed number '1.2.3'"));
        assert!(err("1e+").2.contains("expected digits in the exponent"));
        assert!(err("-nan").2.contains("expected a number after '-', found 'nan'"));
        assert!(err("%").2.contains("expected a value name"));
        assert!(err("%1a").2.contains("malformed value name '%1a'"));
        assert!(err("@1").2.contains("expected a function name after '@'"));
        assert_eq!(err("\u{0}"), (1, 1, "unexpected character '\\0'".to_string()));
    }

    #[test]
    fn long_text_is_shortened_in_messages() {
        let long = "x".repeat(100);
        let shown = Tok::Ident(&long).to_string();
        assert!(shown.len() < 50 && shown.ends_with("...'"), "{shown}");
    }
}
