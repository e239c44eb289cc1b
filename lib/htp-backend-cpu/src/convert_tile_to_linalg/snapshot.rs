//! When a loaded tile must be copied out of its tensor. The lowering reads
//! a loaded tile where it is used (the load's identity copy folds away,
//! elementwise ops fuse into their users, and a stored tile is computed
//! straight into its destination), so a load whose tile is still used when
//! a later store overwrites the tensor would see the new values (`a =
//! acc[0:8]; acc[0:8] = x; acc[8:16] = a`, `acc[1:9] = acc[0:8] + 1`, an
//! in-place transpose). Such a load gets a buffer of its own.

use htp_dialects::ods::{tile, view, TileOp};
use htp_dialects::tile::TileType;
use htp_ir::builder::{detach, V};
use melior::ir::{operation::OperationLike, OperationRef, ValueLike};

/// How many `tile.store` / `tile.scatter` into `root` `op` is or holds.
fn writes(op: OperationRef, root: usize) -> usize {
    htp_transforms::loop_independence::stored_tensors(op).into_iter().filter(|stored| *stored == root).count()
}

/// A load's indices as the program wrote them: `tile-check-bounds` clamps
/// every operand of a load after its source (indices, then valid sizes) to
/// `arith.select %in_bounds, %operand, %c0` with one condition, so that an
/// access out of bounds reads nothing (and guards a store instead).
fn written_indices<'c>(load: OperationRef<'c, '_>, count: usize) -> Vec<V<'c>> {
    let operands: Vec<V> = load.operands().skip(1).map(detach).collect();
    let clamp = |value: V<'c>| -> Option<(usize, V<'c>)> {
        htp_ir::query::defining_op(value).filter(|op| op.name().as_string_ref().as_str() == Ok("arith.select")).and_then(|op| {
            let (condition, kept, zero) = (op.operand(0).ok()?, op.operand(1).ok()?, op.operand(2).ok()?);
            (htp_ir::query::constant_int(detach(zero)) == Some(0)).then(|| (htp_ir::query::key(detach(condition)), detach(kept)))
        })
    };
    let clamps: Vec<Option<(usize, V)>> = operands.iter().map(|v| clamp(*v)).collect();
    let one_condition = clamps.first().and_then(|c| c.map(|(condition, _)| condition));
    let clamped = one_condition.is_some() && clamps.iter().all(|c| c.map(|(condition, _)| condition) == one_condition);
    operands
        .iter()
        .zip(clamps)
        .take(count)
        .map(|(raw, clamp)| match clamp {
            Some((_, kept)) if clamped => kept,
            _ => *raw,
        })
        .collect()
}

/// Whether two indices are the same value: one SSA value, or equal constants.
fn same_index(a: V, b: V) -> bool {
    htp_ir::query::key(a) == htp_ir::query::key(b) || htp_ir::query::constant_int(a).is_some_and(|x| htp_ir::query::constant_int(b) == Some(x))
}

/// Whether `kind` computes each element from the same element of its tile
/// operands (and scalars): fused into a store, it reads where it writes.
fn keeps_positions(kind: TileOp) -> bool {
    kind.is_elementwise_binary()
        || matches!(
            kind,
            TileOp::Exp | TileOp::Log | TileOp::Sqrt | TileOp::Rsqrt | TileOp::Recip | TileOp::Abs | TileOp::Neg | TileOp::Relu
                | TileOp::Cast | TileOp::Cmp | TileOp::Select | TileOp::Pad | TileOp::SetValid
        )
}

/// Whether `kind` computes its result into a buffer of its own before any
/// later op runs (a reduction, a sort, a matmul): what is computed from it
/// no longer reads the loaded tensor.
fn materializes(kind: TileOp) -> bool {
    matches!(kind, TileOp::RowReduce | TileOp::ColReduce | TileOp::RowArgReduce | TileOp::Sort | TileOp::Matmul)
}

