//! The registered targets `aie-npu1` and `aie-npu2`: a kernel lowered to an
//! mlir-aie design (`crate::lower`) for a whole NPU1 (4 columns) or NPU2
//! (8 columns), checked by the `aie` dialect's verifiers, written as a
//! package: `aie.mlir` (what mlir-aie's `aiecc` takes) and `manifest.json`.

use htp_api::{Argument, Artifact, KernelSignature, PackageFile, ParamKind, SourceText, Target};
use htp_dialects::diagnostics::MlirError;
use melior::{ir::Module, Context};

use crate::architecture::Device;

/// The mlir-aie commit whose syntax the designs are written in
/// (docs/targets/aie-contract.md).
pub const MLIR_AIE_PIN: &str = "andrej/mlir-aie@3ca0193c";

/// Tile ops the block lowering has been tested with on these targets
/// (lib/htp-all/tests/aie.rs, python/tests/test_aie.py; the CPU backend's
/// conversions lower them): a target lists only what it has run.
/// Elementwise and row ops, and matmul (with its accumulator) for GEMM (D56);
/// the shape ops of a core's block (python/tests/test_tile_shapes.py), the
/// selection ops within a tile (sort, arg reductions, take/put along
/// rows) and tile relayouts, all computed in the core's memory. A load or
/// store with a step (`op:tile.load.strided`) reads or writes the block's
/// object in the core's memory too (the DMA moves whole rows either way).
const OPS: [&str; 40] = [
    "load", "store", "gather", "scatter", "add", "sub", "mul", "div", "neg", "recip", "exp", "rsqrt", "row_reduce", "broadcast", "constant", "fill", "matmul", "cast", "max", "min", "log", "sqrt", "abs", "relu", "cmp",
    "select", "col_reduce", "transpose", "iota", "pad", "slice", "concat", "reshape", "sort", "row_arg_reduce", "take", "put", "relayout", "load.strided", "store.strided",
];

pub struct AieTarget {
    pub name: &'static str,
    pub device: &'static str,
    pub description: &'static str,
}

pub static NPU1: AieTarget = AieTarget { name: "aie-npu1", device: "npu1", description: "AMD Ryzen AI NPU1 (Phoenix/Hawk Point, AIE2): an mlir-aie design package (aie.mlir for aiecc)" };
pub static NPU2: AieTarget = AieTarget { name: "aie-npu2", device: "npu2", description: "AMD Ryzen AI NPU2 (Strix, AIE2P): an mlir-aie design package (aie.mlir for aiecc)" };

impl AieTarget {
    fn device(&self) -> Device {
        Device::from_name(self.device).expect("the targets name known devices")
    }
}

struct AiePackage {
    files: Vec<PackageFile>,
    metrics: Vec<(String, f64)>,
}

impl Artifact for AiePackage {
    unsafe fn run(&self, _kernel: &str, _arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        Err(String::from("an AIE package runs on an NPU through mlir-aie's aiecc and XRT (htp.aie.runtime), not in this process").into())
    }

    fn files(&self) -> Vec<PackageFile> {
        self.files.clone()
    }

    fn runner(&self) -> Option<&'static str> {
        Some("htp.aie.runtime")
    }

    /// The design's (`crate::lower::Design::metrics`); shapes are static.
    fn static_metrics(&self, _shapes: &[Vec<i64>], _scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        Some(Ok(self.metrics.clone()))
    }
}

/// The design of `module` for `target`: its extensions' stages first; then
/// the design a stage made (finished), or the kernel lowered to one.
fn design(context: &Context, module: &mut Module, target: &str, device: Device, kernel: &KernelSignature) -> Result<crate::lower::Design, Vec<MlirError>> {
    htp_api::extensions::run_stages(context, module, target, htp_api::BEFORE_LOWERING.name)?;
    design_after_stages(context, module, device, kernel)
}

/// The design of `module` once its extensions' stages have run.
fn design_after_stages(context: &Context, module: &mut Module, device: Device, kernel: &KernelSignature) -> Result<crate::lower::Design, Vec<MlirError>> {
    if crate::finish::device_of(module).is_some() {
        return crate::finish::finish(context, module, kernel, device.family);
    }
    let names: Vec<(usize, String)> = kernel.params.iter().filter_map(|p| Some((p.arg_index?, p.name.clone()))).collect();
    crate::lower::lower(context, module, device, &names)
}

