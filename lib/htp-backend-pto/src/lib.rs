//! HTP's PTO backend: the `pto-a2a3sim` and `pto-a2a3` targets. A tile
//! module is lowered by the [`PIPELINE`] (`tile-reuse-loads` within half
//! the UB's bytes, `convert-tile-to-pto`, then per
//! kernel `pto-allocate-tiles` and `pto-insert-sync`) and written out as a
//! pto-runtime package: one PTO-ISA C++ source per kernel, the
//! orchestration source and `manifest.json` (docs/targets/pto.md). The
//! package runs through the Python module `htp.pto.runtime`.
//!
//! Layout: `build.rs` builds the `pto` dialect (`dialects/pto/`), which
//! `register()` registers with the core; `ods.rs` (its typed ops),
//! `dialect.rs` (typed access to the `pto` dialect's types), `arrays.rs`
//! (kernel-local scalar arrays: what the conversion, writer and metrics
//! accept as one),
//! `conversion/` (tile -> pto), `transforms/` (placement, synchronisation),
//! `emit/` (C++ writer, package, `htp-translate --pto-to-cpp`), `metrics/`
//! (static traffic, sync and memory counts of a lowered program for one
//! call), `target.rs` (the registered targets).

pub mod architecture;
pub mod arrays;
pub mod conversion;
pub mod dialect;
pub mod emit;
pub mod intrinsics;
pub mod metrics;
pub mod ods;
pub mod ops;
mod target;
pub mod transforms;

/// Handle functions of the dialects this crate builds (`pto`; `build.rs`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

pub use emit::package::{arguments_of, numpy_dtype, package, ArgumentInfo, Dim, DimNames, Manifest, Package};
pub use target::{dim_names, PtoTarget};

use htp_dialects::diagnostics::MlirError;
use htp_pass::{PassDefinition, PipelineDefinition};
use melior::{ir::Module, Context};

/// The backend's passes.
pub const PASSES: &[PassDefinition] =
    &[conversion::DEFINITION, transforms::allocate_tiles::DEFINITION, transforms::insert_sync::DEFINITION, transforms::verify_pipes::DEFINITION];

/// The passes from tile IR to placed, synchronised PTO kernels.
pub const PIPELINE: PipelineDefinition = PipelineDefinition {
    name: "htp-pto-lowering",
    description: "tile IR -> placed, synchronised PTO-ISA kernels and their pto-runtime orchestration (Ascend A2/A3)",
    passes: "func.func(tile-reuse-loads{budget-bytes=94208}),convert-tile-to-pto,func.func(pto-allocate-tiles,pto-insert-sync),pto-verify-pipes",
};

/// Which PTO target: the CPU simulation of pto-runtime, or the chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    Sim,
    Chip,
}

impl Flavour {
    pub fn target(self) -> &'static str {
        match self {
            Flavour::Sim => "pto-a2a3sim",
            Flavour::Chip => "pto-a2a3",
        }
    }

    pub fn platform(self) -> &'static str {
        match self {
            Flavour::Sim => "a2a3sim",
            Flavour::Chip => "a2a3",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Flavour::Sim => "Ascend A2/A3 (pto-runtime a2a3sim: PTO-ISA's CPU simulation)",
            Flavour::Chip => "Ascend A2/A3 (pto-runtime a2a3, needs CANN and a device)",
        }
    }
}

static SIM: PtoTarget = PtoTarget(Flavour::Sim);
static CHIP: PtoTarget = PtoTarget(Flavour::Chip);

/// Registers the backend's dialect, passes, pipeline, intrinsic set,
/// layout facet and its two targets.
pub fn register() -> Result<(), String> {
    // Once per process: every compile asks (registration is idempotent,
    // but redoing it costs more than a small kernel's passes).
    static REGISTERED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    REGISTERED.get_or_init(register_everything).clone()
}

fn register_everything() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_transforms::register()?;
    htp_pass::register_passes(PASSES)?;
    htp_pass::register_pipeline(PIPELINE)?;
    htp_api::intrinsics::register_intrinsic_set(&intrinsics::PTO)?;
    htp_api::intrinsics::register_intrinsic_set(&intrinsics::COMM)?;
    htp_dialects::layout::register_facet(conversion::layouts::nz_facet())?;
    htp_api::translation::register_translation(&emit::translate::PTO_TO_CPP)?;
    htp_api::register_target(&SIM)?;
    htp_api::register_target(&CHIP)
}

