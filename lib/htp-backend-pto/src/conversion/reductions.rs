//! Column reductions of i16 and i32 tiles go through rows: pto-isa's CPU model
//! (the simulator's kernels) declares TCOLSUM and TCOLMAX for floating-point
//! (and 8-bit) tiles only — `static_assert(... "Not supported data type")`
//! in `pto/cpu/TColSum.hpp` and `TColMax.hpp` — though A2/A3 has their i16
//! and i32 forms. Both targets therefore transpose the tile (TTRANS) and
//! reduce its rows (TROWSUM/TROWMAX, which the CPU model has for i16 and
//! i32), so the simulator runs what the chip runs (decision D40).

use htp_ir::builder::{bit_width, is_float};

use super::buffer::{elements_per_block, round_up, Buffer, Extent, Layout, Pad, Shape};
use super::instructions;
use super::relayout::transpose_into;
use super::state::{At, PtoOps};

/// Whether a column reduction of `source` goes through rows.
pub fn through_rows(kind: &str, source: &Shape) -> bool {
    let element = source.element;
    matches!(kind, "sum" | "max") && !is_float(element) && matches!(bit_width(element), 16 | 32) && !source.is_column()
}

/// The `kind` reduction of each column of `source` into the row `dst`
/// (`1 x C`): TTRANS into a `C x R` tile, then a row reduction into `dst`'s
/// bytes seen as one column (a `1 x C` row and a `C x 1` column buffer hold
/// the same C elements).
pub fn reduce<'c>(at: &At<'c>, kind: &str, dst: Buffer<'c>, source: Buffer<'c>) -> Result<(), String> {
    let s = source.shape;
    let [rows, cols] = s.valid;
    let per_block = elements_per_block(s.element);
    let transposed = at.alloc(Shape { rows: s.cols, cols: round_up(s.rows, per_block), layout: Layout::Nd, valid: [cols, rows], pad: Pad::Null, ..s });
    transpose_into(at, transposed, source);
    let column = at.view(dst, Shape { rows: dst.shape.cols, cols: 1, layout: Layout::Dn, valid: [dst.shape.valid[1], Extent::Static(1)], ..dst.shape });
    let transposed = super::vector::with_rows(at, transposed, column.shape.rows);
    let scratch = at.alloc(transposed.shape);
    instructions::row_reduce(at, kind, column.value, transposed.value, scratch.value)
}

