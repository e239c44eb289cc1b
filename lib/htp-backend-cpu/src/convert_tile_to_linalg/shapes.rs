//! Lowering of the shape ops: `tile.slice` and `tile.concat` are a
//! `tensor.generate` reading each element of the result from its input
//! (`tensor.extract`; a concat's element from the input whose part holds
//! it), `tile.reshape` a `tensor.collapse_shape` to one dimension and a
//! `tensor.expand_shape` to the new shape (row-major, as numpy's reshape).
//!
//! Not `tensor.extract_slice` / `insert_slice`: canonicalization erases
//! an identity copy of a slice, and bufferization then copies a strided
//! view with `memref.copy`, which lowers to a call of the runtime library's
//! `memrefCopy` that the AIE cores' code (these passes lower their blocks)
//! cannot make. A generate is a loop nest of loads and a store.
//!
//! A tile is the tensor of its valid region, so a ragged tile is a tensor
//! with a dynamic size: a slice takes such a dimension whole and a concat
//! keeps it along the other axis (the verifiers' rules), so the dynamic
//! sizes are the inputs' (`tensor.dim`).

use melior::ir::{operation::OperationLike, OperationRef, Type, ValueLike};

use htp_dialects::tile::TileType;
use htp_ir::builder::{element_of, shape_of, tensor_type, Builder, Emitter, DYNAMIC, V};

use super::compute::{operand, run_time_sizes};
use super::tensor_type_of;

fn result_tile<'c>(op: OperationRef<'c, '_>) -> Result<TileType<'c>, String> {
    let result = op.result(0).map_err(|e| e.to_string())?;
    TileType::try_from(result.r#type()).map_err(|_| "a shape op of no tile".to_string())
}

/// tile.slice %t [R0, C0] strides [SR, SC]: element `[r, c]` is
/// `input[R0 + r * SR, C0 + c * SC]`.
pub fn slice<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<V<'c>, String> {
    let input = operand(op, 0);
    let result = tensor_type_of(result_tile(op)?);
    let offsets = melior::ir::attribute::DenseI64ArrayAttribute::try_from(op.attribute("offsets").map_err(|e| e.to_string())?)
        .map_err(|_| "tile.slice offsets")?;
    let offsets = [offsets.element(0).map_err(|e| e.to_string())?, offsets.element(1).map_err(|e| e.to_string())?];
    let strides = htp_dialects::tile::access_strides(op);
    // verifier: a `?` valid size is taken whole, so it is the input's.
    let run_time = run_time_sizes(e, input);
    let dynamic = e.dynamic_sizes(result, &run_time);
    let element = element_of(result);
    let index = Type::index(e.context);
    Ok(e.generate(result, &dynamic, |b, at| {
        let position: Vec<V> = (0..2)
            .map(|d| {
                let scaled = if strides[d] == 1 { at[d] } else { b.value("arith.muli", &[at[d], b.index(strides[d])], index) };
                if offsets[d] == 0 { scaled } else { b.value("arith.addi", &[scaled, b.index(offsets[d])], index) }
            })
            .collect();
        b.value("tensor.extract", &[input, position[0], position[1]], element)
    }))
}

/// tile.concat %a, %b, ... axis A: element `[r, c]` from the input whose
/// part along A holds it (each input read at its own clamped position,
/// the right one selected: no branch in the loop nest).
pub fn concat<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<V<'c>, String> {
    let axis = melior::ir::attribute::IntegerAttribute::try_from(op.attribute("axis").map_err(|e| e.to_string())?)
        .map_err(|_| "tile.concat axis")?
        .value() as usize;
    let other = 1 - axis;
    let result = tensor_type_of(result_tile(op)?);
    let inputs: Vec<V> = (0..op.operand_count()).map(|i| operand(op, i)).collect();
    let first = *inputs.first().ok_or("a tile.concat of nothing")?;
    let mut sizes: Vec<Option<V>> = vec![None, None];
    sizes[other] = run_time_sizes(e, first)[other];
    let dynamic = e.dynamic_sizes(result, &sizes);
    // verifier: along the axis every input is fully valid, so static.
    let extents: Vec<i64> = inputs.iter().map(|input| shape_of(input.r#type())[axis]).collect();
    if extents.contains(&DYNAMIC) {
        return Err("tile.concat of a tile ragged along its axis".into());
    }
    let element = element_of(result);
    let index = Type::index(e.context);
    let i1 = Type::from(melior::ir::r#type::IntegerType::new(e.context, 1));
    let i64_type = Type::from(melior::ir::r#type::IntegerType::new(e.context, 64));
    Ok(e.generate(result, &dynamic, |b, at| {
        let along = at[axis];
        let mut value: Option<V> = None;
        let mut end = extents.iter().sum::<i64>();
        for (input, &extent) in inputs.iter().zip(&extents).rev() {
            let start = end - extent;
            // The position in this input, clamped into it.
            let local = if start == 0 { along } else { b.value("arith.subi", &[along, b.index(start)], index) };
            let local = b.value("arith.maxsi", &[b.value("arith.minsi", &[local, b.index(extent - 1)], index), b.index(0)], index);
            let mut position = [at[0], at[1]];
            position[axis] = local;
            let read = b.value("tensor.extract", &[*input, position[0], position[1]], element);
            value = Some(match value {
                None => read,
                Some(later) => {
                    // arith.cmpi predicate 2 = slt.
                    let predicate = melior::ir::attribute::IntegerAttribute::new(i64_type, 2).into();
                    let here = b.value_with("arith.cmpi", &[along, b.index(end)], i1, &[("predicate", predicate)]);
                    b.value("arith.select", &[here, read, later], element)
                }
            });
            end = start;
        }
        value.expect("a concat has an input")
    }))
}

/// tile.reshape: both tiles are fully valid (static tensors); the elements
/// flattened row by row and regrouped.
pub fn reshape<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<V<'c>, String> {
    let input = operand(op, 0);
    let result = tensor_type_of(result_tile(op)?);
    let shape = shape_of(input.r#type());
    if shape.contains(&DYNAMIC) {
        return Err("tile.reshape of a tile with a run-time valid size".into());
    }
    let flat = tensor_type(&[shape[0] * shape[1]], element_of(result));
    let reassociation = htp_ir::builder::parse_attribute(e.context, "[[0, 1]]");
    let collapsed = e.value_with("tensor.collapse_shape", &[input], flat, &[("reassociation", reassociation)]);
    let output = shape_of(result);
    Ok(e.value_with(
        "tensor.expand_shape",
        &[collapsed],
        result,
        &[("reassociation", reassociation), ("static_output_shape", e.i64_array(&output))],
    ))
}
