//! HTP's command-line tools are Rust binaries whose driver is MLIR's C++
//! `*Main` (the only home of `--verify-diagnostics` and friends). This crate
//! hands the process arguments to such a C entry point.

use std::{
    ffi::{c_char, c_int, CString},
    os::unix::ffi::OsStringExt,
};

/// Calls `entry(argc, argv)` with this process's arguments and returns its
/// exit code.
pub fn run_c_main(entry: unsafe extern "C" fn(c_int, *mut *mut c_char) -> c_int) -> i32 {
    // Arguments with interior NULs cannot reach a C main; drop the NUL tail
    // rather than abort, the tool then reports the odd argument itself.
    let args: Vec<CString> = std::env::args_os()
        .map(|arg| {
            let mut bytes = arg.into_vec();
            if let Some(nul) = bytes.iter().position(|&b| b == 0) {
                bytes.truncate(nul);
            }
            CString::new(bytes).expect("NUL bytes were removed")
        })
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    unsafe { entry(args.len() as c_int, argv.as_mut_ptr()) }
}
