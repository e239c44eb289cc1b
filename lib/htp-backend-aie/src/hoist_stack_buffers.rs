//! `aie-hoist-stack-buffers`: a `memref.alloca` of static shape inside a
//! loop or branch moves to the start of its function. An alloca outside
//! the entry block is a dynamic allocation in LLVM: each trip of the loop
//! would take more of a core's small stack (1 KiB by default) and the
//! stack's size HTP gives mlir-aie counts each buffer once. A temporary
//! made on each trip holds nothing the next trip reads (it is written
//! before it is read within the trip), so one buffer serves every trip —
//! unless it leaves the trip (yielded by the loop or branch, or returned),
//! which keeps it where it is.

use melior::{
    ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike},
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-hoist-stack-buffers", "func.func"> {
        summary: "Move statically shaped memref.alloca ops out of loops and branches to the function's entry block",
        dialects: [memref],
        run: run,
    }
}

use crate::hoist_invariant_loads::VIEWS;

fn name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// Whether the buffer `op` makes, or a view of it, is yielded or returned.
fn leaves_its_region(op: OperationRef) -> bool {
    let mut values: Vec<_> = (0..op.result_count()).filter_map(|i| op.result(i).ok()).map(|r| htp_ir::builder::detach(r.into())).collect();
    while let Some(value) = values.pop() {
        for user in htp_ir::query::uses(value) {
            match name(user).as_str() {
                "scf.yield" | "func.return" | "scf.condition" => return true,
                view if VIEWS.contains(&view) => values.extend((0..user.result_count()).filter_map(|i| user.result(i).ok()).map(|r| htp_ir::builder::detach(r.into()))),
                _ => {}
            }
        }
    }
    false
}

fn run<'c>(_: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    hoist_to_entry(function);
    Ok(())
}

/// The allocas of `owner` (a function, or a core whose block function was
/// inlined into it) that may move, moved to its region's entry block.
pub fn hoist_to_entry(owner: OperationRef) {
    let Some(entry) = owner.region(0).ok().and_then(|r| r.first_block()) else { return };
    for alloca in htp_ir::query::ops_named(owner, "memref.alloca") {
        let in_entry = alloca.block().is_some_and(|b| b.to_raw().ptr == entry.to_raw().ptr);
        // Static: no size operands (a ragged buffer is bounded first, `aie-bound-ragged-buffers`).
        if in_entry || alloca.operand_count() > 0 || leaves_its_region(alloca) {
            continue;
        }
        if let Some(first) = entry.first_operation() {
            unsafe { mlir_sys::mlirOperationMoveBefore(alloca.to_raw(), first.to_raw()) };
        }
    }
}
