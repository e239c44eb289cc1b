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

#[cfg(test)]
mod tests {
    use super::*;

    fn module_with_tile<'c>(context: &'c melior::Context, rows: i64) -> Module<'c> {
        let source = format!(
            "func.func @k(%m: memref<?x?xf32>) {{
               %c0 = arith.constant 0 : index
               %t = tile.load %m[%c0, %c0] : memref<?x?xf32> -> !tile.tile<{rows}x1048576xf32> loc(\"k.py\":7:9)
               return
             }}"
        );
        Module::parse(context, &source).expect("test IR parses")
    }

    #[test]
    fn a_tile_larger_than_the_limit_is_an_error_at_its_line() {
        let context = htp_dialects::new_context();
        let module = module_with_tile(&context, 1048576);
        let errors = check(&module, 1 << 30).expect_err("a 4 TiB tile does not fit in 1 GiB");
        assert_eq!(errors.len(), 1);
        let position = errors[0].position.as_ref().expect("located");
        assert_eq!((position.file.as_str(), position.line, position.column), ("k.py", 7, 9));
        assert!(errors[0].message.contains("4398046511104 bytes"), "{}", errors[0].message);
    }

    #[test]
    fn a_tile_that_fits_passes_and_a_size_past_i64_is_reported() {
        let context = htp_dialects::new_context();
        assert!(check(&module_with_tile(&context, 16), 1 << 30).is_ok());
        let errors = check(&module_with_tile(&context, 1 << 42), u64::MAX).expect_err("2^64+ bytes");
        assert!(errors[0].message.contains("more than 2^63 bytes"), "{}", errors[0].message);
    }

    #[test]
    fn this_machine_reports_its_memory() {
        assert!(physical_memory().is_some_and(|bytes| bytes > 1 << 20));
    }
}
