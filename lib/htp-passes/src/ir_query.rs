//! Questions about existing IR the Rust passes ask: who defines and uses a
//! value, which ancestor of an op sits in a given block, op order.

use melior::ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, ValueLike};

use crate::ir_builder::V;

pub fn defining_op<'c>(value: V<'c>) -> Option<OperationRef<'c, 'c>> {
    let raw = unsafe { mlir_sys::mlirOpResultGetOwner(value.to_raw()) };
    if unsafe { mlir_sys::mlirValueIsAOpResult(value.to_raw()) } {
        Some(unsafe { OperationRef::from_raw(raw) })
    } else {
        None
    }
}

/// The ops using `value`.
pub fn uses<'c>(value: V<'c>) -> Vec<OperationRef<'c, 'c>> {
    let mut users = Vec::new();
    let mut use_ = unsafe { mlir_sys::mlirValueGetFirstUse(value.to_raw()) };
    while !use_.ptr.is_null() {
        users.push(unsafe { OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(use_)) });
        use_ = unsafe { mlir_sys::mlirOpOperandGetNextUse(use_) };
    }
    users
}

pub fn has_single_use(value: V) -> bool {
    uses(value).len() == 1
}

/// The ancestor of `op` that sits directly in `block`.
pub fn ancestor_in<'c>(op: OperationRef<'c, 'c>, block: BlockRef<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    let mut current = op;
    loop {
        let parent = current.block()?;
        if parent.to_raw().ptr == block.to_raw().ptr {
            return Some(current);
        }
        current = unsafe { OperationRef::from_raw(parent.parent_operation()?.to_raw()) };
    }
}

pub fn is_before(a: OperationRef, b: OperationRef) -> bool {
    unsafe { mlir_sys::mlirOperationIsBeforeInBlock(a.to_raw(), b.to_raw()) }
}