/// `"` and `\` escaped for a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Target for AieTarget {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn capabilities(&self) -> Vec<String> {
        // Every tile layout (a core computes on tiles in its memory as the cpu does); a tensor
        // laid out otherwise than row-major is refused by the lowering, at its parameter.
        ["model:kernel", "dtype:f32", "dtype:bf16", "dtype:f16", "dtype:i32", "dtype:i16", "dtype:i8", "dtype:i64", "dtype:i1", htp_api::capabilities::ALL_LAYOUTS]
            .into_iter()
            .map(String::from)
            .chain(OPS.iter().map(|op| format!("op:tile.{op}")))
            .collect()
    }

    fn architecture(&self) -> htp_api::Architecture {
        self.device().architecture()
    }

    fn lowered_stage(&self) -> &'static str {
        "aie"
    }

    fn extension_points(&self) -> Vec<htp_api::ExtensionPoint> {
        crate::EXTENSION_POINTS.to_vec()
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        kernel: &KernelSignature,
        _sources: &[SourceText],
        stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        let design = design(context, module, self.name, self.device(), kernel)?;
        let mut arguments = Vec::new();
        for param in &kernel.params {
            // A parameter the design moves in a pack of several (D85): the packs it travels in.
            let packs: Vec<String> = design.tensors.iter().filter(|t| t.parts.iter().any(|p| p.name == param.name)).map(|t| json_string(&t.name)).collect();
            let packs = if packs.is_empty() { String::new() } else { format!(", \"packs\": [{}]", packs.join(", ")) };
            match (param.arg_index, &param.kind) {
                (Some(index), ParamKind::Tensor { .. }) => {
                    let direction = if kernel.outputs().contains(&index) { "out" } else { "in" };
                    // A tensor the design moves padded to whole blocks for every core: the host
                    // buffer's elements (the tensor first, then zeros; docs/targets/aie.md).
                    let padded = design.tensors.iter().find(|t| t.name == param.name && t.host_elements > t.elements).map(|t| format!(", \"host_elements\": {}", t.host_elements)).unwrap_or_default();
                    arguments.push(format!("{{\"name\": {}, \"index\": {index}, \"direction\": \"{direction}\"{padded}{packs}}}", json_string(&param.name)));
                }
                // A run-time scalar: a one-element buffer of the runtime sequence (D59).
                (Some(index), ParamKind::Scalar { .. }) => {
                    arguments.push(format!("{{\"name\": {}, \"index\": {index}, \"direction\": \"in\", \"scalar\": true{packs}}}", json_string(&param.name)));
                }
                _ => {}
            }
        }
        // The blocks' status buffer (D96): its place in the runtime sequence and each site's message.
        let status = design
            .tensors
            .iter()
            .enumerate()
            .find(|(_, t)| !t.checks.is_empty())
            .map(|(buffer, t)| {
                let sites: Vec<String> = t.checks.iter().map(|(_, message)| json_string(message)).collect();
                format!("  \"status\": {{\"buffer\": {buffer}, \"words\": {}, \"sites\": [{}]}},\n", t.host_elements, sites.join(", "))
            })
            .unwrap_or_default();
        let manifest = format!(
            "{{\n  \"target\": {},\n  \"program\": {},\n  \"device\": {},\n  \"cores\": {},\n  \"design\": \"aie.mlir\",\n  \"mlir_aie\": {},\n  \"arguments\": [{}],\n{status}  \"ir\": [{}]\n}}\n",
            json_string(self.name),
            json_string(&kernel.name),
            json_string(self.device),
            design.cores,
            json_string(MLIR_AIE_PIN),
            arguments.join(", "),
            stages.iter().map(|(name, _)| json_string(name)).chain(std::iter::once(json_string("aie"))).collect::<Vec<_>>().join(", ")
        );
        let readme = readme(&kernel.name, self.name, self.device, design.cores, design.columns, &arguments_text(kernel));
        let host = crate::host::test_cpp(&kernel.name, &design.tensors);
        let files = vec![PackageFile::text("README.md", readme), PackageFile::text("aie.mlir", design.text), PackageFile::text("manifest.json", manifest), PackageFile::text("test.cpp", host)];
        Ok(Box::new(AiePackage { files, metrics: design.metrics }))
    }
}

