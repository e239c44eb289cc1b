//! Shape operations on vector-core (UB) tiles, with the A2/A3 instructions
//! that move blocks between tiles:
//!
//! - `tile.slice`: TEXTRACT (vec -> vec) of the block; a column start that
//!   is not 32-byte aligned (what TEXTRACT takes) goes through the
//!   transpose of the block's rows, where it is a row start (TEXTRACT of
//!   the rows at column 0, TTRANS, TEXTRACT, TTRANS); a one-column result
//!   is extracted from the transpose as the row it is.
//!   A column step of 2 or 4 is TGATHER's mask pattern over the block's
//!   rows. Every n-th row of a tile is refused (TLOAD reads rows at any
//!   stride: slice the tensor instead).
//! - `tile.concat`: TCONCAT joins columns (a chain of them for more than
//!   two tiles, into growing views of the result); rows are stacked with
//!   TINSERT at each tile's row offset (one-column tiles: TCONCAT of their
//!   rows' view).
//! - `tile.reshape`: TRESHAPE's reinterpretation of the bytes (a view, as
//!   A2/A3's TRESHAPE is a TASSIGN to the source's address) when both tiles
//!   hold their elements row after row without padding, after a TMOV into
//!   a buffer of the result's own (so that nothing aliases the source's).
//!
//! Masks (packed bits) are refused: slice or join the data they compare.

use htp_dialects::tile::TileType;
use melior::ir::{attribute::IntegerAttribute, operation::OperationLike, OperationRef, ValueLike};

use super::buffer::{elements_per_block, extents_like, round_up, Buffer, Extent, Layout, Shape};
use super::relayout::{as_row, transpose_into};
use super::state::{At, Kernel, PtoOps};
use super::vector::{destination, is_mask, materialise, operand, result, result_tile};
use crate::ods::pto;
use htp_ir::builder::{bit_width, Builder};

/// `3rd`, `5th`, `22nd`: how a step is named in a message.
pub(super) fn ordinal(n: i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The bytes of one element.
fn bytes(shape: &Shape) -> i64 {
    (bit_width(shape.element) as i64 / 8).max(1)
}

/// Whether a column start may be TEXTRACT's or TINSERT's on A2/A3: its
/// bytes a multiple of 32.
fn aligned(column: i64, shape: &Shape) -> bool {
    (column * bytes(shape)) % 32 == 0
}

fn no_masks(tile: melior::ir::Value, what: &str) -> Result<(), String> {
    if is_mask(tile) {
        return Err(format!(
            "PTO holds a bool tile (a mask) as packed bits, which it cannot {what}: {what} the data it compares, then compare again"
        ));
    }
    Ok(())
}

/// `buffer` seen as a tile of `shape` (a `pto.tile_view` unless the types agree).
fn seen_as<'c>(at: &At<'c>, buffer: Buffer<'c>, shape: Shape<'c>) -> Buffer<'c> {
    if buffer.shape.type_text() == shape.type_text() {
        return Buffer { value: buffer.value, shape };
    }
    at.view(buffer, shape)
}

/// TEXTRACT (vec -> vec): the block of `dst`'s shape at `[row, col]` of `src`.
fn extract<'c>(at: &At<'c>, dst: Buffer<'c>, src: Buffer<'c>, row: i64, col: i64) {
    at.instruction(
        pto::TExtractOperationBuilder::new(at.context, at.location).dst(dst.value).src(src.value).row(at.index(row)).col(at.index(col)).build(),
    );
}

/// TINSERT (vec -> vec): `src` written into `dst` at `[row, col]`.
fn insert<'c>(at: &At<'c>, dst: Buffer<'c>, src: Buffer<'c>, row: i64, col: i64) {
    at.instruction(
        pto::TInsertOperationBuilder::new(at.context, at.location).dst(dst.value).src(src.value).row(at.index(row)).col(at.index(col)).build(),
    );
}

