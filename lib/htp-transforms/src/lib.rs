//! Target-neutral passes and analyses over `tile` IR, which backends and
//! programming models share: `tile-peak-live-bytes`,
//! `tile-distribute-outer-loop`, `tile-outline-parallel-chunks`, `tile-reuse-loads`,
//! `htp-apply-pdl` (registered PDL rewrites) (passes), [`distribution`]
//! (a loop's spread over cores, as an Axe layout) and
//! [`loop_independence`] (an analysis the PTO backend splits tasks with and
//! the CPU backend parallelises with).

pub mod apply_pdl;
pub mod distribute_outer_loop;
pub mod distribution;
pub mod loop_independence;
pub mod outline_parallel_chunks;
pub mod reuse_loads;
pub mod tile_peak_live_bytes;

use htp_pass::PassDefinition;

/// The passes of this crate.
pub const PASSES: &[PassDefinition] = &[apply_pdl::DEFINITION, distribute_outer_loop::DEFINITION, outline_parallel_chunks::DEFINITION, reuse_loads::DEFINITION, tile_peak_live_bytes::DEFINITION];

/// Registers this crate's passes and HTP's core layout facets.
pub fn register() -> Result<(), String> {
    // HTP's target-neutral layout facets (row_major, col_major): every
    // target can name them; which it accepts is its capability.
    htp_dialects::layout::register_core_facets()?;
    htp_pass::register_passes(PASSES)
}
