//! `convert-tile-to-linalg`: lowers the `tile` dialect to tensors, `linalg`,
//! `tensor`, `memref`, `bufferization`, `arith` and `math`, the form MLIR's
//! bufferization and LLVM lowering take from there (the CPU target's
//! pipeline, `lib/htp-backend-cpu`).
//!
//! A tile becomes a tensor shaped like its valid region:
//! `!tile.tile<16x256xf32, valid = ?x256>` -> `tensor<?x256xf32>`. The
//! physical tile shape matters for on-chip placement, which a CPU does not
//! have; what the program computes is exactly the valid region, so run-time
//! valid sizes become dynamic tensor dims and masking is free.
//!
//! The pass first retypes every tile-typed value that no tile op defines
//! (block arguments such as loop-carried tiles, results of `scf` ops, function
//! signatures), then replaces each tile op, in program order, by upstream
//! ops built right before it.

mod compute;

mod memory;
mod scalar;
mod selection;
mod shapes;
mod snapshot;

use htp_dialects::tile::{TileType, ValidSize};
use melior::{
    ir::{
        attribute::TypeAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        r#type::FunctionType,
        BlockRef, Location, OperationRef, RegionLike, Type, TypeLike, ValueLike,
    },
    Context,
};
use mlir_sys::MlirOperation;

use htp_ir::builder::{detach, tensor_type, Emitter, DYNAMIC, V};

htp_pass::pass! {
    pub DEFINITION = Pass<"convert-tile-to-linalg", "builtin.module"> {
        summary: "Lower tile ops to tensors with linalg, tensor, memref and bufferization ops",
        dialects: [tile, arith, linalg, tensor, memref, math, bufferization],
        run: convert_module,
    }
}


/// The tensor a tile lowers to: its valid region.
pub(crate) fn tensor_type_of(tile: TileType) -> Type {
    let size = |dim| match tile.valid_size(dim) {
        ValidSize::Static(size) => size,
        ValidSize::Dynamic => DYNAMIC,
    };
    tensor_type(&[size(0), size(1)], tile.element_type())
}

/// The lowered form of a type: tiles become tensors, other types stay.
fn lowered<'c>(ty: Type<'c>) -> Type<'c> {
    TileType::try_from(ty).map(tensor_type_of).unwrap_or(ty)
}

/// A tile op and the types its operands had before anything was rewritten.
struct TileOp {
    op: MlirOperation,
    operand_types: Vec<mlir_sys::MlirType>,
}

fn convert_module<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), (Location<'c>, String)> {
    let mut tile_ops = Vec::new();
    let mut others = Vec::new();
    module.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str().is_ok_and(|n| n.starts_with("tile.")) {
            let operand_types = op.operands().map(|v| v.r#type().to_raw()).collect();
            tile_ops.push(TileOp { op: op.to_raw(), operand_types });
        } else {
            others.push(op.to_raw());
        }
        melior::ir::operation::WalkResult::Advance
    });

    for &raw in &others {
        retype_structure(context, unsafe { OperationRef::from_raw(raw) });
    }
    for tile_op in &tile_ops {
        let op = unsafe { OperationRef::from_raw(tile_op.op) };
        htp_pass::processing(op.location());
        let replacements = lower(context, op, tile_op).map_err(|message| (op.location(), message))?;
        // Result-less ops (stores) are not asked for a result: melior builds
        // that error by printing the op, which made this loop quadratic.
        for (index, new) in replacements.into_iter().enumerate().take(op.result_count()) {
            let old = op.result(index).expect("counted above");
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
        }
        unsafe { mlir_sys::mlirOperationDestroy(tile_op.op) };
    }
    Ok(())
}

