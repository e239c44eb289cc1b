//! `aie-bound-ragged-buffers`: a buffer whose size is known only at run
//! time, but bounded by constants, becomes a buffer of the bound.
//!
//! A ragged tile (a block past the end of a dimension: `valid = ?x32`)
//! lowers on the cpu to tensors of its valid size, so bufferization makes
//! its temporaries `memref.alloc(%n) : memref<?x32xf32>` — heap buffers, and
//! a compute tile has no heap. The valid size is `min(rows left, 8)`: at most
//! the tile's static size. This pass allocates that many elements instead
//! (`memref.alloc() : memref<256xf32>`, a static buffer the next pass puts on
//! the core's stack) and views them with the dynamic shape through
//! `memref.reinterpret_cast` with row-major strides, so every user sees the
//! same identity-layout memref as before. A size with no bound it can see
//! (not a constant, a min/max/select/sum of them, or a dim of a buffer of
//! static or bounded size) is left as it was: the AIE lowering then reports
//! the heap buffer at the user's line.

use melior::{
    ir::{
        attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::{MemRefType, ShapedTypeLike, TypeLike},
        OperationRef, Type, Value, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-bound-ragged-buffers", "func.func"> {
        summary: "Allocate a dynamically sized buffer whose sizes have constant bounds at its bound, viewed with its dynamic shape (a core has no heap)",
        dialects: [memref, arith],
        run: run,
    }
}

/// MLIR's marker of a dynamic size or stride (`ShapedType::kDynamic`).
const DYNAMIC: i64 = i64::MIN;

use htp_ir::query::op_name;