/// Whether `store` writes exactly the elements `load` read: the same
/// tensor, indices, strides and tile shape.
fn same_place(load: OperationRef, store: OperationRef) -> bool {
    let (Some(l), Some(s)) = (view::<tile::LoadOperation>(load), view::<tile::StoreOperation>(store)) else { return false };
    let (Ok(source), Ok(dest)) = (l.source(), s.dest()) else { return false };
    let (Ok(loaded), Ok(stored)) = (l.result(), s.value()) else { return false };
    let store_indices: Vec<V> = s.indices().map(detach).collect();
    let load_indices = written_indices(load, store_indices.len());
    let shape = |value: V| TileType::try_from(value.r#type()).ok().map(|t| (t.rows(), t.cols()));
    htp_ir::query::key(detach(source)) == htp_ir::query::key(detach(dest))
        && load_indices.len() == store_indices.len()
        && load_indices.iter().zip(&store_indices).all(|(a, b)| same_index(*a, *b))
        && htp_dialects::tile::access_strides(load) == htp_dialects::tile::access_strides(store)
        && shape(detach(loaded.into())).is_some()
        && shape(detach(loaded.into())) == shape(detach(stored))
}

/// Whether the tile `load` (a `tile.load`, not yet lowered, of `source`)
/// may read what a later store to the same tensor wrote. The lowering reads
/// a loaded tile where it is used (the load's copy folds away, elementwise
/// ops fuse into their users and a stored tile is computed straight into
/// its destination), so such a load must copy what it reads. It may, when
/// a later op of its block writes the tensor and the loaded tile (or one
/// computed from it) is used at or after that op, or leaves the block —
/// except a store back to the same elements through ops that keep
/// positions (`acc[i] = acc[i] * 0.5 + x[i]`). Stores are still `tile` ops
/// here: the conversion runs in program order.
pub(super) fn overwritten_while_live(load: OperationRef, source: V) -> bool {
    let Some(block) = load.block() else { return true };
    let root = htp_ir::query::key(htp_ir::query::memref_root(source));
    // The first later op that writes the tensor, and how many writes it holds.
    let mut first_write = None;
    let mut next = load.next_in_block();
    while let Some(op) = next {
        let count = writes(op, root);
        if count > 0 {
            first_write = Some((op, count));
            break;
        }
        next = op.next_in_block();
    }
    let Some((first_write, writes_there)) = first_write else { return false };
    // Every value computed from the loaded tile, with whether each element
    // still sits where it was loaded.
    let mut pending: Vec<(V, bool)> = load.results().map(|r| (detach(r.into()), true)).collect();
    let mut seen = std::collections::HashSet::new();
    while let Some((value, in_place)) = pending.pop() {
        for user in htp_ir::query::uses(value) {
            if !seen.insert((htp_ir::query::op_key(user), in_place)) {
                continue;
            }
            let Some(at) = htp_ir::query::ancestor_in(user, block) else { return true };
            // The block's terminator hands it on (a loop's next trip, the enclosing block).
            if at.next_in_block().is_none() {
                return true;
            }
            let kind = TileOp::of(user);
            if at.to_raw().ptr == first_write.to_raw().ptr || htp_ir::query::is_before(first_write, at) {
                // The first write, and the only one there: the tile's own store back.
                let stored_back = at.to_raw().ptr == first_write.to_raw().ptr
                    && writes_there == 1
                    && htp_ir::query::in_block_through_ifs(user, block)
                    && kind == Some(TileOp::Store)
                    && in_place
                    && same_place(load, user);
                if stored_back {
                    continue;
                }
                return true;
            }
            if kind.is_some_and(materializes) {
                continue;
            }
            let keeps = in_place && kind.is_some_and(keeps_positions) && at.to_raw().ptr == user.to_raw().ptr;
            pending.extend(user.results().map(|r| (detach(r.into()), keeps)));
            pending.extend(at.results().map(|r| (detach(r.into()), keeps)));
        }
    }
    false
}
