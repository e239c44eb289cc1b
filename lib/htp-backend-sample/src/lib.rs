//! The smallest HTP backend built only through the extension API, as a
//! crate outside HTP would be (docs/architecture.md, "How to add a
//! backend"): it owns the `sample` dialect (`dialect/sample/`, built by
//! `build.rs`), registers it, a pass writing it (`count_tile_ops.rs`) and the
//! target `sample` (`target.rs`), and is named in one line of `htp-all`.
//!
//! The target counts each kernel's tile ops into `sample.kernel_info`,
//! reads the count back as a static metric, removes the op and hands the
//! module to the `cpu` target, which runs it: a backend that adds a stage
//! to another one.

pub mod count_tile_ops;
pub mod target;

/// Handle functions of the dialects this crate builds (`sample`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

/// Typed ops of the `sample` dialect, generated from its ODS.
pub mod ods {
    melior::dialect! {
        name: "sample",
        files: ["SampleOps.td"],
        // Absolute, set by htp_build::build_dialects (build.rs).
        include_directory_env_vars: ["HTP_ODS_DIR_SAMPLE"],
    }
    htp_dialects::ods_ops!(sample: KernelInfoOperation);
}

static TARGET: target::SampleTarget = target::SampleTarget;

/// Registers the dialect, the pass and the target.
pub fn register() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_pass::register_passes(&[count_tile_ops::DEFINITION])?;
    htp_api::register_target(&TARGET)
}
