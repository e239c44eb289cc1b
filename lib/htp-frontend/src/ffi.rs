//! The C entry point `htp-translate --import-python` calls (from its
//! `TranslateToMLIRRegistration`, which exists only in C++).

use std::ffi::{c_char, CString};

use melior::{ir::Location, ContextRef};
use mlir_sys::{mlirEmitError, MlirContext, MlirModule};

use crate::{import_python, Constants};

unsafe fn text(ptr: *const c_char, len: usize) -> String {
    if ptr.is_null() || len == 0 {
        return String::new();
    }
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn emit_error(location: Location, message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// Imports the Python `source` (of `file_name`) into a new module owned by
/// the caller, with compile-time constants given as `NAME=VALUE` lines.
/// On error, emits one diagnostic per error on the context (at the user's
/// file:line:col) and returns a null module.
///
/// # Safety
/// `context` must be a live MLIR context with HTP's dialects loaded; each
/// pointer must point to `len` readable bytes (or be null with len 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn htpImportPython(
    context: MlirContext,
    source: *const c_char,
    source_len: usize,
    file_name: *const c_char,
    file_name_len: usize,
    constants: *const c_char,
    constants_len: usize,
) -> MlirModule {
    let null = MlirModule { ptr: std::ptr::null_mut() };
    let context_ref = unsafe { ContextRef::from_raw(context) };
    let context = unsafe { context_ref.to_ref() };
    let source = unsafe { text(source, source_len) };
    let file_name = unsafe { text(file_name, file_name_len) };
    let mut consts = Constants::new();
    for line in unsafe { text(constants, constants_len) }.lines().filter(|l| !l.trim().is_empty()) {
        if let Err(e) = consts.insert_assignment(line) {
            emit_error(Location::unknown(context), &format!("--htp-const: {e}"));
            return null;
        }
    }
    // A panic must not unwind into MLIR's C++: it becomes a diagnostic.
    let imported = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| import_python(context, &source, &file_name, 1, &consts)));
    let Ok(imported) = imported else {
        emit_error(Location::new(context, &file_name, 1, 1), "internal error in HTP's Python front end (this is a bug in HTP)");
        return null;
    };
    match imported {
        Ok(imported) => {
            let raw = imported.module.to_raw();
            std::mem::forget(imported.module);
            raw
        }
        Err(diagnostics) => {
            for d in diagnostics.iter() {
                let loc = if d.line > 0 {
                    Location::new(context, &d.file, d.line as usize, d.col as usize)
                } else {
                    Location::unknown(context)
                };
                emit_error(loc, &d.message);
            }
            null
        }
    }
}
