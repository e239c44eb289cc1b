//! `tile-outline-parallel-chunks`: for every kernel whose outer loop has
//! independent iterations (`loop_independence`) and a distribution
//! (`htp.distribution`, from `tile-distribute-outer-loop`), adds the two
//! functions a parallel runtime needs to run chunks of that loop at once:
//!
//! - `@<k>__bounds(args..., %bounds: memref<3xindex>)` runs the code before
//!   the loop and stores the loop's lower bound, upper bound and step;
//! - `@<k>__chunk(args..., %begin: index, %end: index)` is the kernel with
//!   the loop running over `[begin, end)` only (`begin` a step-aligned
//!   iteration of the original loop).
//!
//! `@<k>` (the serial path) becomes the code before the loop and a call of
//! `@<k>__chunk` over the whole loop, and gains `htp.parallel_chunks`
//! naming the chunk function and the loop's `htp.distribution` (how the
//! runtime cuts it). Target-neutral: the
//! functions are tile IR, so any backend's lowering applies to them; the
//! CPU backend calls them from its thread pool.

use htp_ir::builder::{detach, Builder, Emitter};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{FlatSymbolRefAttribute, StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        r#type::{FunctionType, MemRefType},
        Attribute, BlockRef, Operation, OperationRef, RegionLike, Type, ValueLike,
    },
    Context,
};

use crate::loop_independence::independent_outer_loop;

/// The attribute naming a kernel's chunk function.
pub const ATTRIBUTE: &str = "htp.parallel_chunks";
/// Suffixes of the functions the pass adds.
pub const BOUNDS_SUFFIX: &str = "__bounds";
pub const CHUNK_SUFFIX: &str = "__chunk";

htp_pass::pass! {
    pub DEFINITION = Pass<"tile-outline-parallel-chunks", "builtin.module"> {
        summary: "Add <k>__bounds and <k>__chunk functions for kernels whose outer loop has independent iterations",
        dialects: [tile, memref],
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let body = module.region(0).map_err(|e| (module.location(), e.to_string()))?.first_block().ok_or((module.location(), "empty module".into()))?;
    let kernels = htp_ir::query::kernel_functions(module);
    for kernel in kernels {
        htp_pass::processing(kernel.location());
        outline(context, body, kernel);
    }
    Ok(())
}

fn outline<'c>(context: &'c Context, module: BlockRef<'c, '_>, kernel: OperationRef<'c, '_>) {
    let Some(entry) = kernel.region(0).ok().and_then(|r| r.first_block()) else { return };
    let Some(outer) = independent_outer_loop(entry) else { return };
    let Ok(distribution) = outer.attribute(crate::distribution::ATTRIBUTE) else { return };
    let position = position_in_block(entry, outer);
    let name = htp_ir::query::symbol_name(kernel).unwrap_or_default();
    let index = Type::index(context);

    let chunk = clone_as(kernel, &format!("{name}{CHUNK_SUFFIX}"));
    let (chunk_entry, chunk_loop) = loop_at(&chunk, position);
    let begin = chunk_entry.add_argument(index, kernel.location());
    let end = chunk_entry.add_argument(index, kernel.location());
    unsafe {
        mlir_sys::mlirOperationSetOperand(chunk_loop.to_raw(), 0, begin.to_raw());
        mlir_sys::mlirOperationSetOperand(chunk_loop.to_raw(), 1, end.to_raw());
    }
    append_inputs(context, &chunk, &[index, index]);

    let bounds = clone_as(kernel, &format!("{name}{BOUNDS_SUFFIX}"));
    let (bounds_entry, bounds_loop) = loop_at(&bounds, position);
    let memref = MemRefType::new(index, &[3], None, None).into();
    let out = detach(bounds_entry.add_argument(memref, kernel.location()));
    let at = Emitter { context, block: bounds_entry, anchor: bounds_loop, location: bounds_loop.location() };
    for slot in 0..3 {
        let value = detach(bounds_loop.operand(slot).expect("scf.for has bounds and a step"));
        let offset = at.index(slot as i64);
        at.op("memref.store", &[value, out, offset], &[], &[], vec![]);
    }
    unsafe { mlir_sys::mlirOperationDestroy(bounds_loop.to_raw()) };
    append_inputs(context, &bounds, &[memref]);

    let chunk_ref = module.insert_operation_after(kernel, chunk);
    module.insert_operation_after(chunk_ref, bounds);

    // The kernel itself (the serial path) calls the chunk over the whole
    // loop, so the loop body is compiled once, not twice.
    let mut call_operands: Vec<_> = (0..entry.argument_count()).map(|i| detach(entry.argument(i).expect("counted").into())).collect();
    call_operands.push(detach(outer.operand(0).expect("scf.for lower bound")));
    call_operands.push(detach(outer.operand(1).expect("scf.for upper bound")));
    let at = Emitter { context, block: entry, anchor: outer, location: outer.location() };
    let callee = FlatSymbolRefAttribute::new(context, &format!("{name}{CHUNK_SUFFIX}"));
    at.op("func.call", &call_operands, &[], &[("callee", callee.into())], vec![]);
    unsafe { mlir_sys::mlirOperationDestroy(outer.to_raw()) };

    let mut kernel = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    kernel.set_discardable_attribute(ATTRIBUTE, StringAttribute::new(context, &format!("{name}{CHUNK_SUFFIX}")).into());
    kernel.set_discardable_attribute(crate::distribution::ATTRIBUTE, distribution);
}

fn position_in_block(block: BlockRef, target: OperationRef) -> usize {
    let mut position = 0;
    let mut op = block.first_operation();
    while let Some(current) = op {
        if current.to_raw().ptr == target.to_raw().ptr {
            break;
        }
        position += 1;
        op = current.next_in_block();
    }
    position
}

/// A copy of `function` named `name`, no longer a kernel of its own.
fn clone_as<'c>(function: OperationRef<'c, '_>, name: &str) -> Operation<'c> {
    let mut clone = unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(function.to_raw())) };
    let context = function.context();
    let context = unsafe { context.to_ref() };
    clone.set_inherent_attribute("sym_name", StringAttribute::new(context, name).into());
    clone.remove_discardable_attribute("htp.kernel").ok();
    clone
}

/// The entry block of `function` and its op at `position` (the outer loop).
fn loop_at<'c, 'a>(function: &'a Operation<'c>, position: usize) -> (BlockRef<'c, 'a>, OperationRef<'c, 'a>) {
    let entry = function.region(0).expect("a function has a body").first_block().expect("with an entry block");
    let mut op = entry.first_operation().expect("the loop is in the entry block");
    for _ in 0..position {
        op = op.next_in_block().expect("the loop is in the entry block");
    }
    (entry, op)
}

/// Appends `extra` to the inputs of `function`'s `function_type`.
fn append_inputs<'c>(context: &'c Context, function: &Operation<'c>, extra: &[Type<'c>]) {
    let Ok(Ok(ty)) = function.attribute("function_type").map(TypeAttribute::try_from) else { return };
    let Ok(ty) = FunctionType::try_from(ty.value()) else { return };
    let mut inputs: Vec<Type> = (0..ty.input_count()).filter_map(|i| ty.input(i).ok()).collect();
    inputs.extend_from_slice(extra);
    let results: Vec<Type> = (0..ty.result_count()).filter_map(|i| ty.result(i).ok()).collect();
    let attribute: Attribute = TypeAttribute::new(FunctionType::new(context, &inputs, &results).into()).into();
    // Safe: `function` is not yet in a block; nothing else refers to it.
    let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
    function.set_inherent_attribute("function_type", attribute);
}