/// The largest value the index `value` can take, if the ops defining it say.
pub fn upper_bound(value: Value, depth: u32) -> Option<i64> {
    if depth > 32 {
        return None;
    }
    let detached = htp_ir::builder::detach(value);
    if let Some(constant) = htp_ir::query::constant_int(detached) {
        return Some(constant);
    }
    let op = htp_ir::query::defining_op(detached)?;
    let operand = |i: usize| op.operand(i).ok().and_then(|v| upper_bound(v, depth + 1));
    match op_name(op).as_str() {
        // min(a, b) <= b, whatever a is.
        "arith.minsi" | "arith.minui" => match (operand(0), operand(1)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        "arith.maxsi" | "arith.maxui" => Some(operand(0)?.max(operand(1)?)),
        "arith.select" => Some(operand(1)?.max(operand(2)?)),
        "arith.addi" => operand(0)?.checked_add(operand(1)?),
        "arith.index_cast" => operand(0),
        "memref.dim" | "tensor.dim" => {
            let source = op.operand(0).ok()?;
            let index = htp_ir::query::constant_int(htp_ir::builder::detach(op.operand(1).ok()?))? as usize;
            dim_bound(source, index, depth + 1)
        }
        _ => None,
    }
}

/// The largest size dimension `index` of the buffer `value` can have.
fn dim_bound(value: Value, index: usize, depth: u32) -> Option<i64> {
    let shape = htp_ir::builder::shape_of(value.r#type());
    let static_size = *shape.get(index)?;
    if static_size >= 0 {
        return Some(static_size);
    }
    let op = htp_ir::query::defining_op(htp_ir::builder::detach(value))?;
    match op_name(op).as_str() {
        // The dynamic sizes in order, one operand each.
        "memref.alloc" | "memref.alloca" | "tensor.empty" => {
            let position = shape[..index].iter().filter(|&&d| d < 0).count();
            upper_bound(op.operand(position).ok()?, depth)
        }
        "memref.cast" | "tensor.cast" => dim_bound(op.operand(0).ok()?, index, depth + 1),
        // Its dynamic output sizes, one operand each after the source (a ragged row statistic
        // `[rows, 1]` expanded from `[rows]`).
        "memref.expand_shape" | "tensor.expand_shape" => {
            let sizes = DenseI64ArrayAttribute::try_from(op.attribute("static_output_shape").ok()?).ok()?;
            if sizes.len() != shape.len() {
                return None;
            }
            let position = (0..index).filter(|&i| sizes.element(i).is_ok_and(|d| d == DYNAMIC)).count();
            upper_bound(op.operand(1 + position).ok()?, depth)
        }
        // A view this pass made (or any): its dynamic sizes follow the source and the offsets.
        // (A rank-reducing subview's sizes are not its result's: not followed.)
        "memref.reinterpret_cast" | "memref.subview" => {
            let segments = DenseI32ArrayAttribute::try_from(op.attribute("operandSegmentSizes").ok()?).ok()?;
            let sizes = DenseI64ArrayAttribute::try_from(op.attribute("static_sizes").ok()?).ok()?;
            if sizes.len() != shape.len() {
                return None;
            }
            let position = (0..index).filter(|&i| sizes.element(i).is_ok_and(|d| d == DYNAMIC)).count();
            upper_bound(op.operand(1 + segments.element(1).ok()? as usize + position).ok()?, depth)
        }
        _ => None,
    }
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for alloc in htp_ir::query::ops_named(function, "memref.alloc") {
        htp_pass::processing(alloc.location());
        bound(context, alloc);
    }
    Ok(())
}

/// Rewrites one `memref.alloc` with dynamic sizes, if they are bounded.
fn bound<'c>(context: &'c Context, alloc: OperationRef<'c, 'c>) {
    let Ok(result) = alloc.result(0) else { return };
    let result: Value = result.into();
    let Ok(memref) = MemRefType::try_from(result.r#type()) else { return };
    let shape = htp_ir::builder::shape_of(memref.into());
    // Identity layouts only (what bufferization allocates); no symbol operands.
    let dynamic = shape.iter().filter(|&&d| d < 0).count();
    if dynamic == 0 || alloc.operand_count() != dynamic || !is_identity(memref) {
        return;
    }
    let sizes: Vec<Value> = (0..dynamic).map(|i| alloc.operand(i).expect("counted")).collect();
    let mut bounds = Vec::new();
    for &size in &sizes {
        match upper_bound(size, 0) {
            Some(b) if b > 0 => bounds.push(b),
            _ => return,
        }
    }
    let mut next = bounds.iter();
    let bounded: Vec<i64> = shape.iter().map(|&d| if d < 0 { *next.next().expect("one per dynamic size") } else { d }).collect();
    let Some(elements) = bounded.iter().try_fold(1i64, |n, &d| n.checked_mul(d)) else { return };
    let location = alloc.location();
    let block = alloc.block().expect("an op in a block");
    let element = memref.element();
    let flat_type: Type = MemRefType::new(element, &[elements], None, memref.memory_space()).into();
    let mut flat = OperationBuilder::new("memref.alloc", location)
        .add_attributes(&[(htp_ir::builder::named(context, "operandSegmentSizes"), DenseI32ArrayAttribute::new(context, &[0, 0]).into())])
        .add_results(&[flat_type]);
    if let Ok(alignment) = alloc.attribute("alignment") {
        flat = flat.add_attributes(&[(htp_ir::builder::named(context, "alignment"), alignment)]);
    }
    let flat = block.insert_operation_before(alloc, flat.build().expect("a valid memref.alloc"));
    let flat_value: Value = flat.result(0).expect("an alloc").into();
    // Row-major strides of the dynamic shape: static while every later size is.
    let index = Type::index(context);
    let constant = |value: i64| -> Value<'c, 'c> {
        let op = block.insert_operation_before(alloc, melior::dialect::arith::constant(context, IntegerAttribute::new(index, value).into(), location));
        unsafe { Value::from_raw(op.result(0).expect("a constant").to_raw()) }
    };
    let mut dynamic_sizes = sizes.iter();
    let size_values: Vec<Option<Value>> = shape.iter().map(|&d| if d < 0 { dynamic_sizes.next().copied() } else { None }).collect();
    let mut strides = vec![(1i64, None::<Value>); shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        let (inner, inner_value) = strides[k + 1];
        strides[k] = match (shape[k + 1], inner_value) {
            (d, None) if d >= 0 => (inner * d, None),
            _ => {
                let a = inner_value.unwrap_or_else(|| constant(inner));
                let b = size_values[k + 1].unwrap_or_else(|| constant(shape[k + 1]));
                let product = block.insert_operation_before(alloc, melior::dialect::arith::muli(a, b, location));
                (DYNAMIC, Some(unsafe { Value::from_raw(product.result(0).expect("a product").to_raw()) }))
            }
        };
    }
    let static_strides: Vec<i64> = strides.iter().map(|(s, v)| if v.is_some() { DYNAMIC } else { *s }).collect();
    let stride_values: Vec<Value> = strides.iter().filter_map(|(_, v)| *v).collect();
    let mut operands = vec![flat_value];
    operands.extend(sizes.iter().copied());
    operands.extend(stride_values.iter().copied());
    let view = OperationBuilder::new("memref.reinterpret_cast", location)
        .add_attributes(&[
            (htp_ir::builder::named(context, "operandSegmentSizes"), DenseI32ArrayAttribute::new(context, &[1, 0, sizes.len() as i32, stride_values.len() as i32]).into()),
            (htp_ir::builder::named(context, "static_offsets"), DenseI64ArrayAttribute::new(context, &[0]).into()),
            (htp_ir::builder::named(context, "static_sizes"), DenseI64ArrayAttribute::new(context, &shape).into()),
            (htp_ir::builder::named(context, "static_strides"), DenseI64ArrayAttribute::new(context, &static_strides).into()),
        ])
        .add_operands(&operands)
        .add_results(&[result.r#type()])
        .build()
        .expect("a valid memref.reinterpret_cast");
    let view = block.insert_operation_before(alloc, view);
    // A dealloc frees the buffer, not its view.
    for user in htp_ir::query::uses(htp_ir::builder::detach(result)) {
        if op_name(user) == "memref.dealloc" {
            unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), 0, flat_value.to_raw()) };
        }
    }
    unsafe {
        mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), view.result(0).expect("a view").to_raw());
        mlir_sys::mlirOperationDestroy(alloc.to_raw());
    }
}

/// Whether `memref` has the identity layout.
fn is_identity(memref: MemRefType) -> bool {
    unsafe { mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(memref.to_raw())) }
}