/// The kernel's tensors in order, with their direction.
fn arguments_text(kernel: &KernelSignature) -> String {
    let outputs = kernel.outputs();
    kernel
        .params
        .iter()
        .filter_map(|p| match (&p.kind, p.arg_index) {
            (ParamKind::Tensor { .. }, Some(index)) => Some(format!("`{}` ({})", p.name, if outputs.contains(&index) { "out" } else { "in" })),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the package is and how mlir-aie builds it (docs/targets/aie.md).
fn readme(program: &str, target: &str, device: &str, cores: u32, columns: u32, arguments: &str) -> String {
    let columns = if columns == 1 { "one column".to_string() } else { format!("{columns} columns") };
    format!(
        "# {program} for {target} (an mlir-aie design)\n\n\
`aie.mlir` is the design HTP compiled `{program}` to: `aie.device({device})`, {cores} compute tiles over\n\
{columns}, object FIFOs between its tiles and the shims, and a runtime sequence that moves the tensors {arguments} in\n\
argument order. It is written in the syntax of mlir-aie at `{MLIR_AIE_PIN}` (docs/targets/aie-contract.md)\n\
and verified by HTP's aie dialect before it was written.\n\n\
Build it with that version's `aiecc` and Peano (llvm-aie):\n\n\
    aiecc --peano=<llvm-aie install> --get-xclbin --get-npu-insts --xclbin-name=aie.xclbin --npu-insts-name=insts.bin aie.mlir\n\n\
With MLIR 22 (Debian's), aiecc's object-FIFO transform fails on acquires inside `scf` loops unless\n\
`aie-scf-to-control-flow` runs before it, and arith-expand has no `include-min-max-f`; HTP validated\n\
this design with aiecc's passes in that order up to core code and NPU instructions (docs/validation.md).\n\
`test.cpp` is the host program, in the style of mlir-aie's `test/npu-xrt/*/test.cpp`: XRT loads\n\
`aie.xclbin` (kernel `MLIR_AIE`) and `insts.bin`, makes one buffer object per tensor above, runs the\n\
kernel and compares each output with `<name>.expected.bin` when given (its head comment says how to\n\
build and run it):\n\n\
    g++ -std=c++17 test.cpp -I$XILINX_XRT/include -L$XILINX_XRT/lib -lxrt_coreutil -o test\n\
    ./test aie.xclbin insts.bin <data dir>\n\n\
Nothing here has run it, nor compiled `test.cpp` against XRT: this machine has no NPU, no Peano and no\n\
XRT (HTP's tests check `test.cpp` only with `g++ -fsyntax-only` against declarations of the XRT calls\n\
it makes), and HTP does not drive aiecc or XRT yet (calling the kernel on {target} raises an error\n\
that says so). `manifest.json` lists the\n\
arguments, the device and the mlir-aie pin.\n"
    )
}

/// `aie-sim`: the npu1 design run by HTP's functional simulator
/// (`crate::sim`, D55) on the caller's arrays.
pub struct AieSimTarget;

pub static SIM: AieSimTarget = AieSimTarget;

struct Simulated {
    simulation: crate::sim::Simulation,
    metrics: Vec<(String, f64)>,
}

impl Artifact for Simulated {
    unsafe fn run(&self, _kernel: &str, arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        self.simulation.run(arguments)
    }

    fn static_metrics(&self, _shapes: &[Vec<i64>], _scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        Some(Ok(self.metrics.clone()))
    }
}

/// The simulation of the design built for one call's tensor sizes, with
/// the context its code was compiled in.
struct Specialized {
    sizes: Vec<Vec<i64>>,
    simulated: Simulated,
    _context: Context,
}

/// A kernel with symbolic sizes on aie-sim (`crate::specialize`): a design
/// per set of sizes, built at the first call with them (the last few kept).
struct PerShape {
    /// The kernel's tile IR, with the user's locations.
    text: String,
    kernel: KernelSignature,
    built: std::sync::Mutex<Vec<Specialized>>,
}

/// Designs kept per kernel (each holds JIT-compiled cores).
const KEPT_DESIGNS: usize = 8;

impl PerShape {
    /// Runs `with` on the simulation for tensors of `sizes` (per argument, a
    /// tensor's sizes; empty for a scalar), building it first if need be.
    fn with<T>(&self, sizes: Vec<Vec<i64>>, with: impl FnOnce(&Simulated) -> T) -> Result<T, String> {
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = built.iter().find(|s| s.sizes == sizes) {
            return Ok(with(&found.simulated));
        }
        let context = htp_dialects::new_context();
        let simulated = (|| {
            let mut module = crate::specialize::specialize(&context, &self.text, |i, d| sizes.get(i).and_then(|s| s.get(d)).copied().unwrap_or(1))?;
            let design = design_after_stages(&context, &mut module, NPU1.device(), &self.kernel)?;
            let mut simulation = crate::sim::build(&context, &design.text)?;
            simulation.use_host_tensors(&design.tensors);
            Ok::<_, Vec<MlirError>>(Simulated { simulation, metrics: design.metrics })
        })()
        .map_err(|errors| {
            let shapes = sizes.iter().filter(|s| !s.is_empty()).map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
            format!("aie-sim builds the design for each call's tensor sizes ({shapes}); for these: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))
        })?;
        if built.len() == KEPT_DESIGNS {
            built.remove(0);
        }
        built.push(Specialized { sizes, simulated, _context: context });
        Ok(with(&built.last().expect("just pushed").simulated))
    }
}

impl Artifact for PerShape {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        let sizes = arguments.iter().map(|a| if let Argument::Buffer { sizes, .. } = a { sizes.to_vec() } else { Vec::new() }).collect();
        self.with(sizes, |simulated| unsafe { simulated.run(kernel, arguments) })
            .map_err(|message| htp_api::RunError::new(htp_api::RunErrorKind::Failed, message))?
    }

    fn static_metrics(&self, shapes: &[Vec<i64>], _scalars: &[f64]) -> Option<Result<Vec<(String, f64)>, String>> {
        // Shapes of the tensors in argument order: scalars between them take no sizes.
        let mut tensors = shapes.iter();
        let sizes = self
            .kernel
            .params
            .iter()
            .filter(|p| p.arg_index.is_some())
            .map(|p| if matches!(p.kind, ParamKind::Tensor { .. }) { tensors.next().cloned().unwrap_or_default() } else { Vec::new() })
            .collect();
        Some(self.with(sizes, |simulated| simulated.metrics.clone()))
    }
}

impl Target for AieSimTarget {
    fn name(&self) -> &'static str {
        "aie-sim"
    }

    fn description(&self) -> &'static str {
        "the aie-npu1 design run by HTP's functional AIE simulator (cores as threads on FIFOs of the design's depth; deadlocks reported)"
    }

    fn capabilities(&self) -> Vec<String> {
        NPU1.capabilities()
    }

    fn architecture(&self) -> htp_api::Architecture {
        NPU1.architecture()
    }

    fn lowered_stage(&self) -> &'static str {
        "aie"
    }

    fn extension_points(&self) -> Vec<htp_api::ExtensionPoint> {
        crate::EXTENSION_POINTS.to_vec()
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        kernel: &KernelSignature,
        _sources: &[SourceText],
        _stages: &[(String, String)],
    ) -> Result<Box<dyn Artifact>, Vec<MlirError>> {
        htp_api::extensions::run_stages(context, module, self.name(), htp_api::BEFORE_LOWERING.name)?;
        if crate::finish::device_of(module).is_none() && crate::specialize::has_symbolic_sizes(module) {
            // The design is made per call's sizes; its structure is checked now, on a copy with
            // every symbolic size PROBE, or a smaller one when PROBE's design exceeds a limit that
            // depends on the sizes (a core's memory for tensors moved whole): such a limit shows
            // at the call, for the call's sizes.
            let text = crate::specialize::text_of(module)?;
            let mut probe = crate::specialize::specialize(context, &text, |_, _| crate::specialize::PROBE)?;
            if let Err(errors) = design_after_stages(context, &mut probe, NPU1.device(), kernel) {
                let fits = crate::specialize::SMALL_PROBES.iter().any(|&size| {
                    crate::specialize::specialize(context, &text, |_, _| size).is_ok_and(|mut small| design_after_stages(context, &mut small, NPU1.device(), kernel).is_ok())
                });
                if !fits {
                    return Err(errors);
                }
            }
            return Ok(Box::new(PerShape { text, kernel: kernel.clone(), built: std::sync::Mutex::new(Vec::new()) }));
        }
        let design = design_after_stages(context, module, NPU1.device(), kernel)?;
        let mut simulation = crate::sim::build(context, &design.text)?;
        simulation.use_host_tensors(&design.tensors);
        Ok(Box::new(Simulated { simulation, metrics: design.metrics }))
    }
}
