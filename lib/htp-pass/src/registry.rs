//! The one registry of HTP's passes and named pipelines. Crates register
//! what they define (a backend its conversions and its pipeline, the
//! transforms crate its analyses); every tool and binding then sees the
//! same set. Registering also names them in MLIR's global registry, so a
//! pipeline is one name in `--pass-pipeline`, in lit tests and in the
//! driver.

use std::collections::BTreeMap;
use std::ffi::{c_char, CString};
use std::sync::Mutex;

use mlir_sys::MlirPass;

use crate::PassDefinition;

unsafe extern "C" {
    fn htpRegisterExternalPass(create: unsafe extern "C" fn() -> MlirPass);
    fn htpRegisterPassWithOptions(
        name: *const c_char,
        description: *const c_char,
        definition: *const std::ffi::c_void,
        create: unsafe extern "C" fn(*const std::ffi::c_void, mlir_sys::MlirStringRef, *mut mlir_sys::MlirStringRef) -> MlirPass,
        declared: *const mlir_sys::MlirStringRef,
        count: usize,
    );
    fn htpRegisterPassPipeline(name: *const c_char, description: *const c_char, passes: *const c_char);
}

/// A named sequence of registered passes, usable as
/// `--pass-pipeline='builtin.module(<name>)'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineDefinition {
    pub name: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
    /// The passes, as the text inside `builtin.module(...)`.
    pub passes: &'static str,
}

impl PipelineDefinition {
    /// The textual pipeline that runs these passes on a module.
    pub fn module_pipeline(&self) -> String {
        format!("builtin.module({})", self.passes)
    }

    /// Runs this pipeline on `module` (what targets do), pass by pass with
    /// an IR dump after each when dumps are on (`crate::dump`).
    /// Its errors are MLIR's diagnostics, or one saying `what` failed.
    pub fn run(&self, context: &melior::Context, module: &mut melior::ir::Module, what: &str) -> Result<(), Vec<htp_dialects::diagnostics::MlirError>> {
        crate::dump::run_pipeline_collecting(context, module, self.passes, what)
    }
}

#[derive(Default)]
struct Registry {
    passes: BTreeMap<&'static str, &'static PassDefinition>,
    pipelines: BTreeMap<&'static str, PipelineDefinition>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { passes: BTreeMap::new(), pipelines: BTreeMap::new() });

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers `passes` (with HTP and with MLIR). Registering the same
/// definition again is a no-op; a different pass under a taken name is an
/// error naming both.
pub fn register_passes(passes: &'static [PassDefinition]) -> Result<(), String> {
    let mut registry = registry();
    for pass in passes {
        if registry.pipelines.contains_key(pass.argument) {
            return Err(format!("pass '{}' conflicts with a pipeline of the same name", pass.argument));
        }
        let same = |existing: &&PassDefinition| std::ptr::eq(*existing, pass) || existing.create_raw as usize == pass.create_raw as usize;
        let conflict =
            |existing: &&PassDefinition| format!("two passes claim the name '{}': \"{}\" and \"{}\"", pass.argument, existing.description, pass.description);
        if already_registered(registry.passes.get(pass.argument), same, conflict)? {
            continue;
        }
        registry.passes.insert(pass.argument, pass);
        if pass.options.is_empty() {
            unsafe { htpRegisterExternalPass(pass.create_raw) }
        } else {
            let (name, description) = (c_text(pass.argument), c_text(pass.description));
            // (name, description, default, what a value is) of each option, for --help; static strings.
            let declared: Vec<mlir_sys::MlirStringRef> = pass
                .options
                .iter()
                .flat_map(|o| [o.name, o.description, o.default, o.expected])
                .map(|s| mlir_sys::MlirStringRef { data: s.as_ptr() as *const c_char, length: s.len() })
                .collect();
            unsafe {
                htpRegisterPassWithOptions(
                    name.as_ptr(),
                    description.as_ptr(),
                    pass as *const PassDefinition as *const std::ffi::c_void,
                    crate::options::htp_pass_create_with_options,
                    declared.as_ptr(),
                    pass.options.len(),
                )
            }
        }
    }
    Ok(())
}

/// Whether a name already holds this entry (`Ok(true)`: nothing to do) or
/// is free (`Ok(false)`); another entry under it is the `conflict` error.
fn already_registered<T>(existing: Option<&T>, same: impl FnOnce(&T) -> bool, conflict: impl FnOnce(&T) -> String) -> Result<bool, String> {
    match existing {
        Some(existing) if same(existing) => Ok(true),
        Some(existing) => Err(conflict(existing)),
        None => Ok(false),
    }
}

fn c_text(text: &str) -> CString {
    CString::new(text).expect("pass and pipeline names, descriptions and texts have no NUL")
}

/// Registers a named pipeline. Its passes must already be registered
/// (checked when it first runs: MLIR parses the text then). The same
/// definition again is a no-op; another under a taken name is an error.
pub fn register_pipeline(pipeline: PipelineDefinition) -> Result<(), String> {
    let mut registry = registry();
    if registry.passes.contains_key(pipeline.name) {
        return Err(format!("pipeline '{}' conflicts with a pass of the same name", pipeline.name));
    }
    let conflict = |existing: &PipelineDefinition| format!("two pipelines claim the name '{}': '{}' and '{}'", pipeline.name, existing.passes, pipeline.passes);
    if already_registered(registry.pipelines.get(pipeline.name), |existing| *existing == pipeline, conflict)? {
        return Ok(());
    }
    registry.pipelines.insert(pipeline.name, pipeline);
    let (name, description, passes) = (c_text(pipeline.name), c_text(pipeline.description), c_text(pipeline.passes));
    unsafe { htpRegisterPassPipeline(name.as_ptr(), description.as_ptr(), passes.as_ptr()) }
    Ok(())
}

/// Registers MLIR's upstream passes (canonicalize, cse, the conversions)
/// once per process, so any pipeline text can name them; later calls cost
/// nothing (a compile calls it on the way).
pub fn register_upstream_passes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(melior::utility::register_all_passes);
}

/// Every registered pass, by name.
pub fn registered_passes() -> Vec<&'static PassDefinition> {
    registry().passes.values().copied().collect()
}

/// Every registered pipeline, by name.
pub fn pipelines() -> Vec<PipelineDefinition> {
    registry().pipelines.values().copied().collect()
}

pub fn find_pipeline(name: &str) -> Option<PipelineDefinition> {
    registry().pipelines.get(name).copied()
}
