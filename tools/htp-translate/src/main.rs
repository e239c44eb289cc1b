//! `htp-translate`: MLIR's `mlir-translate` with HTP's translations.

// Links HTP's dialects and, through mlir-sys, MLIR's static libraries that
// the C++ driver needs (an unreferenced crate would not be linked).
extern crate htp_dialects;
// Exports htpImportPython, called by the --import-python translation.
extern crate htp_frontend;
// Exports htpTranslatePtoToCpp, called by the --pto-to-cpp translation.
extern crate htp_backend_pto;
extern crate htp_all;

use std::ffi::{c_char, c_int};

unsafe extern "C" {
    fn htpTranslateMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
}

fn main() {
    // The intrinsic sets, passes and targets `--import-python` and the
    // emitters resolve names through.
    if let Err(message) = htp_all::register_all() {
        eprintln!("htp-translate: error: {message}");
        std::process::exit(1);
    }
    std::process::exit(htp_tool::run_c_main(htpTranslateMain));
}