/// An ND buffer of `rows x cols` (the columns rounded to whole 32-byte
/// blocks) holding `like`'s elements, valid for `valid`.
fn nd<'c>(like: &Shape<'c>, rows: i64, cols: i64, valid: [Extent<'c>; 2]) -> Shape<'c> {
    Shape { rows, cols: round_up(cols, elements_per_block(like.element)), layout: Layout::Nd, valid, pad: super::buffer::Pad::Null, ..*like }
}

/// `src` (ND) transposed into a new ND buffer (TTRANS, `transpose_into`).
fn transposed<'c>(at: &At<'c>, src: Buffer<'c>) -> Buffer<'c> {
    let shape = nd(&src.shape, src.shape.cols, src.shape.rows, [src.shape.valid[1], src.shape.valid[0]]);
    let dst = at.alloc(shape);
    transpose_into(at, dst, src);
    dst
}

/// `tile.slice`.
pub fn slice<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    no_masks(operand(op, 0), "slice")?;
    let src = materialise(k, at, operand(op, 0))?;
    let tile = result_tile(op)?;
    let offsets = melior::ir::attribute::DenseI64ArrayAttribute::try_from(op.attribute("offsets").map_err(|e| e.to_string())?)
        .map_err(|_| "tile.slice offsets")?;
    let (row, col) = (offsets.element(0).map_err(|e| e.to_string())?, offsets.element(1).map_err(|e| e.to_string())?);
    let mut steps = htp_dialects::tile::access_strides(op);
    // A step along a dimension the slice takes one element of is no step.
    for (d, size) in [tile.rows(), tile.cols()].into_iter().enumerate() {
        if size == 1 {
            steps[d] = 1;
        }
    }
    if steps[0] != 1 {
        return Err(format!(
            "PTO takes every n-th row of a tile only as it loads it: TLOAD reads a tensor's rows at any stride, A2/A3 has no \
             instruction picking rows of a tile; slice the tensor with the step instead (x[i:i + {}:{}, ...])",
            tile.rows() * steps[0],
            steps[0]
        ));
    }
    let dst = destination(k, at, op, &src.shape.valid)?;
    if steps[1] != 1 {
        strided_columns(at, dst, src, (row, col, steps[1]), tile)?;
    } else {
        block(at, dst, src, row, col, tile.rows())?;
    }
    k.bind(result(op), dst);
    Ok(())
}

/// The block of `dst`'s valid region at `[row, col]` of `src`. TEXTRACT
/// takes any row start but only a column start at a 32-byte boundary: a
/// block at another column is extracted from the transpose, where its
/// column start is a row start (its rows taken first, at column 0, so
/// that the transpose's column start is 0). `rows`: the block's rows (a
/// one-column `dst`'s buffer has more, its rows padded to 32 bytes).
fn block<'c>(at: &At<'c>, dst: Buffer<'c>, src: Buffer<'c>, row: i64, col: i64, rows: i64) -> Result<(), String> {
    let one_element = matches!(dst.shape.valid, [Extent::Static(1), Extent::Static(1)]);
    if src.shape.is_column() {
        // Rows of a one-column tile: columns of the row its bytes are, or
        // rows of column 0 of an ND tile (TTRANS) when they start off a
        // 32-byte boundary.
        if aligned(row, &src.shape) || one_element {
            extract(at, as_row(at, dst), as_row(at, src), 0, row);
            return Ok(());
        }
        let staged = at.alloc(super::memory::column_in_rows(src.shape));
        transpose_into(at, staged, src);
        let part = at.alloc(nd(&src.shape, count(dst.shape.valid[0], rows), 1, [dst.shape.valid[0], Extent::Static(1)]));
        extract(at, part, staged, row, 0);
        transpose_into(at, dst, part);
        return Ok(());
    }
    if one_element {
        // One element: TEXTRACT's scalar form takes any offsets.
        extract(at, as_row(at, dst), src, row, col);
        return Ok(());
    }
    if !dst.shape.is_column() && aligned(col, &src.shape) {
        extract(at, dst, src, row, col);
        return Ok(());
    }
    // Through the transpose of the block's rows.
    let rows = take_rows(at, src, row, count(dst.shape.valid[0], rows), dst.shape.valid[0]);
    let t = transposed(at, rows);
    if dst.shape.is_column() {
        // One column: the transpose's row, into the column's bytes seen as a row.
        extract(at, as_row(at, dst), t, col, 0);
        return Ok(());
    }
    let [valid_rows, valid_cols] = dst.shape.valid;
    let part = at.alloc(nd(&src.shape, count(valid_cols, dst.shape.cols), rows.shape.rows, [valid_cols, valid_rows]));
    extract(at, part, t, col, 0);
    transpose_into(at, dst, part);
    Ok(())
}

