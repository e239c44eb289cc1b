//! Targets written in Python (`htp.extensions`): registered in the same
//! registry, with the same capability check, as the in-tree backends. The
//! target lowers the tile module with a registered pipeline (or not at
//! all), hands the result to its Python emitter as JSON (`htp_ir::json`)
//! and packages the files the emitter returns; its runner module runs them
//! (`run_package(directory, tensors, scalars)`, as for PTO packages).

use htp_api::{Artifact, Argument, PackageFile, Target};
use htp_dialects::diagnostics::MlirError;
use htp_api::{KernelSignature, SourceText};
use melior::{ir::Module, Context};
use pyo3::prelude::*;

/// The point between a Python target's pipeline and its emitter.
pub const BEFORE_EMIT: htp_api::ExtensionPoint =
    htp_api::ExtensionPoint { name: "before-emit", description: "the emitter's input: tile IR after the target's pipeline" };

pub struct PythonTarget {
    pub name: &'static str,
    pub description: &'static str,
    pub capabilities: Vec<String>,
    /// Passes run before the emitter (as inside `builtin.module(...)`).
    pub pipeline: Option<String>,
    /// `emitter(ir_json: str, kernel: str) -> dict[str, str | bytes]` (path ->
    /// text, or bytes for a binary file).
    pub emitter: Py<PyAny>,
    /// The module whose `run_package` runs the files.
    pub runner: &'static str,
    /// What the extension declared of its hardware (empty if nothing).
    pub architecture: htp_api::Architecture,
}

impl Target for PythonTarget {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn capabilities(&self) -> Vec<String> {
        self.capabilities.clone()
    }
    fn architecture(&self) -> htp_api::Architecture {
        self.architecture.clone()
    }

    /// `before-lowering` (tile IR, before the target's pipeline) and
    /// `before-emit` (the emitter's input, after it).
    fn extension_points(&self) -> Vec<htp_api::ExtensionPoint> {
        vec![htp_api::BEFORE_LOWERING, BEFORE_EMIT]
    }

    fn lowered_stage(&self) -> &'static str {
        "emitter-input"
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        kernel: &KernelSignature,
        _sources: &[SourceText],
        _stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        htp_api::extensions::run_stages(context, module, self.name, htp_api::BEFORE_LOWERING.name)?;
        if let Some(pipeline) = &self.pipeline {
            htp_pass::dump::run_pipeline_collecting(context, module, pipeline, &format!("target '{}'", self.name))?;
        }
        htp_api::extensions::run_stages(context, module, self.name, BEFORE_EMIT.name)?;
        let json = htp_ir::json::to_json(module.as_operation());
        // The compile runs on the driver's thread without the GIL: take it.
        let files = Python::attach(|py| -> PyResult<Vec<PackageFile>> {
            let returned = self.emitter.call1(py, (json, kernel.name.clone()))?;
            let returned = returned.extract::<std::collections::HashMap<String, Bound<'_, PyAny>>>(py)?;
            let mut files = Vec::with_capacity(returned.len());
            for (path, contents) in returned {
                // `str`: a text file; `bytes`: a binary one.
                files.push(match contents.cast::<pyo3::types::PyBytes>() {
                    Ok(bytes) => PackageFile::binary(path, bytes.as_bytes()),
                    Err(_) => PackageFile::text(path, contents.extract::<String>()?),
                });
            }
            files.sort_by(|a, b| a.path.cmp(&b.path));
            Ok(files)
        });
        match files {
            Ok(files) => Ok(Box::new(PythonPackage { files, runner: self.runner })),
            // An emitter refuses with htp.CompileError("file:line:col: error: ..."):
            // positioned, so the driver renders it like its own (excerpt, caret).
            Err(e) => Python::attach(|py| Err(vec![emitter_error(py, &e, self.name)])),
        }
    }
}

/// The diagnostic of an emitter's exception: a located `CompileError`
/// (`file:line:col: error: message`) at its position, anything else an
/// unlocated error naming the target and the exception (the Python side
/// chains the exception itself, `htp.extensions`).
fn emitter_error(py: Python<'_>, error: &PyErr, target: &str) -> MlirError {
    let text = error.value(py).to_string();
    if let Some((position, message)) = located(&text) {
        // The driver adds the excerpt: drop one the emitter wrote itself.
        let lines: Vec<&str> = message.lines().collect();
        let keep = if lines.len() >= 3 && lines[lines.len() - 1].trim() == "^" { lines.len() - 2 } else { lines.len() };
        return MlirError { position: Some(position), message: lines[..keep].join("\n") };
    }
    let kind = error.get_type(py).name().map(|n| n.to_string()).unwrap_or_default();
    MlirError { position: None, message: format!("target '{target}': its emitter failed: {kind}: {text}") }
}

/// `file:line:col: error: message` split into its position and message.
fn located(text: &str) -> Option<(htp_dialects::diagnostics::SourcePosition, &str)> {
    let (head, message) = text.split_once(": error: ")?;
    let mut parts = head.rsplitn(3, ':');
    let column = parts.next()?.trim().parse().ok()?;
    let line = parts.next()?.trim().parse().ok()?;
    let file = parts.next()?.to_string();
    Some((htp_dialects::diagnostics::SourcePosition { file, line, column }, message))
}

struct PythonPackage {
    files: Vec<PackageFile>,
    runner: &'static str,
}

impl Artifact for PythonPackage {
    unsafe fn run(&self, _kernel: &str, _arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        Err(format!("a package runs through its runner module '{}'", self.runner).into())
    }
    fn files(&self) -> Vec<PackageFile> {
        self.files.clone()
    }
    fn runner(&self) -> Option<&'static str> {
        Some(self.runner)
    }
}

#[cfg(test)]
mod tests {
    use super::located;

    #[test]
    fn a_located_message_is_split_into_position_and_message() {
        let (position, message) = located("/a/b:c.py:12:5: error: no such op").unwrap();
        assert_eq!((position.file.as_str(), position.line, position.column, message), ("/a/b:c.py", 12, 5, "no such op"));
        assert!(located("error: no position").is_none());
        assert!(located("target x: error: y").is_none());
    }
}
