//! CSP on the `cpu` target, a conversion crate (as CIRCT's
//! `lib/Conversion/<A>To<B>/`; docs/csp.md) added from outside both the
//! model (`htp-model-csp`) and the cpu backend, named in one line of
//! `htp-all`: the
//! capabilities `model:csp` / `dialect:csp` (a target extension), the
//! network's entry points for JIT code (`host.rs`), and an artifact layer
//! that turns each process of a program into a function the cpu backend
//! compiles (`outline.rs`) and runs a call of the program as one thread
//! per process instance over `htp-runtime`'s CSP network (`runner.rs`).

mod host;
mod outline;
mod runner;

use htp_api::{extensions::TargetExtension, layers::ArtifactLayer, ArtifactWrapper, KernelSignature};
use htp_dialects::diagnostics::{source_position, MlirError};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, OperationRef},
    Context,
};

use htp_model_csp::protocol::extract;

/// The cpu target's name (the backend's, as it registers it).
const CPU: &str = "cpu";

pub fn register() -> Result<(), String> {
    host::register()?;
    htp_api::register_target_extension(TargetExtension {
        target: CPU.into(),
        name: "csp-threads".into(),
        capabilities: vec![format!("model:{}", htp_model_csp::MODEL_NAME), "dialect:csp".into()],
        stages: vec![],
    })?;
    htp_api::register_artifact_layer(ArtifactLayer { target: CPU, name: "csp-threads", prepare })
}

fn error(location: melior::ir::Location, message: String) -> Vec<MlirError> {
    vec![MlirError { position: source_position(location), message }]
}

/// Outlines the program's processes into functions (the cpu backend
/// compiles them), removes the program, and wraps the artifact so that a
/// call of the program runs them.
fn prepare<'c>(context: &'c Context, module: &mut Module<'c>, signature: &KernelSignature) -> Result<Option<ArtifactWrapper>, Vec<MlirError>> {
    let mut program = None;
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        if htp_model_csp::ir::is_program(current) && htp_model_csp::ir::string_attribute(current, "sym_name").as_deref() == Some(signature.name.as_str()) {
            program = Some(unsafe { OperationRef::from_raw(current.to_raw()) });
        }
    }
    let Some(program) = program else { return Ok(None) };
    let protocol = extract::extract(program).map_err(|(location, message)| error(location, message))?.protocol;
    let processes = outline::outline(context, module, program).map_err(|(location, message)| error(location, message))?;
    unsafe { mlir_sys::mlirOperationDestroy(program.to_raw()) };
    let name = signature.name.clone();
    Ok(Some(Box::new(move |inner| Box::new(runner::ProgramArtifact::new(inner, name, protocol, processes)))))
}
