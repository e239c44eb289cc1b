//! The compile driver: Python source -> front end -> a registered target's
//! pipeline -> an artifact that runs. Every binding (the `htp` Python
//! package today) goes through [`compile`]. The driver names no backend: it
//! finds targets in `htp_api`'s registry, which backends fill (the in-tree
//! ones through `htp_all::register_all`).

pub mod error;


use htp_api::{find_target, Artifact};
use htp_api::{Constants, KernelSignature, SourceText};
use htp_frontend::import_python_sources;
use melior::ir::Module;

pub use error::CompileError;
pub use htp_api::{targets, Argument, Target};

/// What to compile: one kernel, from its source and the sources of the
/// kernels and helpers it calls.
pub struct Request<'a> {
    pub sources: &'a [SourceText],
    /// The `@htp.kernel` function to compile.
    pub kernel: &'a str,
    pub constants: Constants,
    pub target: &'a str,
    /// Pipelines (registered names or pass lists, as inside
    /// `builtin.module(...)`) run on the imported tile module before the
    /// target lowers it: what extensions' mutators ask for.
    pub pipelines: &'a [String],
    /// Where to write the IR after the import and after every pass (none:
    /// no dumps). See `htp_pass::dump`.
    pub dump_ir: Option<&'a std::path::Path>,
}

/// A compiled kernel: its signature, the IR after each stage, the artifact.
pub struct CompiledKernel {
    pub signature: KernelSignature,
    /// (stage, MLIR text), in pipeline order.
    pub stages: Vec<(String, String)>,
    pub artifact: Box<dyn Artifact>,
}

/// Compiles `request.kernel` for `request.target`. A panic anywhere below
/// (front end, a target's emitter) is an internal-error `CompileError`, never
/// an abort of the caller's process; passes report theirs as diagnostics.
pub fn compile(request: &Request) -> Result<CompiledKernel, CompileError> {
    // The front end and MLIR recurse over expression and region nesting: a
    // deeply nested user expression must not overflow the caller's stack
    // (a Python thread's is small), so compiling runs on its own large one.
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("htp-compile".into())
            .stack_size(COMPILE_STACK_BYTES)
            .spawn_scoped(scope, || SendOutcome(guarded_compile(request)))
            .map(|thread| thread.join())
    });
    match outcome {
        Ok(Ok(SendOutcome(result))) => result,
        _ => guarded_compile(request),
    }
}

/// Stack of the compiling thread (reserved, committed only as used).
const COMPILE_STACK_BYTES: usize = 1 << 30;

/// A compile result handed back from the compiling thread. The artifact
/// (JIT code, or package files) is not tied to the thread that made it.
struct SendOutcome(Result<CompiledKernel, CompileError>);

unsafe impl Send for SendOutcome {}

fn guarded_compile(request: &Request) -> Result<CompiledKernel, CompileError> {
    htp_pass::catch_quietly(|| compile_unguarded(request)).unwrap_or_else(|what| {
        Err(CompileError::Source(format!(
            "error: internal error while compiling '{}' for {}: {what} (this is a bug in HTP; please report it with this kernel)",
            request.kernel, request.target
        )))
    })
}

/// The registered targets whose capabilities cover what `request.kernel`
/// needs (`request.target` is ignored): which targets can run it.
pub fn supporting_targets(request: &Request) -> Result<Vec<&'static str>, CompileError> {
    let context = htp_dialects::new_context();
    let (mut module, _) = import(&context, request)?;
    run_requested_pipelines(&context, &mut module, request)?;
    run_model_pipelines(&context, &mut module, request)?;
    Ok(htp_api::capabilities::targets_for(&module))
}

/// The requested kernel's tile module (the kernels it calls inlined, other
/// kernels dropped) and the signatures of the kernels in the sources.
fn import<'c>(context: &'c melior::Context, request: &Request) -> Result<(Module<'c>, Vec<KernelSignature>), CompileError> {
    let imported = import_python_sources(context, request.sources, &request.constants)
        .map_err(|diagnostics| CompileError::Source(diagnostics.to_string()))?;
    let mut module: Module = imported.module;
    drop_other_kernels(&mut module, request.kernel);
    Ok((module, imported.kernels))
}

fn compile_unguarded(request: &Request) -> Result<CompiledKernel, CompileError> {
    htp_pass::dump::dumping_into(request.dump_ir, || compile_and_dump(request))
}

