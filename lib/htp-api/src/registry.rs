//! The registry of targets. Backends register their targets (through
//! `htp_all::register_all` for the in-tree ones, or a third-party crate's
//! own `register`); the driver and the bindings look them up by name.

use std::sync::RwLock;

use crate::Target;

static TARGETS: RwLock<Vec<&'static dyn Target>> = RwLock::new(Vec::new());

/// Registers `target`. The same target again is a no-op; another target
/// under a taken name is an error naming it, as is a parallel level whose
/// name is not an identifier (layouts name levels as axes).
pub fn register_target(target: &'static dyn Target) -> Result<(), String> {
    for level in target.architecture().levels {
        let mut chars = level.name.chars();
        let identifier = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier || level.name == "m" || level.name == "iter" {
            return Err(format!(
                "target '{}': the parallel level '{}' needs a name that is an identifier other than 'm' and 'iter' (layouts name it as an axis)",
                target.name(),
                level.name
            ));
        }
    }
    if let Some(array) = target.architecture().array {
        array.validate().map_err(|e| format!("target '{}': its tile array: {e}", target.name()))?;
    }
    let mut targets = TARGETS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(existing) = targets.iter().find(|t| t.name() == target.name()) {
        if std::ptr::addr_eq(*existing as *const dyn Target, target as *const dyn Target) {
            return Ok(());
        }
        return Err(format!(
            "two targets claim the name '{}': \"{}\" and \"{}\"",
            target.name(),
            existing.description(),
            target.description()
        ));
    }
    targets.push(target);
    Ok(())
}

/// Every registered target, in registration order.
pub fn targets() -> Vec<&'static dyn Target> {
    TARGETS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}

/// The target named `name`, or the names of those there are.
pub fn find_target(name: &str) -> Result<&'static dyn Target, Vec<&'static str>> {
    let targets = targets();
    targets.iter().copied().find(|t| t.name() == name).ok_or_else(|| targets.iter().map(|t| t.name()).collect())
}
