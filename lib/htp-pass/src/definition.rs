//! What MLIR needs to know to create a Rust pass by name. Passes declare
//! theirs with [`crate::pass!`].

use melior::{
    dialect::DialectHandle,
    ir::r#type::TypeId,
    pass::{create_external, Pass},
};
use mlir_sys::MlirPass;

use crate::{options::PassOptions, PassBody, RustPass};

pub struct PassDefinition {
    /// The name used in pipelines, e.g. `tile-peak-live-bytes`.
    pub argument: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
    /// The op the pass runs on (`builtin.module`, `func.func`, ...).
    pub anchor: &'static str,
    /// Creates a fresh instance with default options (ownership passes to
    /// the caller).
    pub create_raw: unsafe extern "C" fn() -> MlirPass,
    /// Creates a fresh instance with options set from MLIR's option text
    /// (`key=value ...`), or says why the text is wrong.
    pub create_with_options: fn(&str) -> Result<MlirPass, String>,
    /// What `argument{name=value}` may set (`crate::options`).
    pub options: &'static [crate::PassOption],
}

impl PassDefinition {
    /// A fresh instance of the pass, to add to a pass manager.
    pub fn create(&self) -> Pass {
        unsafe { Pass::from_raw_fn(self.create_raw) }
    }

    /// A fresh instance with options given as MLIR's option text.
    pub fn create_with(&self, options: &str) -> Result<Pass, String> {
        (self.create_with_options)(options).map(|raw| unsafe { Pass::from_raw(raw) })
    }

    /// Wraps a Rust pass body and its options as an MLIR pass with this
    /// definition's name, help and anchor (what [`crate::pass!`] creates
    /// instances with). `id` comes from `pass_type_id!()`.
    pub fn instance<O: PassOptions>(&self, body: PassBody<O>, options: O, id: TypeId, dialects: &[DialectHandle]) -> MlirPass {
        let name = class_name(self.argument);
        create_external(RustPass { body, options }, id, &name, self.argument, self.description, self.anchor, dialects).to_raw()
    }

    /// Parses `text` as this pass's options `O`.
    pub fn parse_options<O: PassOptions>(&self, text: &str) -> Result<O, String> {
        O::parse(self.argument, text)
    }

    /// A textual pipeline that runs just this pass on a module.
    pub fn module_pipeline(&self) -> String {
        if self.anchor == "builtin.module" {
            format!("builtin.module({})", self.argument)
        } else {
            format!("builtin.module({}({}))", self.anchor, self.argument)
        }
    }
}

/// MLIR's name of the pass class: the argument in camel case
/// (`tile-peak-live-bytes` -> `TilePeakLiveBytes`).
pub fn class_name(argument: &str) -> String {
    argument
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}
