//! The `verify` subtest: the expected error, at the expected line.

use ferrax_ir::{Error, SourceMap};

/// Checks a file: it must fail where its `; error:` comment says, or verify cleanly
/// when it has none.
pub(crate) fn check(text: &str) -> Result<Option<String>, String> {
    let expected: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            line.find("; error:").map(|at| (i + 1, line[at..].trim_start_matches("; error:").trim()))
        })
        .collect();
    let outcome = match ferrax_ir::parse_with_spans(text) {
        Err(e) => Err(e),
        Ok((module, spans)) => ferrax_ir::verify(&module).map_err(|e| located(e, &spans)),
    };
    match (expected.as_slice(), outcome) {
        ([], Ok(())) => Ok(None),
        ([], Err(e)) => Err(format!(" expected the module to verify, got: {e}")),
        ([(line, _)], Ok(())) => Err(format!("{line}: expected an error here, but the module verified")),
        ([(line, fragment)], Err(error)) => {
            let message = error.to_string();
            let actual_line = error_line(&error);
            if !message.contains(fragment) {
                Err(format!("{line}: expected an error containing '{fragment}', got: {message}"))
            } else if actual_line.is_some_and(|l| l != *line) {
                Err(format!(
                    "{line}: expected the error on this line, but it was reported at line {}: {message}",
                    actual_line.unwrap_or(0)
                ))
            } else {
                Ok(None)
            }
        }
        (many, _) => Err(format!(" has {} '; error:' comments; a verify file has at most one", many.len())),
    }
}

/// Turns a verifier error into a parse-style error at the line of its Func or equation.
fn located(error: Error, spans: &SourceMap) -> Error {
    let Error::Verify { place, message } = &error else { return error };
    let position = match place.eqn {
        Some(eqn) => spans.eqn_pos(&place.func, eqn),
        None => spans.func_pos(&place.func),
    };
    match position {
        Some((line, col)) => Error::Parse { line, col, message: format!("{place}: {message}") },
        None => error,
    }
}

fn error_line(error: &Error) -> Option<usize> {
    match error {
        Error::Parse { line, .. } => Some(*line),
        Error::Verify { .. } | Error::Eval { .. } | Error::Transform { .. } | Error::Array(_) => None,
    }
}
