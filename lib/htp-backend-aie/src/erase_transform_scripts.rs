//! `aie-erase-transform-scripts`: removes the transform scripts
//! `aie-vectorize-cores` appended (`transform.named_sequence` ops and the
//! module's `transform.with_named_sequence`) once `transform-interpreter`
//! has run them, so that the design holds only the cores' code.

use melior::{ir::OperationRef, Context};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-erase-transform-scripts", "builtin.module"> {
        summary: "Erase the transform scripts (transform.named_sequence) of a module after transform-interpreter ran them",
        dialects: [],
        run: run,
    }
}

fn run<'c>(_: &'c Context, module: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for sequence in htp_ir::query::ops_named(module, "transform.named_sequence") {
        unsafe { mlir_sys::mlirOperationDestroy(sequence.to_raw()) };
    }
    unsafe { mlir_sys::mlirOperationRemoveAttributeByName(module.to_raw(), melior::StringRef::new("transform.with_named_sequence").to_raw()) };
    Ok(())
}
