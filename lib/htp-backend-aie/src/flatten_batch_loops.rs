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
//! A kernel of another form is left as it is (the lowering refuses its 3-D
//! tensors at their parameters).

use htp_ir::query::{constant_int, op_name};
use melior::{
    ir::{
        attribute::{AttributeLike, DenseI64ArrayAttribute, TypeAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::{FunctionType, MemRefType, ShapedTypeLike, TypeLike},
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

/// Whether `a` and `b` are the same value.
fn same(a: Value, b: Value) -> bool {
    a.to_raw().ptr == b.to_raw().ptr
}

fn flatten(context: &Context, kernel: OperationRef) {
    let Some(body) = kernel.region(0).ok().and_then(|r| r.first_block()) else { return };
    let Some(outer) = only_loop(body) else { return };
    let Some((0, batches, 1, b)) = bounds(outer) else { return };
    let Some(outer_body) = outer.region(0).ok().and_then(|r| r.first_block()) else { return };
    let Some(inner) = only_loop(outer_body) else { return };
    let Some((0, rows, step, i)) = bounds(inner).filter(|&(_, rows, step, _)| step > 0 && rows > 0) else { return };
    // The 3-D tensors: `B x N x C`, each use a tile load or store at `[b, i, column]`.
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
        if !identity || shape[0] != batches || shape[1] != rows || shape[2] < 0 {
            return;
        }
        let uses = htp_ir::query::uses(htp_ir::builder::detach(argument));
        let at = |op: OperationRef, first: usize| op.operand(first).is_ok_and(|v| same(v, b)) && op.operand(first + 1).is_ok_and(|v| same(v, i));
        let walked = uses.iter().all(|u| match op_name(*u).as_str() {
            "tile.load" => u.operand(0).is_ok_and(|v| same(v, argument)) && at(*u, 1),
            "tile.store" => u.operand(1).is_ok_and(|v| same(v, argument)) && at(*u, 2) && u.operand(0).is_ok_and(|v| !same(v, argument)),
            _ => false,
        });
        if !walked {
            return;
        }
        flattened.push((index, memref, shape, uses));
    }
    if flattened.is_empty() {
        return;
    }
    let padded = (rows + step - 1) / step * step;
    let location = inner.location();
    let index_type = Type::index(context);
    let constant = |value: i64| melior::dialect::arith::constant(context, melior::ir::attribute::IntegerAttribute::new(index_type, value).into(), location);
    // The loop over every batch's row blocks, before the batch loop.
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
    let new_loop = melior::dialect::scf::r#for(zero, end, by, region, location);
    body.insert_operation_before(outer, new_loop);
    // The batch loop's other ops, then the row loop's body, into the new loop.
    for block in [outer_body, inner.region(0).ok().and_then(|r| r.first_block()).expect("a loop body")] {
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            let name = op_name(current);
            if name != "scf.yield" && !(block == outer_body && current == inner) {
                unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), yield_op.to_raw()) };
            }
        }
    }
    unsafe {
        mlir_sys::mlirValueReplaceAllUsesOfWith(b.to_raw(), batch.to_raw());
        mlir_sys::mlirValueReplaceAllUsesOfWith(i.to_raw(), row.to_raw());
    }
    // Each 3-D tensor as `B x Np` rows; its loads and stores at row `r`.
    let mut recorded = Vec::new();
    for (index, memref, shape, uses) in flattened {
        let argument: Value = body.argument(index).expect("checked").into();
        let flat: Type = MemRefType::new(memref.element(), &[batches * padded, shape[2]], None, memref.memory_space()).into();
        unsafe { mlir_sys::mlirValueSetType(argument.to_raw(), flat.to_raw()) };
        for user in uses {
            let first = if op_name(user) == "tile.load" { 1 } else { 2 };
            let mut operands: Vec<mlir_sys::MlirValue> = (0..user.operand_count()).filter_map(|k| user.operand(k).ok()).map(|v| v.to_raw()).collect();
            // [.., b, i, column, ..] -> [.., r, column, ..]
            operands.splice(first..first + 2, [r.to_raw()]);
            unsafe { mlir_sys::mlirOperationSetOperands(user.to_raw(), operands.len() as isize, operands.as_ptr()) };
            if op_name(user) == "tile.load" {
                let valid = operands.len() as i32 - 3;
                let sizes = [1, 2, valid];
                let attribute = unsafe { mlir_sys::mlirDenseI32ArrayGet(context.to_raw(), 3, sizes.as_ptr()) };
                unsafe { mlir_sys::mlirOperationSetAttributeByName(user.to_raw(), melior::StringRef::new("operandSegmentSizes").to_raw(), attribute) };
            }
        }
        recorded.extend([index as i64, batches, rows]);
    }
    unsafe { mlir_sys::mlirOperationDestroy(outer.to_raw()) };
    let inputs: Vec<Type> = (0..body.argument_count()).filter_map(|k| body.argument(k).ok()).map(|a| a.r#type()).collect();
    let function_type = TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into());
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(kernel.to_raw(), melior::StringRef::new("function_type").to_raw(), function_type.to_raw());
        mlir_sys::mlirOperationSetAttributeByName(kernel.to_raw(), melior::StringRef::new(BATCHES_ATTRIBUTE).to_raw(), DenseI64ArrayAttribute::new(context, &recorded).to_raw());
    }
}

/// The batches of each flattened argument of `kernel`: `(index, B, N)`.
pub fn batches(kernel: OperationRef) -> Vec<(usize, i64, i64)> {
    let Some(attribute) = kernel.attribute(BATCHES_ATTRIBUTE).ok().and_then(|a| DenseI64ArrayAttribute::try_from(a).ok()) else { return Vec::new() };
    let values: Vec<i64> = (0..attribute.len()).filter_map(|k| attribute.element(k).ok()).collect();
    values.chunks_exact(3).map(|c| (c[0] as usize, c[1], c[2])).collect()
}
