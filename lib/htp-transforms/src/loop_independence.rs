//! The proof that a kernel's outer loop has independent iterations: the
//! PTO backend splits such a loop into tasks, the CPU backend runs it on
//! every core. Target-neutral: it reads only `tile` loads and stores.

use htp_ir::builder::{detach, shape_of};
use htp_ir::query::{constant_int, key};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    BlockRef, RegionLike, ValueLike,
};

/// The function body's one top-level loop, when nothing but it (and scalar
/// code) is at the top level and its iterations are independent.
pub fn independent_outer_loop<'c, 'a>(entry: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut loops = Vec::new();
    let mut op = entry.first_operation();
    while let Some(current) = op {
        let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
        match name.as_str() {
            "scf.for" => loops.push(unsafe { OperationRef::from_raw(current.to_raw()) }),
            "func.return" => {}
            n if n.starts_with("tile.") || current.region_count() > 0 => return None,
            _ => {}
        }
        op = current.next_in_block();
    }
    let [outer] = loops.as_slice() else { return None };
    (outer.operand_count() == 3 && iterations_independent(*outer)).then_some(*outer)
}

/// Whether the iterations of `outer` (an `scf.for` without iter_args) can
/// run in any order or at once: every store writes the slice the
/// iteration's index selects (the index is the loop variable along a dim
/// the stored tile spans at most `step` of), no tensor it stores is also
/// loaded, and it stores something.
pub fn iterations_independent(outer: OperationRef) -> bool {
    let body = outer.region(0).unwrap().first_block().unwrap();
    let induction = key(detach(body.argument(0).unwrap().into()));
    let Some(step) = constant_int(detach(outer.operand(2).unwrap())) else { return false };
    let mut stored = Vec::new();
    let mut loaded = Vec::new();
    let mut independent = true;
    outer.walk(WalkOrder::PreOrder, |op| {
        match op.name().as_string_ref().as_str().unwrap_or("") {
            "tile.store" => {
                let dest = detach(op.operand(1).unwrap());
                stored.push(key(dest));
                let rank = shape_of(dest.r#type()).len();
                let tile = htp_dialects::tile::TileType::try_from(op.operand(0).unwrap().r#type()).ok();
                let spans = |dim: usize| match (tile, rank - dim) {
                    (Some(t), 2) => t.rows(),
                    (Some(t), 1) => t.cols(),
                    _ => 1,
                };
                let by_iteration = (0..rank).any(|d| key(detach(op.operand(2 + d).unwrap())) == induction && spans(d) <= step);
                independent &= by_iteration;
            }
            "tile.load" | "tile.gather" => loaded.push(key(detach(op.operand(0).unwrap()))),
            _ => {}
        }
        WalkResult::Advance
    });
    independent && !stored.is_empty() && stored.iter().all(|s| !loaded.contains(s))
}

