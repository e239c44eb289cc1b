//! HTP's CPU backend: the `cpu` target. A module of kernels (`func.func`
//! over memrefs and scalars, bodies in the `tile` dialect) is lowered by
//! [`PIPELINE`] — HTP's `convert-tile-to-linalg`, then MLIR's own
//! bufferization and LLVM lowering — and JIT-compiled with MLIR's
//! ExecutionEngine. The result runs on any buffers the caller owns
//! ([`Argument`]); no copies are made.
//!
//! Layout: `convert_tile_to_linalg/` (the pass), `packing.rs` (arguments as
//! memref descriptors), `runtime.rs` (functions lowered code calls),
//! `target.rs` (the registered target).

pub mod check_bounds;
pub mod convert_tile_to_linalg;
pub mod poll_interrupts;
pub mod polynomial_exp;
pub mod split_large_bodies;
pub mod store_in_place;
pub mod vectorize_matmul;
mod packing;
mod parallel;
mod runtime;
mod target;
mod tile_buffers;
pub mod tile_memory;

pub use htp_api::Argument;
pub use target::CpuTarget;

use htp_pass::{PassDefinition, PipelineDefinition};

use htp_dialects::diagnostics::{collect_errors, MlirError};
use melior::{
    ir::{
        attribute::StringAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        Attribute, Module, RegionLike,
    },
    Context, ExecutionEngine,
};

/// The backend's passes.
pub const PASSES: &[PassDefinition] = &[check_bounds::DEFINITION, convert_tile_to_linalg::DEFINITION, poll_interrupts::DEFINITION, polynomial_exp::DEFINITION, split_large_bodies::DEFINITION, store_in_place::DEFINITION, vectorize_matmul::DEFINITION];

/// HTP's own part of the CPU pipeline: bounds checks; the distribution of
/// each kernel's independent outer loop over the `core` level (the pool's
/// threads, counted at run time) and its chunked form; then tile ->
/// tensors + linalg.
macro_rules! tile_lowering {
    () => {
        "tile-check-bounds,tile-distribute-outer-loop{level=core},tile-outline-parallel-chunks,cpu-poll-interrupts,convert-tile-to-linalg"
    };
}

pub const TILE_LOWERING: &str = tile_lowering!();

/// MLIR's part, from linalg on tensors to the LLVM dialect. One-shot
/// bufferization may yield fresh buffers from loops (loop-carried tiles) and
/// bufferizes function boundaries (helper functions taking tiles);
/// ownership-based deallocation frees every temporary. (Macros so that
/// [`PIPELINE`] can be one constant string.) Its first part ends in
/// bufferized loops (the `before-llvm` extension point), the second
/// converts them to the LLVM dialect.
macro_rules! upstream_to_loops {
    () => {
        "canonicalize,cse,linalg-fuse-elementwise-ops,func.func(cpu-split-large-bodies,cpu-store-in-place),\
         one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops},cpu-vectorize-matmul,\
         func.func(convert-linalg-to-loops,cpu-polynomial-exp),buffer-deallocation-pipeline"
    };
}

/// bf16 is lowered inline (`htp_pass::portable_floats!`), so the code calls
/// no conversion function the platform's libgcc may lack (D62). Buffers
/// come from MLIR's generic allocation functions, which the runtime
/// implements with per-thread free lists (`tile_buffers.rs`): a
/// kernel allocates and frees its tiles in every loop iteration.
macro_rules! loops_to_llvm {
    () => {
        concat!(
            "expand-strided-metadata,lower-affine,convert-scf-to-cf,",
            htp_pass::portable_floats!(),
            ",convert-math-to-llvm,finalize-memref-to-llvm{use-generic-functions=true},convert-to-llvm,\
             reconcile-unrealized-casts"
        )
    };
}

macro_rules! upstream_lowering {
    () => {
        concat!(upstream_to_loops!(), ",", loops_to_llvm!())
    };
}

pub const UPSTREAM_LOWERING: &str = upstream_lowering!();

/// The named points of the CPU pipeline where target extensions' stages
/// run (`htp_api::extensions`), in pipeline order.
pub const EXTENSION_POINTS: [htp_api::ExtensionPoint; 3] = [
    htp_api::BEFORE_LOWERING,
    htp_api::ExtensionPoint {
        name: "after-tile-to-linalg",
        description: "linalg/tensor/bufferization ops on tensors (plus scf, memref views), after convert-tile-to-linalg, before fusion and bufferization",
    },
    htp_api::ExtensionPoint {
        name: "before-llvm",
        description: "bufferized loops (scf, memref, arith, math, vector, func), after deallocation, before the conversion to the LLVM dialect",
    },
];

/// The whole pipeline, from tile IR to the LLVM dialect.
pub const PIPELINE: PipelineDefinition = PipelineDefinition {
    name: "htp-cpu-lowering",
    description: "tile IR -> linalg -> bufferized loops -> the LLVM dialect (the cpu target)",
    passes: concat!(tile_lowering!(), ",", upstream_lowering!()),
};

