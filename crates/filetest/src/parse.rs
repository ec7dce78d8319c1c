//! The `parse` subtest: canonical printing and its fixed point.

use crate::expect::{func_before, is_comment};
use ferrax_ir::PrintOptions;

/// Checks a file; returns the blessed text when asked to and something changed.
pub(crate) fn check(text: &str, bless: bool) -> Result<Option<String>, String> {
    let (module, spans) = ferrax_ir::parse_with_spans(text).map_err(|e| format!("{e}"))?;
    ferrax_ir::verify(&module).map_err(|e| format!(" {e}"))?;
    let printed = ferrax_ir::print(&module);
    let reparsed = ferrax_ir::parse(&printed).map_err(|e| format!(" printed text does not parse: {e}\n{printed}"))?;
    let reprinted = ferrax_ir::print(&reparsed);
    if reprinted != printed {
        return Err(format!(" printing is not a fixed point:\n{}", crate::diff(&printed, &reprinted)));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut blessed: Vec<String> = Vec::new();
    let mut failures = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if crate::expect::directive(lines[i], "print:").is_none() {
            blessed.push(lines[i].to_string());
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < lines.len() && is_comment(lines[i]) && crate::expect::directive(lines[i], "print:").is_none() {
            i += 1;
        }
        let expected: String = lines[start + 1..i].iter().map(|l| format!("{}\n", uncomment(l))).collect();
        let Some(name) = func_before(&module, &spans, start + 1) else {
            failures.push(format!("{}: '; print:' block before any Func", start + 1));
            continue;
        };
        let actual = ferrax_ir::print_func(&module.funcs[&name], &PrintOptions::default());
        if actual.trim_end() != expected.trim_end() {
            failures.push(format!(
                "{}: canonical text of @{name} differs:\n{}",
                start + 1,
                crate::diff(&expected, &actual)
            ));
        }
        blessed.push(lines[start].to_string());
        blessed
            .extend(actual.trim_end().lines().map(|l| if l.is_empty() { ";".to_string() } else { format!("; {l}") }));
    }
    let blessed_text = format!("{}\n", blessed.join("\n"));
    match (failures.is_empty(), bless) {
        (true, _) => Ok(None),
        (false, true) => Ok(Some(blessed_text)),
        (false, false) => Err(failures.join("\n")),
    }
}

fn uncomment(line: &str) -> &str {
    let rest = line.trim_start().strip_prefix(';').unwrap_or(line);
    rest.strip_prefix(' ').unwrap_or(rest)
}
