//! Collects MLIR's diagnostics as values, with the user's source position,
//! so that tools and bindings report `file:line:col: error: ...` instead of
//! printing to stderr or failing silently.

use std::{
    fmt,
    sync::{Arc, Mutex},
};

use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::Location,
    Context,
};

/// Where a diagnostic points: a file position when MLIR has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePosition {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for SourcePosition {
    /// `file:line:col`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// `file:line:col` of `location`, or `<unknown>` when it has no file position.
pub fn position_text(location: Location) -> String {
    source_position(location).map(|p| p.to_string()).unwrap_or_else(|| "<unknown>".into())
}

/// One MLIR error (warnings and remarks are not collected).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlirError {
    pub position: Option<SourcePosition>,
    pub message: String,
}

impl fmt::Display for MlirError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.position {
            Some(p) => write!(f, "{p}: error: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}

/// The first file position inside `location` (looking through fused,
/// named and call-site locations).
pub fn source_position(location: Location) -> Option<SourcePosition> {
    use mlir_sys::*;
    let raw = location.to_raw();
    unsafe {
        if mlirLocationIsAFileLineColRange(raw) {
            let name = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(raw));
            let bytes = std::slice::from_raw_parts(name.data as *const u8, name.length);
            return Some(SourcePosition {
                file: String::from_utf8_lossy(bytes).into_owned(),
                line: mlirLocationFileLineColRangeGetStartLine(raw) as u32,
                column: mlirLocationFileLineColRangeGetStartColumn(raw) as u32,
            });
        }
        if mlirLocationIsAName(raw) {
            return source_position(Location::from_raw(mlirLocationNameGetChildLoc(raw)));
        }
        if mlirLocationIsACallSite(raw) {
            return source_position(Location::from_raw(mlirLocationCallSiteGetCallee(raw)));
        }
        if mlirLocationIsAFused(raw) {
            let count = mlirLocationFusedGetNumLocations(raw) as usize;
            let mut inner = vec![MlirLocation { ptr: std::ptr::null() }; count];
            mlirLocationFusedGetLocations(raw, inner.as_mut_ptr());
            return inner.into_iter().find_map(|l| source_position(Location::from_raw(l)));
        }
    }
    None
}

/// Runs `body` with every error diagnostic of `context` collected (and not
/// printed); returns what `body` returned and the errors, in order.
pub fn collect_errors<T>(context: &Context, body: impl FnOnce() -> T) -> (T, Vec<MlirError>) {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    let id = context.attach_diagnostic_handler(move |diagnostic: Diagnostic| {
        if matches!(diagnostic.severity(), DiagnosticSeverity::Error) {
            let error = MlirError { position: source_position(diagnostic.location()), message: diagnostic.to_string() };
            sink.lock().expect("diagnostic sink").push(error);
        }
        true
    });
    let result = body();
    context.detach_diagnostic_handler(id);
    let errors = std::mem::take(&mut *errors.lock().expect("diagnostic sink"));
    (result, errors)
}

/// `errors` as text, one per line, each with its position when it has one.
pub fn joined(errors: &[MlirError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
}

/// Why MLIR refused something: the messages of `errors`, without
/// positions (the caller reports at its own location), `; `-separated.
pub fn reasons(errors: Vec<MlirError>) -> String {
    errors.into_iter().map(|e| e.message).collect::<Vec<_>>().join("; ")
}

/// Verifies `op` with its errors collected: `Err(reasons)` when invalid.
pub fn verify<'c: 'a, 'a>(context: &Context, op: &impl melior::ir::operation::OperationLike<'c, 'a>) -> Result<(), String> {
    let (valid, errors) = collect_errors(context, || op.verify());
    if valid {
        Ok(())
    } else {
        Err(reasons(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::new_context;
    use melior::ir::Module;

    #[test]
    fn collects_verifier_errors_with_positions() {
        let context = new_context();
        let source = "func.func @f() {\n  %x = tile.constant 1.0 : !tile.tile<0x4xf32>\n  return\n}";
        let (module, errors) = collect_errors(&context, || Module::parse(&context, source));
        assert!(module.is_none());
        assert_eq!(errors.len(), 1);
        let position = errors[0].position.as_ref().expect("parse errors have a position");
        assert_eq!((position.line, position.column), (2, 38)); // the `<` opening the bad shape
        assert!(errors[0].to_string().contains("tile dimensions must be positive"), "{}", errors[0]);
    }

    #[test]
    fn looks_through_named_locations() {
        let context = new_context();
        let inner = Location::new(&context, "k.py", 3, 7);
        let named = Location::name(&context, "tile", inner);
        assert_eq!(source_position(named).unwrap(), SourcePosition { file: "k.py".into(), line: 3, column: 7 });
    }
}
