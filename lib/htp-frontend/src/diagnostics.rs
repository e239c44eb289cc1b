//! Errors in the user's program, each pointing at file:line:col with the
//! source line and a caret under the column.

use std::fmt;

/// What went wrong, so that callers (the Python package) can raise a
/// specific exception class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The text is not Python.
    Syntax,
    /// Valid Python that HTP kernels do not support.
    Unsupported,
    /// A name or function that is not defined.
    UnknownName,
    /// Operands whose shapes or valid regions do not fit together.
    Shape,
    /// Operands whose element types do not fit together.
    Type,
    /// Anything else the user wrote wrong (bad annotation, argument count, ...).
    Invalid,
    /// HTP built IR that MLIR rejects: a bug in HTP, not in the kernel.
    Internal,
}

impl DiagnosticKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::Syntax => "syntax",
            DiagnosticKind::Unsupported => "unsupported",
            DiagnosticKind::UnknownName => "unknown-name",
            DiagnosticKind::Shape => "shape",
            DiagnosticKind::Type => "type",
            DiagnosticKind::Invalid => "invalid",
            DiagnosticKind::Internal => "internal",
        }
    }
}

/// One error at a position of the user's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// The source line (without its newline), empty when unknown.
    pub source_line: String,
}

impl Diagnostic {
    /// The source line and a caret line under the column, or "" when the
    /// line is unknown.
    pub fn excerpt(&self) -> String {
        if self.source_line.is_empty() {
            return String::new();
        }
        let caret_pad: String = self
            .source_line
            .chars()
            .take(self.col.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("{}\n{}^", self.source_line, caret_pad)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: error: {}", self.file, self.line, self.col, self.message)?;
        let excerpt = self.excerpt();
        if !excerpt.is_empty() {
            write!(f, "\n{excerpt}")?;
        }
        Ok(())
    }
}

/// The errors of one import (at least one when returned as an error).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
    pub fn first(&self) -> Option<&Diagnostic> {
        self.0.first()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_position_message_line_and_caret() {
        let d = Diagnostic {
            kind: DiagnosticKind::Shape,
            file: "k.py".into(),
            line: 3,
            col: 9,
            message: "shapes differ".into(),
            source_line: "    y = a + b".into(),
        };
        assert_eq!(d.to_string(), "k.py:3:9: error: shapes differ\n    y = a + b\n        ^");
    }
}
