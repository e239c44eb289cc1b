//! `aie-split-reduction-accumulators`: `vector.reduction <kind>, %v, %acc`
//! becomes `vector.reduction <kind>, %v` combined with `%acc` by the scalar
//! op of its kind. A row reduction vectorized in steps carries its running
//! value as the accumulator operand; mlir-aie's aievec conversion (at the
//! pinned commit) combines that operand with a float compare whatever the
//! element type, which does not verify for integers (D83). The split form
//! lowers for every type the vector unit reduces.

use melior::{
    ir::{block::BlockLike, operation::OperationBuilder, operation::OperationLike, OperationRef, ValueLike},
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-split-reduction-accumulators", "func.func"> {
        summary: "Split a vector.reduction's accumulator operand into a scalar op after it (mlir-aie's aievec path mishandles it for integers)",
        dialects: [vector, arith],
        run: run,
    }
}

/// The scalar op combining two values of a reduction of `kind`.
fn combining_op(kind: &str, float: bool) -> Option<&'static str> {
    Some(match (kind, float) {
        ("add", true) => "arith.addf",
        ("add", false) => "arith.addi",
        ("mul", true) => "arith.mulf",
        ("mul", false) => "arith.muli",
        ("maximumf", true) => "arith.maximumf",
        ("minimumf", true) => "arith.minimumf",
        ("maxnumf", true) => "arith.maxnumf",
        ("minnumf", true) => "arith.minnumf",
        ("maxsi", false) => "arith.maxsi",
        ("minsi", false) => "arith.minsi",
        ("maxui", false) => "arith.maxui",
        ("minui", false) => "arith.minui",
        _ => return None,
    })
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for reduction in htp_ir::query::ops_named(function, "vector.reduction") {
        let (Some(vector), Some(accumulator), Some(result)) = (htp_ir::query::operand_at(reduction, 0), htp_ir::query::operand_at(reduction, 1), htp_ir::query::result_at(reduction, 0)) else {
            continue; // no accumulator
        };
        let Ok(kind) = reduction.attribute("kind") else { continue };
        // `#vector.kind<maxsi>` → `maxsi`.
        let kind_text = kind.to_string();
        let name = kind_text.trim_start_matches("#vector.kind<").trim_end_matches('>');
        let Some(combine) = combining_op(name, htp_ir::builder::is_float(result.r#type())) else { continue };
        let location = reduction.location();
        let block = reduction.block().expect("an op in a block");
        let whole = OperationBuilder::new("vector.reduction", location).add_operands(&[vector]).add_attributes(&[(htp_ir::builder::named(context, "kind"), kind)]).add_results(&[result.r#type()]).build().expect("a reduction");
        let whole = block.insert_operation_before(reduction, whole);
        let whole_value = whole.result(0).expect("a result");
        let combined = OperationBuilder::new(combine, location).add_operands(&[whole_value.into(), accumulator]).add_results(&[result.r#type()]).build().expect("a combining op");
        let combined = block.insert_operation_before(reduction, combined);
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), combined.result(0).expect("a result").to_raw());
            mlir_sys::mlirOperationDestroy(reduction.to_raw());
        }
    }
    Ok(())
}
