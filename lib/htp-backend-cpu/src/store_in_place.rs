//! `cpu-store-in-place`: destination passing for stored tiles. A tile
//! stored to a tensor becomes `bufferization.materialize_in_destination
//! %value in %view`; when `%value` is made by a `linalg.generic` into a
//! fresh `tensor.empty` and used only there, the generic's init becomes the
//! view itself (`bufferization.to_tensor %view restrict writable`), so
//! bufferization computes straight into the caller's array instead of into
//! a temporary that is then copied (`memref.copy` per output tile: a second
//! pass over the output). Runs after `linalg-fuse-elementwise-ops`, which
//! would turn an init the body never reads back into `tensor.empty`.

use htp_ir::builder::{detach, Builder, Emitter};
use htp_ir::query::{defining_op, has_single_use};
use htp_pass::Failure;
use melior::{
    ir::{
        operation::OperationLike,
        OperationRef, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"cpu-store-in-place", "func.func"> {
        summary: "Compute a stored tile's linalg.generic straight into the destination view (no temporary + copy)",
        dialects: [linalg],
        run: run,
    }
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    for store in htp_ir::query::ops_named(function, "bufferization.materialize_in_destination") {
        let (Ok(value), Ok(view)) = (store.operand(0), store.operand(1)) else { continue };
        let (value, view) = (detach(value), detach(view));
        // `to_tensor` of the view must be the value's type: a value the
        // canonicalizer made static (`8x16`) stored into a view it left
        // dynamic (`?x16`, through a `memref.cast`) keeps its copy.
        if !htp_ir::builder::is_memref(view.r#type())
            || !has_single_use(value)
            || htp_ir::builder::shape_of(view.r#type()) != htp_ir::builder::shape_of(value.r#type())
        {
            continue;
        }
        let Some(generic) = defining_op(value) else { continue };
        if generic.name().as_string_ref().as_str() != Ok("linalg.generic") || generic.result_count() != 1 {
            continue;
        }
        let init_index = generic.operand_count() - 1;
        let Ok(init) = generic.operand(init_index) else { continue };
        let init = detach(init);
        let fresh = defining_op(init).is_some_and(|op| op.name().as_string_ref().as_str() == Ok("tensor.empty"));
        // It moves down to the store: into the store's block, through `scf.if`s
        // only (the bounds-check guards) — never into a loop, which would
        // compute it again on every trip.
        if !fresh || init.r#type() != value.r#type() || !generic.block().is_some_and(|home| htp_ir::query::in_block_through_ifs(store, home)) {
            continue;
        }
        let e = Emitter { context, block: store.block().expect("a store in a block"), anchor: store, location: store.location() };
        let destination = e.value_with("bufferization.to_tensor", &[view], value.r#type(), &[("restrict", e.unit()), ("writable", e.unit())]);
        // After the view's tensor, which it now writes.
        unsafe {
            mlir_sys::mlirOperationMoveBefore(generic.to_raw(), store.to_raw());
            mlir_sys::mlirOperationSetOperand(generic.to_raw(), init_index as isize, destination.to_raw());
        }
    }
    Ok(())
}
