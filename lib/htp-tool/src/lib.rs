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
    let argc = args.len() as c_int;
    // MLIR's parser, verifier and printer recurse once per nesting level:
    // deeply nested input (3000 nested ifs) needs more than the main
    // thread's 8 MiB. The driver runs on a thread whose stack is reserved
    // large (address space only; pages are touched as the recursion goes).
    let argv = SendArgv(argv);
    let run = move || {
        let mut argv = argv;
        unsafe { entry(argc, argv.0.as_mut_ptr()) }
    };
    match std::thread::Builder::new().name("main".into()).stack_size(TOOL_STACK_BYTES).spawn(run) {
        Ok(thread) => thread.join().unwrap_or(101),
        // No thread (a tight address-space limit): run on this one.
        Err(_) => {
            let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
            argv.push(std::ptr::null_mut());
            unsafe { entry(argc, argv.as_mut_ptr()) }
        }
    }
}

/// The stack of the thread the tools' C driver runs on.
const TOOL_STACK_BYTES: usize = 1 << 30;

/// `argv` handed to the driver's thread; the strings it points into
/// (`args`) outlive the thread, which is joined before they drop.
struct SendArgv(Vec<*mut c_char>);

unsafe impl Send for SendArgv {}
