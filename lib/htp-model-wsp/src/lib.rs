//! WSP, HTP's workload/schedule programming model, built only through the
//! extension API (docs/wsp.md): it owns the `wsp` dialect (`dialects/wsp/`,
//! built by `build.rs`), registers it, the model `wsp` (`model.rs`: axes,
//! loop constructors, tasks, pipes), its passes (`pipe/lower.rs`,
//! `infer_access.rs`, `apply_schedule.rs`) and schedules (`schedule.rs`).
//! It depends on no backend and no runtime: the targets are conversion
//! crates — `htp-conversion-wsp-to-cpu` (a workload's task graph on
//! `htp-runtime`'s task runtime) and `htp-conversion-wsp-to-pto` (the
//! package's orchestration; docs/wsp.md, "WSP on PTO"). Each is named in
//! one line of `htp-all`.
//!
//! ```python
//! wsp = htp.model("wsp")
//!
//! @wsp.workload
//! def scaled(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
//!     for i in wsp.parallel(wsp.dense(x.shape[0] // 16)):
//!         wsp.task(scale_rows, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :])
//! ```

pub mod apply_schedule;
pub mod infer_access;
pub mod ir;
pub mod model;
pub mod pipe;
pub mod schedule;

use melior::ir::{Type, TypeLike};

/// Handle functions of the dialects this crate builds (`wsp`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

unsafe extern "C" {
    fn htpWspAxisTypeGet(context: mlir_sys::MlirContext, kind: i32) -> mlir_sys::MlirType;
    fn htpWspAxisTypeKind(ty: mlir_sys::MlirType) -> i32;
}

/// The kinds of iteration-space axes (`!wsp.dense_axis`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisKind {
    /// `n` elements; a loop binds one index.
    Dense,
    /// Element `i` of `lengths[i]` positions; a loop binds two.
    Ragged,
    /// CSR rows and their columns; a loop binds two.
    Sparse,
}

impl AxisKind {
    /// How many indices a loop over the axis binds.
    pub fn indices(self) -> usize {
        match self {
            AxisKind::Dense => 1,
            AxisKind::Ragged | AxisKind::Sparse => 2,
        }
    }

    /// The axis type of this kind.
    pub fn r#type(self, context: &melior::Context) -> Type<'_> {
        unsafe { Type::from_raw(htpWspAxisTypeGet(context.to_raw(), self as i32)) }
    }

    /// The kind of an axis type; `None` for another type.
    pub fn of(ty: Type) -> Option<AxisKind> {
        match unsafe { htpWspAxisTypeKind(ty.to_raw()) } {
            0 => Some(AxisKind::Dense),
            1 => Some(AxisKind::Ragged),
            2 => Some(AxisKind::Sparse),
            _ => None,
        }
    }
}

/// The model's name (the capability `model:wsp`) and its dialect's.
pub const MODEL_NAME: &str = "wsp";

/// Registers the dialect, the passes and the model (the targets that run
/// workloads: `htp_conversion_wsp_to_cpu::register`,
/// `htp_conversion_wsp_to_pto::register`). Idempotent.
pub fn register() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_pass::register_passes(&[pipe::lower::DEFINITION, infer_access::DEFINITION, apply_schedule::DEFINITION])?;
    htp_api::models::register_model(&model::WSP)
}