fn compile_and_dump(request: &Request) -> Result<CompiledKernel, CompileError> {
    let target = find_target(request.target).map_err(|known| {
        CompileError::Target(format!("error: unknown target '{}' (known: {})", request.target, known.join(", ")))
    })?;
    let context = htp_dialects::new_context();
    let (mut module, kernels) = import(&context, request)?;
    htp_pass::dump::dump(&module, "import").map_err(CompileError::Source)?;
    let signature = kernels.into_iter().find(|k| k.name == request.kernel).ok_or_else(|| {
        CompileError::Source(format!("error: no @htp.kernel named '{}' in the given sources", request.kernel))
    })?;
    run_requested_pipelines(&context, &mut module, request)?;
    run_model_pipelines(&context, &mut module, request)?;
    let mut stages = vec![("tile".to_string(), module.as_operation().to_string())];
    htp_api::capabilities::check(&module, target).map_err(|error| CompileError::from_mlir(&[error], request.sources))?;
    // Layers (a model running its entries itself over the target's
    // kernels) take what they run out of the module first.
    let mut wrappers = Vec::new();
    for layer in htp_api::layers::artifact_layers(target.name()) {
        if let Some(wrap) = (layer.prepare)(&context, &mut module, &signature).map_err(|errors| CompileError::from_mlir(&errors, request.sources))? {
            wrappers.push(wrap);
        }
    }
    let mut artifact = target
        .compile(&context, &mut module, &signature, request.sources, &stages)
        .map_err(|errors| CompileError::from_mlir(&errors, request.sources))?;
    for wrap in wrappers {
        artifact = wrap(artifact);
    }
    stages.push((target.lowered_stage().to_string(), module.as_operation().to_string()));
    Ok(CompiledKernel { signature, stages, artifact })
}

/// Runs the request's extra pipelines on the imported module; their
/// diagnostics (and a pipeline that does not parse) are compile errors.
fn run_requested_pipelines(context: &melior::Context, module: &mut Module, request: &Request) -> Result<(), CompileError> {
    for pipeline in request.pipelines {
        htp_pass::dump::run_pipeline_collecting(context, module, pipeline, "an extension's pipeline")
            .map_err(|errors| CompileError::from_mlir(&errors, request.sources))?;
    }
    Ok(())
}

/// Runs the pipeline of each programming model the module's functions are
/// written in (`htp.model = "<name>"`), once each, in name order: what a
/// model does on every target before the capability check.
fn run_model_pipelines(context: &melior::Context, module: &mut Module, request: &Request) -> Result<(), CompileError> {
    use melior::ir::{attribute::StringAttribute, block::BlockLike, operation::OperationLike};
    let mut used = std::collections::BTreeSet::new();
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if let Some(name) = current.attribute(htp_api::models::MODEL_ATTRIBUTE).ok().and_then(|a| StringAttribute::try_from(a).ok()) {
            used.insert(name.value().to_string());
        }
        op = current.next_in_block();
    }
    for name in used {
        let Some(pipeline) = htp_api::models::model_named(&name).and_then(|model| model.pipeline) else { continue };
        htp_pass::dump::run_pipeline_collecting(context, module, pipeline, &format!("the '{name}' programming model's pipeline"))
            .map_err(|errors| CompileError::from_mlir(&errors, request.sources))?;
    }
    Ok(())
}

/// Removes the functions the program's entry `kernel` (a kernel or a
/// model function) does not reach ([`reachable_functions`]): the sources
/// hold every kernel and helper, and a target must not compile or package
/// functions the program does not run. What survives is the entry and
/// every function it refers to, directly or through those it reaches.
fn drop_other_kernels(module: &mut Module, kernel: &str) {
    use melior::ir::{block::BlockLike, operation::OperationLike};
    let reached = reachable_functions(module, kernel);
    if !reached.contains(kernel) {
        // No such entry: the caller reports it; keep the module as it is.
        return;
    }
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let is_function = current.name().as_string_ref().as_str() == Ok("func.func");
        if is_function && htp_ir::query::symbol_name(current).is_some_and(|n| !reached.contains(&n)) {
            unsafe { mlir_sys::mlirOperationDestroy(current.to_raw()) };
        }
    }
}

