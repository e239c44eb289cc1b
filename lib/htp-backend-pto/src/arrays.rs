//! Kernel-local scalar arrays: `memref.alloca() : memref<N x T>` (static
//! `N >= 1`, `T` = `index`, `i32` or `i64`) read with `memref.load` and
//! written with `memref.store` (a model's conversion keeps cursors in them,
//! e.g. CSP's dissolved channels). They are not tensors: no GM, no kernel
//! parameter, no task argument; the kernel's C++ holds one as a plain array
//! on the scalar unit (`int64_t name[N]`). One definition of what such an
//! array is, for the conversion that accepts them, the writer that prints
//! them and the metrics that interpret them.

use htp_ir::builder::{element_of, int_width, is_memref, shape_of};
use melior::ir::{operation::OperationLike, r#type::MemRefType, Type, TypeLike, Value, ValueLike};

/// The op that makes a kernel-local array.
pub const ALLOCA: &str = "memref.alloca";
/// The ops that read and write one.
pub const LOAD: &str = "memref.load";
pub const STORE: &str = "memref.store";

/// The element type and length of a kernel-local array's type, or why the
/// type is not one (the conversion says so at the user's op).
pub fn element_and_length(ty: Type) -> Result<(Type, i64), String> {
    let refuse = || format!("a kernel-local array is a static 1-D memref of index, i32 or i64 (memref<N x index>, N >= 1), not {ty}");
    if !is_memref(ty) {
        return Err(refuse());
    }
    let element = element_of(ty);
    let [length] = shape_of(ty)[..] else { return Err(refuse()) };
    let integer = element.is_index() || matches!(int_width(element), Some(32 | 64));
    // Uniqued types: equal to the plain type means no layout and no memory space.
    let plain = length >= 1 && Type::from(MemRefType::new(element, &[length], None, None)) == ty;
    if !integer || !plain {
        return Err(refuse());
    }
    Ok((element, length))
}

/// Whether `value` is a kernel-local array (the result of a `memref.alloca`).
pub fn is_local_array(value: Value) -> bool {
    htp_ir::query::defining_op(unsafe { Value::from_raw(value.to_raw()) })
        .is_some_and(|op| op.name().as_string_ref().as_str() == Ok(ALLOCA))
}
