//! HTP's passes written in Rust. Each pass lives in its own module and is
//! listed once in [`PASSES`]; [`register_passes`] names them all in MLIR's
//! global registry so they work in `--pass-pipeline` strings, in `htp-opt`
//! and in pipelines that Rust parses from text.

pub mod convert_tile_to_linalg;
pub mod convert_tile_to_pto;
pub mod ir_builder;
pub mod ir_query;
pub mod pto_allocate_tiles;
pub mod pto_insert_sync;
pub mod tile_peak_live_bytes;

use melior::{
    dialect::DialectHandle,
    ir::{operation::OperationLike, r#type::TypeId, Location, OperationRef},
    pass::{create_external, ExternalPass, Pass, RunExternalPass},
    Context, ContextRef,
};
use mlir_sys::MlirPass;
use std::sync::Once;

/// A user-facing failure: the message and where it points (the user's
/// source, through the op's location).
pub type Failure<'c> = (Location<'c>, String);

/// What a Rust pass does to the op it runs on (a module or a function).
pub type PassBody = for<'c, 'a> fn(&'c Context, OperationRef<'c, 'a>) -> Result<(), Failure<'c>>;

/// Every HTP Rust pass: its body runs on the anchor op; a failure becomes
/// an error diagnostic at its location and fails the pass (no panics).
#[derive(Clone, Copy)]
pub struct RustPass(pub PassBody);

impl<'c> RunExternalPass<'c> for RustPass {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        // `to_ref` views the ContextRef value itself as a Context: it must
        // outlive every use of the reference.
        let context_ref = op.context();
        let context = unsafe { context_ref.to_ref() };
        if let Err((location, message)) = (self.0)(context, op) {
            ir_query::emit_error(location, &message);
            pass.signal_failure();
        }
    }
}

/// What MLIR needs to know to create a Rust pass by name.
pub struct PassDefinition {
    /// The name used in pipelines, e.g. `tile-peak-live-bytes`.
    pub argument: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
    /// The op the pass runs on (`builtin.module`, `func.func`, ...).
    pub anchor: &'static str,
    /// Creates a fresh instance (ownership passes to the caller).
    pub create_raw: unsafe extern "C" fn() -> MlirPass,
}

impl PassDefinition {
    /// A fresh instance of the pass, to add to a pass manager.
    pub fn create(&self) -> Pass {
        unsafe { Pass::from_raw_fn(self.create_raw) }
    }

    /// Wraps a Rust pass as an MLIR pass with this definition's name, help
    /// and anchor; for a pass's `create_raw`. `id` comes from `pass_type_id!()`.
    pub fn external(&self, body: PassBody, id: TypeId, name: &str, dialects: &[DialectHandle]) -> MlirPass {
        create_external(RustPass(body), id, name, self.argument, self.description, self.anchor, dialects).to_raw()
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

/// Every pass HTP implements in Rust.
pub const PASSES: &[PassDefinition] = &[
    convert_tile_to_linalg::DEFINITION,
    convert_tile_to_pto::DEFINITION,
    pto_allocate_tiles::DEFINITION,
    pto_insert_sync::DEFINITION,
    tile_peak_live_bytes::DEFINITION,
];

unsafe extern "C" {
    fn htpRegisterExternalPass(create: unsafe extern "C" fn() -> MlirPass);
}

/// Registers every pass in [`PASSES`] with MLIR (once per process).
pub fn register_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for pass in PASSES {
            unsafe { htpRegisterExternalPass(pass.create_raw) }
        }
    });
}

/// Declares a static, 8-byte-aligned object whose address is a pass's
/// MLIR TypeID (MLIR requires the alignment).
#[macro_export]
macro_rules! pass_type_id {
    () => {{
        #[repr(align(8))]
        struct PassTypeId;
        static ID: PassTypeId = PassTypeId;
        melior::ir::r#type::TypeId::create(&ID)
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline};

    #[test]
    fn registered_passes_parse_in_textual_pipelines() {
        register_passes();
        let context = htp_dialects::new_context();
        for pass in PASSES {
            let manager = PassManager::new(&context);
            let pipeline = pass.module_pipeline();
            parse_pass_pipeline(manager.as_operation_pass_manager(), &pipeline)
                .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
            let mut module = Module::parse(&context, "func.func @f() { return }").unwrap();
            assert!(manager.run(&mut module).is_ok());
        }
    }

    #[test]
    fn argument_names_are_unique_and_kebab_case() {
        let mut names: Vec<_> = PASSES.iter().map(|p| p.argument).collect();
        assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-')));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PASSES.len());
    }
}
