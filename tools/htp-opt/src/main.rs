//! `htp-opt`: MLIR's `mlir-opt` with every HTP dialect and pass.

use std::ffi::{c_char, c_int};

unsafe extern "C" {
    fn htpOptMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
}

fn main() {
    if let Err(message) = htp_all::register_all() {
        eprintln!("htp-opt: error: {message}");
        std::process::exit(1);
    }
    std::process::exit(htp_tool::run_c_main(htpOptMain));
}
