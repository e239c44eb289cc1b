//! Target-neutral passes and analyses over `tile` IR, which backends and
//! programming models share: `tile-peak-live-bytes` (a pass) and
//! [`loop_independence`] (an analysis the PTO backend splits tasks with and
//! the CPU backend parallelises with).

pub mod loop_independence;
pub mod tile_peak_live_bytes;

use htp_pass::PassDefinition;

/// The passes of this crate.
pub const PASSES: &[PassDefinition] = &[tile_peak_live_bytes::DEFINITION];

/// Registers this crate's passes.
pub fn register() -> Result<(), String> {
    htp_pass::register_passes(PASSES)
}
