//! HTP's AMD AIE backend (issue 20), built only through the extension API
//! (docs/architecture.md, "How to add a backend"): it owns the `aie` and
//! `aiex` dialects (`dialects/aie/`, `dialects/aiex/`, built by `build.rs`:
//! mlir-aie's object-FIFO level in mlir-aie's syntax, with verifiers for
//! tile coordinates, tile memory, DMA channels and the acquire/release
//! protocol, docs/targets/aie-contract.md) and the NPU architecture model
//! (`architecture.rs`), and is named by one line of `htp-all`.

pub mod architecture;
pub mod host;
pub mod lower;
pub mod sim;
pub mod target;
pub mod translate;

/// Handle functions of the dialects this crate builds (`aie`, `aiex`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

/// Registers the `aie` and `aiex` dialects with the core (every context,
/// `htp-opt` and `htp-translate` then know them) and the targets
/// `aie-npu1` and `aie-npu2`, and the translation `--tile-to-aie`.
pub fn register() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_api::translation::register_translation(&translate::TILE_TO_AIE)?;
    htp_api::register_target(&target::NPU1)?;
    htp_api::register_target(&target::NPU2)?;
    htp_api::register_target(&target::SIM)
}

#[cfg(test)]
mod tests;
