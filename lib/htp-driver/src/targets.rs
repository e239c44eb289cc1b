//! The registry of targets. A target lowers an imported module (tile IR,
//! one `func.func` per kernel) and returns something that runs it. To add a
//! target (PTO, AIE, ...): implement [`Target`] in its own crate or module
//! and list it in [`TARGETS`].

use htp_dialects::diagnostics::MlirError;
use htp_frontend::{DimSig, KernelSignature, ParamKind, SourceText};
use htp_target_pto::{ArgumentInfo, Flavour};
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

    /// The files of a package a vendor runtime builds and runs (relative
    /// path, contents); empty for targets that run in this process.
    fn files(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

pub trait Target: Sync {
    /// The name users pass (`htp.compile(k, target="cpu")`).
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// The name of the IR stage the module is in after [`Target::compile`].
    fn lowered_stage(&self) -> &'static str;
    /// Lowers `module` in place and builds the artifact for `kernel`.
    /// `stages` holds the IR seen so far (the tile stage); targets that
    /// write packages record it there.
    fn compile(&self, context: &Context, module: &mut Module, kernel: &KernelSignature, sources: &[SourceText], stages: &[(String, String)])
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

    fn compile(&self, context: &Context, module: &mut Module, _kernel: &KernelSignature, _sources: &[SourceText], _stages: &[(String, String)])
        -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        Ok(Box::new(CpuArtifact(htp_target_cpu::compile(context, module)?)))
    }
}

/// Every target HTP knows.
/// Ascend A2/A3 through PTO-ISA and pto-runtime: compiles to a package
/// (kernels, orchestration, manifest) that pto-runtime builds and runs.
pub struct PtoTarget(pub Flavour);

struct PtoPackage(Vec<(String, String)>);

impl Artifact for PtoPackage {
    unsafe fn run(&self, _kernel: &str, _arguments: &[Argument]) -> Result<(), String> {
        Err("a PTO package runs through pto-runtime (htp.pto_runtime), not in this process".into())
    }

    fn files(&self) -> Vec<(String, String)> {
        self.0.clone()
    }
}

impl Target for PtoTarget {
    fn name(&self) -> &'static str {
        self.0.target()
    }

    fn description(&self) -> &'static str {
        self.0.description()
    }

    fn lowered_stage(&self) -> &'static str {
        "pto"
    }

    fn compile(&self, context: &Context, module: &mut Module, kernel: &KernelSignature, sources: &[SourceText], stages: &[(String, String)])
        -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        htp_target_pto::lower(context, module)?;
        let mut stages = stages.to_vec();
        stages.push(("pto".into(), module.as_operation().to_string()));
        let lines = |file: &str, line: u32| source_line(sources, file, line);
        let package = htp_target_pto::package(module, &kernel.name, &argument_infos(kernel), self.0, &lines, &stages)
            .map_err(|message| vec![MlirError { position: None, message }])?;
        Ok(Box::new(PtoPackage(package.files)))
    }
}

/// The text of `line` in the source file `file`, if HTP compiled it.
fn source_line(sources: &[SourceText], file: &str, line: u32) -> Option<String> {
    let source = sources.iter().find(|s| s.file_name == file)?;
    let index = line.checked_sub(source.first_line)? as usize;
    source.text.lines().nth(index).map(str::to_string)
}

/// The manifest's argument list of a kernel (its tensors and scalars, in order).
pub fn argument_infos(kernel: &KernelSignature) -> Vec<ArgumentInfo> {
    let mut arguments: Vec<(usize, ArgumentInfo)> = kernel
        .params
        .iter()
        .filter_map(|p| {
            let index = p.arg_index?;
            let numpy = |mlir: &str| htp_target_pto::numpy_dtype(mlir).unwrap_or("bool").to_string();
            let info = match &p.kind {
                ParamKind::Tensor { elem, shape, .. } => {
                    let dims: Vec<String> = shape
                        .iter()
                        .map(|d| match d {
                            DimSig::Static(n) => n.to_string(),
                            DimSig::Symbol(s) => format!("\"{s}\""),
                        })
                        .collect();
                    ArgumentInfo { name: p.name.clone(), kind: "tensor", dtype: numpy(elem.mlir()), shape_json: format!("[{}]", dims.join(", ")) }
                }
                ParamKind::Scalar { elem } => ArgumentInfo { name: p.name.clone(), kind: "scalar", dtype: numpy(elem.mlir()), shape_json: String::new() },
                ParamKind::Constant { .. } => return None,
            };
            Some((index, info))
        })
        .collect();
    arguments.sort_by_key(|(i, _)| *i);
    arguments.into_iter().map(|(_, a)| a).collect()
}

pub static TARGETS: &[&dyn Target] = &[&CpuTarget, &PtoTarget(Flavour::Sim), &PtoTarget(Flavour::Chip)];

pub fn find_target(name: &str) -> Result<&'static dyn Target, CompileError> {
    TARGETS.iter().copied().find(|t| t.name() == name).ok_or_else(|| {
        let known: Vec<&str> = TARGETS.iter().map(|t| t.name()).collect();
        CompileError::Target(format!("error: unknown target '{name}' (known: {})", known.join(", ")))
    })
}
