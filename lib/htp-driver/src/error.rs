//! Compile errors as users read them: `file:line:col: error: message`, the
//! source line and a caret.

use std::fmt;

use htp_dialects::diagnostics::{MlirError, SourcePosition};
use htp_api::SourceText;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// The user's program is wrong (rendered diagnostics).
    Source(String),
    /// The target is unknown or cannot be used here.
    Target(String),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CompileError::Source(text) | CompileError::Target(text) => f.write_str(text),
        }
    }
}

impl CompileError {
    /// Renders MLIR errors raised while lowering a module imported from
    /// `sources`, with an excerpt where they point into one of them.
    pub fn from_mlir(errors: &[MlirError], sources: &[SourceText]) -> Self {
        let rendered: Vec<String> = errors
            .iter()
            .map(|error| {
                let excerpt = error
                    .position
                    .as_ref()
                    .and_then(|p| source_line(sources, p).map(|line| (line, p.column)))
                    .map(|(line, column)| format!("\n  {line}\n  {}^", " ".repeat(column.saturating_sub(1) as usize)))
                    .unwrap_or_default();
                format!("{error}{excerpt}")
            })
            .collect();
        CompileError::Source(rendered.join("\n"))
    }
}

/// The text of the line `position` points at, if one of `sources` holds it.
fn source_line<'s>(sources: &'s [SourceText], position: &SourcePosition) -> Option<&'s str> {
    sources.iter().filter(|s| s.file_name == position.file).find_map(|s| {
        let index = position.line.checked_sub(s.first_line)? as usize;
        s.text.lines().nth(index)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use htp_dialects::diagnostics::SourcePosition;

    #[test]
    fn mlir_errors_get_an_excerpt_with_a_caret() {
        let error = MlirError {
            position: Some(SourcePosition { file: "k.py".into(), line: 2, column: 5 }),
            message: "too big".into(),
        };
        // The source starts at line 10 of k.py.
        let error = MlirError { position: Some(SourcePosition { file: "k.py".into(), line: 11, column: 5 }), ..error };
        let sources = [SourceText::new("def k():\n    x = y\n", "k.py", 10)];
        let rendered = CompileError::from_mlir(&[error], &sources).to_string();
        assert_eq!(rendered, "k.py:11:5: error: too big\n      x = y\n      ^");
    }
}
