//! Broadcast masks, rewritten before lowering. A mask tile is packed bits
//! on PTO (one bit per column, see `buffer::Shape::mask_for`): a one-column
//! mask is one row of bits, and no instruction spreads a bit along a row.
//! `broadcast(cmp(a, b))` becomes `cmp(broadcast(a), broadcast(b))`, whose
//! data operands expand with TROWEXPAND/TCOLEXPAND and compare into a full
//! mask. A broadcast mask from anything else is refused (at its line).

use htp_dialects::tile::{TileType, ValidSize};
use melior::{
    ir::{
        operation::OperationLike,
        OperationRef, ValueLike,
    },
    Context,
};

use super::state::Failure;
use crate::ops::TileOp;
use super::vector::is_mask;
use htp_ir::builder::{detach, parse_type, Builder, Emitter, V};
use htp_ir::query::defining_op;

pub fn broadcast_compares_first<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    for broadcast in htp_ir::query::ops_named_where(function, TileOp::Broadcast.name(), |op| htp_ir::query::result_at(op, 0).is_some_and(is_mask)) {
        let fail = |e: melior::Error| (broadcast.location(), e.to_string());
        let source = detach(broadcast.operand(0).map_err(fail)?);
        let Some(compare) = defining_op(source).filter(|op| TileOp::of(*op) == Some(TileOp::Cmp)) else {
            return Err((
                broadcast.location(),
                "PTO broadcasts a mask only when it comes straight from a comparison (compare the broadcast values instead)".into(),
            ));
        };
        let result = broadcast.result(0).map_err(fail)?;
        let shape = TileType::try_from(result.r#type()).map_err(|_| (broadcast.location(), "a broadcast to a non-tile".to_string()))?;
        let before = Emitter { context, block: broadcast.block().ok_or((broadcast.location(), "a broadcast outside a block".to_string()))?, anchor: broadcast, location: broadcast.location() };
        let widen = |value: V<'c>| -> V<'c> {
            let Ok(tile) = TileType::try_from(value.r#type()) else { return value };
            if tile.rows() == shape.rows() && tile.cols() == shape.cols() {
                return value;
            }
            let ty = parse_type(context, &tile_type_text(&shape, tile.element_type()));
            before.value(TileOp::Broadcast.name(), &[value], ty)
        };
        let operand = |i: usize| compare.operand(i).map(detach).map_err(|e| (compare.location(), e.to_string()));
        let (lhs, rhs) = (widen(operand(0)?), widen(operand(1)?));
        let predicate = compare.attribute("predicate").map_err(|e| (compare.location(), e.to_string()))?;
        let full = before.value_with(TileOp::Cmp.name(), &[lhs, rhs], result.r#type(), &[("predicate", predicate)]);
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), full.to_raw());
            mlir_sys::mlirOperationDestroy(broadcast.to_raw());
        }
        if htp_ir::query::uses(source).is_empty() {
            unsafe { mlir_sys::mlirOperationDestroy(compare.to_raw()) };
        }
    }
    Ok(())
}

/// `!tile.tile<RxCxT, valid = ...>` of `shape`'s sizes and valid region with
/// element type `element`.
fn tile_type_text(shape: &TileType, element: melior::ir::Type) -> String {
    let valid = |dim: u32| match shape.valid_size(dim) {
        ValidSize::Static(n) => n.to_string(),
        ValidSize::Dynamic => "?".into(),
    };
    let full = matches!((shape.valid_size(0), shape.valid_size(1)), (ValidSize::Static(r), ValidSize::Static(c)) if r == shape.rows() && c == shape.cols());
    let suffix = if full { String::new() } else { format!(", valid = {}x{}", valid(0), valid(1)) };
    format!("!tile.tile<{}x{}x{element}{suffix}>", shape.rows(), shape.cols())
}
