//! `rsample-square-to-mul`: every `tile.intrinsic "rsample.square"(%t)`
//! becomes `tile.mul %t, %t` at the intrinsic's location.

use htp_dialects::ods::{tile, view};
use htp_pass::Failure;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, OperationRef, ValueLike},
    Context,
};

/// The `tile.intrinsic` callee of `rsample.square`.
pub const SQUARE: &str = "rsample.square";

htp_pass::pass! {
    pub DEFINITION = Pass<"rsample-square-to-mul", "builtin.module"> {
        summary: "Rewrite tile.intrinsic \"rsample.square\"(t) into tile.mul(t, t) (the out-of-tree Rust sample)",
        dialects: [tile],
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let squares = htp_ir::query::ops_named_where(module, "tile.intrinsic", |op| {
        view::<tile::IntrinsicOperation>(op).and_then(|i| i.callee().ok()).is_some_and(|callee| callee.value() == SQUARE)
    });
    for op in squares {
        htp_pass::processing(op.location());
        if op.operand_count() != 1 {
            return Err((op.location(), format!("{SQUARE} takes one tile, got {} operands", op.operand_count())).into());
        }
        let input = op.operand(0).expect("one operand");
        let old = op.result(0).expect("tile.intrinsic has a result");
        let mul = tile::MulOperationBuilder::new(context, op.location()).lhs(input).rhs(input).result(old.r#type()).build();
        let block = op.block().expect("an op in a block");
        let mul = block.insert_operation_before(op, mul.into());
        let new = mul.result(0).expect("tile.mul has a result");
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw());
            mlir_sys::mlirOperationDestroy(op.to_raw());
        }
    }
    Ok(())
}
