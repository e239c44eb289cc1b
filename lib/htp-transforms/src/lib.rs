//! Target-neutral passes and analyses over `tile` IR, which backends and
//! programming models share: `tile-peak-live-bytes`,
//! `tile-outline-parallel-chunks` (passes) and
//! [`loop_independence`] (an analysis the PTO backend splits tasks with and
//! the CPU backend parallelises with).

pub mod loop_independence;
pub mod outline_parallel_chunks;
pub mod tile_peak_live_bytes;

use htp_pass::PassDefinition;

/// The passes of this crate.
pub const PASSES: &[PassDefinition] = &[outline_parallel_chunks::DEFINITION, tile_peak_live_bytes::DEFINITION];

/// Registers this crate's passes.
pub fn register() -> Result<(), String> {
    htp_pass::register_passes(PASSES)
}
