//! Pass options: a Rust pass declares `PassOption`s; `name{key=value ...}`
//! in a pipeline sets them for that instance (MLIR's syntax), and the body
//! reads them with [`option`]. MLIR's C API cannot give an external pass
//! options, so a pass that declares some is registered as a pipeline entry
//! that parses the text itself (`cpp/Registration.cpp`) and creates the
//! pass with the values set ([`create_with_options`]).

use std::cell::RefCell;
use std::ffi::c_char;

use mlir_sys::{MlirPass, MlirStringRef};

use crate::PassDefinition;

/// One option of a pass: `name=value` inside the braces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassOption {
    pub name: &'static str,
    pub description: &'static str,
    /// The value when the pipeline does not set it; empty for an option
    /// the pass needs a value of (it fails, saying so, without one).
    pub default: &'static str,
}

/// Values of an instance's options (every declared one, defaults filled in).
pub type OptionValues = Vec<(&'static str, String)>;

thread_local! {
    /// Values for the next pass `PassDefinition::external` creates on this thread.
    static PENDING: RefCell<Option<OptionValues>> = const { RefCell::new(None) };
    /// Values of the pass whose body runs on this thread.
    static RUNNING: RefCell<OptionValues> = const { RefCell::new(Vec::new()) };
}

/// The value of option `name` of the running pass (its default when the
/// pipeline did not set it); `None` for a name the pass does not declare.
pub fn option(name: &str) -> Option<String> {
    RUNNING.with(|values| values.borrow().iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()))
}

/// A boolean option (`true`/`false`, `1`/`0`); `default` if it is neither.
pub fn flag(name: &str, default: bool) -> bool {
    match option(name).as_deref() {
        Some("true" | "1") => true,
        Some("false" | "0") => false,
        _ => default,
    }
}

pub(crate) fn take_pending(definition: &PassDefinition) -> OptionValues {
    PENDING.with(|pending| pending.borrow_mut().take()).unwrap_or_else(|| defaults(definition))
}

pub(crate) fn with_running<R>(values: &OptionValues, body: impl FnOnce() -> R) -> R {
    let previous = RUNNING.with(|running| running.replace(values.clone()));
    let result = body();
    RUNNING.with(|running| *running.borrow_mut() = previous);
    result
}

fn defaults(definition: &PassDefinition) -> OptionValues {
    definition.options.iter().map(|o| (o.name, o.default.to_string())).collect()
}

/// `key=value key2=value2` (MLIR's option text) checked against the
/// definition's options.
pub fn parse(definition: &PassDefinition, text: &str) -> Result<OptionValues, String> {
    let mut values = defaults(definition);
    for item in text.split_whitespace() {
        let (key, value) = item.split_once('=').unwrap_or((item, "true"));
        let Some(slot) = values.iter_mut().find(|(name, _)| *name == key) else {
            let known: Vec<&str> = definition.options.iter().map(|o| o.name).collect();
            return Err(format!("'{}' has no option '{key}' (its options: {})", definition.argument, known.join(", ")));
        };
        slot.1 = value.to_string();
    }
    Ok(values)
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
    match parse(definition, &text) {
        Ok(values) => {
            PENDING.with(|pending| *pending.borrow_mut() = Some(values));
            let pass = unsafe { (definition.create_raw)() };
            PENDING.with(|pending| pending.borrow_mut().take());
            pass
        }
        Err(message) => {
            let leaked: &'static str = Box::leak(message.into_boxed_str());
            unsafe { *error = MlirStringRef { data: leaked.as_ptr() as *const c_char, length: leaked.len() } };
            MlirPass { ptr: std::ptr::null_mut() }
        }
    }
}
