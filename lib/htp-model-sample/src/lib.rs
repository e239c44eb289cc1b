//! The smallest HTP programming model built only through the extension
//! API, as a crate outside HTP would be (docs/architecture.md, "How to add
//! a programming model"): it owns the `cells` dialect (`dialect/cells/`,
//! built by `build.rs`), registers it, its model `sample` (`model.rs`:
//! constructs, loops, a block construct, a type) and the pass that lowers
//! it (`lower_cells.rs`), and is named in one line of `htp-all`.
//!
//! ```python
//! sm = htp.model("sample")
//!
//! @htp.func
//! def accumulate(total: sm.Cell, x: htp.f32):
//!     sm.put(total, sm.get(total) + x)
//!
//! @sm.program
//! def grid_sum(x: htp.Tensor[htp.f32, 4, 64], y: htp.Out[htp.f32, 1, 64], s: htp.f32):
//!     total = sm.cell(0.0)                    # a !cells.cell<f32>
//!     acc = 0.0
//!     for i, j in sm.grid(2, 3):             # two indices; `acc` is carried out
//!         acc = acc + s
//!     accumulate(total, acc)                 # the cell passed to a function
//!     ...
//! ```
//!
//! Its pipeline (run by the driver on every target before the capability
//! check) turns cells into one-element memrefs and the program into a
//! plain kernel, so every target that runs kernels runs it.

pub mod lower_cells;
pub mod model;

use melior::ir::{Type, TypeLike};

/// Handle functions of the dialects this crate builds (`cells`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

/// Typed ops of the `cells` dialect, generated from its ODS.
pub mod ods {
    melior::dialect! {
        name: "cells",
        files: ["CellsOps.td"],
        // Absolute folders `htp_build::build_dialects` sets: the crate
        // builds inside HTP's workspace and as a path dependency elsewhere.
        include_directory_env_vars: ["HTP_ODS_DIR_CELLS", "HTP_ODS_ROOT"],
    }
    htp_dialects::ods_ops!(cells: NewOperation, PutOperation, GetOperation);
}

unsafe extern "C" {
    fn htpCellsTypeIsACell(ty: mlir_sys::MlirType) -> bool;
    fn htpCellsCellTypeGet(element: mlir_sys::MlirType) -> mlir_sys::MlirType;
    fn htpCellsCellTypeGetElement(ty: mlir_sys::MlirType) -> mlir_sys::MlirType;
}

/// Whether `ty` is a `!cells.cell<T>`.
pub fn is_cell(ty: Type) -> bool {
    unsafe { htpCellsTypeIsACell(ty.to_raw()) }
}

/// `!cells.cell<element>`.
pub fn cell_type(element: Type) -> Type {
    unsafe { Type::from_raw(htpCellsCellTypeGet(element.to_raw())) }
}

/// The element type of a cell type (`None` for another type).
pub fn cell_element(ty: Type) -> Option<Type> {
    is_cell(ty).then(|| unsafe { Type::from_raw(htpCellsCellTypeGetElement(ty.to_raw())) })
}

/// Registers the dialect, the pass and the model.
pub fn register() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_pass::register_passes(&[lower_cells::DEFINITION])?;
    htp_api::models::register_model(&model::SAMPLE)
}
