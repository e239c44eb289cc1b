//! A run-time argument of a compiled kernel, as the binding hands it over.

use std::ffi::c_void;

use smallvec::SmallVec;

/// The extents or strides of a buffer, in elements: inline up to four dimensions, so that the
/// arguments of a task (a WSP workload issues thousands) need no heap allocation each. Build one
/// with `Dims::from_slice(&[..])`, `Dims::from(vec)` or `collect()`; it reads as a `&[i64]`.
pub type Dims = SmallVec<[i64; 4]>;

/// One argument of a compiled kernel.
#[derive(Clone, Debug)]
pub enum Argument {
    /// A strided buffer: sizes and strides in elements. The binding passes
    /// row-major contiguous buffers (it copies anything else).
    Buffer { data: *mut c_void, sizes: Dims, strides: Dims },
    F32(f32),
    F64(f64),
    /// IEEE half, as its bit pattern.
    F16(u16),
    /// bfloat16, as its bit pattern.
    BF16(u16),
    I64(i64),
    I32(i32),
    I16(i16),
    I8(i8),
    Bool(bool),
}

impl Argument {
    /// The value of an integer (or bool) scalar; `None` for floats and buffers.
    pub fn integer(&self) -> Option<i64> {
        match *self {
            Argument::I64(v) => Some(v),
            Argument::I32(v) => Some(v as i64),
            Argument::I16(v) => Some(v as i64),
            Argument::I8(v) => Some(v as i64),
            Argument::Bool(v) => Some(v as i64),
            _ => None,
        }
    }
}
