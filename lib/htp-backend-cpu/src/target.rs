//! The registered `cpu` target: MLIR's own lowering to LLVM, JIT-compiled
//! in this process.

use htp_api::{Argument, Artifact, Target};
use htp_dialects::diagnostics::MlirError;
use htp_api::{KernelSignature, SourceText};
use melior::{ir::Module, Context};

use crate::CompiledModule;

pub struct CpuTarget;

struct CpuArtifact(CompiledModule);

impl Artifact for CpuArtifact {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        unsafe { self.0.call(kernel, arguments) }
    }

    /// JIT code has no state of its own between calls; chunks of one
    /// call already run on several threads.
    fn concurrent_runs(&self) -> bool {
        true
    }
}

impl Target for CpuTarget {
    fn name(&self) -> &'static str {
        crate::TARGET_NAME
    }

    fn description(&self) -> &'static str {
        "this machine's CPU: tile -> linalg -> LLVM, JIT-compiled with MLIR's ExecutionEngine"
    }

    /// The whole kernel language, in every layout: CPU tiles are values
    /// (tensors), so a layout never changes what is computed and a
    /// `tile.relayout` is the value itself.
    fn capabilities(&self) -> Vec<String> {
        let mut provided = htp_api::capabilities::whole_kernel_language();
        provided.push(htp_api::capabilities::ALL_LAYOUTS.to_string());
        provided
    }

    /// The cores htp-runtime's pool runs independent outer loops on, and
    /// host memory (tiles are stack or heap buffers, bounded by the host).
    fn architecture(&self) -> htp_api::Architecture {
        htp_api::Architecture {
            levels: vec![htp_api::ParallelLevel {
                name: "core",
                count: htp_runtime::pool::default_threads() as u64,
                description: "a CPU core (htp-runtime's pool; HTP_NUM_THREADS)",
            }],
            memories: vec![htp_api::MemorySpace { name: "host", bytes: None, alignment: 64, description: "host memory" }],
            array: None,
        }
    }

    /// `before-lowering` (tile IR), `after-tile-to-linalg` (tensors),
    /// `before-llvm` (bufferized loops): `crate::EXTENSION_POINTS`.
    fn extension_points(&self) -> Vec<htp_api::ExtensionPoint> {
        crate::EXTENSION_POINTS.to_vec()
    }

    fn lowered_stage(&self) -> &'static str {
        "llvm"
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        _kernel: &KernelSignature,
        _sources: &[SourceText],
        _stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        Ok(Box::new(CpuArtifact(crate::compile(context, module)?)))
    }
}
