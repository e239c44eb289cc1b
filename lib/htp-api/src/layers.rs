//! Artifact layers: an extension that runs some programs itself, on top of
//! the artifact a target builds for the rest. A programming model whose
//! entry functions are not kernels (a workload whose loops issue
//! kernel tasks) takes them out of the module before the target compiles it, and
//! wraps the target's artifact: a call of the entry is run by the layer
//! (which calls the target's kernels, as tasks), any other call goes through.
//!
//! The driver calls every layer registered for the target, in registration
//! order, after the capability check and before `Target::compile`.

use std::sync::RwLock;

use htp_dialects::diagnostics::MlirError;
use melior::{ir::Module, Context};

use crate::{Artifact, KernelSignature};

/// Wraps the target's artifact once it is built.
pub type ArtifactWrapper = Box<dyn FnOnce(Box<dyn Artifact>) -> Box<dyn Artifact>>;

/// What a layer sees of the program: the module (tile IR after the model
/// pipelines and the capability check) and the entry's signature.
pub type PrepareLayer = for<'c> fn(&'c Context, &mut Module<'c>, &KernelSignature) -> Result<Option<ArtifactWrapper>, Vec<MlirError>>;

/// A layer over one target's artifacts.
#[derive(Clone, Copy)]
pub struct ArtifactLayer {
    /// The target whose artifacts it wraps (`cpu`).
    pub target: &'static str,
    /// Its name, unique per target (`toy-task-runtime`).
    pub name: &'static str,
    /// Takes what the layer runs out of the module and says how to wrap
    /// the artifact; `None` when the program is none of its business.
    pub prepare: PrepareLayer,
}

impl std::fmt::Debug for ArtifactLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArtifactLayer").field("target", &self.target).field("name", &self.name).finish_non_exhaustive()
    }
}

static LAYERS: RwLock<Vec<ArtifactLayer>> = RwLock::new(Vec::new());

/// Registers `layer`. The same layer again is a no-op; another one under a
/// name taken for the same target is an error.
pub fn register_artifact_layer(layer: ArtifactLayer) -> Result<(), String> {
    let mut layers = LAYERS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(existing) = layers.iter().find(|l| l.target == layer.target && l.name == layer.name) {
        if std::ptr::fn_addr_eq(existing.prepare, layer.prepare) {
            return Ok(());
        }
        return Err(format!("two artifact layers of target '{}' claim the name '{}'", layer.target, layer.name));
    }
    layers.push(layer);
    Ok(())
}

/// The layers of `target`, in registration order.
pub fn artifact_layers(target: &str) -> Vec<ArtifactLayer> {
    LAYERS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).iter().filter(|l| l.target == target).copied().collect()
}
