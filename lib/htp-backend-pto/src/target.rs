//! The registered PTO targets: lower, then write the package pto-runtime
//! builds and runs (through the Python module `htp.pto.runtime`).

use htp_api::{source_line, Argument, Artifact, PackageFile, Target};
use htp_dialects::diagnostics::MlirError;
use htp_api::{DimSig, KernelSignature, ParamKind, SourceText};
use melior::{ir::Module, Context};

use crate::Flavour;

/// Ascend A2/A3 through PTO-ISA and pto-runtime: compiles to a package
/// (kernels, orchestration, manifest) that pto-runtime builds and runs.
pub struct PtoTarget(pub Flavour);

/// The package's files, and the lowered module's text (for metrics).
struct PtoPackage {
    files: Vec<PackageFile>,
    lowered: String,
}

impl Artifact for PtoPackage {
    unsafe fn run(&self, _kernel: &str, _arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        Err(String::from("a PTO package runs through pto-runtime (htp.pto.runtime), not in this process").into())
    }

    fn files(&self) -> Vec<PackageFile> {
        self.files.clone()
    }

    fn runner(&self) -> Option<&'static str> {
        Some("htp.pto.runtime")
    }

    /// `crate::metrics` on the lowered module (re-read into a fresh
    /// context: the compile's context is gone), for an A2/A3 chip's cores.
    fn static_metrics(&self, shapes: &[Vec<i64>], scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        let context = htp_dialects::new_context();
        let Some(module) = Module::parse(&context, &self.lowered) else {
            return Some(Err("the lowered PTO module does not parse".into()));
        };
        Some(crate::metrics::evaluate(module.as_operation(), shapes, scalars, crate::metrics::A2A3_CORES).map(|m| m.entries()))
    }
}

impl Target for PtoTarget {
    fn name(&self) -> &'static str {
        self.0.target()
    }

    fn description(&self) -> &'static str {
        self.0.description()
    }

    fn capabilities(&self) -> Vec<String> {
        let mut provided = htp_api::capabilities::whole_kernel_language();
        provided.extend(crate::intrinsics::capabilities());
        provided.extend(crate::conversion::layouts::CAPABILITIES.iter().map(|c| c.to_string()));
        provided
    }

    fn architecture(&self) -> htp_api::Architecture {
        crate::architecture::a2a3()
    }

    /// `before-lowering` (tile IR), `after-tile-to-pto` (unplaced PTO),
    /// `before-emit` (placed, synchronised PTO): `crate::EXTENSION_POINTS`.
    fn extension_points(&self) -> Vec<htp_api::ExtensionPoint> {
        crate::EXTENSION_POINTS.to_vec()
    }

    fn lowered_stage(&self) -> &'static str {
        "pto"
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        kernel: &KernelSignature,
        sources: &[SourceText],
        stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        crate::lower_for(context, module, self.name())?;
        let mut stages = stages.to_vec();
        let lowered = module.as_operation().to_string();
        stages.push(("pto".into(), lowered.clone()));
        let lines = |file: &str, line: u32| source_line(sources, file, line);
        let package = crate::package(module, &kernel.name, &dim_names(kernel), self.0, &lines, &stages)
            .map_err(|message| vec![MlirError { position: None, message }])?;
        // The package's files are text (sources, manifest, IR).
        let files = package.files.into_iter().map(|(path, text)| PackageFile::text(path, text)).collect();
        Ok(Box::new(PtoPackage { files, lowered }))
    }
}

/// The names a kernel's signature gives its tensors' run-time sizes
/// (`a: f32[N, 256]`): `(argument, dimension) -> "N"`, for
/// [`crate::emit::package::arguments_of`] (the IR spells them `?`).
pub fn dim_names(kernel: &KernelSignature) -> impl Fn(usize, usize) -> Option<String> + '_ {
    move |argument, dim| {
        let param = kernel.params.iter().find(|p| p.arg_index == Some(argument))?;
        match &param.kind {
            ParamKind::Tensor { shape, .. } => match shape.get(dim)? {
                DimSig::Symbol(name) => Some(name.clone()),
                DimSig::Static(_) => None,
            },
            _ => None,
        }
    }
}
