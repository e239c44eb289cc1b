//! Moving a tile's elements between buffer shapes: a one-column (DN)
//! buffer seen as one row, and transposes (TTRANS), which also carry a
//! column between its DN buffer and column 0 of an ND tile (how a column
//! meets a row-major tensor in GM).

use super::buffer::{round_up, Buffer, Extent, Layout, Shape};
use super::state::{At, PtoOps};
use htp_ir::builder::bit_width;
use crate::ods::pto;

/// A one-column buffer seen as one row, so elementwise instructions (which
/// want ND tiles) apply to per-row values.
pub fn as_row<'c>(at: &At<'c>, buffer: Buffer<'c>) -> Buffer<'c> {
    if !buffer.shape.is_column() {
        return buffer;
    }
    let shape = Shape {
        rows: 1,
        cols: buffer.shape.rows,
        layout: Layout::Nd,
        valid: [Extent::Static(1), buffer.shape.valid[0]],
        ..buffer.shape
    };
    at.view(buffer, shape)
}

/// The transpose of `source` into `dst` (whose valid region mirrors it).
/// A one-row or one-column tile keeps its bytes (a column buffer seen as a
/// row is the row): a TMOV. Anything else is a TTRANS, whose scratch tile
/// is sized as pto-contract.md 2.12 says.
pub fn transpose_into<'c>(at: &At<'c>, dst: Buffer<'c>, source: Buffer<'c>) {
    let vector = |b: &Buffer| b.shape.is_column() || b.shape.rows == 1;
    if vector(&source) && vector(&dst) {
        at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).src(as_row(at, source).value).build());
        return;
    }
    let (dst, source) = (as_row(at, dst), as_row(at, source));
    let per_repeat = if bit_width(source.shape.element) == 8 { 32 } else { 16 };
    let scratch = Shape { rows: source.shape.cols, cols: round_up(source.shape.rows, per_repeat), layout: Layout::Nd, ..source.shape };
    let tmp = at.alloc(scratch.fully_valid());
    at.instruction(pto::TTransOperationBuilder::new(at.context, at.location).dst(dst.value).src(source.value).tmp(tmp.value).build());
}