/// Retypes tile-typed values that no tile op defines: results of non-tile
/// ops, block arguments, and function signatures.
fn retype_structure<'c>(context: &'c Context, op: OperationRef<'c, '_>) {
    for result in op.results() {
        result.set_type(lowered(result.r#type()));
    }
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            for argument in (0..current.argument_count()).filter_map(|index| current.argument(index).ok()) {
                argument.set_type(lowered(argument.r#type()));
            }
            block = current.next_in_region();
        }
    }
    if let Ok(attribute) = op.attribute("function_type") {
        if let Ok(type_attribute) = TypeAttribute::try_from(attribute) {
            if let Ok(function) = FunctionType::try_from(type_attribute.value()) {
                let inputs: Vec<Type> = (0..function.input_count()).filter_map(|i| function.input(i).ok()).map(lowered).collect();
                let results: Vec<Type> = (0..function.result_count()).filter_map(|i| function.result(i).ok()).map(lowered).collect();
                let new_type = FunctionType::new(context, &inputs, &results);
                let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
                op.set_inherent_attribute("function_type", TypeAttribute::new(new_type.into()).into());
            }
        }
    }
}

/// The tile op kinds (`htp_dialects::ods::TileOp`).
use htp_dialects::ods::TileOp as Kind;

/// The values replacing `op`'s results, in order (none for a store).
fn lower<'c>(context: &'c Context, op: OperationRef<'c, '_>, tile_op: &TileOp) -> Result<Vec<V<'c>>, String> {
    let block: BlockRef = op.block().ok_or("tile op outside a block")?;
    let e = Emitter { context, block, anchor: op, location: op.location() };
    let Some(kind) = Kind::of(op) else {
        let name = op.name().as_string_ref().as_str().unwrap_or("?").to_string();
        return Err(format!("convert-tile-to-linalg does not know how to lower '{name}'"));
    };
    let value = match kind {
        Kind::Load => memory::load(&e, op)?,
        Kind::Store => return Ok(memory::store(&e, op)?.into_iter().map(detach).collect()),
        Kind::Gather => memory::gather(&e, op)?,
        Kind::Scatter => {
            memory::scatter(&e, op)?;
            return Ok(vec![]);
        }
        Kind::Add | Kind::Sub | Kind::Mul | Kind::Div | Kind::Max | Kind::Min => compute::binary(&e, op, kind.mnemonic()),
        Kind::Exp | Kind::Log | Kind::Sqrt | Kind::Rsqrt | Kind::Recip | Kind::Abs | Kind::Neg | Kind::Relu => compute::unary(&e, op, kind.mnemonic()),
        Kind::Cmp => compute::compare(&e, op),
        Kind::Select => compute::select(&e, op),
        Kind::Cast => compute::cast(&e, op),
        Kind::RowReduce => compute::reduce(&e, op, 1),
        Kind::ColReduce => compute::reduce(&e, op, 0),
        Kind::RowArgReduce => selection::row_arg_reduce(&e, op),
        Kind::Sort => {
            let (values, indices) = selection::sort(&e, op);
            return Ok(vec![detach(values), detach(indices)]);
        }
        Kind::Take => selection::take(&e, op),
        Kind::Put => selection::put(&e, op),
        Kind::Broadcast => {
            let original = unsafe { Type::from_raw(tile_op.operand_types[0]) };
            let input = TileType::try_from(original).map_err(|_| "broadcast of a non-tile")?;
            compute::broadcast(&e, op, input)
        }
        Kind::Transpose => compute::transpose(&e, op),
        Kind::Slice => shapes::slice(&e, op)?,
        Kind::Concat => shapes::concat(&e, op)?,
        Kind::Reshape => shapes::reshape(&e, op)?,
        // A layout does not change a CPU tile's value (a tensor).
        Kind::Relayout => compute::operand(op, 0),
        Kind::Pad => compute::pad(&e, op),
        Kind::SetValid => compute::set_valid(&e, op),
        Kind::Matmul => compute::matmul(&e, op),
        Kind::Constant => compute::constant(&e, op),
        Kind::Fill => compute::fill(&e, op),
        Kind::Iota => compute::iota(&e, op),
        // Intrinsics are lowered by the targets that provide them.
        Kind::Intrinsic | Kind::IntrinsicEffect => return Err(format!("convert-tile-to-linalg does not lower '{}'", kind.name())),
    };
    Ok(vec![detach(value)])
}
