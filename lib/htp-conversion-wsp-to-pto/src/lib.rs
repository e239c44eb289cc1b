//! WSP on the PTO targets (`pto-a2a3sim`, `pto-a2a3`), added from outside
//! the PTO backend (docs/wsp.md, "WSP on PTO"): a target extension per PTO target
//! (capabilities `model:wsp`, `dialect:wsp`; the stage `wsp-to-pto` at
//! `before-emit`). The workload becomes the package's orchestration, in the
//! backend's own orchestration IR: its loops `scf.for` on AICPU, each
//! `wsp.task` a `pto.task` calling its kernel's orchestration (the task(s)
//! the PTO backend made of the kernel) on `pto.tensor_view`s of the
//! workload's tensors under the workload's `pto.schedule` (WAR edges,
//! `pto.ordered` for `wsp.seq`, streams, round-robin lanes, `pto.guard` for
//! `wsp.select` / `wsp.when`, a `pto.scope` per outermost iteration), which
//! the backend prints (`htp_backend_pto::emit::schedule`, D70).
//!
//! A conversion crate (as CIRCT's `lib/Conversion/<A>To<B>/`): it depends on
//! the model (`htp-model-wsp`) and the backend (`htp-backend-pto`), so that
//! no model crate depends on a backend crate. It is named in one line of
//! `htp-all`.
//!
//! - `lower.rs`: the pass `wsp-to-pto` (checks at the user's lines, the
//!   tensors' directions, the run configuration, the orchestration marker);
//! - `convert.rs`: the wsp ops rewritten into the orchestration IR.

mod convert;
pub mod lower;

/// The PTO targets (the backend's names).
pub const TARGETS: [&str; 2] = ["pto-a2a3sim", "pto-a2a3"];

/// Registers the pass `wsp-to-pto` and the target extensions; first the
/// PTO backend (idempotent), whose targets it extends,
/// so it works alone. The model is registered by its own crate
/// (`htp_model_wsp::register`, which also extends `cpu` and so needs the cpu
/// target first). Idempotent.
pub fn register() -> Result<(), String> {
    htp_backend_pto::register()?;
    htp_pass::register_passes(&[lower::DEFINITION])?;
    let capabilities = [format!("model:{}", htp_model_wsp::MODEL_NAME), "dialect:wsp".to_string()];
    htp_backend_pto::extend_targets("wsp-orchestration", &capabilities, &[("before-emit", lower::DEFINITION.argument)])
}

#[cfg(test)]
mod tests {
    #[test]
    fn registers_alone_and_is_idempotent() {
        super::register().unwrap();
        super::register().unwrap();
        assert!(htp_pass::registered_passes().iter().any(|p| p.argument == "wsp-to-pto"));
        for target in super::TARGETS {
            let extensions = htp_api::extensions::target_extensions(target);
            let wsp: Vec<_> = extensions.iter().filter(|e| e.name == "wsp-orchestration").collect();
            assert_eq!(wsp.len(), 1, "{target}: {extensions:?}");
            assert_eq!(wsp[0].capabilities, ["model:wsp", "dialect:wsp"], "{target}");
            assert_eq!(htp_api::extensions::stages_at(target, "before-emit"), [("wsp-orchestration".to_string(), "wsp-to-pto".to_string())]);
        }
    }
}