/// The symbols of `module`'s top level that `entry` reaches: `entry`, every
/// symbol any op in it refers to (a `SymbolRefAttr` anywhere in an op's
/// attributes — `callee`, a model op's `kernels = [@a, @b]`, nested in
/// arrays and dictionaries — as MLIR's `SymbolTable::getSymbolUses` finds
/// them), and so on from those. Empty when `entry` is not a symbol of it.
pub fn reachable_functions(module: &Module, entry: &str) -> std::collections::BTreeSet<String> {
    use melior::ir::{
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
    };
    let mut symbols = std::collections::HashMap::new();
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if let Some(name) = htp_ir::query::symbol_name(current) {
            symbols.insert(name, current);
        }
        op = current.next_in_block();
    }
    let mut reached = std::collections::BTreeSet::new();
    let mut pending = vec![entry.to_string()];
    while let Some(name) = pending.pop() {
        let Some(symbol) = symbols.get(&name) else { continue };
        if !reached.insert(name) {
            continue;
        }
        symbol.walk(WalkOrder::PreOrder, |nested| {
            let raw = nested.to_raw();
            for index in 0..unsafe { mlir_sys::mlirOperationGetNumAttributes(raw) } {
                let named = unsafe { mlir_sys::mlirOperationGetAttribute(raw, index) };
                symbol_uses(named.attribute, &mut pending);
            }
            WalkResult::Advance
        });
    }
    reached
}

/// The root references of the symbol references in `attribute` (itself,
/// or nested in arrays and dictionaries).
fn symbol_uses(attribute: mlir_sys::MlirAttribute, found: &mut Vec<String>) {
    let text = |s: mlir_sys::MlirStringRef| unsafe {
        String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length)).into_owned()
    };
    unsafe {
        if mlir_sys::mlirAttributeIsAFlatSymbolRef(attribute) {
            found.push(text(mlir_sys::mlirFlatSymbolRefAttrGetValue(attribute)));
        } else if mlir_sys::mlirAttributeIsASymbolRef(attribute) {
            found.push(text(mlir_sys::mlirSymbolRefAttrGetRootReference(attribute)));
        } else if mlir_sys::mlirAttributeIsAArray(attribute) {
            for index in 0..mlir_sys::mlirArrayAttrGetNumElements(attribute) {
                symbol_uses(mlir_sys::mlirArrayAttrGetElement(attribute, index), found);
            }
        } else if mlir_sys::mlirAttributeIsADictionary(attribute) {
            for index in 0..mlir_sys::mlirDictionaryAttrGetNumElements(attribute) {
                symbol_uses(mlir_sys::mlirDictionaryAttrGetElement(attribute, index).attribute, found);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::{block::BlockLike, operation::OperationLike};

    fn functions(module: &Module) -> Vec<String> {
        let mut names = Vec::new();
        let mut op = module.body().first_operation();
        while let Some(current) = op {
            names.extend(htp_ir::query::symbol_name(current));
            op = current.next_in_block();
        }
        names
    }

    #[test]
    fn a_model_function_keeps_the_kernels_it_names_by_any_attribute() {
        let context = htp_dialects::new_context();
        context.set_allow_unregistered_dialects(true);
        let mut module = Module::parse(
            &context,
            r#"
            func.func @producer() attributes {htp.kernel} { return }
            func.func @consumer() attributes {htp.kernel} { func.call @helper() : () -> () return }
            func.func private @helper() attributes {htp.helper}
            func.func @unused() attributes {htp.kernel} { return }
            func.func @other_entry() attributes {htp.model = "m"} { "m.launch"() {kernel = @unused} : () -> () return }
            func.func @pipeline() attributes {htp.model = "m"} {
              "m.graph"() {tasks = [@producer, {then = @consumer}]} : () -> ()
              return
            }
            "#,
        )
        .unwrap();
        let reached: Vec<String> = reachable_functions(&module, "pipeline").into_iter().collect();
        assert_eq!(reached, ["consumer", "helper", "pipeline", "producer"]);
        drop_other_kernels(&mut module, "pipeline");
        assert_eq!(functions(&module), ["producer", "consumer", "helper", "pipeline"]);
        assert!(module.as_operation().verify());
        // A kernel alone keeps only what it calls.
        drop_other_kernels(&mut module, "producer");
        assert_eq!(functions(&module), ["producer"]);
    }
}