/// A static extent, or `otherwise` (a buffer's size) for a run-time one.
fn count(extent: Extent, otherwise: i64) -> i64 {
    match extent {
        Extent::Static(n) => n,
        Extent::Dynamic(_) => otherwise,
    }
}

/// Rows `[row, row + rows)` of the ND `src`, all its columns (TEXTRACT at
/// column 0), valid for `valid` rows; `src` itself when that is all of it.
fn take_rows<'c>(at: &At<'c>, src: Buffer<'c>, row: i64, rows: i64, valid: Extent<'c>) -> Buffer<'c> {
    if row == 0 && rows == src.shape.rows {
        return src;
    }
    let part = at.alloc(nd(&src.shape, rows, src.shape.cols, [valid, src.shape.valid[1]]));
    extract(at, part, src, row, 0);
    part
}

fn unaligned(at: i64, shape: &Shape, what: &str) -> String {
    format!(
        "PTO moves blocks of a tile with TEXTRACT, which starts at 32-byte boundaries on A2/A3 (a multiple of {} {} elements); \
         this slice's {what} starts at column {at} ({} bytes)",
        elements_per_block(shape.element),
        shape.element,
        at * bytes(shape)
    )
}

/// Every `step`-th column (2 or 4) of rows of `src` from `[row, col]`:
/// the rows (TEXTRACT, when not all of them) and the window of columns
/// from the 32-byte boundary at or before `col` (TEXTRACT, when not 0),
/// then TGATHER's mask pattern picking the element at `col`'s place in
/// each group of `step`.
fn strided_columns<'c>(at: &At<'c>, dst: Buffer<'c>, src: Buffer<'c>, (row, col, step): (i64, i64, i64), tile: TileType<'c>) -> Result<(), String> {
    let first = col % step;
    let pattern = match (step, first) {
        (2, 0) => "p0101",
        (2, _) => "p1010",
        (4, 0) => "p0001",
        (4, 1) => "p0010",
        (4, 2) => "p0100",
        (4, _) => "p1000",
        _ => {
            return Err(format!(
                "PTO picks every 2nd or every 4th column of a tile (TGATHER's mask patterns on A2/A3), not every {}",
                ordinal(step)
            ))
        }
    };
    let element_bits = bit_width(src.shape.element);
    if element_bits != 16 && element_bits != 32 {
        return Err(format!("PTO picks every n-th column with TGATHER, which moves 16- and 32-bit elements (A2/A3), not {}", src.shape.element));
    }
    let n = tile.cols();
    if dst.shape.cols != n {
        return Err(format!(
            "PTO picks every n-th column with TGATHER, which writes the picked elements of all rows as one stream (A2/A3: its \
             destination is contiguous), so the {n} picked {} columns must fill whole 32-byte rows (a multiple of {})",
            src.shape.element,
            elements_per_block(src.shape.element)
        ));
    }
    if src.shape.is_column() {
        return Err("a column step of a one-column tile".into());
    }
    // The rows the slice takes, whole.
    let rows = take_rows(at, src, row, tile.rows(), dst.shape.valid[0]);
    // The window of columns from the group holding `col`.
    let start = col - first;
    let span = n * step;
    let window = if start == 0 {
        rows
    } else {
        if !aligned(start, &rows.shape) {
            return Err(unaligned(start, &rows.shape, "column group"));
        }
        let available = match rows.shape.valid[1] {
            Extent::Static(v) => Extent::Static((v - start).min(span)),
            Extent::Dynamic(_) => return Err("a column step over ragged columns".into()),
        };
        let part = at.alloc(nd(&rows.shape, rows.shape.rows, span, [rows.shape.valid[0], available]));
        extract(at, part, rows, 0, start);
        part
    };
    if span > window.shape.cols {
        return Err(format!("the picked window of {span} columns exceeds its tile's {}", window.shape.cols));
    }
    // Seen as whole groups: the elements past the tile's valid columns are
    // picked into columns past the result's.
    let picked_from = seen_as(at, window, window.shape.with_valid([window.shape.valid[0], Extent::Static(span)]));
    let full = seen_as(at, dst, dst.shape.with_valid([dst.shape.valid[0], Extent::Static(n)]));
    at.instruction(
        pto::TGatherMaskOperationBuilder::new(at.context, at.location)
            .pattern(super::attrs::mask_pattern(at.context, pattern))
            .dst(full.value)
            .src(picked_from.value)
            .build(),
    );
    Ok(())
}

