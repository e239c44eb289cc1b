//! HTP's Python front end: kernel source text in, verified MLIR out.
//!
//! ```text
//! Python source ──► Ruff parser ──► AST mutators (match + apply) ──► tile + func/scf/arith/memref
//! ```
//!
//! The `htp` Python package hands the source of each `@htp.kernel`
//! function (with its file name and first line) to [`import_python`]; so
//! does `htp-translate --import-python FILE.py` for a whole file. The
//! language is documented in `docs/language.md`.
//!
//! # Public API
//!
//! - [`import_python`]`(context, source, file_name, first_line, constants)`:
//!   one source text. [`import_python_sources`] takes several (a kernel and
//!   the kernels it calls, from different files), [`import_python_with`]
//!   also takes the AST mutators to run (default: [`builtin_mutators`]).
//! - [`ImportedModule`]: the verified `melior::ir::Module` and one
//!   [`KernelSignature`] per `@htp.kernel`.
//! - [`Diagnostics`]: the user's errors; each [`Diagnostic`] has
//!   file/line/col/message and displays as `file:line:col: error: msg`,
//!   the source line and a caret.
//! - [`Constants`]: values of `htp.Const` parameters by name.
//!
//! # The MLIR contract
//!
//! Each `@htp.kernel def name(...)` becomes
//! `func.func @name(<args>) attributes {htp.kernel, htp.outputs = array<i64: ...>, llvm.emit_c_interface}`
//! returning nothing. Arguments follow the Python parameters in order,
//! without the compile-time constants (substituted at import): a tensor
//! `htp.Tensor[T, d0, d1, ...]` is `memref<d0xd1x...xT>` (`?` for a symbolic
//! dimension, static sizes otherwise, the annotated rank), a scalar is
//! `f32`/`f16`/`bf16`/`i64`/`i32`/`i16`/`i8`/`i1`. `htp.outputs` lists the
//! argument indices of the `htp.Out` tensors. Equal symbol names promise
//! equal sizes (the caller checks). Calls of other kernels are inlined.
//! Every op has a `FileLineColLoc` in the user's file.

pub mod diagnostics;
pub mod translation;
pub mod lower;
pub mod mutators;
pub mod parse;
pub mod signature;
pub mod source;

use std::cell::RefCell;
use std::rc::Rc;

use melior::{
    ir::{operation::OperationLike, Location, Module},
    Context,
};
use ruff_text_size::Ranged;

pub use diagnostics::{Diagnostic, DiagnosticKind, Diagnostics};
pub use lower::calls::BUILTIN_FUNCTIONS;
pub use mutators::{builtin_mutators, AstMutator};
pub use signature::{ConstValue, Constants, DimSig, KernelSignature, ParamKind, ParamSignature, TensorLayout};
pub use source::SourceText;

use lower::{lower_program, Program};
use parse::{diagnostic, parse_kernels};
use source::PreparedSource;

/// Runs `f` with enough stack for one more level of a recursive walk over
/// the user's AST, growing the stack on the heap when it runs low (as Ruff's
/// parser does): sources as deep as CPython compiles (a 500-term sum, 1000
/// unary minuses) and deeper never overflow the thread's stack.
pub(crate) fn deep<T>(f: impl FnOnce() -> T) -> T {
    /// Left free before a call recurses: the deepest non-recursive work of
    /// one level (an op built through MLIR's C API included).
    const RED_ZONE: usize = 256 * 1024;
    /// Each new segment.
    const SEGMENT: usize = 8 * 1024 * 1024;
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Registers what the front end offers the tools: the `--import-python`
/// translation.
pub fn register() -> Result<(), String> {
    htp_api::translation::register_translation(&translation::IMPORT_PYTHON)
}

/// A verified module and the signatures of its entry kernels.
pub struct ImportedModule<'c> {
    pub module: Module<'c>,
    pub kernels: Vec<KernelSignature>,
}

impl std::fmt::Debug for ImportedModule<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportedModule").field("kernels", &self.kernels).finish_non_exhaustive()
    }
}

/// Imports the kernels of one Python source text (`first_line` is the line
/// of `file_name` where `source` starts, 1-based).
pub fn import_python<'c>(
    context: &'c Context,
    source: &str,
    file_name: &str,
    first_line: u32,
    constants: &Constants,
) -> Result<ImportedModule<'c>, Diagnostics> {
    import_python_sources(context, &[SourceText::new(source, file_name, first_line)], constants)
}

/// Imports the kernels of several source texts into one module; a kernel in
/// one may call a kernel in another.
pub fn import_python_sources<'c>(
    context: &'c Context,
    sources: &[SourceText],
    constants: &Constants,
) -> Result<ImportedModule<'c>, Diagnostics> {
    import_python_with(context, sources, constants, &builtin_mutators())
}

