//! The `sample` target: `sample-count-tile-ops`, the count read back
//! through the dialect's typed op, then the `cpu` target (found by name in
//! the registry) lowers and runs the kernel.

use htp_api::{find_target, Architecture, Argument, Artifact, KernelSignature, SourceText, Target};
use htp_dialects::{
    diagnostics::MlirError,
    ods::view,
};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, RegionLike},
    Context,
};

use crate::ods::sample;

pub struct SampleTarget;

/// The target this one hands the module to.
const BASE: &str = "cpu";

fn base() -> Result<&'static dyn Target, Vec<MlirError>> {
    find_target(BASE).map_err(|_| vec![MlirError { position: None, message: format!("the sample target needs the '{BASE}' target") }])
}

fn error(message: String) -> Vec<MlirError> {
    vec![MlirError { position: None, message }]
}

/// Runs the pass, then reads and removes each kernel's `sample.kernel_info`:
/// the total count.
fn count_and_strip(context: &Context, module: &mut Module) -> Result<i64, Vec<MlirError>> {
    htp_pass::dump::run_pipeline_collecting(context, module, "sample-count-tile-ops", "the sample target's pass")?;
    let mut total = 0;
    for kernel in htp_ir::query::kernel_functions(module.as_operation()) {
        let Some(body) = kernel.region(0).ok().and_then(|region| region.first_block()) else { continue };
        let Some(first) = body.first_operation() else { continue };
        let Some(info) = view::<sample::KernelInfoOperation>(first) else {
            return Err(error("sample-count-tile-ops left no sample.kernel_info first in a kernel".into()));
        };
        total += info.tile_ops().map_err(|e| error(e.to_string()))?.value();
        // The cpu lowering does not know the sample dialect.
        unsafe { mlir_sys::mlirOperationDestroy(first.to_raw()) };
    }
    Ok(total)
}

/// The cpu artifact, with the count as a static metric.
struct Counted {
    inner: Box<dyn Artifact>,
    tile_ops: i64,
}

impl Artifact for Counted {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        unsafe { self.inner.run(kernel, arguments) }
    }

    fn static_metrics(&self, _shapes: &[Vec<i64>], _scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        Some(Ok(vec![("tile_ops".to_string(), self.tile_ops as f64)]))
    }
}

impl Target for SampleTarget {
    fn name(&self) -> &'static str {
        "sample"
    }

    fn description(&self) -> &'static str {
        "the sample backend (tests the backend recipe): counts tile ops, then runs on cpu"
    }

    /// A small subset of what the base target runs: f32 elementwise
    /// kernels. Kept narrow on purpose: a target lists only what it has
    /// been tested on, and a test backend should not appear among the
    /// targets users are pointed to for anything else.
    fn capabilities(&self) -> Vec<String> {
        const OPS: [&str; 7] = ["load", "store", "add", "sub", "mul", "exp", "broadcast"];
        ["model:kernel", "dtype:f32", "layout:row_major"]
            .into_iter()
            .map(String::from)
            .chain(OPS.iter().map(|op| format!("op:tile.{op}")))
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
        let tile_ops = count_and_strip(context, module)?;
        let inner = base()?.compile(context, module, kernel, sources, stages)?;
        Ok(Box::new(Counted { inner, tile_ops }))
    }
}