/// `tile.concat`.
pub fn concat<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let axis = IntegerAttribute::try_from(op.attribute("axis").map_err(|e| e.to_string())?).map_err(|_| "tile.concat axis")?.value() as usize;
    let mut inputs = Vec::new();
    for index in 0..op.operand_count() {
        no_masks(operand(op, index), "join")?;
        let tile = TileType::try_from(operand(op, index).r#type()).map_err(|_| "a concat of a non-tile")?;
        inputs.push((materialise(k, at, operand(op, index))?, tile));
    }
    let (first, _) = *inputs.first().ok_or("a tile.concat of nothing")?;
    let dst = destination(k, at, op, &first.shape.valid)?;
    if axis == 1 || dst.shape.is_column() {
        // Columns side by side, or one-column tiles as the rows their bytes
        // are: TCONCAT, each step into a view of the result as wide as the
        // tiles joined so far.
        let target = as_row(at, dst);
        let row_form = |b: Buffer<'c>| -> Buffer<'c> {
            if dst.shape.is_column() || !b.shape.is_column() {
                return as_row(at, b);
            }
            // A one-column tile joined to others' columns: column 0 of an ND tile.
            let staged = at.alloc(super::memory::column_in_rows(b.shape));
            transpose_into(at, staged, b);
            staged
        };
        let mut joined = row_form(first);
        let mut width = inputs[0].1.shape()[axis];
        for (index, (input, tile)) in inputs.iter().enumerate().skip(1) {
            width += tile.shape()[axis];
            let into = if index + 1 == inputs.len() {
                target
            } else {
                at.view(target, target.shape.with_valid([target.shape.valid[0], Extent::Static(width)]))
            };
            let next = row_form(*input);
            at.instruction(pto::TConcatOperationBuilder::new(at.context, at.location).dst(into.value).src_0(joined.value).src_1(next.value).build());
            joined = into;
        }
    } else {
        // Rows stacked: each tile written at its row offset.
        let mut offset = 0;
        for (input, tile) in &inputs {
            insert(at, dst, *input, offset, 0);
            offset += tile.rows();
        }
    }
    k.bind(result(op), dst);
    Ok(())
}

/// Whether `shape` (a buffer of a fully valid `tile`) holds the tile's
/// elements one after the other, row by row, from its first byte: rows
/// without padding, one row, or one column.
fn contiguous(shape: &Shape, tile: TileType) -> bool {
    shape.is_column() || (shape.layout == Layout::Nd && (tile.rows() == 1 || shape.cols == tile.cols()))
}

/// `tile.reshape`.
pub fn reshape<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    no_masks(operand(op, 0), "reshape")?;
    let src = materialise(k, at, operand(op, 0))?;
    let input = TileType::try_from(operand(op, 0).r#type()).map_err(|_| "a reshape of a non-tile")?;
    let tile = result_tile(op)?;
    let dst = destination(k, at, op, &extents_like(tile, &src.shape.valid)?)?;
    if !contiguous(&src.shape, input) || !contiguous(&dst.shape, tile) {
        let padded = if contiguous(&src.shape, input) { (tile.cols(), dst.shape.cols) } else { (input.cols(), src.shape.cols) };
        return Err(format!(
            "PTO reshapes a tile with TRESHAPE, which reinterprets its bytes (A2/A3); a tile of {} {} columns holds its rows padded to \
             32 bytes ({} columns), so this reshape would move elements across that padding: reshape between shapes whose rows are \
             whole multiples of 32 bytes ({} {} elements), or one row or one column",
            padded.0,
            src.shape.element,
            padded.1,
            elements_per_block(src.shape.element),
            src.shape.element
        ));
    }
    // The bytes of one seen as the other (TRESHAPE), moved by a TMOV between
    // buffers of one type.
    if dst.shape.size_in_bytes() >= src.shape.size_in_bytes() {
        let into = seen_as(at, dst, src.shape);
        at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(as_row(at, into).value).src(as_row(at, src).value).build());
    } else {
        let from = seen_as(at, src, dst.shape);
        at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).src(as_row(at, from).value).build());
    }
    k.bind(result(op), dst);
    Ok(())
}

trait TileShape {
    fn shape(&self) -> [i64; 2];
}

impl TileShape for TileType<'_> {
    fn shape(&self) -> [i64; 2] {
        [self.rows(), self.cols()]
    }
}
