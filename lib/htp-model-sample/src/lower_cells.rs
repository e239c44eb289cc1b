//! `sample-lower-cells`: the sample model's pipeline. In each function of
//! the model, a `cells.new` becomes a one-element `memref.alloca` holding
//! its initial value, `cells.put` a `memref.store`, `cells.get` a
//! `memref.load`; the function then is an ordinary kernel (`htp.kernel`),
//! which every target that runs kernels runs.

use htp_ir::builder::{detach, Builder, Emitter, V};
use melior::{
    ir::{
        attribute::StringAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        r#type::MemRefType,
        OperationRef, RegionLike, ValueLike,
    },
    Context,
};

use htp_dialects::ods::view;
use htp_pass::Failure;

use crate::ods::cells;

htp_pass::pass! {
    pub DEFINITION = Pass<"sample-lower-cells", "builtin.module"> {
        summary: "Lower the sample model's cells to one-element memrefs and its programs to kernels",
        dialects: [crate::handles::cells, memref],
        run: run,
    }
}

/// What a cell's user is.
enum CellUse<'c> {
    Get(OperationRef<'c, 'c>),
    Put(OperationRef<'c, 'c>),
    Other(OperationRef<'c, 'c>),
}

fn classify<'c>(user: OperationRef<'c, 'c>) -> CellUse<'c> {
    if view::<cells::GetOperation>(user).is_some() {
        CellUse::Get(user)
    } else if view::<cells::PutOperation>(user).is_some() {
        CellUse::Put(user)
    } else {
        CellUse::Other(user)
    }
}

fn emitter<'c>(context: &'c Context, anchor: OperationRef<'c, 'c>) -> Result<Emitter<'c, 'c>, Failure<'c>> {
    let block = anchor.block().ok_or_else(|| (anchor.location(), "an op outside any block".to_string()))?;
    Ok(Emitter { context, block: unsafe { melior::ir::BlockRef::from_raw(block.to_raw()) }, anchor, location: anchor.location() })
}

fn name_of(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("an op").to_string()
}

/// Operand `index` of `op` (the ops' ODS gives them: `cell`, then `value`).
fn operand<'c>(op: OperationRef<'c, 'c>, index: usize) -> Result<V<'c>, Failure<'c>> {
    op.operand(index).map(detach).map_err(|_| (op.location(), format!("{} without operand #{index}", name_of(op))))
}

/// Lowers one `cells.new` and its users.
fn lower_cell<'c>(context: &'c Context, new: OperationRef<'c, 'c>) -> Result<(), Failure<'c>> {
    htp_pass::processing(new.location());
    let init = operand(new, 0)?;
    let cell = new.result(0).map(|r| detach(r.into())).map_err(|_| (new.location(), "cells.new without a result".to_string()))?;
    let users: Vec<CellUse> = htp_ir::query::uses(cell).into_iter().map(classify).collect();
    if let Some(CellUse::Other(user)) = users.iter().find(|u| matches!(u, CellUse::Other(_))) {
        return Err((user.location(), format!(
            "a cell used by {} cannot be lowered: the sample model's cells are read and written with sample.get/sample.put, not carried by loops or branches",
            name_of(*user)
        )));
    }
    let here = emitter(context, new)?;
    let memref = MemRefType::new(init.r#type(), &[], None, None);
    let storage = here.value("memref.alloca", &[], memref.into());
    here.op("memref.store", &[init, storage], &[], &[], vec![]);
    for user in users {
        match user {
            CellUse::Get(get) => {
                let load = emitter(context, get)?.value("memref.load", &[storage], operand(new, 0)?.r#type());
                let result = get.result(0).map_err(|_| (get.location(), "cells.get without a result".to_string()))?;
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), load.to_raw()) };
                unsafe { mlir_sys::mlirOperationDestroy(get.to_raw()) };
            }
            CellUse::Put(put) => {
                let value = operand(put, 1)?;
                emitter(context, put)?.op("memref.store", &[value, storage], &[], &[], vec![]);
                unsafe { mlir_sys::mlirOperationDestroy(put.to_raw()) };
            }
            CellUse::Other(_) => {}
        }
    }
    unsafe { mlir_sys::mlirOperationDestroy(new.to_raw()) };
    Ok(())
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let Some(body) = module.region(0).ok().and_then(|region| region.first_block()) else { return Ok(()) };
    let mut functions = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        let model = current.attribute(htp_api::models::MODEL_ATTRIBUTE).ok().and_then(|a| StringAttribute::try_from(a).ok());
        if model.is_some_and(|name| name.value() == crate::model::SAMPLE.name) {
            functions.push(unsafe { OperationRef::from_raw(current.to_raw()) });
        }
        op = current.next_in_block();
    }
    for function in functions {
        for new in htp_ir::query::ops_named(function, cells::NewOperation::name()) {
            lower_cell(context, new)?;
        }
        // The program is now a kernel: no cell is left, only tile, scf,
        // arith and memref ops a kernel target knows.
        let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
        function.remove_attribute(htp_api::models::MODEL_ATTRIBUTE).map_err(|e| (function.location(), e.to_string()))?;
        function.set_attribute("htp.kernel", melior::ir::Attribute::unit(context));
    }
    Ok(())
}
