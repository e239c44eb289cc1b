//! The registry of translations: importers (text -> MLIR, like
//! `--import-python`) and exporters (MLIR -> text, like a backend's package
//! writer) that `htp-translate` offers as `--<name>`. A crate registers its
//! translations from its `register()`; the tool's C++ driver (MLIR's
//! `MlirTranslateMain` exists only in C++) enumerates them through the C
//! functions below, so the tool names no backend. Options a translation
//! declares become `--<option>` flags of the tool.

use std::{
    collections::BTreeMap,
    ffi::{c_char, c_void},
    mem::ManuallyDrop,
    sync::RwLock,
};

use melior::{
    ir::{Location, Module},
    ContextRef,
};
use mlir_sys::{MlirContext, MlirLogicalResult, MlirModule, MlirOperation, MlirStringCallback, MlirStringRef};

/// The values of a translation's options, by option name (several for a
/// repeatable option; the default when the user gave none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranslationOptions(pub BTreeMap<String, Vec<String>>);

impl TranslationOptions {
    /// The last value given for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(|values| values.last()).map(String::as_str)
    }

    /// Every value given for `name`.
    pub fn all(&self, name: &str) -> &[String] {
        self.0.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Parses `name=value` lines (how the C++ driver hands them over).
    fn parse(text: &str) -> Self {
        let mut options = Self::default();
        for line in text.lines() {
            if let Some((name, value)) = line.split_once('=') {
                options.0.entry(name.to_string()).or_default().push(value.to_string());
            }
        }
        options
    }
}

/// A `--<name>` flag a translation reads.
#[derive(Clone, Copy, Debug)]
pub struct TranslationOption {
    pub name: &'static str,
    pub description: &'static str,
    /// The value when not given ("" for none).
    pub default: &'static str,
    /// May be given several times (`--htp-const A=1 --htp-const B=2`).
    pub repeatable: bool,
}

/// An exporter: writes the text of `module` (an `Err` is a diagnostic at
/// the module, prefixed with the flag).
pub type Export = fn(&Module, &TranslationOptions) -> Result<String, String>;

/// An importer: the module of `source` (from the file `file_name`) in
/// `context`, or the diagnostics to emit (each with its location).
pub type Import = for<'c> fn(&'c melior::Context, &str, &str, &TranslationOptions) -> Result<Module<'c>, Vec<(Location<'c>, String)>>;

/// Which way a translation goes.
#[derive(Clone, Copy)]
pub enum Direction {
    FromMlir(Export),
    ToMlir(Import),
}

/// One translation, `htp-translate --<name>`.
#[derive(Clone, Copy)]
pub struct Translation {
    pub name: &'static str,
    pub description: &'static str,
    pub options: &'static [TranslationOption],
    pub direction: Direction,
}

static TRANSLATIONS: RwLock<Vec<&'static Translation>> = RwLock::new(Vec::new());

/// Registers `translation`; the same one again is a no-op, another under a
/// taken name an error.
pub fn register_translation(translation: &'static Translation) -> Result<(), String> {
    let mut registered = TRANSLATIONS.write().map_err(|_| "the translation registry is poisoned".to_string())?;
    if let Some(existing) = registered.iter().find(|t| t.name == translation.name) {
        return if std::ptr::eq(*existing, translation) { Ok(()) } else { Err(format!("a translation named '{}' is already registered", translation.name)) };
    }
    registered.push(translation);
    Ok(())
}

/// The registered translations, in registration order.
pub fn translations() -> Vec<&'static Translation> {
    TRANSLATIONS.read().map(|t| t.clone()).unwrap_or_default()
}

fn string_ref(text: &'static str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr() as *const c_char, length: text.len() }
}

unsafe fn text(data: *const c_char, len: usize) -> String {
    if data.is_null() || len == 0 {
        return String::new();
    }
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(data as *const u8, len) }).into_owned()
}

fn nth(index: usize) -> Option<&'static Translation> {
    translations().get(index).copied()
}

/// How many translations are registered.
#[no_mangle]
pub extern "C" fn htpTranslationCount() -> usize {
    translations().len()
}

/// The name, description and direction (true: an importer) of translation
/// `index`; false when there is none.
///
/// # Safety
/// Every pointer must be writable.
#[no_mangle]
pub unsafe extern "C" fn htpTranslationInfo(index: usize, name: *mut MlirStringRef, description: *mut MlirStringRef, imports: *mut bool, options: *mut usize) -> bool {
    let Some(translation) = nth(index) else { return false };
    unsafe {
        *name = string_ref(translation.name);
        *description = string_ref(translation.description);
        *imports = matches!(translation.direction, Direction::ToMlir(_));
        *options = translation.options.len();
    }
    true
}

