//! `aie-hoist-invariant-loads`: a load inside an `scf.for` whose indices
//! do not depend on the loop, from a buffer the loop does not write, moves
//! before the loop; `loop-invariant-code-motion` then hoists what is
//! computed from it alone. A row's statistics broadcast along the row
//! (rmsnorm's `rsqrt(mean + eps)`, fused into the elementwise op that
//! scales the row) are then computed once per row instead of once per
//! vector of it — which matters on a core where `rsqrt` of f32 is a
//! software routine (cost_model.rs).
//!
//! A block function's buffers are its FIFO objects and its own
//! temporaries, never views of one another except through the ops that
//! make views (`memref.subview`, casts, `expand_shape`, ...): a load is
//! kept in the loop when the loop writes the same underlying buffer, or
//! calls anything.

use melior::{
    ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike, Value},
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-hoist-invariant-loads", "func.func"> {
        summary: "Hoist loop-invariant loads of buffers a loop does not write out of the loop (then LICM hoists what they feed)",
        dialects: [scf, vector, memref],
        run: run,
    }
}

/// The ops whose result views their first operand's buffer.
pub(crate) const VIEWS: [&str; 8] = ["memref.subview", "memref.cast", "memref.expand_shape", "memref.collapse_shape", "memref.reinterpret_cast", "memref.reshape", "memref.transpose", "memref.view"];

/// The buffer a memref value views: through the ops that make views.
fn underlying(value: Value) -> usize {
    let mut current = htp_ir::builder::detach(value);
    while let Some(source) = htp_ir::query::defining_op(current).filter(|op| op.name().as_string_ref().as_str().is_ok_and(|name| VIEWS.contains(&name))).and_then(|op| htp_ir::query::operand_at(op, 0)) {
        current = source;
    }
    htp_ir::query::key(current)
}

/// What a loop writes (underlying buffers), or `None` when it calls out.
fn writes(the_loop: OperationRef) -> Option<Vec<usize>> {
    let mut written = Vec::new();
    let mut calls = false;
    the_loop.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let target = match name.as_str() {
            "memref.store" | "vector.store" | "vector.transfer_write" | "vector.maskedstore" | "memref.copy" | "linalg.copy" => htp_ir::query::operand_at(op, 1),
            _ if name.starts_with("linalg.") => op.operand_count().checked_sub(1).and_then(|last| htp_ir::query::operand_at(op, last)),
            "func.call" | "func.call_indirect" | "llvm.call" => {
                calls = true;
                None
            }
            _ => None,
        };
        written.extend(target.map(underlying));
        melior::ir::operation::WalkResult::Advance
    });
    (!calls).then_some(written)
}

fn run<'c>(_: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    // Innermost loops last in pre-order; hoisting from them first lets a load climb several loops.
    let mut loops = htp_ir::query::ops_named(function, "scf.for");
    loops.reverse();
    for the_loop in loops {
        let Some(body) = the_loop.region(0).ok().and_then(|r| r.first_block()) else { continue };
        let Some(written) = writes(the_loop) else { continue };
        let mut op = body.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
            if name != "vector.load" && name != "memref.load" {
                continue;
            }
            let Some(source) = htp_ir::query::operand_at(current, 0) else { continue };
            let invariant = (0..current.operand_count()).all(|i| htp_ir::query::operand_at(current, i).is_some_and(|v| !htp_ir::query::defined_within(v, the_loop)));
            if invariant && !written.contains(&underlying(source)) {
                unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), the_loop.to_raw()) };
            }
        }
    }
    Ok(())
}
