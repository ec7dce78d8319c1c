//! Locating expectation comments and the Funcs they follow.

use ferrax_ir::SourceMap;

/// The name of the Func whose header is the last one at or before `line` (1-based).
pub(crate) fn func_before(module: &ferrax_ir::Module, spans: &SourceMap, line: usize) -> Option<String> {
    module
        .funcs
        .keys()
        .filter_map(|name| spans.func_pos(name).map(|(l, _)| (l, name)))
        .filter(|(l, _)| *l <= line)
        .max_by_key(|(l, _)| *l)
        .map(|(_, name)| name.clone())
}

/// The text after `; DIRECTIVE` on a comment line (`; out0: ...` with `out0:`), trimmed.
/// The directive must end there: `; runs nothing` is not a `; run`.
pub(crate) fn directive<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.trim_start().strip_prefix(';')?.trim_start();
    let after = rest.strip_prefix(name)?;
    let ends_word = name.ends_with(':') || after.is_empty() || after.starts_with(char::is_whitespace);
    ends_word.then(|| after.trim())
}

/// True for a line that is only a comment.
pub(crate) fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with(';')
}