/// Option `option` of translation `index`; false when there is none.
///
/// # Safety
/// Every pointer must be writable.
#[no_mangle]
pub unsafe extern "C" fn htpTranslationOption(
    index: usize,
    option: usize,
    name: *mut MlirStringRef,
    description: *mut MlirStringRef,
    default: *mut MlirStringRef,
    repeatable: *mut bool,
) -> bool {
    let Some(option) = nth(index).and_then(|t| t.options.get(option)) else { return false };
    unsafe {
        *name = string_ref(option.name);
        *description = string_ref(option.description);
        *default = string_ref(option.default);
        *repeatable = option.repeatable;
    }
    true
}

fn failure() -> MlirLogicalResult {
    MlirLogicalResult { value: 0 }
}

/// Runs exporter `index` on `module` with `options` (`name=value` lines);
/// the text goes to `callback`. Errors are diagnostics at the module.
///
/// # Safety
/// `module` must be a live `builtin.module`; `options` `options_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn htpTranslationExport(
    index: usize,
    module: MlirOperation,
    options: *const c_char,
    options_len: usize,
    callback: MlirStringCallback,
    user_data: *mut c_void,
) -> MlirLogicalResult {
    // Borrowed, not owned: the caller destroys the module.
    let module = ManuallyDrop::new(unsafe { Module::from_raw(mlir_sys::mlirModuleFromOperation(module)) });
    let location = melior::ir::operation::OperationLike::location(&module.as_operation());
    let Some(Translation { name, direction: Direction::FromMlir(export), .. }) = nth(index) else {
        htp_ir::query::emit_error(location, &format!("translation #{index} is not an exporter"));
        return failure();
    };
    let options = TranslationOptions::parse(&unsafe { text(options, options_len) });
    // A panic must not unwind into MLIR's C++: it becomes the error below.
    let result = htp_pass::catch_quietly(|| export(&module, &options))
        .unwrap_or_else(|what| Err(format!("internal error: {what} (this is a bug in HTP)")));
    match result {
        Ok(text) => {
            if let Some(callback) = callback {
                unsafe { callback(MlirStringRef { data: text.as_ptr() as *const c_char, length: text.len() }, user_data) };
            }
            MlirLogicalResult { value: 1 }
        }
        Err(message) => {
            htp_ir::query::emit_error(location, &format!("--{name}: {message}"));
            failure()
        }
    }
}

/// Runs importer `index` on `source` (of `file_name`) with `options`; the
/// new module (owned by the caller), or null after its diagnostics were
/// emitted on `context`.
///
/// # Safety
/// `context` must be live with HTP's dialects loaded; each pointer must
/// point to its length of readable bytes (or be null with length 0).
#[no_mangle]
pub unsafe extern "C" fn htpTranslationImport(
    index: usize,
    context: MlirContext,
    source: *const c_char,
    source_len: usize,
    file_name: *const c_char,
    file_name_len: usize,
    options: *const c_char,
    options_len: usize,
) -> MlirModule {
    let null = MlirModule { ptr: std::ptr::null_mut() };
    let context = unsafe { ContextRef::from_raw(context) };
    let context = unsafe { context.to_ref() };
    let (source, file_name) = unsafe { (text(source, source_len), text(file_name, file_name_len)) };
    let Some(Translation { name, direction: Direction::ToMlir(import), .. }) = nth(index) else {
        htp_ir::query::emit_error(Location::unknown(context), &format!("translation #{index} is not an importer"));
        return null;
    };
    let options = TranslationOptions::parse(&unsafe { text(options, options_len) });
    let result = htp_pass::catch_quietly(|| import(context, &source, &file_name, &options));
    match result {
        Ok(Ok(module)) => {
            let raw = module.to_raw();
            std::mem::forget(module);
            raw
        }
        Ok(Err(diagnostics)) => {
            for (location, message) in diagnostics {
                htp_ir::query::emit_error(location, &message);
            }
            null
        }
        Err(what) => {
            let location = Location::new(context, &file_name, 1, 1);
            htp_ir::query::emit_error(location, &format!("--{name}: internal error: {what} (this is a bug in HTP)"));
            null
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(module: &Module, options: &TranslationOptions) -> Result<String, String> {
        let _ = module;
        options.get("greeting").map(str::to_string).ok_or_else(|| "no greeting".into())
    }

    static ECHO: Translation = Translation {
        name: "test-echo",
        description: "echo an option",
        options: &[TranslationOption { name: "greeting", description: "", default: "hi", repeatable: false }],
        direction: Direction::FromMlir(echo),
    };
    static OTHER: Translation = Translation { name: "test-echo", description: "", options: &[], direction: Direction::FromMlir(echo) };

    #[test]
    fn translations_register_once_and_options_parse() {
        register_translation(&ECHO).unwrap();
        register_translation(&ECHO).unwrap();
        assert!(register_translation(&OTHER).unwrap_err().contains("already registered"));
        assert_eq!(translations().iter().filter(|t| t.name == "test-echo").count(), 1);
        let options = TranslationOptions::parse("a=1\nb=x=y\na=2\n");
        assert_eq!(options.get("a"), Some("2"));
        assert_eq!(options.all("a"), ["1", "2"]);
        assert_eq!(options.get("b"), Some("x=y"));
        assert_eq!(options.get("c"), None);
    }
}
