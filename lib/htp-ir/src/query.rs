//! Questions about existing IR the Rust passes ask: who defines and uses a
//! value, which ancestor of an op sits in a given block, op order.

use std::collections::HashMap;

use melior::ir::{
    attribute::{IntegerAttribute, StringAttribute},
    RegionLike,
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    BlockRef, Location, OperationRef, Value, ValueLike,
};

use crate::builder::V;

pub fn defining_op<'c>(value: V<'c>) -> Option<OperationRef<'c, 'c>> {
    let raw = unsafe { mlir_sys::mlirOpResultGetOwner(value.to_raw()) };
    if unsafe { mlir_sys::mlirValueIsAOpResult(value.to_raw()) } {
        Some(unsafe { OperationRef::from_raw(raw) })
    } else {
        None
    }
}

/// The memref a view is taken from, through `memref` view ops (a 1-D
/// tensor's `1 x N` view, subviews, casts): two accesses touch the same
/// tensor when their roots are equal.
pub fn memref_root(mut memref: V) -> V {
    while let Some(op) = defining_op(memref) {
        let is_view = matches!(
            op.name().as_string_ref().as_str(),
            Ok("memref.expand_shape" | "memref.collapse_shape" | "memref.subview" | "memref.cast" | "memref.reinterpret_cast")
        );
        match op.operand(0) {
            Ok(inner) if is_view => memref = crate::builder::detach(inner),
            _ => break,
        }
    }
    memref
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

/// The one op using `value`, if exactly one does.
pub fn single_user<'c>(value: V<'c>) -> Option<OperationRef<'c, 'c>> {
    let users = uses(value);
    (users.len() == 1).then(|| users[0])
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

/// Whether `op` sits in `block`, or is nested in one of its ops through
/// `scf.if`s only (runs at most once where that op is, e.g. a guarded store).
pub fn in_block_through_ifs(op: OperationRef, block: BlockRef) -> bool {
    let mut current = op.block();
    while let Some(inner) = current {
        if inner.to_raw().ptr == block.to_raw().ptr {
            return true;
        }
        let Some(parent) = inner.parent_operation() else { return false };
        if parent.name().as_string_ref().as_str() != Ok("scf.if") {
            return false;
        }
        current = parent.block();
    }
    false
}

/// Whether `op` is `ancestor` or nested in it.
pub fn is_within(op: OperationRef, ancestor: OperationRef) -> bool {
    let mut current = Some(unsafe { OperationRef::from_raw(op.to_raw()) });
    while let Some(candidate) = current {
        if candidate.to_raw().ptr == ancestor.to_raw().ptr {
            return true;
        }
        current = candidate.parent_operation().map(|p| unsafe { OperationRef::from_raw(p.to_raw()) });
    }
    false
}

/// The op whose region holds the block `value` is an argument of (None:
/// an op's result, or a block outside any op).
pub fn block_argument_owner<'c>(value: V<'c>) -> Option<OperationRef<'c, 'c>> {
    let argument = melior::ir::block::BlockArgument::try_from(value).ok()?;
    argument.owner().parent_operation().map(|p| unsafe { OperationRef::from_raw(p.to_raw()) })
}

/// Whether `value` is made within `op`: by an op nested in it, or as an
/// argument of one of its blocks or of a block nested in it.
pub fn defined_within(value: V, op: OperationRef) -> bool {
    defining_op(value).or_else(|| block_argument_owner(value)).is_some_and(|maker| is_within(maker, op))
}

pub fn is_before(a: OperationRef, b: OperationRef) -> bool {
    unsafe { mlir_sys::mlirOperationIsBeforeInBlock(a.to_raw(), b.to_raw()) }
}

/// A value's identity, as a map key (the same for every borrow of it).
pub fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// An op's identity, as a map key.
pub fn op_key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// The value of an integer (or index) `arith.constant`.
pub fn constant_int(value: V) -> Option<i64> {
    let op = defining_op(value)?;
    if op.name().as_string_ref().as_str() != Ok("arith.constant") {
        return None;
    }
    IntegerAttribute::try_from(op.attribute("value").ok()?).ok().map(|a| a.value())
}

/// The position of every op under `root` (itself included) in pre-order.
pub fn preorder_positions(root: OperationRef) -> HashMap<usize, usize> {
    let mut positions = HashMap::new();
    root.walk(WalkOrder::PreOrder, |op| {
        let next = positions.len();
        positions.insert(op_key(op), next);
        WalkResult::Advance
    });
    positions
}

/// Reports `message` at `location` through MLIR's diagnostic engine (a
/// pass's error, which the driver turns into file:line:col).
pub fn emit_error(location: Location, message: &str) {
    let message = std::ffi::CString::new(message.replace('\0', " ")).expect("NULs removed");
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// Where a value was defined; for a function argument, the location the
/// front end gave it (a name around the parameter's source position).
pub fn value_location<'c>(value: melior::ir::Value<'c, '_>) -> melior::ir::Location<'c> {
    unsafe { melior::ir::Location::from_raw(mlir_sys::mlirValueGetLocation(value.to_raw())) }
}

/// The top-level `func.func`s of a module that the front end marked as
/// kernels (`htp.kernel`), in module order.
pub fn kernel_functions<'c>(module: OperationRef<'c, '_>) -> Vec<OperationRef<'c, 'c>> {
    let mut kernels = Vec::new();
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else { return kernels };
    let mut op = body.first_operation();
    while let Some(current) = op {
        if current.name().as_string_ref().as_str() == Ok("func.func") && current.attribute("htp.kernel").is_ok() {
            kernels.push(unsafe { OperationRef::from_raw(current.to_raw()) });
        }
        op = current.next_in_block();
    }
    kernels
}

/// The op's name (`dialect.op`).
pub fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// The `sym_name` of `op`, if it defines a symbol.
pub fn symbol_name(op: OperationRef) -> Option<String> {
    op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|n| n.value().to_string())
}

/// The ops named `name` under `root` (itself included) that `keep`
/// accepts, in pre-order: a pass's work list, collected before it rewrites
/// any of them.
pub fn ops_named_where<'c>(root: OperationRef<'c, '_>, name: &str, keep: impl Fn(OperationRef<'c, 'c>) -> bool) -> Vec<OperationRef<'c, 'c>> {
    let mut found = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok(name) {
            // The walk's references live as long as the IR they walk.
            let op: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(op.to_raw()) };
            if keep(op) {
                found.push(op);
            }
        }
        WalkResult::Advance
    });
    found
}

/// Every op named `name` under `root`, in pre-order ([`ops_named_where`]).
pub fn ops_named<'c>(root: OperationRef<'c, '_>, name: &str) -> Vec<OperationRef<'c, 'c>> {
    ops_named_where(root, name, |_| true)
}

/// Operand `index` of `op`, if it has one. Use it to probe: melior's
/// `operand` builds its out-of-range error by printing the op, which prints
/// (and verifies) the whole module around it — quadratic in a loop.
pub fn operand_at<'c>(op: OperationRef<'c, '_>, index: usize) -> Option<crate::builder::V<'c>> {
    if index < op.operand_count() {
        op.operand(index).ok().map(crate::builder::detach)
    } else {
        None
    }
}

/// Result `index` of `op`, if it has one (see [`operand_at`]).
pub fn result_at<'c>(op: OperationRef<'c, '_>, index: usize) -> Option<crate::builder::V<'c>> {
    if index < op.result_count() {
        op.result(index).ok().map(|result| crate::builder::detach(result.into()))
    } else {
        None
    }
}
