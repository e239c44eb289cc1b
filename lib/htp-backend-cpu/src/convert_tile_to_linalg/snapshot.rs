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

/// Whether `op` is or holds a `tile.store` / `tile.scatter` into `root`.
fn writes(op: OperationRef, root: usize) -> bool {
    let mut found = false;
    op.walk(melior::ir::operation::WalkOrder::PreOrder, |inner| {
        let dest = match (view::<tile::StoreOperation>(inner), view::<tile::ScatterOperation>(inner)) {
            (Some(store), _) => store.dest().ok().map(|d| htp_ir::query::key(htp_ir::query::memref_root(detach(d)))),
            (_, Some(scatter)) => scatter.dest().ok().map(|d| htp_ir::query::key(htp_ir::query::memref_root(detach(d)))),
            _ => None,
        };
        found |= dest == Some(root);
        if found { melior::ir::operation::WalkResult::Interrupt } else { melior::ir::operation::WalkResult::Advance }
    });
    found
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
    let Ok(load_indices) = l.indices() else { return false };
    let load_indices: Vec<usize> = load_indices.map(|v| htp_ir::query::key(detach(v))).collect();
    let store_indices: Vec<usize> = s.indices().map(|v| htp_ir::query::key(detach(v))).collect();
    let shape = |value: V| TileType::try_from(value.r#type()).ok().map(|t| (t.rows(), t.cols()));
    htp_ir::query::key(detach(source)) == htp_ir::query::key(detach(dest))
        && load_indices == store_indices
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
    let mut first_write = None;
    let mut next = load.next_in_block();
    while let Some(op) = next {
        if writes(op, root) {
            first_write = Some(op);
            break;
        }
        next = op.next_in_block();
    }
    let Some(first_write) = first_write else { return false };
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
                let stored_back = at.to_raw().ptr == user.to_raw().ptr && kind == Some(TileOp::Store) && in_place && same_place(load, user);
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