static CPU: CpuTarget = CpuTarget;

/// The registered target's name (extensions of it run in [`compile`]).
pub const TARGET_NAME: &str = "cpu";

/// Registers the backend's pass, its pipeline and the `cpu` target.
pub fn register() -> Result<(), String> {
    // Once per process: every compile asks (registration is idempotent,
    // but redoing it costs more than a small kernel's passes).
    static REGISTERED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    REGISTERED.get_or_init(register_everything).clone()
}

fn register_everything() -> Result<(), String> {
    htp_transforms::register()?;
    htp_pass::register_passes(PASSES)?;
    htp_pass::register_pipeline(PIPELINE)?;
    htp_api::register_target(&CPU)
}

/// LLVM's optimisation level for JIT code generation.
const OPT_LEVEL: usize = 2;

/// Kernels compiled to native code, callable by name.
pub struct CompiledModule {
    /// Owns the code `entries` and `chunked` point into.
    #[allow(dead_code)]
    engine: ExecutionEngine,
    functions: Vec<String>,
    /// Each public function's packed C-interface entry point, looked up once: a call (a WSP
    /// task's) does not go through the JIT's symbol lookup.
    entries: std::collections::HashMap<String, parallel::PackedFn>,
    /// Kernels whose outer loop runs in chunks on every core.
    chunked: std::collections::HashMap<String, parallel::Chunked>,
    /// The kind and message ("file:line:col: error: ...") of each run-time
    /// check site (`tile-check-bounds`).
    index_sites: Vec<(check_bounds::SiteKind, String)>,
}

/// Lowers `module` to LLVM (in place) and JIT-compiles it. Every public
/// function gets a C interface (`llvm.emit_c_interface`) so it can be called
/// with memref descriptors. Errors are MLIR's diagnostics, with the source
/// positions the ops carry.
pub fn compile(context: &Context, module: &mut Module) -> Result<CompiledModule, Vec<MlirError>> {
    register().map_err(|message| vec![MlirError { position: None, message }])?;
    htp_pass::register_upstream_passes();

    let extended = !htp_api::extensions::target_extensions(TARGET_NAME).is_empty();
    let stages = |module: &mut Module, point: &htp_api::ExtensionPoint| htp_api::extensions::run_stages(context, module, TARGET_NAME, point.name);
    if extended {
        stages(module, &EXTENSION_POINTS[0])?;
    }
    let functions = mark_public_functions(context, module);
    let (valid, errors) = collect_errors(context, || module.as_operation().verify());
    if !valid {
        return Err(if errors.is_empty() { vec![MlirError { position: None, message: "lowering to LLVM failed".into() }] } else { errors });
    }
    // A tile larger than the machine would fail to allocate at run time, where the JIT code cannot report it.
    if let Some(memory) = tile_memory::physical_memory() {
        tile_memory::check(module, memory)?;
    }
    if extended {
        // The same passes as PIPELINE, with the extensions' stages between.
        let run = |module: &mut Module, passes: &str| htp_pass::dump::run_pipeline_collecting(context, module, passes, "lowering to LLVM");
        run(module, TILE_LOWERING)?;
        stages(module, &EXTENSION_POINTS[1])?;
        run(module, upstream_to_loops!())?;
        stages(module, &EXTENSION_POINTS[2])?;
        run(module, loops_to_llvm!())?;
    } else {
        PIPELINE.run(context, module, "lowering to LLVM")?;
    }
    let index_sites = check_bounds::sites(module.as_operation());
    let distributions = distributions(module);
    let engine = jit(module);
    // Compiled now, so that code the process cannot link is an error of
    // the compile, naming the kernel and what it calls.
    for function in &functions {
        htp_pass::jit::lookup_or_explain(&engine, &format!("_mlir_{function}"))
            .map_err(|why| vec![MlirError { position: None, message: format!("the cpu code of '{function}' cannot run here: {why}") }])?;
    }
    let chunked = functions
        .iter()
        .filter_map(|f| Some((f.clone(), parallel::Chunked::find(&engine, f, distributions.get(f)?.clone())?)))
        .collect();
    let entries = functions.iter().filter_map(|f| Some((f.clone(), parallel::packed_entry(&engine, f, "")?))).collect();
    Ok(CompiledModule { engine, functions, entries, chunked, index_sites })
}

/// The distribution of each kernel whose outer loop was outlined into
/// chunks (`htp.distribution`, kept on its `llvm.func`).
fn distributions(module: &Module) -> std::collections::HashMap<String, htp_transforms::distribution::Distribution> {
    let mut found = std::collections::HashMap::new();
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        let name = htp_ir::query::symbol_name(function);
        if let (Some(name), Some(distribution)) = (name, htp_transforms::distribution::Distribution::of(function)) {
            found.insert(name, distribution);
        }
        op = function.next_in_block();
    }
    found
}

