//! A core process's loop body as the function its cores call once per
//! iteration, in tile IR (the AIE backend lowers it as it lowers a
//! kernel's block function):
//!
//! `func.func @<program>__<process>(objects..., wholes..., %ivs..., %replica)`
//!
//! one object (`memref<R x C>`) per channel operation of the body, in
//! order, then each tensor the process reads whole and each scalar it uses
//! (a `memref<1x1>`), then the loop nest's induction variables (outermost
//! first) and the replica's index. A receive becomes a load of its object, a consume its body with
//! the object's tile as the slot, a send a store into its object; the
//! process's code before its loop runs first (recomputed each iteration:
//! constants, and loads of what it reads whole).

use std::collections::HashMap;

use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_ir::query::key;
use htp_model_csp::ir::name_of;
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{DenseI32ArrayAttribute, StringAttribute},
        block::BlockLike,
        operation::OperationLike,
        BlockRef, Location, OperationRef, RegionLike, Type, ValueLike,
    },
    Context,
};

use crate::plan::{Argument, CoreProcess, Plan};

/// The parameter types of `process`'s block function (MLIR syntax).
pub fn parameter_types(plan: &Plan, process: &CoreProcess) -> Vec<String> {
    let mut types: Vec<String> = process.operations.iter().map(|o| plan.channels[o.channel].object_type()).collect();
    types.extend(process.wholes.iter().map(|&a| plan.arguments[a].object_type()));
    types.extend(process.nest.loops.iter().map(|_| "index".to_string()));
    types.push("index".into());
    types
}

