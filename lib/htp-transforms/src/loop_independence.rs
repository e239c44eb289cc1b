//! The proof that a kernel's outer loop has independent iterations: the
//! PTO backend splits such a loop into tasks, the CPU backend runs it on
//! every core. Target-neutral: it reads `tile` loads and stores, and is
//! conservative about scalar state (a kernel-local `memref.alloca` array
//! written with `memref.store`, an `scf.while` search): state carried from
//! one iteration to the next makes them dependent, whatever the tiles do.

use htp_dialects::ods::{tile, view, TileOp};
use htp_ir::builder::{detach, shape_of};
use htp_ir::query::{constant_int, key, memref_root};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    BlockRef, RegionLike, ValueLike,
};

/// The function body's one top-level loop, when nothing but it, scalar
/// code and tile values computed from tensors the loop does not store is
/// at the top level, and its iterations are independent.
///
/// A split replays the code before the loop in each part (each CPU chunk,
/// each PTO task's kernel; PTO's orchestration replays only its scalar code,
/// which computes the tasks' bounds). So a tile loaded there (a weight row
/// every iteration reads) is loaded once per part, not once per iteration,
/// and must not be one the loop writes. A kernel-local array made at the
/// top level keeps the loop whole: the iterations would share it.
pub fn independent_outer_loop<'c, 'a>(entry: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut loops = Vec::new();
    let mut read_before = Vec::new();
    let mut op = entry.first_operation();
    while let Some(current) = op {
        // Upstream ops have no generated kinds: compared by name.
        let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
        match name.as_str() {
            "scf.for" => loops.push(unsafe { OperationRef::from_raw(current.to_raw()) }),
            "func.return" => {}
            _ if is_error_report(current) => {}
            _ if current.region_count() > 0 || is_scalar_state(&name) => return None,
            _ => {
                if let Some(kind) = TileOp::of(current) {
                    if !replayable_tile_value(current, kind) {
                        return None;
                    }
                    read_before.extend(read_source(current));
                }
            }
        }
        op = current.next_in_block();
    }
    let [outer] = loops.as_slice() else { return None };
    (outer.operand_count() == 3 && iterations_independent(*outer) && stored_tensors(*outer).iter().all(|s| !read_before.contains(s))).then_some(*outer)
}

/// Whether `op` only reports an error: an `scf.if` without results whose
/// body calls (the run-time check `tile-check-bounds` puts before a load).
/// A split replays it per part; the report is the same each time.
fn is_error_report(op: OperationRef) -> bool {
    if op.name().as_string_ref().as_str() != Ok("scf.if") || op.result_count() != 0 {
        return false;
    }
    let mut only_calls = true;
    op.walk(WalkOrder::PreOrder, |nested| {
        only_calls &= nested.to_raw().ptr == op.to_raw().ptr || matches!(nested.name().as_string_ref().as_str(), Ok("func.call" | "scf.yield"));
        WalkResult::Advance
    });
    only_calls
}

/// Whether a top-level tile op only computes tiles (every result a tile, no
/// store or scatter), so running it once per part of a split is the same
/// as running it once.
fn replayable_tile_value(op: OperationRef, kind: TileOp) -> bool {
    !matches!(kind, TileOp::Store | TileOp::Scatter)
        && op.result_count() > 0
        && op.results().all(|result| htp_dialects::tile::TileType::try_from(result.r#type()).is_ok())
}

/// The tensor a `tile.load` or `tile.gather` reads (its root, through views).
fn read_source(op: OperationRef) -> Option<usize> {
    match view::<tile::LoadOperation>(op) {
        Some(load) => load.source().ok().map(|source| key(memref_root(detach(source)))),
        None => view::<tile::GatherOperation>(op).and_then(|gather| gather.source().ok().map(|source| key(memref_root(detach(source))))),
    }
}

/// The tensors `op` (or an op nested in it) stores or scatters to, once per
/// `tile.store` / `tile.scatter` (their roots, through views).
pub fn stored_tensors(op: OperationRef) -> Vec<usize> {
    let mut stored = Vec::new();
    op.walk(WalkOrder::PreOrder, |inner| {
        let dest = match view::<tile::StoreOperation>(inner) {
            Some(store) => store.dest().ok().map(detach),
            None => view::<tile::ScatterOperation>(inner).and_then(|scatter| scatter.dest().ok().map(detach)),
        };
        stored.extend(dest.map(|dest| key(memref_root(dest))));
        WalkResult::Advance
    });
    stored
}

/// Whether the iterations of `outer` (an `scf.for` without iter_args) can
/// run in any order or at once: every store writes the slice the
/// iteration's index selects (the index is the loop variable along a dim
/// the stored tile spans at most `step` of), no tensor it stores is also
/// loaded, it stores something, it scatters nothing (`tile.scatter` writes
/// the rows its data names), and it keeps no scalar state (no
/// `memref.store`, no `scf.while`: what one iteration writes to an array
/// or searches from, the next may read; proving otherwise is not worth it).
pub fn iterations_independent(outer: OperationRef) -> bool {
    // scf.for's verifier: one region with one block whose first argument is
    // the induction variable, and lower bound, upper bound, step operands.
    let Some(body) = outer.region(0).ok().and_then(|region| region.first_block()) else { return false };
    let Ok(induction) = body.argument(0) else { return false };
    let induction = key(detach(induction.into()));
    let Some(step) = outer.operand(2).ok().and_then(|step| constant_int(detach(step))) else { return false };
    let mut stored = Vec::new();
    let mut loaded = Vec::new();
    let mut independent = true;
    outer.walk(WalkOrder::PreOrder, |op| {
        if is_scalar_state(op.name().as_string_ref().as_str().unwrap_or("")) {
            independent = false;
            return WalkResult::Interrupt;
        }
        // A scatter writes rows its data names: two iterations may write
        // the same row, and the later one must win (docs/language.md,
        // "Scatter"), so they run in order.
        if view::<tile::ScatterOperation>(op).is_some() {
            independent = false;
            return WalkResult::Interrupt;
        }
        if let Some(store) = view::<tile::StoreOperation>(op) {
            let (Ok(value), Ok(dest)) = (store.value(), store.dest()) else {
                independent = false;
                return WalkResult::Advance;
            };
            let dest = detach(dest);
            stored.push(key(memref_root(dest)));
            let rank = shape_of(dest.r#type()).len();
            let tile = htp_dialects::tile::TileType::try_from(value.r#type()).ok();
            // The elements a (strided) store spans along a dim: the first,
            // then a step per further one.
            let steps = htp_dialects::tile::access_strides(op);
            let spans = |dim: usize| match (tile, rank - dim) {
                (Some(t), 2) => (t.rows() - 1) * steps[0] + 1,
                (Some(t), 1) => (t.cols() - 1) * steps[1] + 1,
                _ => 1,
            };
            let indices: Vec<_> = store.indices().map(detach).collect();
            independent &= indices.iter().enumerate().any(|(d, index)| key(*index) == induction && spans(d) <= step);
        } else {
            loaded.extend(read_source(op));
        }
        WalkResult::Advance
    });
    independent && !stored.is_empty() && stored.iter().all(|s| !loaded.contains(s))
}

/// Ops that make or change scalar state a loop's iterations could share: a
/// kernel-local array (`memref.alloca`, written by `memref.store`) and a
/// `scf.while` (a search whose trips depend on that state). Tensors are
/// written only by `tile.store`, so any `memref.store` is such state.
fn is_scalar_state(name: &str) -> bool {
    matches!(name, "memref.alloca" | "memref.store" | "scf.while")
}
