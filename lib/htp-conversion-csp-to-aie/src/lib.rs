//! CSP on the AIE targets (`aie-npu1`, `aie-npu2`, `aie-sim`), added from
//! outside both the model and the backend (docs/csp.md, "CSP on AIE"): a
//! target extension per AIE target (capabilities `model:csp`,
//! `dialect:csp`; the stage `csp-to-aie{device=...}` at `before-lowering`)
//! that turns a program into the backend's IR, an `aie.device`: computing
//! processes on compute tiles (one per replica), channels as object FIFOs
//! of their depth between tiles — core to core, or to a shim tile when a
//! process only loads or stores (its transfers become the runtime
//! sequence's). The backend finishes the design (`htp_backend_aie::finish`:
//! the cores' functions lowered, stacks sized, verified).
//!
//! A conversion crate (as CIRCT's `lib/Conversion/<A>To<B>/`): it depends on
//! the model (`htp-model-csp`) and the backend (`htp-backend-aie`), so that
//! neither depends on the other. It is named in one line of `htp-all`.
//!
//! - `plan.rs`: what runs where (checked at the user's lines);
//! - `eval.rs`: the integers a static design needs (bounds, rows, indices);
//! - `block.rs`: a computing process's loop body as its cores' function;
//! - `design.rs`: the device's text;
//! - `lower.rs`: the pass.

mod block;
mod design;
mod eval;
pub mod lower;
mod plan;

/// Registers the pass and the target extensions; first the AIE backend
/// (idempotent), whose targets it extends. Idempotent.
pub fn register() -> Result<(), String> {
    htp_backend_aie::register()?;
    htp_pass::register_passes(&[lower::DEFINITION])?;
    // A channel declared with `pad=` pads the blocks sent and marks the valid part of those
    // received: whole blocks on AIE (checked), so both are no-ops there.
    let capabilities = [format!("model:{}", htp_model_csp::MODEL_NAME), "dialect:csp".to_string(), "op:tile.pad".to_string(), "op:tile.set_valid".to_string()];
    htp_backend_aie::extend_targets("csp-design", &capabilities, |device| vec![(htp_api::BEFORE_LOWERING.name.to_string(), format!("{}{{device={device}}}", lower::DEFINITION.argument))])
}

#[cfg(test)]
mod tests {
    #[test]
    fn registers_alone_and_is_idempotent() {
        super::register().unwrap();
        super::register().unwrap();
        assert!(htp_pass::registered_passes().iter().any(|p| p.argument == "csp-to-aie"));
        for (target, device) in htp_backend_aie::TARGETS {
            let extensions = htp_api::extensions::target_extensions(target);
            let csp: Vec<_> = extensions.iter().filter(|e| e.name == "csp-design").collect();
            assert_eq!(csp.len(), 1, "{target}: {extensions:?}");
            assert_eq!(csp[0].capabilities, ["model:csp", "dialect:csp", "op:tile.pad", "op:tile.set_valid"], "{target}");
            assert_eq!(csp[0].stages, [("before-lowering".to_string(), format!("csp-to-aie{{device={device}}}"))], "{target}");
        }
    }
}
