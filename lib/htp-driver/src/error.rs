//! Compile errors as users read them: `file:line:col: error: message`, the
//! source line and a caret.

use std::fmt;

use htp_dialects::diagnostics::MlirError;

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
    /// `source` (named `file_name`), with an excerpt where they point into it.
    pub fn from_mlir(errors: &[MlirError], source: &str, file_name: &str) -> Self {
        let rendered: Vec<String> = errors
            .iter()
            .map(|error| {
                let excerpt = error
                    .position
                    .as_ref()
                    .filter(|p| p.file == file_name)
                    .and_then(|p| source.lines().nth(p.line.saturating_sub(1) as usize).map(|line| (line, p.column)))
                    .map(|(line, column)| format!("\n  {line}\n  {}^", " ".repeat(column.saturating_sub(1) as usize)))
                    .unwrap_or_default();
                format!("{error}{excerpt}")
            })
            .collect();
        CompileError::Source(rendered.join("\n"))
    }
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
        let rendered = CompileError::from_mlir(&[error], "def k():\n    x = y\n", "k.py").to_string();
        assert_eq!(rendered, "k.py:2:5: error: too big\n      x = y\n      ^");
    }
}
