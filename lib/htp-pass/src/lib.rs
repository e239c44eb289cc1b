//! HTP's pass framework. A pass written in Rust is a body
//! `fn(&Context, OperationRef) -> Result<(), Failure>`; [`RustPass`] runs it
//! inside MLIR's pass manager behind a panic boundary, [`PassDefinition`]
//! names it, and the [`registry`] holds every pass and named pipeline any
//! crate registered, so they work in `--pass-pipeline` strings, in
//! `htp-opt`, in lit tests and in the driver alike. The crate knows no
//! dialect and no backend: backends and transforms register themselves.

mod boundary;
mod definition;
pub mod options;
pub mod dump;
pub mod registry;

pub use boundary::{catch_quietly, processing, Failure, PassBody, RustPass};
pub use definition::PassDefinition;
pub use options::{flag, option, PassOption};
pub use registry::{
    find_pipeline, pipelines, register_passes, register_pipeline, register_upstream_passes, registered_passes, PipelineDefinition,
};

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
mod tests;
