//! Target extensions: capabilities and lowering stages an extension adds to
//! a target it does not own, at the named points of that target's pipeline
//! (after Triton's `add_stages`). A programming model adds `model:<name>` to
//! `cpu` and lowers its functions away at `cpu`'s `before-lowering` point,
//! without editing the `cpu` backend.
//!
//! A target declares its points (`Target::extension_points`) and runs the
//! stages registered there with [`run_stages`] as its pipeline reaches each
//! point; the capability check counts the extensions' capabilities as the
//! target's ([`crate::capabilities::provided`]).

use std::sync::RwLock;

use htp_dialects::diagnostics::MlirError;
use melior::{ir::Module, Context};

use crate::registry::find_target;

/// A named point of a target's pipeline where extensions' stages run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtensionPoint {
    pub name: &'static str,
    /// What the IR is at this point (the dialects a stage sees and may leave).
    pub description: &'static str,
}

/// The point every in-tree target has first: the program's tile IR after
/// the capability check (which counts the extensions' capabilities), before
/// the target's own lowering. A stage here lowers what the target itself
/// does not know (a model's functions, an extension dialect's ops) into
/// what it does.
pub const BEFORE_LOWERING: ExtensionPoint = ExtensionPoint {
    name: "before-lowering",
    description: "tile IR (func/scf/arith/memref + tile and whatever the extension's capabilities admit), after the capability check",
};

/// What an extension adds to one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetExtension {
    /// The extended target's name (`cpu`).
    pub target: String,
    /// The extension's name, unique per target (`toy-on-cpu`).
    pub name: String,
    /// Capabilities the target then provides (`model:toy`, `dialect:toy`).
    pub capabilities: Vec<String>,
    /// (point, pipeline): passes as inside `builtin.module(...)`, run at
    /// that point of the target's pipeline, in registration order.
    pub stages: Vec<(String, String)>,
}

static EXTENSIONS: RwLock<Vec<TargetExtension>> = RwLock::new(Vec::new());

/// Registers `extension`. The target must be registered and have each
/// stage's point, and each stage's pipeline must parse. The same extension
/// again is a no-op; another one under a name taken for the same target is
/// an error.
pub fn register_target_extension(extension: TargetExtension) -> Result<(), String> {
    let target = find_target(&extension.target).map_err(|known| {
        format!("target extension '{}': no target named '{}' (known: {})", extension.name, extension.target, known.join(", "))
    })?;
    if extension.name.is_empty() {
        return Err(format!("an extension of target '{}' needs a name", extension.target));
    }
    let points = target.extension_points();
    for (point, pipeline) in &extension.stages {
        if !points.iter().any(|p| p.name == point) {
            let names: Vec<&str> = points.iter().map(|p| p.name).collect();
            return Err(format!(
                "target extension '{}': target '{}' has no extension point '{point}' (its points: {})",
                extension.name,
                extension.target,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ));
        }
        check_pipeline(pipeline).map_err(|e| format!("target extension '{}': the stage at '{point}': {e}", extension.name))?;
    }
    if let Some(bad) = extension.capabilities.iter().find(|c| c.is_empty() || c.chars().any(char::is_whitespace)) {
        return Err(format!("target extension '{}': '{bad}' is not a capability name", extension.name));
    }
    let mut extensions = EXTENSIONS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(existing) = extensions.iter().find(|e| e.target == extension.target && e.name == extension.name) {
        if *existing == extension {
            return Ok(());
        }
        return Err(format!("two extensions of target '{}' claim the name '{}'", extension.target, extension.name));
    }
    extensions.push(extension);
    Ok(())
}

/// A pipeline text parses (its passes are registered, options well formed).
fn check_pipeline(pipeline: &str) -> Result<(), String> {
    let context = htp_dialects::new_context();
    let manager = melior::pass::PassManager::new(&context);
    melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), &format!("builtin.module({pipeline})"))
        .map_err(|e| format!("the pipeline '{pipeline}' does not parse: {e}"))
}

/// The extensions of `target`, in registration order.
pub fn target_extensions(target: &str) -> Vec<TargetExtension> {
    EXTENSIONS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).iter().filter(|e| e.target == target).cloned().collect()
}

/// Every registered target extension, in registration order.
pub fn all_target_extensions() -> Vec<TargetExtension> {
    EXTENSIONS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}

/// (extension, pipeline) of the stages registered at `point` of `target`.
pub fn stages_at(target: &str, point: &str) -> Vec<(String, String)> {
    target_extensions(target)
        .into_iter()
        .flat_map(|e| {
            let name = e.name;
            e.stages.into_iter().filter(|(p, _)| p == point).map(move |(_, pipeline)| (name.clone(), pipeline))
        })
        .collect()
}

/// Runs the stages registered at `point` of `target` on `module`, in
/// registration order (nothing when there are none). A target calls it as
/// its pipeline reaches each of its points.
pub fn run_stages(context: &Context, module: &mut Module, target: &str, point: &str) -> Result<(), Vec<MlirError>> {
    for (extension, pipeline) in stages_at(target, point) {
        htp_pass::dump::run_pipeline_collecting(context, module, &pipeline, &format!("the extension '{extension}' of target '{target}' at '{point}'"))?;
    }
    Ok(())
}
