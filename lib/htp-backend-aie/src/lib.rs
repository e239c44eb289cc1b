//! HTP's AMD AIE backend (issue 20), built only through the extension API
//! (docs/architecture.md, "How to add a backend"): it owns the `aie` and
//! `aiex` dialects (`dialects/aie/`, `dialects/aiex/`, built by `build.rs`:
//! mlir-aie's object-FIFO level in mlir-aie's syntax, with verifiers for
//! tile coordinates, tile memory, DMA channels and the acquire/release
//! protocol, docs/targets/aie-contract.md) and the NPU architecture model
//! (`architecture.rs`), and is named by one line of `htp-all`.

pub mod architecture;
pub mod bound_ragged_buffers;
pub mod copies_to_loops;
pub mod cost_model;
pub mod erase_transform_scripts;
pub mod finish;
pub mod flatten_batch_loops;
pub mod hoist_invariant_loads;
pub mod hoist_stack_buffers;
pub mod host;
pub mod lower;
pub mod sim;
pub mod specialize;
pub mod split_contraction_casts;
pub mod split_reduction_accumulators;
pub mod target;
pub mod translate;
pub mod transpose_contraction_operands;
pub mod vector_units;
pub mod vectorize_cores;

/// Handle functions of the dialects this crate builds (`aie`, `aiex`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

/// Registers the `aie` and `aiex` dialects with the core (every context,
/// `htp-opt` and `htp-translate` then know them) and the targets
/// `aie-npu1` and `aie-npu2`, its passes, and the translation `--tile-to-aie`.
pub fn register() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_pass::register_passes(PASSES)?;
    htp_api::translation::register_translation(&translate::TILE_TO_AIE)?;
    htp_api::register_target(&target::NPU1)?;
    htp_api::register_target(&target::NPU2)?;
    htp_api::register_target(&target::SIM)
}

/// The passes of the block functions' lowering (lower.rs).
pub const PASSES: &[htp_pass::PassDefinition] = &[
    flatten_batch_loops::DEFINITION,
    split_contraction_casts::DEFINITION,
    bound_ragged_buffers::DEFINITION,
    copies_to_loops::DEFINITION,
    vectorize_cores::DEFINITION,
    erase_transform_scripts::DEFINITION,
    transpose_contraction_operands::DEFINITION,
    split_reduction_accumulators::DEFINITION,
    hoist_invariant_loads::DEFINITION,
    hoist_stack_buffers::DEFINITION,
];

/// The AIE targets and the device each builds designs for.
pub const TARGETS: [(&str, &str); 3] = [("aie-npu1", "npu1"), ("aie-npu2", "npu2"), ("aie-sim", "npu1")];

/// The named points of the AIE pipeline where target extensions' stages
/// run: `before-lowering` (the program's tile IR). A stage there may leave
/// an `aie.device` in the module (the backend's IR, D69): the targets then
/// finish that design (`finish.rs`) instead of lowering a kernel.
pub const EXTENSION_POINTS: [htp_api::ExtensionPoint; 1] = [htp_api::BEFORE_LOWERING];

/// Adds the extension `name` (its capabilities, and the stages
/// `stages(device)` gives for each target's device) to every AIE target:
/// how a conversion crate (CSP → AIE) plugs in from outside.
pub fn extend_targets(name: &str, capabilities: &[String], stages: impl Fn(&str) -> Vec<(String, String)>) -> Result<(), String> {
    register()?;
    for (target, device) in TARGETS {
        htp_api::register_target_extension(htp_api::extensions::TargetExtension { target: target.into(), name: name.into(), capabilities: capabilities.to_vec(), stages: stages(device) })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
