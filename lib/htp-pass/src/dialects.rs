//! The dialects a pass may name in [`crate::pass!`]'s `dialects: [...]`
//! by one word: MLIR's upstream ones (with the handles melior has no
//! function for) and HTP's target-neutral `tile` and `layout`. A backend's
//! own dialect is named by its path (`htp_dialects::handles::pto`).

pub use htp_dialects::handles::{layout, tile};
use melior::dialect::DialectHandle;

pub fn arith() -> DialectHandle {
    DialectHandle::arith()
}

pub fn func() -> DialectHandle {
    DialectHandle::func()
}

pub fn linalg() -> DialectHandle {
    DialectHandle::linalg()
}

pub fn memref() -> DialectHandle {
    DialectHandle::memref()
}

pub fn pdl() -> DialectHandle {
    DialectHandle::pdl()
}

pub fn scf() -> DialectHandle {
    DialectHandle::scf()
}

pub fn tensor() -> DialectHandle {
    DialectHandle::tensor()
}

pub fn vector() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__vector__()) }
}

pub fn math() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__math__()) }
}

pub fn bufferization() -> DialectHandle {
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__bufferization__()) }
}