/// [`import_python_sources`] with an explicit list of AST mutators.
pub fn import_python_with<'c>(
    context: &'c Context,
    sources: &[SourceText],
    constants: &Constants,
    mutators: &[Box<dyn AstMutator>],
) -> Result<ImportedModule<'c>, Diagnostics> {
    // MLIR reports through the context's handlers; while importing, what it
    // says is collected here (and becomes an internal-error diagnostic)
    // instead of being printed by whoever owns the context.
    // The dialects the lowering creates ops of (registered by
    // `htp_dialects::new_context`, loaded here).
    for dialect in ["builtin", "func", "arith", "scf", "memref", "tile"] {
        context.get_or_load_dialect(dialect);
    }
    for model in htp_api::models::models() {
        for dialect in model.dialects {
            context.get_or_load_dialect(dialect);
        }
    }
    let mlir_messages: Rc<RefCell<Vec<MlirMessage>>> = Rc::default();
    let sink = mlir_messages.clone();
    let handler = context.attach_diagnostic_handler(move |d| {
        let position = htp_dialects::diagnostics::source_position(d.location());
        sink.borrow_mut().push(MlirMessage { text: format!("{}: {}", d.location(), d), message: d.to_string(), position });
        true
    });
    let result = import(context, sources, constants, mutators, &mlir_messages);
    context.detach_diagnostic_handler(handler);
    result
}

fn import<'c>(
    context: &'c Context,
    sources: &[SourceText],
    constants: &Constants,
    mutators: &[Box<dyn AstMutator>],
    mlir_messages: &RefCell<Vec<MlirMessage>>,
) -> Result<ImportedModule<'c>, Diagnostics> {
    let prepared: Vec<PreparedSource> = sources.iter().map(PreparedSource::new).collect();
    let mut errors = Vec::new();
    let mut kernels = Vec::new();
    for (i, src) in prepared.iter().enumerate() {
        match parse_kernels(src, i) {
            Ok(k) => kernels.extend(k),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    let mut defined = std::collections::HashSet::new();
    for k in &kernels {
        if !defined.insert(k.def.name.id.as_str()) {
            return Err(diagnostic(&prepared[k.source], k.def.name.range(), DiagnosticKind::Invalid, format!(
                "a kernel named '{}' is already defined", k.def.name.id
            ))
            .into());
        }
    }
    for k in kernels.iter_mut() {
        mutators::apply_mutators(&mut k.def, mutators);
    }
    let program = Program::new(prepared, kernels);
    let module = Module::new(Location::unknown(context));
    let signatures = lower_program(context, &program, constants, &module).map_err(Diagnostics)?;
    if !module.as_operation().verify() {
        if let Some(broken) = model_rules_broken(&program, &mlir_messages.borrow()) {
            return Err(Diagnostics(broken));
        }
        let messages = mlir_messages.borrow().iter().map(|m| m.text.clone()).collect::<Vec<_>>().join("\n");
        let at = program.kernels.first().map(|k| (k.source, k.def.range()));
        let message = format!("internal error (an HTP bug): the generated MLIR does not verify:\n{messages}");
        return Err(match at {
            Some((s, r)) => diagnostic(&program.sources[s], r, DiagnosticKind::Internal, message),
            None => Diagnostic {
                kind: DiagnosticKind::Internal,
                file: String::new(),
                line: 0,
                col: 0,
                message,
                source_line: String::new(),
            },
        }
        .into());
    }
    Ok(ImportedModule { module, kernels: signatures })
}

/// An MLIR diagnostic the import collected.
struct MlirMessage {
    /// As MLIR prints it, location first.
    text: String,
    message: String,
    position: Option<htp_dialects::diagnostics::SourcePosition>,
}

/// When every error of the failed verification is a rule of a model
/// (an op of a dialect a registered model lists in `rules`) at a line of
/// the program: those errors, as the user's, at their lines (the op's name
/// left out: it may be one the user's construct built, not one they wrote).
fn model_rules_broken(program: &Program, messages: &[MlirMessage]) -> Option<Vec<Diagnostic>> {
    let dialects: Vec<&str> = htp_api::models::models().iter().flat_map(|m| m.rules.iter().copied()).collect();
    let mut diagnostics = Vec::new();
    for message in messages {
        let op = message.message.strip_prefix('\'')?.split('\'').next()?;
        let (dialect, _) = op.split_once('.')?;
        if !dialects.contains(&dialect) {
            return None;
        }
        let position = message.position.as_ref()?;
        let source = program.sources.iter().find(|s| s.file_name == position.file)?;
        let text = message.message.split_once(" op ").map_or(message.message.as_str(), |(_, rest)| rest);
        // (MLIR may report one failure more than once.)
        if diagnostics.iter().any(|d: &Diagnostic| d.line == position.line && d.col == position.column && d.message == text) {
            continue;
        }
        diagnostics.push(Diagnostic {
            kind: DiagnosticKind::Invalid,
            file: source.file_name.clone(),
            line: position.line,
            col: position.column,
            message: text.to_string(),
            source_line: source.line_text(position.line).unwrap_or("").to_string(),
        });
    }
    (!diagnostics.is_empty()).then_some(diagnostics)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod models_tests;
