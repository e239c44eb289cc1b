//! Parsing with Ruff's parser and finding the kernels in a module.

use ruff_python_ast::{Expr, Stmt, StmtFunctionDef};
use ruff_text_size::Ranged;

use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::source::PreparedSource;

/// How a function is decorated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    /// `@htp.kernel`: an entry point (a public `func.func`), also callable.
    Entry,
    /// `@htp.func`: a helper inlined where it is called.
    Helper,
    /// `@<ns>.<decorator>` of a registered programming model (its name):
    /// an entry function written in that model (`htp_api::models`).
    Model(&'static str),
}

/// A decorated function and the source it came from.
#[derive(Clone, Debug)]
pub struct KernelDef {
    pub kind: KernelKind,
    pub def: StmtFunctionDef,
    /// Index of its source in the import's source list.
    pub source: usize,
}

/// Makes a diagnostic at a node of `source`.
pub fn diagnostic(source: &PreparedSource, range: impl Ranged, kind: DiagnosticKind, message: impl Into<String>) -> Diagnostic {
    let pos = source.range_start(range.range());
    Diagnostic {
        kind,
        file: source.file_name.clone(),
        line: pos.line,
        col: pos.col,
        message: message.into(),
        source_line: source.line_text(pos.line).unwrap_or("").to_string(),
    }
}

/// Parses one source and returns its decorated functions (undecorated
/// functions and other top-level statements are ignored: a file may hold
/// ordinary Python next to its kernels).
pub fn parse_kernels(source: &PreparedSource, index: usize) -> Result<Vec<KernelDef>, Diagnostic> {
    let parsed = ruff_python_parser::parse_module(&source.parsed_text).map_err(|e| {
        diagnostic(source, e.location, DiagnosticKind::Syntax, format!("invalid Python syntax: {}", e.error))
    })?;
    let mut kernels = Vec::new();
    for stmt in parsed.into_syntax().body {
        if let Stmt::FunctionDef(def) = stmt {
            if let Some(kind) = def.decorator_list.iter().find_map(|d| decorator_kind(source, &d.expression)) {
                if def.is_async {
                    return Err(diagnostic(source, def.range, DiagnosticKind::Unsupported, "a kernel cannot be `async`"));
                }
                kernels.push(KernelDef { kind, def, source: index });
            }
        }
    }
    Ok(kernels)
}

/// `@htp.kernel`, `@kernel`, `@htp.kernel(...)` mark entries; `@htp.func`
/// and `@func` mark helpers; `@<alias>.<decorator>` where the alias names a
/// registered programming model's namespace marks that model's functions.
fn decorator_kind(source: &PreparedSource, expr: &Expr) -> Option<KernelKind> {
    let name = match expr {
        Expr::Call(call) => return decorator_kind(source, &call.func),
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => {
            if let Expr::Name(alias) = &*a.value {
                if let Some(model) = source.namespace_of(alias.id.as_str()).and_then(htp_api::models::model_in) {
                    return (model.entry_decorator == a.attr.id.as_str()).then_some(KernelKind::Model(model.name));
                }
            }
            a.attr.id.as_str()
        }
        _ => return None,
    };
    match name {
        "kernel" => Some(KernelKind::Entry),
        "func" => Some(KernelKind::Helper),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceText;

    #[test]
    fn finds_decorated_functions_only() {
        let src = PreparedSource::new(&SourceText::new(
            "import htp\n@htp.kernel\ndef a(): pass\ndef b(): pass\n@htp.func\ndef c(): pass\n",
            "k.py",
            1,
        ));
        let kernels = parse_kernels(&src, 0).unwrap();
        let names: Vec<_> = kernels.iter().map(|k| (k.def.name.id.to_string(), k.kind)).collect();
        assert_eq!(names, vec![("a".into(), KernelKind::Entry), ("c".into(), KernelKind::Helper)]);
    }

    #[test]
    fn syntax_errors_point_at_the_user_line() {
        let src = PreparedSource::new(&SourceText::new("@htp.kernel\ndef a(:\n    pass\n", "k.py", 5));
        let err = parse_kernels(&src, 0).unwrap_err();
        assert_eq!((err.kind, err.file.as_str(), err.line), (DiagnosticKind::Syntax, "k.py", 6));
    }
}
