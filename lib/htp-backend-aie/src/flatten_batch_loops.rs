//! `aie-flatten-batch-loops`: a kernel over 3-D tensors as a loop over
//! batches around a loop over row blocks (`for b in range(B): for i in
//! range(0, N, R): y[b, i:i + R, :] = ... x[b, i:i + R, :]`) becomes one
//! loop over the row blocks of every batch, each 3-D tensor a 2-D one of
//! `B x Np` rows, `Np` the batch's rows rounded up to whole blocks (D98):
//! `for r in range(0, B * Np, R)` with `b = r / Np` and `i = r % Np`, and
//! `x[b, i, c]` at row `r`. The AIE lowering then deals the blocks to its
//! cores as any row-block kernel's. A ragged last block of a batch keeps
//! its valid rows (computed from `i` and `N` as before); the host lays each
//! batch `Np` rows apart (`host::Runs`), so the padding rows between
//! batches are not another batch's. The kernel's attribute
//! `htp.aie.batches` lists each flattened argument with its `B` and `N`.
//! A 3-D tensor read or written at `[b, x, ...]` otherwise (a batch's whole
//! matrix, `w[b, :, :]`) becomes `B x N` rows read at `b * N + x`; a
//! kernel that is a batch loop alone (a block a batch) only has its 3-D
//! tensors flattened that way (D99). A kernel of another form is left as it
//! is (the lowering refuses its 3-D tensors at their parameters).

use crate::lower::same;
use htp_ir::query::{constant_int, op_name};
use melior::{
    ir::{
        attribute::{AttributeLike, DenseI64ArrayAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::{MemRefType, ShapedTypeLike, TypeLike},
        Block, OperationRef, Region, RegionLike, Type, Value, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-flatten-batch-loops", "builtin.module"> {
        summary: "A loop over batches around a loop over row blocks of 3-D tensors as one loop over the row blocks of 2-D tensors (AIE)",
        dialects: [tile, arith, scf, memref],
        run: run,
    }
}

/// The kernel attribute naming each flattened argument: `[index, B, N, ...]`.
pub const BATCHES_ATTRIBUTE: &str = "htp.aie.batches";

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for kernel in htp_ir::query::kernel_functions(module) {
        flatten(context, kernel);
    }
    Ok(())
}

/// The one op of `block` that is not pure, a terminator or a constant-like
/// value, when it is an `scf.for` without results.
fn only_loop<'c>(block: melior::ir::BlockRef<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    let mut found = None;
    let mut op = block.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = op_name(current);
        match name.as_str() {
            "scf.for" if found.is_none() && current.result_count() == 0 => found = Some(unsafe { OperationRef::from_raw(current.to_raw()) }),
            "scf.yield" | "func.return" => {}
            _ if current.region_count() == 0 && (name.starts_with("arith.") || name == "tile.constant" || name == "tile.fill") => {}
            _ => return None,
        }
    }
    found
}

/// `loop`'s constant bounds `(lower, upper, step)` and its induction variable.
fn bounds<'c>(the_loop: OperationRef<'c, '_>) -> Option<(i64, i64, i64, Value<'c, 'c>)> {
    let constant = |i: usize| the_loop.operand(i).ok().and_then(|v| constant_int(htp_ir::builder::detach(v)));
    let iv = the_loop.region(0).ok()?.first_block()?.argument(0).ok()?;
    Some((constant(0)?, constant(1)?, constant(2)?, htp_ir::builder::detach(iv.into())))
}

/// How a 3-D tensor is used: at `[b, i, ...]` by the row-block loop
/// (`Walked`: `B x Np` rows, read at the block's row), or at `[b, x, ...]`
/// otherwise (`Batched`: `B x N` rows, read at `b * N + x`).
#[derive(Clone, Copy, PartialEq)]
enum Use {
    Walked,
    Batched,
}

