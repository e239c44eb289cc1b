//! The call-time protocol check of a CSP program on PTO. A program whose
//! loop bounds depend on the call's shapes or scalars (`csp-verify-protocol`
//! could only say "later") has its protocol played on each call's
//! arguments before the package runs, as on the cpu: an unbalanced or
//! deadlocking network is a `RuntimeError` at the user's line, and nothing
//! has run. Without it a dissolved channel would search past the mover's
//! last block and a cluster's pipe would wait forever.
//!
//! An artifact layer on both PTO targets: `prepare` takes the protocol off
//! the program (leaving the module as it is: `csp-to-pto` lowers it) and
//! wraps the package's artifact; `check_call` plays it.

use htp_api::{Argument, Artifact, ArtifactWrapper, CallArgument, KernelSignature, PackageFile, RunError};
use htp_dialects::diagnostics::{source_position, MlirError};
use htp_model_csp::protocol::{eval::Inputs, extract, Protocol};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, OperationRef},
    Context,
};

/// `prepare` of the layer: the entry's protocol, when the entry is a CSP program.
pub fn prepare<'c>(_context: &'c Context, module: &mut Module<'c>, signature: &KernelSignature) -> Result<Option<ArtifactWrapper>, Vec<MlirError>> {
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let current = unsafe { OperationRef::from_raw(current.to_raw()) };
        if !htp_model_csp::ir::is_program(current) || htp_model_csp::ir::string_attribute(current, "sym_name").as_deref() != Some(signature.name.as_str()) {
            continue;
        }
        let protocol = extract::extract(current).map_err(|(location, message)| vec![MlirError { position: source_position(location), message }])?.protocol;
        let name = signature.name.clone();
        return Ok(Some(Box::new(move |inner| Box::new(Checked { inner, protocol, name }))));
    }
    Ok(None)
}

/// The package's artifact, with the program's protocol checked at each call.
struct Checked {
    inner: Box<dyn Artifact>,
    protocol: Protocol,
    name: String,
}

impl Artifact for Checked {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), RunError> {
        self.inner.run(kernel, arguments)
    }

    fn files(&self) -> Vec<PackageFile> {
        self.inner.files()
    }

    fn runner(&self) -> Option<&'static str> {
        self.inner.runner()
    }

    fn static_metrics(&self, shapes: &[Vec<i64>], scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        self.inner.static_metrics(shapes, scalars)
    }

    fn check_call(&self, arguments: &[CallArgument]) -> Result<(), String> {
        self.inner.check_call(arguments)?;
        let mut inputs = Inputs::default();
        for argument in arguments {
            inputs.scalars.push(match argument {
                CallArgument::Integer(value) => Some(*value),
                _ => None,
            });
            inputs.dims.push(match argument {
                CallArgument::Tensor(sizes) => sizes.iter().map(|&s| Some(s)).collect(),
                _ => vec![],
            });
        }
        htp_model_csp::protocol::check_call(&self.protocol, &inputs, &self.name).map(|_| ())
    }

    fn concurrent_runs(&self) -> bool {
        self.inner.concurrent_runs()
    }
}
