//! What every JIT of HTP (the cpu target, the AIE simulator's cores, an
//! extension's) needs so that its code depends on no runtime library newer
//! than the platform's: Debian 12's libgcc (GCC 12) has no `__truncsfbf2`
//! or `__truncdfbf2`, which LLVM calls for a bf16 rounding on a processor
//! without AVX512-BF16 (D62).
//!
//! * [`PORTABLE_FLOATS`] lowers bf16 inline before the LLVM conversion:
//!   math on f16/bf16 computed in f32, bf16 arithmetic emulated in f32, and
//!   every f32 <-> bf16 conversion expanded to integer operations.
//! * [`register_float_conversions`] gives the engine HTP's own definitions
//!   of the conversion functions LLVM may still call (an f64 -> bf16
//!   rounding, a bf16 reduction in a vector intrinsic), so no symbol is left
//!   for the platform to lack.

use melior::ExecutionEngine;

/// Upstream passes, to run on bufferized loops right before the conversion
/// to the LLVM dialect. A macro, so that a backend's pipeline constant can
/// take it in `concat!` (the cpu's, the AIE simulator's).
#[macro_export]
macro_rules! portable_floats {
    () => {
        "math-extend-to-supported-types{target-type=f32},\
         arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},arith-expand{include-bf16=true}"
    };
}

/// [`portable_floats!`] as a constant.
pub const PORTABLE_FLOATS: &str = portable_floats!();

/// The conversion functions of compiler-rt/libgcc that LLVM may call and
/// an older platform lacks, by symbol.
pub const FLOAT_CONVERSIONS: [&str; 2] = ["__truncsfbf2", "__truncdfbf2"];

/// Registers [`FLOAT_CONVERSIONS`] with `engine`.
pub fn register_float_conversions(engine: &ExecutionEngine) {
    unsafe {
        engine.register_symbol(FLOAT_CONVERSIONS[0], truncsfbf2 as *mut ());
        engine.register_symbol(FLOAT_CONVERSIONS[1], truncdfbf2 as *mut ());
    }
}

/// f32 -> bf16 bits, rounded to nearest even; a NaN stays a (quiet) NaN.
pub fn bf16_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    if value.is_nan() {
        return ((bits >> 16) | 0x0040) as u16;
    }
    ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16
}

/// f64 -> bf16 bits with one rounding: to f32 rounding to odd (its last bit
/// records any discarded bits), then to nearest even, which is exact for a
/// format 16 bits narrower.
pub fn bf16_bits_of_f64(value: f64) -> u16 {
    let mut narrow = value as f32;
    if narrow.is_finite() && narrow as f64 != value {
        if (narrow as f64).abs() > value.abs() {
            narrow = f32::from_bits(narrow.to_bits() - 1);
        }
        narrow = f32::from_bits(narrow.to_bits() | 1);
    }
    bf16_bits(narrow)
}

// A bf16 comes back in the low 16 bits of the first floating-point return
// register (x86-64's xmm0, AArch64's v0): returned as an f32 with those bits.
extern "C" fn truncsfbf2(value: f32) -> f32 {
    f32::from_bits(bf16_bits(value) as u32)
}

