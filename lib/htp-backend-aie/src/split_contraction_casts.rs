//! `aie-split-contraction-casts`: a matmul whose input is narrowed in its
//! body (`htp.cast(p, bf16) @ v`: MLIR's elementwise fusion moves the cast
//! into the contraction, `arith.truncf` of the f32 element, then widened for
//! the product) gets the cast back as an elementwise `linalg.generic` into a
//! tensor of the narrow type, and reads that. The contraction then takes
//! two inputs of one MAC type (bf16 x bf16 into f32), which the vector unit
//! multiplies (`aie-vectorize-cores`), and the cast is a vector op of its own
//! (f32 → bf16 on 16 lanes); fused, the whole matmul stayed scalar. The
//! numbers are the same: the products read the rounded values either way.

use htp_ir::builder::{Builder, Emitter};
use melior::{
    ir::{block::BlockLike, operation::OperationLike, r#type::RankedTensorType, OperationRef, RegionLike, Type, TypeLike, ValueLike},
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-split-contraction-casts", "func.func"> {
        summary: "Move a narrowing cast of a matmul's input out of its body into an elementwise linalg.generic, so the matmul reads inputs of one MAC type",
        dialects: [linalg, tensor, arith],
        run: run,
    }
}

/// Input `index` of `generic` when its body only narrows it (one
/// `arith.truncf`/`arith.trunci` whose result is all the body reads of it):
/// that op.
fn narrowing<'c>(generic: OperationRef<'c, '_>, index: usize) -> Option<OperationRef<'c, 'c>> {
    let body = generic.region(0).ok()?.first_block()?;
    let argument = htp_ir::builder::detach(body.argument(index).ok()?.into());
    let [cast] = htp_ir::query::uses(argument)[..] else { return None };
    matches!(htp_ir::query::op_name(cast).as_str(), "arith.truncf" | "arith.trunci").then_some(cast)
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for generic in htp_ir::query::ops_named(function, "linalg.generic") {
        // A contraction on tensors: two inputs, one init, one reduction loop of three.
        let Some(reductions) = crate::vectorize_cores::reduction_loops(generic) else { continue };
        if generic.operand_count() != 3 || generic.result_count() != 1 || reductions.len() != 3 || reductions.iter().filter(|&&r| r).count() != 1 {
            continue;
        }
        let casts = [narrowing(generic, 0), narrowing(generic, 1)];
        let narrow = |i: usize| -> Option<Type<'c>> {
            match casts[i] {
                Some(cast) => htp_ir::query::result_at(cast, 0).map(|r| r.r#type()),
                None => htp_ir::query::operand_at(generic, i).map(|v| htp_ir::builder::element_of(v.r#type())),
            }
        };
        // Only where the split leaves both inputs of one type (what a MAC takes).
        if casts.iter().all(Option::is_none) || narrow(0).is_none() || narrow(0) != narrow(1) {
            continue;
        }
        htp_pass::processing(generic.location());
        let block = generic.block().expect("an op in a block");
        let emitter = Emitter { context, block, anchor: generic, location: generic.location() };
        for (index, cast) in casts.iter().enumerate() {
            let (Some(cast), Some(input), Some(narrow)) = (cast, htp_ir::query::operand_at(generic, index), narrow(index)) else { continue };
            if RankedTensorType::try_from(input.r#type()).is_err() {
                continue;
            }
            let shape = htp_ir::builder::shape_of(input.r#type());
            if shape.iter().any(|&d| d < 0) {
                continue; // a ragged block's tensor: sized at run time
            }
            let narrowed = Type::from(RankedTensorType::new(&shape.iter().map(|&d| d as u64).collect::<Vec<_>>(), narrow, None));
            let empty = emitter.value("tensor.empty", &[], narrowed);
            let dims: Vec<String> = (0..shape.len()).map(|d| format!("d{d}")).collect();
            let identity = htp_ir::builder::parse_attribute(context, &format!("affine_map<({0}) -> ({0})>", dims.join(", ")));
            let cast_name = htp_ir::query::op_name(*cast);
            let split = emitter.generic(&[input], empty, &[identity, identity], &vec!["parallel"; shape.len()], |body, arguments| body.value(&cast_name, &[arguments[0]], narrow));
            let argument = generic.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.argument(index).ok()).expect("the input's block argument");
            let cast_result = htp_ir::query::result_at(*cast, 0).expect("a cast's result");
            unsafe {
                mlir_sys::mlirOperationSetOperand(generic.to_raw(), index as isize, split.to_raw());
                mlir_sys::mlirValueSetType(argument.to_raw(), narrow.to_raw());
                mlir_sys::mlirValueReplaceAllUsesOfWith(cast_result.to_raw(), argument.to_raw());
                mlir_sys::mlirOperationDestroy(cast.to_raw());
            }
        }
    }
    Ok(())
}
