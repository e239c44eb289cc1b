//! `pto-allocate-tiles`: places every tile buffer of a PTO kernel at a
//! static byte offset of its on-chip memory (the `addr` of
//! `pto.alloc_tile`, TASSIGN in C++), and fails with a diagnostic at the
//! tile's source line when a memory overflows.
//!
//! A buffer is live from its `pto.alloc_tile` to its last use (uses through
//! `pto.tile_view`s count; a use inside a nested region keeps it live to the
//! end of the ancestor op in the allocation's block, so a buffer read in a
//! loop is live for the whole loop). Buffers are placed in program order,
//! first fit, 32-byte aligned, among the buffers of the same memory still
//! live. `pto-insert-sync` orders the reuse of an address.

use std::collections::HashMap;

use crate::dialect::{Location as TileLocation, TileType};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::IntegerType,
        Location, OperationRef, ValueLike,
    },
};

use htp_ir::builder::detach;
use htp_ir::query::{ancestor_in, op_key, preorder_positions, uses};
use crate::ods::pto;
use htp_dialects::ods::view;

htp_pass::pass! {
    pub DEFINITION = Pass<"pto-allocate-tiles", "func.func"> {
        summary: "Place PTO tile buffers in UB/L1/L0 at static offsets, checking each memory's capacity",
        dialects: [crate::handles::pto],
        run: run,
    }
}

/// TASSIGN offsets are multiples of 32 bytes.
pub const ALIGNMENT: i64 = 32;

/// Places the tiles of a `pto.core` kernel (other functions are left alone).
fn run<'c>(_context: &'c melior::Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    if function.attribute(crate::ops::CORE_ATTRIBUTE).is_err() {
        return Ok(());
    }
    allocate(function)
}

struct Allocation<'c> {
    op: OperationRef<'c, 'c>,
    location: TileLocation,
    bytes: i64,
    start: usize,
    end: usize,
}

fn allocate<'c>(function: OperationRef<'c, '_>) -> Result<(), (Location<'c>, String)> {
    // Pre-order positions; `last[op]` is the position of the op's last descendant.
    let order = preorder_positions(function);
    let mut ops = Vec::new();
    function.walk(WalkOrder::PreOrder, |op| {
        ops.push(unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) });
        WalkResult::Advance
    });
    let mut last: HashMap<usize, usize> = HashMap::new();
    for op in &ops {
        let mut end = order[&op_key(*op)];
        op.walk(WalkOrder::PreOrder, |inner| {
            end = end.max(order[&op_key(inner)]);
            WalkResult::Advance
        });
        last.insert(op_key(*op), end);
    }

    let mut allocations = Vec::new();
    for op in &ops {
        let Some(alloc) = view::<pto::AllocTileOperation>(*op) else { continue };
        let result = detach(alloc.result().map_err(|e| (op.location(), e.to_string()))?.into());
        let tile = TileType::try_from(result.r#type()).map_err(|_| (op.location(), "alloc_tile of a non-tile".to_string()))?;
        let block = op.block().ok_or((op.location(), "an alloc_tile outside a block".to_string()))?;
        let start = order[&op_key(*op)];
        let mut end = start;
        let mut pending = vec![result];
        while let Some(value) = pending.pop() {
            for user in uses(value) {
                if let Some(tile_view) = view::<pto::TileViewOperation>(user) {
                    pending.push(detach(tile_view.result().map_err(|e| (user.location(), e.to_string()))?.into()));
                }
                if let Some(ancestor) = ancestor_in(user, block) {
                    end = end.max(last[&op_key(ancestor)]);
                }
            }
        }
        allocations.push(Allocation { op: *op, location: tile.location(), bytes: tile.size_in_bytes(), start, end });
    }

    // Buffers placed so far that may still be live: (location, offset, bytes, end).
    let mut live: Vec<(TileLocation, i64, i64, usize)> = Vec::new();
    for allocation in &allocations {
        live.retain(|entry| entry.3 >= allocation.start);
        let mut taken: Vec<(i64, i64)> =
            live.iter().filter(|e| e.0 == allocation.location).map(|e| (e.1, e.1 + e.2)).collect();
        taken.sort();
        let mut offset = 0;
        for (begin, finish) in &taken {
            if offset + allocation.bytes <= *begin {
                break;
            }
            offset = offset.max((finish + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
        }
        let capacity = allocation.location.usable_capacity();
        if offset + allocation.bytes > capacity {
            let in_use: i64 = taken.iter().map(|(b, f)| f - b).sum();
            return Err((
                allocation.op.location(),
                format!(
                    "this tile ({} bytes) does not fit in {}: {} bytes of it are held by {} other live tile(s) and A2/A3 has {} \
                     usable bytes; use smaller tiles or fewer live at once",
                    allocation.bytes,
                    memory_name(allocation.location),
                    in_use,
                    taken.len(),
                    capacity
                ),
            ));
        }
        let context_ref = allocation.op.context();
        let ty = IntegerType::new(unsafe { context_ref.to_ref() }, 64);
        let mut op = unsafe { OperationRefMut::from_raw(allocation.op.to_raw()) };
        op.set_inherent_attribute("addr", IntegerAttribute::new(ty.into(), offset).into());
        live.push((allocation.location, offset, allocation.bytes, allocation.end));
    }
    Ok(())
}

/// The on-chip memory behind a tile location.
fn memory_name(location: TileLocation) -> &'static str {
    match location {
        TileLocation::Vec => "UB (vec)",
        TileLocation::Mat => "L1 (mat)",
        TileLocation::Left => "L0A (left)",
        TileLocation::Right => "L0B (right)",
        TileLocation::Acc => "L0C (acc)",
        TileLocation::Bias => "the bias table",
    }
}
