//! The compile driver: Python source -> front end -> a target's pipeline ->
//! an artifact that runs. Every binding (the `htp` Python package today)
//! goes through [`compile`]; targets plug in through [`targets::Target`].

pub mod error;
pub mod targets;

use htp_frontend::{import_python_sources, Constants, KernelSignature, SourceText};
use melior::ir::Module;

pub use error::CompileError;
pub use htp_target_cpu::Argument;
pub use targets::{find_target, Artifact, Target, TARGETS};

/// What to compile: one kernel, from its source and the sources of the
/// kernels and helpers it calls.
pub struct Request<'a> {
    pub sources: &'a [SourceText],
    /// The `@htp.kernel` function to compile.
    pub kernel: &'a str,
    pub constants: Constants,
    pub target: &'a str,
}

/// A compiled kernel: its signature, the IR after each stage, the artifact.
pub struct CompiledKernel {
    pub signature: KernelSignature,
    /// (stage, MLIR text), in pipeline order.
    pub stages: Vec<(String, String)>,
    pub artifact: Box<dyn Artifact>,
}

/// Compiles `request.kernel` for `request.target`.
pub fn compile(request: &Request) -> Result<CompiledKernel, CompileError> {
    let target = find_target(request.target)?;
    let context = htp_dialects::new_context();
    let imported = import_python_sources(&context, request.sources, &request.constants)
        .map_err(|diagnostics| CompileError::Source(diagnostics.to_string()))?;
    let signature = imported.kernels.iter().find(|k| k.name == request.kernel).cloned().ok_or_else(|| {
        CompileError::Source(format!("error: no @htp.kernel named '{}' in the given sources", request.kernel))
    })?;
    let mut module: Module = imported.module;
    let mut stages = vec![("tile".to_string(), module.as_operation().to_string())];
    let artifact = target
        .compile(&context, &mut module, &signature, request.sources, &stages)
        .map_err(|errors| CompileError::from_mlir(&errors, request.sources))?;
    stages.push((target.lowered_stage().to_string(), module.as_operation().to_string()));
    Ok(CompiledKernel { signature, stages, artifact })
}
