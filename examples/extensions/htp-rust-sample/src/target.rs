//! The `rsample-cpu` target: `rsample-square-to-mul`, then the `cpu` target
//! (found by name in the registry) lowers and runs the kernel. Its
//! capabilities: `intrinsic:rsample.square` and a tested subset of the cpu's.

use htp_api::{find_target, Architecture, Artifact, KernelSignature, SourceText, Target};
use htp_dialects::diagnostics::MlirError;
use melior::{ir::Module, Context};

use crate::square_to_mul::SQUARE;

pub struct RsampleCpu;

/// The target this one hands the module to.
const BASE: &str = "cpu";

fn error(message: String) -> Vec<MlirError> {
    vec![MlirError { position: None, message }]
}

fn base() -> Result<&'static dyn Target, Vec<MlirError>> {
    find_target(BASE).map_err(|_| error(format!("the rsample-cpu target needs the '{BASE}' target")))
}

impl Target for RsampleCpu {
    fn name(&self) -> &'static str {
        "rsample-cpu"
    }

    fn description(&self) -> &'static str {
        "the cpu target with the rsample intrinsics (examples/extensions/htp-rust-sample, a Rust extension out of tree)"
    }

    /// The intrinsic, and what the tests run on it of the cpu's: a target
    /// lists only what it has been tested on, so that it is not among the
    /// targets users are pointed to for anything else.
    fn capabilities(&self) -> Vec<String> {
        const OPS: [&str; 4] = ["load", "store", "add", "mul"];
        ["model:kernel", "dtype:f32", "dtype:f16", "layout:row_major"]
            .into_iter()
            .map(String::from)
            .chain(OPS.iter().map(|op| format!("op:tile.{op}")))
            .chain([format!("intrinsic:{SQUARE}")])
            .collect()
    }

    fn architecture(&self) -> Architecture {
        base().map(|target| target.architecture()).unwrap_or_default()
    }

    fn lowered_stage(&self) -> &'static str {
        base().map(|target| target.lowered_stage()).unwrap_or("llvm")
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        kernel: &KernelSignature,
        sources: &[SourceText],
        stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        htp_pass::dump::run_pipeline_collecting(context, module, "rsample-square-to-mul", "the rsample-cpu target's pass")?;
        base()?.compile(context, module, kernel, sources, stages)
    }
}
