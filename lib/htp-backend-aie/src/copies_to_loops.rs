//! `aie-copies-to-loops`: a `memref.copy` between buffers that are not both
//! contiguous becomes loops of loads and stores.
//!
//! MLIR lowers such a copy (a ragged block's rows, a column window of a
//! tile) to a call of `memrefCopy` in its C runner library; a compute tile
//! has no such library (nor does aie-sim's JIT, which calls what the core
//! would). A copy between identity-layout buffers stays: it lowers to
//! `llvm.memcpy`.

use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::OperationLike,
        r#type::{MemRefType, TypeLike},
        Block, BlockRef, OperationRef, Region, RegionLike, Type, Value, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-copies-to-loops", "func.func"> {
        summary: "Rewrite memref.copy between non-contiguous buffers into scf loops of loads and stores (a core has no memrefCopy)",
        dialects: [memref, arith, scf],
        run: run,
    }
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for copy in htp_ir::query::ops_named(function, "memref.copy") {
        htp_pass::processing(copy.location());
        let (Ok(source), Ok(target)) = (copy.operand(0), copy.operand(1)) else { continue };
        let identity = |v: Value| MemRefType::try_from(v.r#type()).is_ok_and(|m| unsafe { mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(m.to_raw())) });
        if identity(source) && identity(target) {
            continue;
        }
        let rank = htp_ir::builder::shape_of(source.r#type()).len();
        let block = copy.block().expect("an op in a block");
        let location = copy.location();
        let index = Type::index(context);
        let constant = |block: BlockRef<'c, '_>, before: OperationRef<'c, '_>, value: i64| -> Value<'c, 'c> {
            let op = block.insert_operation_before(before, melior::dialect::arith::constant(context, IntegerAttribute::new(index, value).into(), location));
            unsafe { Value::from_raw(op.result(0).expect("a constant").to_raw()) }
        };
        let zero = constant(block, copy, 0);
        let one = constant(block, copy, 1);
        // The loop bounds: the source's sizes (a copy's operands have the same shape).
        let mut sizes = Vec::new();
        for dim in 0..rank {
            let k = constant(block, copy, dim as i64);
            let op = block.insert_operation_before(copy, melior::dialect::memref::dim(source, k, location));
            sizes.push(unsafe { Value::from_raw(op.result(0).expect("a dim").to_raw()) });
        }
        // Nested loops, outermost first; the innermost body loads and stores.
        let mut ivs: Vec<Value<'c, 'c>> = Vec::new();
        let mut at: (BlockRef<'c, 'c>, OperationRef<'c, 'c>) = unsafe { (BlockRef::from_raw(block.to_raw()), OperationRef::from_raw(copy.to_raw())) };
        for size in &sizes {
            let body = Block::new(&[(index, location)]);
            let region = Region::new();
            let body = region.append_block(body);
            let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
            let terminator = body.append_operation(melior::dialect::scf::r#yield(&[], location));
            ivs.push(body.argument(0).expect("the induction variable").into());
            let the_loop = melior::dialect::scf::r#for(zero, *size, one, region, location);
            at.0.insert_operation_before(at.1, the_loop);
            at = (body, unsafe { OperationRef::from_raw(terminator.to_raw()) });
        }
        let load = at.0.insert_operation_before(at.1, melior::dialect::memref::load(source, &ivs, location));
        let value: Value = load.result(0).expect("a load").into();
        at.0.insert_operation_before(at.1, melior::dialect::memref::store(value, target, &ivs, location));
        unsafe { mlir_sys::mlirOperationDestroy(copy.to_raw()) };
    }
    Ok(())
}