/// JIT-compiles a module already in the LLVM dialect, with HTP's runtime
/// functions (see `runtime.rs`) available to it; kernel bodies are kept
/// out of line first.
pub fn jit(module: &mut Module) -> ExecutionEngine {
    keep_kernels_out_of_line(module);
    let engine = ExecutionEngine::new(module, OPT_LEVEL, &[], false, false);
    runtime::register(&engine);
    htp_pass::jit::register_float_conversions(&engine);
    // Extensions' runtimes (a model's channels) that its code calls.
    for function in htp_api::host::host_functions() {
        unsafe { engine.register_symbol(function.name, function.address as *mut ()) };
    }
    engine
}

/// Marks each public kernel body (a kernel, its `__chunk` and `__bounds`:
/// the external `llvm.func`s other than C interface wrappers) `no_inline`.
/// Each is reached through wrappers — the C interface MLIR's lowering adds
/// (`_mlir_ciface_<f>`), the packed ones the ExecutionEngine adds for every
/// external function (`_mlir_<f>`, `_mlir__mlir_ciface_<f>`) — and a whole
/// kernel calls its chunk: inlined, LLVM optimised and generated code for
/// the same loops several times over (docs/performance.md). Kept out of
/// line, an entry costs one call. Calls between kernels are inlined by the
/// front end, so none is left here to slow.
fn keep_kernels_out_of_line(module: &mut Module) {
    let context = module.context();
    // Safe: the module's context outlives this call.
    let unit = Attribute::unit(unsafe { context.to_ref() });
    for function in htp_ir::query::ops_named(module.as_operation(), "llvm.func") {
        let is_kernel_body = function.region(0).is_ok_and(|r| r.first_block().is_some())
            && function.attribute("linkage").is_ok_and(|l| l.to_string() == "#llvm.linkage<external>")
            && htp_ir::query::symbol_name(function).is_some_and(|n| !n.starts_with("_mlir_ciface_"));
        if is_kernel_body {
            // Safe: the module is borrowed mutably; the walk above has finished.
            let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
            function.set_inherent_attribute("no_inline", unit);
        }
    }
}

/// Adds `llvm.emit_c_interface` to each public `func.func`; returns their names.
fn mark_public_functions(context: &Context, module: &mut Module) -> Vec<String> {
    let mut names = Vec::new();
    let mut op = module.body().first_operation_mut();
    while let Some(mut function) = op {
        let is_public_function = function.name().as_string_ref().as_str() == Ok("func.func")
            && !function
                .attribute("sym_visibility")
                .ok()
                .and_then(|v| StringAttribute::try_from(v).ok())
                .is_some_and(|v| v.value() == "private");
        if is_public_function && function.region(0).is_ok_and(|r| r.first_block().is_some()) {
            if let Some(name) = function.attribute("sym_name").ok().and_then(|n| StringAttribute::try_from(n).ok()) {
                names.push(name.value().to_string());
            }
            function.set_discardable_attribute(
                "llvm.emit_c_interface",
                Attribute::unit(context),
            );
        }
        op = function.next_in_block_mut();
    }
    names
}

impl CompiledModule {
    /// The public functions, in module order.
    pub fn functions(&self) -> &[String] {
        &self.functions
    }

    /// Calls `function` with `arguments` in parameter order.
    ///
    /// # Safety
    /// Each buffer must match the parameter's memref type (element type,
    /// rank, static sizes) and stay valid and unaliased by Rust references
    /// during the call; scalars must have the parameter's type. The binding
    /// layer checks these against the kernel's signature before calling.
    pub unsafe fn call(&self, function: &str, arguments: &[Argument]) -> Result<(), htp_api::RunError> {
        let Some(&entry) = self.entries.get(function) else {
            if !self.functions.iter().any(|f| f == function) {
                return Err(format!("no compiled function named '{function}'").into());
            }
            return Err(format!("the compiled function '{function}' has no C interface").into());
        };
        // This call's failed checks, its own even while other calls run.
        let errors = runtime::ErrorSlot::default();
        let _entered = errors.enter();
        // Chunks of a parallel loop, and each iteration of the outermost
        // loops (cpu-poll-interrupts), poll for Ctrl-C.
        let watch = htp_runtime::interrupt::Watch::start();
        unsafe { self.run(function, entry, arguments) };
        if watch.interrupted() {
            return Err(htp_api::RunError::new(htp_api::RunErrorKind::Interrupted, format!("error: the call of {function} was interrupted (SIGINT)")));
        }
        match errors.site() {
            None => Ok(()),
            Some(site) => Err(match self.index_sites.get(site) {
                Some((kind, message)) => htp_api::RunError::new(kind.run_error(), message.clone()),
                None => String::from("error: a run-time check failed").into(),
            }),
        }
    }

    unsafe fn run(&self, function: &str, entry: parallel::PackedFn, arguments: &[Argument]) {
        let pool = htp_runtime::ThreadPool::global();
        if let Some(chunked) = self.chunked.get(function).filter(|_| pool.threads() > 1) {
            if unsafe { chunked.run(arguments, pool) } {
                return;
            }
        }
        let mut packed = packing::Packed::new(arguments);
        unsafe { entry(packed.slots().as_mut_ptr()) }
    }
}

