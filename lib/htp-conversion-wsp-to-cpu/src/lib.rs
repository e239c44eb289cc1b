//! WSP on the `cpu` target, a conversion crate (as CIRCT's
//! `lib/Conversion/<A>To<B>/`; docs/wsp.md) added from outside both the
//! model (`htp-model-wsp`) and the cpu backend, named in one line of
//! `htp-all`: the capabilities `model:wsp` / `dialect:wsp` (a target extension) and an
//! artifact layer that takes each workload out of the module before the
//! cpu backend compiles the kernels, and runs a call of the workload by
//! evaluating its plan on the host, issuing tasks to `htp-runtime`'s task
//! runtime (`runner.rs`), each task a call of a compiled kernel. The
//! workload runs as a small register program (`plan/`: extracted from the
//! IR, evaluated on the call's arguments), the role the AICPU
//! orchestration plays on PTO.

mod issuer;
pub mod plan;
mod runner;
mod staging;
mod task_graph;

use htp_api::{extensions::TargetExtension, layers::ArtifactLayer, ArtifactWrapper, KernelSignature};
use htp_dialects::diagnostics::MlirError;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module},
    Context,
};

use htp_model_wsp::schedule::Schedule;

/// The cpu target's name (the backend's, as it registers it).
const CPU: &str = "cpu";

pub fn register() -> Result<(), String> {
    htp_api::register_target_extension(TargetExtension {
        target: CPU.into(),
        name: "wsp-task-runtime".into(),
        capabilities: vec![format!("model:{}", htp_model_wsp::MODEL_NAME), "dialect:wsp".into()],
        stages: vec![],
    })?;
    htp_api::register_artifact_layer(ArtifactLayer { target: CPU, name: "wsp-task-runtime", prepare })
}

/// Each MLIR argument's Python name.
fn plan_names(signature: &KernelSignature, arguments: usize) -> Vec<String> {
    let mut names = vec![String::new(); arguments];
    for parameter in &signature.params {
        if let Some(slot) = parameter.arg_index.and_then(|i| names.get_mut(i)) {
            *slot = parameter.name.clone();
        }
    }
    names
}

/// Takes the workload entry out of `module` (the kernels stay, for the
/// cpu backend) and wraps the artifact so that calls of it run its plan.
fn prepare<'c>(_context: &'c Context, module: &mut Module<'c>, signature: &KernelSignature) -> Result<Option<ArtifactWrapper>, Vec<MlirError>> {
    let mut workload = None;
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        if htp_model_wsp::ir::is_workload(current) && htp_model_wsp::ir::symbol(current).as_deref() == Some(signature.name.as_str()) {
            workload = Some(current);
        }
    }
    let Some(workload) = workload else { return Ok(None) };
    let mut plan = plan::extract::plan(module, &signature.name)?;
    plan.names = plan_names(signature, plan.parameters.len());
    let schedule = Schedule::of(workload).map_err(|message| vec![MlirError { position: htp_dialects::diagnostics::source_position(workload.location()), message }])?;
    // The cpu backend compiles kernels; the workload is run by the layer.
    unsafe { mlir_sys::mlirOperationDestroy(workload.to_raw()) };
    let name = signature.name.clone();
    Ok(Some(Box::new(move |inner| Box::new(runner::WorkloadArtifact::new(inner, name, plan, schedule)))))
}