/// Adds an extension to both PTO targets (what a conversion crate running a
/// model on PTO registers): its capabilities and stages, named `name`.
pub fn extend_targets(name: &str, capabilities: &[String], stages: &[(&str, &str)]) -> Result<(), String> {
    for flavour in [Flavour::Sim, Flavour::Chip] {
        htp_api::register_target_extension(htp_api::extensions::TargetExtension {
            target: flavour.target().into(),
            name: name.into(),
            capabilities: capabilities.to_vec(),
            stages: stages.iter().map(|(point, pass)| (point.to_string(), pass.to_string())).collect(),
        })?;
    }
    Ok(())
}

/// A context that knows the backend's dialect (registered first).
pub fn new_context() -> Result<Context, String> {
    register()?;
    Ok(htp_dialects::new_context())
}

/// The passes of [`PIPELINE`] before and after the `after-tile-to-pto`
/// extension point.
/// `tile-reuse-loads` keeps a read-only tensor's tiles in UB within half its
/// usable bytes (`dialect::Location::Vec.usable_capacity()`, checked below):
/// the peak it estimates is before placement, and the allocator's alignment
/// and a later pass's tiles need the rest.
const TO_PTO: &str = "func.func(tile-reuse-loads{budget-bytes=94208}),convert-tile-to-pto";
const PLACE_AND_SYNC: &str = "func.func(pto-allocate-tiles,pto-insert-sync),pto-verify-pipes";

/// The named points of the PTO pipeline where target extensions' stages
/// run (`htp_api::extensions`), in pipeline order.
pub const EXTENSION_POINTS: [htp_api::ExtensionPoint; 3] = [
    htp_api::BEFORE_LOWERING,
    htp_api::ExtensionPoint {
        name: "after-tile-to-pto",
        description: "PTO kernels (pto.core, unplaced pto.alloc_tile buffers) and their orchestration, after convert-tile-to-pto, before placement and synchronisation",
    },
    htp_api::ExtensionPoint {
        name: "before-emit",
        description: "placed, synchronised PTO kernels and orchestration, before the package is written",
    },
];

/// Lowers `module` (tile IR, one kernel) in place.
pub fn lower(context: &Context, module: &mut Module) -> Result<(), Vec<MlirError>> {
    register().map_err(|message| vec![MlirError { position: None, message }])?;
    PIPELINE.run(context, module, "the PTO lowering")
}

/// [`lower`] for the registered target `target`, running its extensions'
/// stages at [`EXTENSION_POINTS`].
pub fn lower_for(context: &Context, module: &mut Module, target: &str) -> Result<(), Vec<MlirError>> {
    if htp_api::extensions::target_extensions(target).is_empty() {
        return lower(context, module);
    }
    register().map_err(|message| vec![MlirError { position: None, message }])?;
    let stages = |module: &mut Module, point: &htp_api::ExtensionPoint| htp_api::extensions::run_stages(context, module, target, point.name);
    let run = |module: &mut Module, passes: &str| htp_pass::dump::run_pipeline_collecting(context, module, passes, "the PTO lowering");
    stages(module, &EXTENSION_POINTS[0])?;
    run(module, TO_PTO)?;
    stages(module, &EXTENSION_POINTS[1])?;
    run(module, PLACE_AND_SYNC)?;
    stages(module, &EXTENSION_POINTS[2])
}

#[cfg(test)]
mod extension_point_tests {
    /// The pipeline run in parts around the extension points is the whole one.
    #[test]
    fn the_parts_around_the_extension_points_make_the_pipeline() {
        assert_eq!(format!("{},{}", super::TO_PTO, super::PLACE_AND_SYNC), super::PIPELINE.passes);
    }

    /// The load-reuse budget is half the UB's usable bytes.
    #[test]
    fn the_reuse_budget_is_half_the_usable_ub() {
        let budget = format!("budget-bytes={}}}", crate::dialect::Location::Vec.usable_capacity() / 2);
        assert!(super::TO_PTO.contains(&budget), "{}", super::TO_PTO);
    }
}
