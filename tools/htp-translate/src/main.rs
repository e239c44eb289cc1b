//! `htp-translate`: MLIR's `mlir-translate` with HTP's translations (every
//! one in `htp_api::translation`'s registry).

use std::ffi::{c_char, c_int};

unsafe extern "C" {
    fn htpTranslateMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
}

fn main() {
    // The front end's importer, then every in-tree extension's passes,
    // targets, dialects and translations.
    if let Err(message) = htp_frontend::register().and_then(|()| htp_all::register_all()) {
        eprintln!("htp-translate: error: {message}");
        std::process::exit(1);
    }
    std::process::exit(htp_tool::run_c_main(htpTranslateMain));
}
