//! WSP on the PTO targets (`pto-a2a3sim`, `pto-a2a3`), added from outside
//! the PTO backend (docs/wsp.md, "WSP on PTO"): a target extension per PTO target
//! (capabilities `model:wsp`, `dialect:wsp`; the stage `wsp-to-pto` at
//! `before-emit`) and orchestration emitters for the wsp ops. The workload
//! becomes the package's orchestration: its loops run on AICPU, each
//! `wsp.task` calls its kernel's orchestration (the task(s) the PTO backend
//! made of the kernel) on views of the workload's tensors, through a
//! submitter (`runtime.rs`, C++) that adds what pto-runtime's TensorMap does
//! not infer: WAR edges, `wsp.seq` order, streams, round-robin lanes, the
//! dispatch predicate of `wsp.select` / `wsp.when`, and the per-scope task
//! count against the task window.
//!
//! A conversion crate (as CIRCT's `lib/Conversion/<A>To<B>/`): it depends on
//! the model (`htp-model-wsp`) and the backend (`htp-backend-pto`), so that
//! no model crate depends on a backend crate. It is named in one line of
//! `htp-all`.
//!
//! - `lower.rs`: the pass `wsp-to-pto` (checks at the user's lines, the
//!   tensors' directions, the run configuration, the orchestration marker);
//! - `emit.rs`: the C++ of each wsp op in the orchestration;
//! - `runtime.rs`: the C++ prelude (`wsp::Run`, an `HtpSubmitter`).

mod emit;
pub mod lower;
mod runtime;

/// The PTO targets (the backend's names).
pub const TARGETS: [&str; 2] = ["pto-a2a3sim", "pto-a2a3"];

/// Registers the pass `wsp-to-pto`, the target extensions and the wsp ops'
/// emitters; first the PTO backend (idempotent), whose targets it extends,
/// so it works alone. The model is registered by its own crate
/// (`htp_model_wsp::register`, which also extends `cpu` and so needs the cpu
/// target first). Idempotent.
pub fn register() -> Result<(), String> {
    htp_backend_pto::register()?;
    htp_pass::register_passes(&[lower::DEFINITION])?;
    let capabilities = [format!("model:{}", htp_model_wsp::MODEL_NAME), "dialect:wsp".to_string()];
    htp_backend_pto::extend_targets("wsp-orchestration", &capabilities, &[("before-emit", lower::DEFINITION.argument)])?;
    // The prelude's namespace and the entry's `wsp::Run`: a parameter so named is renamed.
    htp_backend_pto::emit::names::reserve_identifiers(&["wsp", emit::RUN]);
    emit::register()
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
        for op in ["wsp.task", "wsp.parallel", "wsp.view"] {
            assert!(htp_backend_pto::emit::orchestration::op_emitter(op).is_some(), "{op}");
        }
    }
}
