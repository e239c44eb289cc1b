//! CSP on the PTO targets (`pto-a2a3sim`, `pto-a2a3`), added from outside
//! both the model and the backend (docs/csp.md, "CSP on PTO"): a target
//! extension per PTO target (capabilities `model:csp`, `dialect:csp`; the
//! stages `csp-to-pto` at `before-lowering`, `csp-tasks-to-pto` at
//! `before-emit`). Its loaders and storers dissolve into the processes they
//! serve (`htp_model_csp::dissolve`: the cores move their own blocks).
//! What is left is either one pto-runtime cluster task — its cube process
//! (the one that multiplies matrices) an `aic` kernel, its vector process an
//! `aiv` kernel, each channel a direction of the cluster's pipe
//! (`pto.cluster_send` / `pto.cluster_recv`, which the backend's
//! `convert-tile-to-pto` makes TPUSH / TPOP / TFREE), the pipe's slots the
//! channels' depths — or, when no channel is left between processes
//! (replicated workers, independent processes), one task per process
//! replica, each its own kernel, under an orchestration of their calls.
//!
//! A conversion crate (as CIRCT's `lib/Conversion/<A>To<B>/`): it depends on
//! the model (`htp-model-csp`) and the backend (`htp-backend-pto`), so that
//! neither depends on the other. It is named in one line of `htp-all`.
//!
//! - `lower.rs`: the pass `csp-to-pto` (what a cluster can run, checked at
//!   the user's lines; the processes outlined into the cluster's kernels);
//! - `tasks.rs`: a program split into tasks, and the pass `csp-tasks-to-pto`
//!   making its calls `pto.task`s of the package's orchestration;
//! - `checked.rs`: an artifact layer playing the program's protocol on each
//!   call's shapes and scalars before the package runs.

mod checked;
pub mod lower;
pub mod tasks;

/// The PTO targets (the backend's names).
pub const TARGETS: [&str; 2] = ["pto-a2a3sim", "pto-a2a3"];

/// Registers the pass and the target extensions; first the PTO backend and
/// the CSP model (both idempotent), so it works alone. Idempotent.
pub fn register() -> Result<(), String> {
    htp_backend_pto::register()?;
    htp_pass::register_passes(&[lower::DEFINITION, tasks::DEFINITION])?;
    let capabilities = [format!("model:{}", htp_model_csp::MODEL_NAME), "dialect:csp".to_string()];
    htp_backend_pto::extend_targets(
        "csp-cluster",
        &capabilities,
        &[(htp_api::BEFORE_LOWERING.name, lower::DEFINITION.argument), ("before-emit", tasks::DEFINITION.argument)],
    )?;
    for target in TARGETS {
        htp_api::register_artifact_layer(htp_api::layers::ArtifactLayer { target, name: "csp-protocol", prepare: checked::prepare })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn registers_alone_and_is_idempotent() {
        super::register().unwrap();
        super::register().unwrap();
        assert!(htp_pass::registered_passes().iter().any(|p| p.argument == "csp-to-pto"));
        for target in super::TARGETS {
            let extensions = htp_api::extensions::target_extensions(target);
            let csp: Vec<_> = extensions.iter().filter(|e| e.name == "csp-cluster").collect();
            assert_eq!(csp.len(), 1, "{target}: {extensions:?}");
            assert_eq!(csp[0].capabilities, ["model:csp", "dialect:csp"], "{target}");
        }
    }
}
