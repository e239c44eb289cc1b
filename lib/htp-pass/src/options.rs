//! Typed pass options. A pass declares its options once, as a struct in
//! [`crate::pass!`]: each field has a type, the option's name, its default
//! and a description. `name{key=value ...}` in a pipeline (MLIR's syntax)
//! is parsed into that struct when the pass is created, and the body gets
//! the struct. A value of the wrong type or an unknown key is an error of
//! the pipeline, with a message naming the pass and the option.
//!
//! MLIR's C API cannot give an external pass options, so a pass that
//! declares some is registered as a pipeline entry that hands the option
//! text to Rust (`cpp/Registration.cpp`, [`htp_pass_create_with_options`]).

use std::ffi::c_char;
use std::num::{NonZeroU32, NonZeroU64, NonZeroUsize};

use mlir_sys::{MlirPass, MlirStringRef};

use crate::PassDefinition;

/// One option of a pass: `name=value` inside the braces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassOption {
    pub name: &'static str,
    pub description: &'static str,
    /// The value (as option text) when the pipeline does not set it; empty
    /// for an option the pass needs a value of (it fails, saying so,
    /// without one).
    pub default: &'static str,
    /// What a value is (its type's [`OptionType::EXPECTED`]), for `--help`.
    pub expected: &'static str,
}

/// A type an option's value can have: how its text parses.
pub trait OptionType: Sized {
    /// What a valid value is, for the error ("must be {EXPECTED}").
    const EXPECTED: &'static str;
    fn parse_option(text: &str) -> Option<Self>;
}

impl OptionType for bool {
    const EXPECTED: &'static str = "true or false";
    fn parse_option(text: &str) -> Option<Self> {
        match text {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        }
    }
}

impl OptionType for String {
    const EXPECTED: &'static str = "a string";
    fn parse_option(text: &str) -> Option<Self> {
        Some(text.to_string())
    }
}

macro_rules! integer_options {
    ($expected:literal: $($ty:ty),*) => {$(
        impl OptionType for $ty {
            const EXPECTED: &'static str = $expected;
            fn parse_option(text: &str) -> Option<Self> {
                text.parse().ok()
            }
        }
    )*};
}

integer_options!("an integer": i32, i64);
integer_options!("a non-negative integer": u32, u64, usize);
integer_options!("a positive integer": NonZeroU32, NonZeroU64, NonZeroUsize);

/// The options of a pass: a struct [`crate::pass!`] declares (or `()` for
/// none), parsed from MLIR's option text.
pub trait PassOptions: Sized + Clone + 'static {
    /// The declared options, in order (for `--help` and errors).
    const DECLARED: &'static [PassOption];
    /// Parses `key=value key2=value2` for the pass `argument`; options the
    /// text leaves out take their defaults.
    fn parse(argument: &str, text: &str) -> Result<Self, String>;
}

impl PassOptions for () {
    const DECLARED: &'static [PassOption] = &[];
    fn parse(argument: &str, text: &str) -> Result<Self, String> {
        values(argument, Self::DECLARED, text).map(|_| ())
    }
}

/// The text of each declared option (`key=value` from `text`, else its
/// default), in declaration order. A bare `key` means `key=true`.
pub fn values(argument: &str, declared: &[PassOption], text: &str) -> Result<Vec<String>, String> {
    let mut values: Vec<String> = declared.iter().map(|o| o.default.to_string()).collect();
    for item in text.split_whitespace() {
        let (key, value) = item.split_once('=').unwrap_or((item, "true"));
        let Some(index) = declared.iter().position(|o| o.name == key) else {
            if declared.is_empty() {
                return Err(format!("'{argument}' takes no options (given '{key}')"));
            }
            let known: Vec<&str> = declared.iter().map(|o| o.name).collect();
            return Err(format!("'{argument}' has no option '{key}' (its options: {})", known.join(", ")));
        };
        values[index] = value.to_string();
    }
    Ok(values)
}

/// `text` as a `T`, or the error for option `name` of pass `argument`.
pub fn typed<T: OptionType>(argument: &str, name: &str, text: &str) -> Result<T, String> {
    T::parse_option(text).ok_or_else(|| format!("{argument}: {name} must be {}, got '{text}'", T::EXPECTED))
}

/// Called by the C++ registration for `name{options}`: the pass with its
/// options set, or a null pass and `error` set to a message (leaked: it is
/// a pipeline author's mistake, reported once).
///
/// # Safety
/// `definition` is a `&'static PassDefinition` cast to a pointer by
/// `register_passes`; `options` a valid string reference; `error` writable.
#[no_mangle]
pub unsafe extern "C" fn htp_pass_create_with_options(definition: *const std::ffi::c_void, options: MlirStringRef, error: *mut MlirStringRef) -> MlirPass {
    let definition = unsafe { &*(definition as *const PassDefinition) };
    // No options is an empty reference whose data may be null.
    let text = if options.data.is_null() || options.length == 0 {
        String::new()
    } else {
        String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(options.data as *const u8, options.length) }).into_owned()
    };
    match (definition.create_with_options)(&text) {
        Ok(pass) => pass,
        Err(message) => {
            let leaked: &'static str = Box::leak(message.into_boxed_str());
            unsafe { *error = MlirStringRef { data: leaked.as_ptr() as *const c_char, length: leaked.len() } };
            MlirPass { ptr: std::ptr::null_mut() }
        }
    }
}