fn flatten(context: &Context, kernel: OperationRef) {
    let Some(body) = kernel.region(0).ok().and_then(|r| r.first_block()) else { return };
    let Some(outer) = only_loop(body) else { return };
    let Some((0, batches, 1, b)) = bounds(outer) else { return };
    let Some(outer_body) = outer.region(0).ok().and_then(|r| r.first_block()) else { return };
    // A row-block loop inside (`for i in range(0, N, R)`), or none: the batch loop is then the
    // block loop, a block a batch.
    let inner = only_loop(outer_body).and_then(|l| bounds(l).filter(|&(lower, rows, step, _)| lower == 0 && step > 0 && rows > 0).map(|(_, rows, step, i)| (l, rows, step, i)));
    // The 3-D tensors, each use a tile load or store at `[b, ...]`.
    let mut flattened = Vec::new();
    for index in 0..body.argument_count() {
        let Ok(argument) = body.argument(index) else { return };
        let argument: Value = argument.into();
        let Ok(memref) = MemRefType::try_from(argument.r#type()) else { continue };
        let shape = htp_ir::builder::shape_of(argument.r#type());
        if shape.len() != 3 {
            continue;
        }
        let identity = unsafe { mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(memref.to_raw())) };
        if !identity || shape[0] != batches || shape.iter().any(|&d| d < 0) {
            return;
        }
        let uses = htp_ir::query::uses(htp_ir::builder::detach(argument));
        // The index of `b` among a use's operands.
        let first = |op: OperationRef| match op_name(op).as_str() {
            "tile.load" if op.operand(0).is_ok_and(|v| same(v, argument)) => Some(1),
            "tile.store" if op.operand(1).is_ok_and(|v| same(v, argument)) && op.operand(0).is_ok_and(|v| !same(v, argument)) => Some(2),
            _ => None,
        };
        let at_batch = |op: OperationRef| first(op).is_some_and(|k| op.operand(k).is_ok_and(|v| same(v, b)));
        if !uses.iter().all(|u| at_batch(*u)) {
            return;
        }
        let walked = inner.is_some_and(|(_, rows, _, i)| shape[1] == rows && uses.iter().all(|u| first(*u).is_some_and(|k| u.operand(k + 1).is_ok_and(|v| same(v, i)))));
        flattened.push((index, memref, shape, uses, if walked { Use::Walked } else { Use::Batched }));
    }
    if flattened.is_empty() {
        return;
    }
    let location = outer.location();
    let index_type = Type::index(context);
    let constant = |value: i64| melior::dialect::arith::constant(context, melior::ir::attribute::IntegerAttribute::new(index_type, value).into(), location);
    // With a row-block loop: one loop over every batch's row blocks, before the batch loop, `b`
    // and `i` recomputed from its row `r`; the batch loop goes. (`r` is the walked tensors' row.)
    let (batch_value, walked_row, padded) = match inner {
        Some((inner, rows, step, i)) => {
            let padded = (rows + step - 1) / step * step;
            let zero: Value = body.insert_operation_before(outer, constant(0)).result(0).expect("a constant").into();
            let end: Value = body.insert_operation_before(outer, constant(batches * padded)).result(0).expect("a constant").into();
            let by: Value = body.insert_operation_before(outer, constant(step)).result(0).expect("a constant").into();
            let region = Region::new();
            let new_body = region.append_block(Block::new(&[(index_type, location)]));
            let new_body = unsafe { melior::ir::BlockRef::from_raw(new_body.to_raw()) };
            let r: Value = new_body.argument(0).expect("the induction variable").into();
            let per_batch: Value = new_body.append_operation(constant(padded)).result(0).expect("a constant").into();
            let batch: Value = new_body.append_operation(melior::dialect::arith::divui(r, per_batch, location)).result(0).expect("a quotient").into();
            let row: Value = new_body.append_operation(melior::dialect::arith::remui(r, per_batch, location)).result(0).expect("a remainder").into();
            let yield_op = new_body.append_operation(melior::dialect::scf::r#yield(&[], location));
            body.insert_operation_before(outer, melior::dialect::scf::r#for(zero, end, by, region, location));
            // The batch loop's other ops, then the row loop's body, into the new loop.
            for block in [outer_body, inner.region(0).ok().and_then(|r| r.first_block()).expect("a loop body")] {
                let mut op = block.first_operation();
                while let Some(current) = op {
                    op = current.next_in_block();
                    if op_name(current) != "scf.yield" && !(block == outer_body && current == inner) {
                        unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), yield_op.to_raw()) };
                    }
                }
            }
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(b.to_raw(), batch.to_raw());
                mlir_sys::mlirValueReplaceAllUsesOfWith(i.to_raw(), row.to_raw());
            }
            (htp_ir::builder::detach(batch), Some(htp_ir::builder::detach(r)), padded)
        }
        None => (b, None, 0),
    };
    // Each 3-D tensor as 2-D rows; its loads and stores at one row index.
    let mut recorded = Vec::new();
    for (index, memref, shape, uses, how) in flattened {
        let argument: Value = body.argument(index).expect("checked").into();
        let per_batch = if how == Use::Walked { padded } else { shape[1] };
        let flat: Type = MemRefType::new(memref.element(), &[batches * per_batch, shape[2]], None, memref.memory_space()).into();
        unsafe { mlir_sys::mlirValueSetType(argument.to_raw(), flat.to_raw()) };
        for user in uses {
            let first = if op_name(user) == "tile.load" { 1 } else { 2 };
            let row = match (how, walked_row) {
                (Use::Walked, Some(r)) => r,
                // b * N + x (b * N when x is 0)
                _ => {
                    use htp_ir::builder::Builder;
                    let e = htp_ir::builder::Emitter { context, block: user.block().expect("a use in a block"), anchor: user, location: user.location() };
                    let x = htp_ir::builder::detach(user.operand(first + 1).expect("a row index"));
                    let start = e.value("arith.muli", &[batch_value, e.index(shape[1])], index_type);
                    if constant_int(x) == Some(0) { start } else { e.value("arith.addi", &[start, x], index_type) }
                }
            };
            let mut operands: Vec<mlir_sys::MlirValue> = (0..user.operand_count()).filter_map(|k| user.operand(k).ok()).map(|v| v.to_raw()).collect();
            // [.., b, x, column, ..] -> [.., row, column, ..]
            operands.splice(first..first + 2, [row.to_raw()]);
            unsafe { mlir_sys::mlirOperationSetOperands(user.to_raw(), operands.len() as isize, operands.as_ptr()) };
            if op_name(user) == "tile.load" {
                let valid = operands.len() as i32 - 3;
                let sizes = [1, 2, valid];
                let attribute = unsafe { mlir_sys::mlirDenseI32ArrayGet(context.to_raw(), 3, sizes.as_ptr()) };
                unsafe { mlir_sys::mlirOperationSetAttributeByName(user.to_raw(), melior::StringRef::new("operandSegmentSizes").to_raw(), attribute) };
            }
        }
        recorded.extend([index as i64, batches, shape[1]]);
    }
    if walked_row.is_some() {
        unsafe { mlir_sys::mlirOperationDestroy(outer.to_raw()) };
    }
    htp_ir::builder::sync_function_inputs(context, kernel);
    unsafe { mlir_sys::mlirOperationSetAttributeByName(kernel.to_raw(), melior::StringRef::new(BATCHES_ATTRIBUTE).to_raw(), DenseI64ArrayAttribute::new(context, &recorded).to_raw()) };
}

/// The batches of each flattened argument of `kernel`: `(index, B, N)`.
pub fn batches(kernel: OperationRef) -> Vec<(usize, i64, i64)> {
    let Some(attribute) = kernel.attribute(BATCHES_ATTRIBUTE).ok().and_then(|a| DenseI64ArrayAttribute::try_from(a).ok()) else { return Vec::new() };
    let values: Vec<i64> = (0..attribute.len()).filter_map(|k| attribute.element(k).ok()).collect();
    values.chunks_exact(3).map(|c| (c[0] as usize, c[1], c[2])).collect()
}
