//! The registry of targets. A target lowers an imported module (tile IR,
//! one `func.func` per kernel) and returns something that runs it. To add a
//! target (PTO, AIE, ...): implement [`Target`] in its own crate or module
//! and list it in [`TARGETS`].

use htp_dialects::diagnostics::MlirError;
use htp_frontend::KernelSignature;
use melior::{ir::Module, Context};

use crate::{Argument, CompileError};

/// Runs a compiled kernel.
pub trait Artifact {
    /// Runs the kernel on `arguments` (the MLIR function's arguments in
    /// order; the binding has checked them against the signature).
    ///
    /// # Safety
    /// Buffers must match the kernel's parameter types and stay valid.
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), String>;
}

pub trait Target: Sync {
    /// The name users pass (`htp.compile(k, target="cpu")`).
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// The name of the IR stage the module is in after [`Target::compile`].
    fn lowered_stage(&self) -> &'static str;
    /// Lowers `module` in place and builds the artifact for `kernel`.
    fn compile(&self, context: &Context, module: &mut Module, kernel: &KernelSignature)
        -> Result<Box<dyn Artifact>, Vec<MlirError>>;
}

/// The CPU target: MLIR's own lowering to LLVM, JIT-compiled in process.
pub struct CpuTarget;

struct CpuArtifact(htp_target_cpu::CompiledModule);

impl Artifact for CpuArtifact {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), String> {
        unsafe { self.0.call(kernel, arguments) }
    }
}

impl Target for CpuTarget {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn description(&self) -> &'static str {
        "this machine's CPU: tile -> linalg -> LLVM, JIT-compiled with MLIR's ExecutionEngine"
    }

    fn lowered_stage(&self) -> &'static str {
        "llvm"
    }

    fn compile(&self, context: &Context, module: &mut Module, _kernel: &KernelSignature)
        -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        Ok(Box::new(CpuArtifact(htp_target_cpu::compile(context, module)?)))
    }
}

/// Every target HTP knows.
pub static TARGETS: &[&dyn Target] = &[&CpuTarget];

pub fn find_target(name: &str) -> Result<&'static dyn Target, CompileError> {
    TARGETS.iter().copied().find(|t| t.name() == name).ok_or_else(|| {
        let known: Vec<&str> = TARGETS.iter().map(|t| t.name()).collect();
        CompileError::Target(format!("error: unknown target '{name}' (known: {})", known.join(", ")))
    })
}