extern "C" fn truncdfbf2(value: f64) -> f32 {
    f32::from_bits(bf16_bits_of_f64(value) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_to_nearest_even() {
        assert_eq!(bf16_bits(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to the even one, 1.
        assert_eq!(bf16_bits(1.0 + 1.0 / 256.0), 0x3f80);
        // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: to the even one.
        assert_eq!(bf16_bits(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(bf16_bits(-2.5), 0xc020);
        assert_eq!(bf16_bits(f32::INFINITY), 0x7f80);
        assert_eq!(bf16_bits(f32::MAX), 0x7f80);
        assert!(bf16_bits(f32::NAN) & 0x7fc0 == 0x7fc0);
    }

    #[test]
    fn a_missing_function_is_named() {
        let registry = melior::dialect::DialectRegistry::new();
        melior::utility::register_all_dialects(&registry);
        let context = melior::Context::new();
        context.append_dialect_registry(&registry);
        context.load_all_available_dialects();
        melior::utility::register_all_llvm_translations(&context);
        let text = "llvm.func @htp_test_no_such_function(f32) -> f32\n\
                    llvm.func @f(%x: f32) -> f32 attributes {llvm.emit_c_interface} {\n\
                      %y = llvm.call @htp_test_no_such_function(%x) : (f32) -> f32\n  llvm.return %y : f32\n}\n";
        let module = melior::ir::Module::parse(&context, text).expect("parses");
        let engine = ExecutionEngine::new(&module, 0, &[], false, false);
        let why = lookup_or_explain(&engine, "_mlir_f").expect_err("cannot link");
        assert!(why.contains("htp_test_no_such_function"), "{why}");
    }

    #[test]
    fn f64_rounds_once() {
        // Just above the halfway point 1 + 2^-8 in f64, but exactly halfway once rounded to f32:
        // rounding twice would give 1.0.
        let value = 1.0 + 1.0 / 256.0 + 1e-12;
        assert_eq!(value as f32, 1.0 + 1.0 / 256.0);
        assert_eq!(bf16_bits_of_f64(value), 0x3f81);
        assert_eq!(bf16_bits_of_f64(1.0), 0x3f80);
        assert_eq!(bf16_bits_of_f64(-1e300), 0xff80);
    }
}

/// Looks `symbol` up in `engine`, compiling its code. `Err` names what the
/// code calls and this process does not define, as LLVM reports it
/// ("Symbols not found: [ ... ]"): ORC prints that on stderr, once, so the
/// lookup runs with stderr captured (whatever else was written meanwhile
/// is passed on to stderr after it).
pub fn lookup_or_explain(engine: &ExecutionEngine, symbol: &str) -> Result<*mut (), String> {
    let mut address = std::ptr::null_mut();
    let report = capture_stderr(|| address = engine.lookup(symbol));
    let report = match report {
        Some(text) => text,
        // No capture possible: look up plainly.
        None => {
            address = engine.lookup(symbol);
            String::new()
        }
    };
    if !address.is_null() {
        if !report.is_empty() {
            use std::io::Write;
            let _ = std::io::stderr().write_all(report.as_bytes());
        }
        return Ok(address);
    }
    let missing = report
        .split("Symbols not found:")
        .nth(1)
        .map(|rest| rest.split(']').next().unwrap_or("").trim_start_matches([' ', '[']).trim().to_string())
        .filter(|names| !names.is_empty());
    Err(match missing {
        Some(names) => format!("its code calls {names}, which this process does not define (a function of a newer runtime library than the platform's)"),
        None => format!("its code could not be linked{}", if report.trim().is_empty() { String::new() } else { format!(": {}", report.trim()) }),
    })
}

/// What `body` writes to file descriptor 2, through a temporary file.
fn capture_stderr<R>(body: impl FnOnce() -> R) -> Option<String> {
    extern "C" {
        fn dup(fd: i32) -> i32;
        fn dup2(from: i32, to: i32) -> i32;
        fn close(fd: i32) -> i32;
    }
    use std::io::{Read, Seek};
    use std::os::fd::AsRawFd;
    let mut file = tempfile_in_tmp()?;
    let saved = unsafe { dup(2) };
    if saved < 0 {
        return None;
    }
    if unsafe { dup2(file.as_raw_fd(), 2) } < 0 {
        unsafe { close(saved) };
        return None;
    }
    body();
    unsafe {
        dup2(saved, 2);
        close(saved);
    }
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    Some(text)
}

fn tempfile_in_tmp() -> Option<std::fs::File> {
    let path = std::env::temp_dir().join(format!("htp-jit-{}-{:?}.log", std::process::id(), std::thread::current().id()));
    let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    Some(file)
}
