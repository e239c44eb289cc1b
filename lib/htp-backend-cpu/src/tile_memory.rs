//! Every tile of a kernel must fit in this machine's memory: the CPU
//! lowering gives each tile a heap buffer, and an allocation larger than
//! the machine (`htp.pad(x[0:1048576, 0:1048576], 1.0)`: 4 TiB) fails at
//! run time, where the JIT code could only crash on it. Refused at compile
//! time instead, at the line that makes the tile.

use htp_dialects::diagnostics::{source_position, MlirError};
use htp_dialects::tile::TileType;
use melior::ir::{
    operation::{OperationLike, WalkOrder, WalkResult},
    Module, ValueLike,
};

/// The bytes of physical memory of this machine (None: unknown).
pub fn physical_memory() -> Option<u64> {
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    (pages > 0 && size > 0).then(|| (pages as u64).saturating_mul(size as u64))
}

/// Errors at each op that makes a tile of more than `limit` bytes (the
/// first one per source line).
pub fn check(module: &Module, limit: u64) -> Result<(), Vec<MlirError>> {
    let mut errors: Vec<MlirError> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        for result in op.results() {
            let Ok(tile) = TileType::try_from(result.r#type()) else { continue };
            let bytes = tile.checked_size_in_bytes().map(|b| b as u64);
            if bytes.is_some_and(|b| b <= limit) {
                continue;
            }
            let position = source_position(op.location());
            if errors.iter().any(|e| e.position == position) {
                continue;
            }
            let size = bytes.map_or_else(|| "more than 2^63 bytes".to_string(), |b| format!("{b} bytes"));
            errors.push(MlirError {
                position,
                message: format!(
                    "this {}x{} tile needs {size}, more than this machine's {limit} bytes of memory: use smaller tiles (a loop over blocks of the tensor)",
                    tile.rows(),
                    tile.cols()
                ),
            });
        }
        WalkResult::Advance
    });
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}
