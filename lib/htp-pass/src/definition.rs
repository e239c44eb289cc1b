//! What MLIR needs to know to create a Rust pass by name.

use melior::{
    dialect::DialectHandle,
    ir::r#type::TypeId,
    pass::{create_external, Pass},
};
use mlir_sys::MlirPass;

use crate::{PassBody, RustPass};

pub struct PassDefinition {
    /// The name used in pipelines, e.g. `tile-peak-live-bytes`.
    pub argument: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
    /// The op the pass runs on (`builtin.module`, `func.func`, ...).
    pub anchor: &'static str,
    /// Creates a fresh instance (ownership passes to the caller).
    pub create_raw: unsafe extern "C" fn() -> MlirPass,
    /// What `argument{name=value}` may set (`crate::options`).
    pub options: &'static [crate::PassOption],
}

impl PassDefinition {
    /// A fresh instance of the pass, to add to a pass manager.
    pub fn create(&self) -> Pass {
        unsafe { Pass::from_raw_fn(self.create_raw) }
    }

    /// Wraps a Rust pass as an MLIR pass with this definition's name, help
    /// and anchor; for a pass's `create_raw`. `id` comes from `pass_type_id!()`.
    pub fn external(&self, body: PassBody, id: TypeId, name: &str, dialects: &[DialectHandle]) -> MlirPass {
        let options = crate::options::take_pending(self);
        create_external(RustPass { body, options }, id, name, self.argument, self.description, self.anchor, dialects).to_raw()
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