/// Builds `@symbol` for `process` before `program`, moving the process's
/// ops into it. Returns the function.
pub fn outline<'c>(context: &'c Context, program: OperationRef<'c, 'c>, plan: &Plan<'c>, process: &CoreProcess<'c>, symbol: &str) -> Result<OperationRef<'c, 'c>, Failure<'c>> {
    let location = process.op.location();
    let fail = |e: String| (location, e);
    let program_body = program.region(0).ok().and_then(|r| r.first_block()).ok_or(fail("a program without a body".into()))?;
    let program_body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(program_body.to_raw()) };
    let types: Vec<Type<'c>> = parameter_types(plan, process).iter().map(|t| htp_ir::builder::parse_type(context, t)).collect();
    let arguments: Vec<(Type<'c>, Location<'c>)> = types.iter().map(|t| (*t, location)).collect();
    let marker = ("sym_visibility", StringAttribute::new(context, "private").into());
    let (function, entry) = htp_ir::builder::function(context, location, symbol, &arguments, marker);
    let function = program.block().ok_or(fail("a program outside a module".into()))?.insert_operation_before(program, function);
    let function = unsafe { OperationRef::<'c, 'c>::from_raw(function.to_raw()) };
    let ret = entry.append_operation(melior::ir::operation::OperationBuilder::new("func.return", location).build().map_err(|e| fail(e.to_string()))?);
    let ret = unsafe { OperationRef::<'c, 'c>::from_raw(ret.to_raw()) };
    let parameter = |i: usize| entry.argument(i).map(|a| detach(a.into())).map_err(|e| fail(e.to_string()));
    let operations = process.operations.len();
    let wholes = process.wholes.len();

    // The process's code before its loop nest, the scalar code of each
    // loop around the innermost, then the innermost loop's body.
    let process_body = process.op.region(0).ok().and_then(|r| r.first_block()).ok_or(fail("a process without a body".into()))?;
    let move_all_but = |block: BlockRef<'c, 'c>, skip: Option<OperationRef<'c, 'c>>| {
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            let skipped = skip.is_some_and(|s| s.to_raw().ptr == current.to_raw().ptr);
            if !skipped && !matches!(name_of(current).as_str(), "csp.yield" | "scf.yield") {
                unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), ret.to_raw()) };
            }
        }
    };
    let loops = &process.nest.loops;
    move_all_but(unsafe { BlockRef::from_raw(process_body.to_raw()) }, Some(loops[0]));
    for (depth, the_loop) in loops.iter().enumerate() {
        let body = the_loop.region(0).ok().and_then(|r| r.first_block()).ok_or(fail("a loop without a body".into()))?;
        move_all_but(unsafe { BlockRef::from_raw(body.to_raw()) }, loops.get(depth + 1).copied());
    }
    let levels = loops.len();
    for (depth, iv) in process.nest.ivs.iter().enumerate() {
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(iv.to_raw(), parameter(operations + wholes + depth)?.to_raw()) };
    }
    if let Ok(replica) = process_body.argument(0) {
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(replica.to_raw(), parameter(operations + wholes + levels)?.to_raw()) };
    }

    // What the function reads whole: tensors as their objects, scalars loaded from theirs.
    let first = entry.first_operation().map(|o| unsafe { OperationRef::<'c, 'c>::from_raw(o.to_raw()) }).unwrap_or(ret);
    let top = Emitter { context, block: entry, anchor: first, location };
    let zero = top.index(0);
    let mut setup = vec![htp_ir::query::defining_op(zero).ok_or(fail("a constant without its op".into()))?];
    let mut mapped: HashMap<usize, V<'c>> = HashMap::new();
    for (k, &argument) in process.wholes.iter().enumerate() {
        let program_argument = program_body.argument(argument).map_err(|e| fail(e.to_string()))?;
        let object = parameter(operations + k)?;
        let value = match &plan.arguments[argument] {
            Argument::Tensor { .. } => object,
            Argument::Scalar { .. } => {
                let load = top.op("memref.load", &[object, zero, zero], &[program_argument.r#type()], &[], vec![]);
                setup.push(load);
                load.result(0).map(|r| detach(r.into())).map_err(|e| fail(e.to_string()))?
            }
        };
        mapped.insert(key(program_argument.into()), value);
    }
    htp_model_csp::outline::import_program_values(program_body, function, entry, mapped)?;
    // The constant and the scalar loads first: the imported code may use them.
    let mut anchor = entry.first_operation().map(|o| unsafe { OperationRef::<'c, 'c>::from_raw(o.to_raw()) }).unwrap_or(ret);
    for op in setup.into_iter().rev() {
        if op.to_raw().ptr != anchor.to_raw().ptr {
            unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), anchor.to_raw()) };
        }
        anchor = op;
    }

    // The channel operations → loads and stores of their objects.
    for (k, operation) in process.operations.iter().enumerate() {
        let op = operation.op;
        let object = parameter(k)?;
        let block = op.block().ok_or(fail("a channel operation outside a block".into()))?;
        let at = Emitter { context, block, anchor: op, location: op.location() };
        if operation.implicit.is_some() {
            // A streamed block: the same load or store, of its object at row 0.
            let (memory, first_index) = if operation.sends { (1, 2) } else { (0, 1) };
            unsafe {
                mlir_sys::mlirOperationSetOperand(op.to_raw(), memory, object.to_raw());
                mlir_sys::mlirOperationSetOperand(op.to_raw(), first_index, zero.to_raw());
                mlir_sys::mlirOperationSetOperand(op.to_raw(), first_index + 1, zero.to_raw());
            }
            continue;
        }
        let channel = &plan.channels[operation.channel];
        let tile_type = htp_model_csp::ir::ChannelType::of(channel.value.r#type()).map(|t| t.element()).ok_or(fail("a channel without its type".into()))?;
        let load = || {
            let segments = DenseI32ArrayAttribute::new(context, &[1, 2, 0]).into();
            at.value_with("tile.load", &[object, zero, zero], tile_type, &[("operandSegmentSizes", segments)])
        };
        match name_of(op).as_str() {
            "csp.recv" => {
                let tile = load();
                if let Ok(result) = op.result(0) {
                    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), tile.to_raw()) };
                }
            }
            "csp.consume" => {
                let tile = load();
                htp_model_csp::outline::inline_consume(op, tile, Ok)?;
            }
            _ => {
                let value = op.operand(op.operand_count() - 1).map(detach).map_err(|e| fail(e.to_string()))?;
                at.op("tile.store", &[value, object, zero, zero], &[], &[], vec![]);
            }
        }
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    Ok(function)
}
