//! What a target is to the driver: something that lowers an imported
//! module (tile IR, one `func.func` per kernel) and returns an artifact that
//! runs it, in this process or through a vendor runtime.

use htp_dialects::diagnostics::MlirError;
use crate::{KernelSignature, SourceText};
use melior::{ir::Module, Context};

use crate::Argument;

/// What a package file holds: text (sources, manifests; written as UTF-8)
/// or bytes (binaries, data).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileContents {
    Text(String),
    Binary(Vec<u8>),
}

/// One file of a package: its path relative to the package's directory and
/// its contents.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackageFile {
    pub path: String,
    pub contents: FileContents,
}

impl PackageFile {
    pub fn text(path: impl Into<String>, text: impl Into<String>) -> Self {
        PackageFile { path: path.into(), contents: FileContents::Text(text.into()) }
    }

    pub fn binary(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        PackageFile { path: path.into(), contents: FileContents::Binary(bytes.into()) }
    }

    /// The bytes written to disk (a text file's UTF-8).
    pub fn bytes(&self) -> &[u8] {
        match &self.contents {
            FileContents::Text(text) => text.as_bytes(),
            FileContents::Binary(bytes) => bytes,
        }
    }

    /// The text of a text file; `None` for a binary one.
    pub fn as_text(&self) -> Option<&str> {
        match &self.contents {
            FileContents::Text(text) => Some(text),
            FileContents::Binary(_) => None,
        }
    }
}

/// What made a run fail, so a binding can raise the matching exception
/// (Python's `IndexError`, `ZeroDivisionError`, `ValueError`) without
/// reading the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunErrorKind {
    /// An access outside a tensor, found by a run-time check.
    OutOfBounds,
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// A run-time value the program cannot take (a loop step that is not positive).
    InvalidValue,
    /// Anything else (the runtime failed, a package did not run).
    Failed,
    /// SIGINT (Ctrl-C) stopped the call before it finished; the binding
    /// hands the signal on (Python: `KeyboardInterrupt`).
    Interrupted,
}

/// A failed run: its kind and the message for the user (with the
/// file:line:col of the check that failed, when there is one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub kind: RunErrorKind,
    pub message: String,
}

impl RunError {
    pub fn new(kind: RunErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

impl From<String> for RunError {
    fn from(message: String) -> Self {
        Self { kind: RunErrorKind::Failed, message }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Runs a compiled kernel.
/// What [`Artifact::check_call`] knows of one argument of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallArgument {
    /// A tensor of these extents.
    Tensor(Vec<i64>),
    /// An integer scalar.
    Integer(i64),
    /// Any other scalar (a float).
    Other,
}

pub trait Artifact {
    /// Runs the kernel on `arguments` (the MLIR function's arguments in
    /// order; the binding has checked them against the signature).
    ///
    /// # Safety
    /// Buffers must match the kernel's parameter types and stay valid.
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), RunError>;

    /// The files of a package a vendor runtime builds and runs (text or
    /// binary); empty for targets that run in this process.
    fn files(&self) -> Vec<PackageFile> {
        Vec::new()
    }

    /// The Python module that runs [`Artifact::files`] (its
    /// `run_package(directory, tensors, scalars)`), for packages.
    fn runner(&self) -> Option<&'static str> {
        None
    }

    /// Static code-quality metrics of one call with tensor arguments of
    /// `shapes` and scalar arguments `scalars` (each in argument order):
    /// named counts, such as the bytes each memory level moves, that need no
    /// device. `None` when the target computes none.
    fn static_metrics(&self, _shapes: &[Vec<i64>], _scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        None
    }

    /// Checks a call before anything runs, on what the arguments tell
    /// without their data: per argument in order, a tensor's shape or an
    /// integer scalar's value (`None` otherwise). Layers of a model use it
    /// on targets whose packages another runtime runs (a CSP program's
    /// protocol, played on the call's shapes). `Err` is the message.
    fn check_call(&self, _arguments: &[CallArgument]) -> Result<(), String> {
        Ok(())
    }

    /// Whether [`Artifact::run`] may be called from several threads at
    /// once (on buffers the calls do not share): what lets a layer run
    /// independent tasks in parallel. `false` unless the target says so.
    fn concurrent_runs(&self) -> bool {
        false
    }
}

pub trait Target: Sync + Send {
    /// The name users pass (`htp.compile(k, target="cpu")`).
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// What the target provides, as named capabilities (see
    /// `capabilities.rs`): at least `model:kernel` to compile kernels, and
    /// `intrinsic:<op>` for each intrinsic its lowering handles.
    fn capabilities(&self) -> Vec<String>;
    /// The hardware model: parallel levels and memory spaces with their
    /// capacities (`architecture.rs`). Empty when a target declares none.
    fn architecture(&self) -> crate::Architecture {
        crate::Architecture::default()
    }
    /// The named points of its pipeline where target extensions' stages run
    /// (`crate::extensions`); the target runs them there with
    /// [`crate::extensions::run_stages`]. None by default.
    fn extension_points(&self) -> Vec<crate::ExtensionPoint> {
        Vec::new()
    }
    /// The name of the IR stage the module is in after [`Target::compile`].
    fn lowered_stage(&self) -> &'static str;
    /// Lowers `module` in place and builds the artifact for `kernel`.
    /// `stages` holds the IR seen so far (the tile stage); targets that
    /// write packages record it there.
    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        kernel: &KernelSignature,
        sources: &[SourceText],
        stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>>;
}

/// The text of `line` in the source file `file`, if HTP compiled it (for
/// emitters that quote the user's source next to the code it became).
pub fn source_line(sources: &[SourceText], file: &str, line: u32) -> Option<String> {
    let source = sources.iter().find(|s| s.file_name == file)?;
    let index = line.checked_sub(source.first_line)? as usize;
    source.text.lines().nth(index).map(str::to_string)
}
