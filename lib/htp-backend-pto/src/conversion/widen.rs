//! bf16 arithmetic on A2/A3, whose vector instructions take no bf16
//! (TADD ... TCMP, the reductions and arg reductions, TCI: pto-contract.md
//! 2.2-2.9, 2.14) but convert
//! it both ways (TCVT bf16 <-> f32): before a kernel is converted, each such
//! tile op on bf16 is rewritten to the same op on f32 between `tile.cast`s
//! — its bf16 operands widened (exactly), its bf16 result rounded back to
//! bf16 (once per op, as the CPU target rounds: the same numbers). A bf16
//! scalar operand is widened with `arith.extf`. A broadcast feeding such an
//! op is widened before it broadcasts, so it still fuses into the op
//! (TROWEXPANDADD ...). Data movement (loads, stores, pads, transposes,
//! gathers, selects, fills) and matmuls keep bf16: A2/A3 has them.

use melior::{
    ir::{
        operation::{OperationLike, WalkOrder, WalkResult},
        OperationRef, Type, ValueLike,
    },
    Context,
};

use crate::ops::TileOp;
use htp_dialects::tile::TileType;
use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_ir::query::{defining_op, uses};

/// The tile ops A2/A3 lacks for bf16.
const WIDENED: &[TileOp] = &[
    TileOp::Add,
    TileOp::Sub,
    TileOp::Mul,
    TileOp::Div,
    TileOp::Max,
    TileOp::Min,
    TileOp::Exp,
    TileOp::Log,
    TileOp::Sqrt,
    TileOp::Rsqrt,
    TileOp::Recip,
    TileOp::Abs,
    TileOp::Neg,
    TileOp::Relu,
    TileOp::RowReduce,
    TileOp::ColReduce,
    TileOp::RowArgReduce,
    TileOp::Cmp,
    TileOp::Iota,
];

fn is_bf16(ty: Type) -> bool {
    let element = TileType::try_from(ty).map(|t| t.element_type()).unwrap_or(ty);
    element.to_string() == "bf16"
}

/// Rewrites `function`'s bf16 arithmetic to f32 (see the module comment).
pub fn bf16_arithmetic<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    let mut ops: Vec<OperationRef<'c, 'c>> = Vec::new();
    function.walk(WalkOrder::PreOrder, |op| {
        let widened = TileOp::of(op).is_some_and(|kind| WIDENED.contains(&kind));
        if widened && (op.operands().any(|v| is_bf16(v.r#type())) || op.results().any(|r| is_bf16(r.r#type()))) {
            ops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    let f32 = Type::float32(context);
    for op in ops {
        let fail = |message: &str| (op.location(), format!("widening bf16 arithmetic to f32: {message}"));
        let block = op.block().ok_or_else(|| fail("an op outside a block"))?;
        let before = Emitter { context, block, anchor: op, location: op.location() };
        for index in 0..op.operand_count() {
            let operand = htp_ir::query::operand_at(op, index).ok_or_else(|| fail("a missing operand"))?;
            if !is_bf16(operand.r#type()) {
                continue;
            }
            let wide = widen(context, &before, operand, f32).ok_or_else(|| fail("a tile type without an f32 form"))?;
            unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), index as isize, wide.to_raw()) };
        }
        for index in 0..op.result_count() {
            let result = htp_ir::query::result_at(op, index).ok_or_else(|| fail("a missing result"))?;
            let Ok(tile) = TileType::try_from(result.r#type()) else { continue };
            if !is_bf16(tile.into()) {
                continue;
            }
            let wide = tile.with_element(context, f32).ok_or_else(|| fail("a tile type without an f32 form"))?;
            unsafe { mlir_sys::mlirValueSetType(result.to_raw(), melior::ir::TypeLike::to_raw(&Type::from(wide))) };
            let next = op.next_in_block().ok_or_else(|| fail("an op without a terminator after it"))?;
            let after = Emitter { context, block, anchor: next, location: op.location() };
            let narrow = after.value(TileOp::Cast.name(), &[result], tile.into());
            // Every use but the cast's own reads the narrowed value.
            let mut cast = defining_op(narrow).ok_or_else(|| fail("a cast without its op"))?.to_raw();
            unsafe { mlir_sys::mlirValueReplaceAllUsesExcept(result.to_raw(), narrow.to_raw(), 1, &mut cast) };
        }
    }
    erase_dead_broadcasts(function);
    Ok(())
}

/// `value` (bf16) as f32: a scalar by `arith.extf`, a tile by `tile.cast`
/// — of a broadcast's source when it is a broadcast, which is then
/// broadcast again in f32 so that it can still fuse into its user.
fn widen<'c>(context: &'c Context, at: &Emitter<'c, '_>, value: V<'c>, f32: Type<'c>) -> Option<V<'c>> {
    let Ok(tile) = TileType::try_from(value.r#type()) else {
        return Some(at.value("arith.extf", &[value], f32));
    };
    let wide: Type = tile.with_element(context, f32)?.into();
    if let Some(broadcast) = defining_op(value).filter(|d| TileOp::of(*d) == Some(TileOp::Broadcast)) {
        let source = htp_ir::query::operand_at(broadcast, 0)?;
        let source_tile = TileType::try_from(source.r#type()).ok()?;
        let wide_source = at.value(TileOp::Cast.name(), &[source], source_tile.with_element(context, f32)?.into());
        let attributes: Vec<(String, melior::ir::Attribute)> =
            broadcast.attributes().map(|(name, attribute)| (name.as_string_ref().as_str().unwrap_or("").to_string(), attribute)).collect();
        let attributes: Vec<(&str, melior::ir::Attribute)> = attributes.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        return Some(at.value_with(TileOp::Broadcast.name(), &[wide_source], wide, &attributes));
    }
    Some(at.value(TileOp::Cast.name(), &[value], wide))
}

/// Broadcasts left without users by `widen` (A2/A3 would expand them in bf16).
fn erase_dead_broadcasts(function: OperationRef) {
    let mut dead = Vec::new();
    function.walk(WalkOrder::PreOrder, |op| {
        if TileOp::of(op) == Some(TileOp::Broadcast) && op.results().all(|r| uses(detach(r.into())).is_empty()) {
            dead.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for op in dead {
        unsafe { mlir_sys::mlirOperationDestroy(op) };
    }
}
