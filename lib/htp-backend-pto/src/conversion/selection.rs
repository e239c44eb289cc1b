//! Selection on the vector core (docs/targets/pto.md, "Selection"):
//!
//! - `tile.row_arg_reduce` is TROWARGMAX / TROWARGMIN into a one-column i32
//!   tile, with a scratch tile of the source's shape (as TROWMAX).
//! - `tile.sort` is composed: the row (in f32, an exact conversion; negated
//!   for an ascending sort) padded with -inf to `32 x 4^p` columns, TSORT32
//!   (descending blocks of 32 (value, column) pairs), `p` passes of
//!   TMRGSORT over the whole tile seen as one row (groups of 4 runs never
//!   straddle two rows, since a row holds `4^p` runs), then the first K
//!   values and columns taken out of the pairs by TGATHER's mask patterns.
//!   The padding sorts after every element of the row (it is -inf with
//!   higher columns, and both instructions keep equal values in column
//!   order), so the first K pairs are the row's own.
//! - `tile.take` is TGATHER by flat offsets: each index plus its row's
//!   offset in the source buffer (`r x columns`, a TCI column times the
//!   stride, added by TROWEXPANDADD).
//! - `tile.put` is one TSCATTER by flat offsets. A2/A3's TSCATTER zeroes
//!   its destination before it writes (pto-isa's CPU model does not), so
//!   the input is scattered too: each row of the scattered tile is the
//!   input's valid row followed by the values (TCONCAT), and each row of
//!   offsets is the input's own (`r x stride + c`) followed by the indices'
//!   (`r x stride + index`). TSCATTER writes them in row-major order from
//!   the scalar pipe, so every element first gets the input's value and
//!   then, in order of `j`, the values picked for it: the last of equal
//!   indices wins. Offsets of 8- and 16-bit elements are 16-bit (TCVT).

use htp_dialects::tile::TileType;
use melior::ir::{attribute::IntegerAttribute, operation::OperationLike, r#type::IntegerType, OperationRef, Type, ValueLike};

use super::buffer::{elements_per_block, extents_like, round_up, Buffer, Extent, Layout, Pad, Shape};
use super::memory::column_in_rows;
use super::relayout::{as_row, transpose_into};
use super::state::{At, Kernel, PtoOps};
use super::vector::{convert_chain, destination, materialise, operand, result, result_tile};
use super::{attrs, instructions};
use crate::ods::pto;
use htp_ir::builder::{bit_width, detach, Builder, V};

/// The longest row PTO sorts: TSORT32 + 3 TMRGSORT passes (32 x 4^3).
pub const LONGEST_SORTED_ROW: i64 = 2048;

/// The padded length of a sorted row: the first `32 x 4^p` that holds
/// `columns` (TMRGSORT merges 4 runs at a time).
pub fn padded_row(columns: i64) -> Option<i64> {
    let mut length = 32;
    while length < columns {
        length *= 4;
    }
    (length <= LONGEST_SORTED_ROW).then_some(length)
}

fn i32_type<'c>(at: &At<'c>) -> Type<'c> {
    IntegerType::new(at.context, 32).into()
}

fn i32_constant<'c>(at: &At<'c>, value: i64) -> V<'c> {
    let ty = i32_type(at);
    at.constant(IntegerAttribute::new(ty, value).into(), ty)
}

/// A fully valid ND vec tile of `rows x cols` elements of `element`.
fn nd<'c>(rows: i64, cols: i64, element: Type<'c>) -> Shape<'c> {
    Shape {
        place: super::buffer::Place::Vec,
        rows,
        cols,
        element,
        layout: Layout::Nd,
        valid: [Extent::Static(rows), Extent::Static(cols)],
        pad: Pad::Null,
    }
}

/// `tile.row_arg_reduce`: TROWARGMAX / TROWARGMIN (i32 columns, one per
/// row). A one-column tile's answer is column 0 everywhere (TEXPANDS).
pub fn row_arg_reduce<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let kind = IntegerAttribute::try_from(op.attribute("kind").map_err(|e| e.to_string())?).map_err(|_| "arg reduction kind")?.value();
    let source = materialise(k, at, operand(op, 0))?;
    let dst = destination(k, at, op, &source.shape.valid)?;
    if source.shape.is_column() {
        at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).scalar(i32_constant(at, 0)).build());
        k.bind(result(op), dst);
        return Ok(());
    }
    // As for TROWMAX: as many source rows as the one-column destination has.
    let source = super::vector::with_rows(at, source, dst.shape.rows);
    let scratch = at.alloc(source.shape);
    if kind == 1 {
        at.instruction(pto::TRowArgMaxOperationBuilder::new(at.context, at.location).dst(dst.value).src(source.value).tmp(scratch.value).build());
    } else {
        at.instruction(pto::TRowArgMinOperationBuilder::new(at.context, at.location).dst(dst.value).src(source.value).tmp(scratch.value).build());
    }
    k.bind(result(op), dst);
    Ok(())
}

/// `source` converted into `dst` through the TCVTs A2/A3 has
/// (`conversion_path`; exact here: every value sorted fits each step).
fn convert_into<'c>(at: &At<'c>, source: Buffer<'c>, dst: Buffer<'c>) -> Result<(), String> {
    let (from, to) = (source.shape.element.to_string(), dst.shape.element.to_string());
    if from == to {
        at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).src(as_row(at, source).value).build());
        return Ok(());
    }
    convert_chain(at, source, dst, |step| {
        let element = Type::parse(at.context, step).ok_or_else(|| format!("not an element type: {step}"))?;
        Ok(between(source.shape, dst.shape, element))
    })
}

/// A buffer of `element`s that holds what `from` and `to` hold (a step of
/// a conversion chain between them): their rows and columns, rounded to
/// whole 32-byte blocks of `element`s along the contiguous dimension.
fn between<'c>(from: Shape<'c>, to: Shape<'c>, element: Type<'c>) -> Shape<'c> {
    let per_block = elements_per_block(element);
    if to.is_column() {
        return Shape { rows: round_up(from.rows.max(to.rows), per_block), element, pad: Pad::Null, ..to };
    }
    Shape { cols: round_up(from.cols.max(to.cols), per_block), element, pad: Pad::Null, ..to }
}

/// `tile.sort` (see the module comment).
pub fn sort<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let descending = op.attribute("descending").is_ok();
    let input = TileType::try_from(operand(op, 0).r#type()).map_err(|_| "a sort of a non-tile")?;
    let element = input.element_type();
    let name = element.to_string();
    if !matches!(name.as_str(), "f32" | "f16" | "bf16" | "i16" | "i8") {
        return Err(format!(
            "PTO sorts f32, f16, bf16, i16 and i8 tiles, not {name}: A2/A3's TSORT32 and TMRGSORT sort f16 and f32, \
             and {name} does not convert to f32 exactly (cast the tile to f32 first if its values are below 2^24)"
        ));
    }
    let (rows, columns) = (input.rows(), input.cols());
    let Some(padded_length) = padded_row(columns) else {
        return Err(format!(
            "PTO sorts rows of at most {LONGEST_SORTED_ROW} elements (TSORT32's blocks of 32 and three TMRGSORT passes), got {columns}"
        ));
    };
    let values_tile = result_tile(op)?;
    let indices_tile = TileType::try_from(detach(op.result(1).map_err(|e| e.to_string())?.into()).r#type()).map_err(|_| "sort indices")?;
    let keep = values_tile.cols();
    let source = materialise(k, at, operand(op, 0))?;
    let valid_rows = source.shape.valid[0];
    let like = [valid_rows, Extent::Static(columns)];
    let values_dst = destination(k, at, op, &like)?;
    let indices_result = detach(op.result(1).map_err(|e| e.to_string())?.into());
    let indices_dst = k.destination(at, indices_result, Shape::vec_for(indices_tile, extents_like(indices_tile, &like)?));
    let index = i32_type(at);

    if columns == 1 {
        // One column is sorted; each element comes from column 0.
        at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(as_row(at, values_dst).value).src(as_row(at, source).value).build());
        at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(as_row(at, indices_dst).value).scalar(i32_constant(at, 0)).build());
        k.bind(result(op), values_dst);
        k.bind(indices_result, indices_dst);
        return Ok(());
    }

    // The row in f32, valid as the source; negated for an ascending sort
    // (TSORT32 and TMRGSORT sort descending).
    let f32_type = Type::float32(at.context);
    let wide_shape = Shape { cols: round_up(columns, 8), element: f32_type, layout: Layout::Nd, pad: Pad::Null, valid: like, ..source.shape };
    let mut wide = if name == "f32" {
        source
    } else {
        let converted = at.alloc(wide_shape);
        convert_into(at, source, converted)?;
        converted
    };
    if !descending {
        let negated = at.alloc(wide_shape);
        at.instruction(pto::TMulSOperationBuilder::new(at.context, at.location).dst(negated.value).src(wide.value).scalar(at.number(f32_type, -1.0)).build());
        wide = negated;
    }
    // Padded with -inf to the sorted length (TFILLPAD_EXPAND, pad = min).
    let padded = at.alloc(Shape { pad: Pad::Min, ..nd(rows, padded_length, f32_type) });
    at.instruction(pto::TFillPadOperationBuilder::new(at.context, at.location).dst(padded.value).src(wide.value).build());
    // Each element's column: 0, 1, ... on every row (TCI, TCOLEXPAND), as
    // the ui32 TSORT32 pairs with the values.
    let line = at.alloc(nd(1, padded_length, index));
    at.instruction(pto::TCiOperationBuilder::new(at.context, at.location).dst(line.value).start(i32_constant(at, 0)).build());
    let columns_of = at.alloc(nd(rows, padded_length, index));
    instructions::expand(at, false, columns_of.value, line.value);
    let ui32 = IntegerType::unsigned(at.context, 32).into();
    let columns_of = at.view(columns_of, nd(rows, padded_length, ui32));
    let pairs_shape = nd(rows, 2 * padded_length, f32_type);
    let mut pairs = at.alloc(pairs_shape);
    at.instruction(pto::TSort32OperationBuilder::new(at.context, at.location).dst(pairs.value).src(padded.value).idx(columns_of.value).build());
    // Merge passes over the tile as one row: runs of 32 pairs (64
    // elements), then 128 pairs, ... until each row is one run.
    let flat = nd(1, rows * 2 * padded_length, f32_type);
    let mut block = 64;
    while block < 2 * padded_length {
        let runs = at.view(pairs, flat);
        let merged = at.alloc(flat);
        let length = IntegerAttribute::new(IntegerType::new(at.context, 64).into(), block);
        at.instruction(pto::TMrgSortOperationBuilder::new(at.context, at.location).dst(merged.value).src(runs.value).block_len(length).build());
        pairs = at.view(merged, pairs_shape);
        block *= 4;
    }
    // The first `keep` pairs of each row (a whole number of 32-byte blocks
    // of them: the gathers write their destination rows whole).
    let taken = round_up(keep, 8);
    let front = at.view(pairs, Shape { valid: [Extent::Static(rows), Extent::Static(2 * taken)], ..pairs_shape });
    let gather = |dst: Buffer<'c>, pattern: &str| {
        at.instruction(
            pto::TGatherMaskOperationBuilder::new(at.context, at.location)
                .pattern(attrs::mask_pattern(at.context, pattern))
                .dst(dst.value)
                .src(front.value)
                .build(),
        );
    };
    // Columns: straight into the result unless it is one column (a DN
    // tile: gathered into rows, then moved by a transpose).
    let one_column = keep == 1;
    let columns_into = if one_column { at.alloc(nd(rows, taken, index)) } else { at.view(indices_dst, nd(rows, taken, index)) };
    gather(columns_into, "p1010");
    if one_column {
        let staged = at.view(columns_into, Shape { valid: [valid_rows, Extent::Static(1)], ..columns_into.shape });
        transpose_into(at, indices_dst, staged);
    }
    // Values: in f32, negated back after an ascending sort, converted to the
    // element type.
    let direct = name == "f32" && !one_column;
    let values_into = if direct { at.view(values_dst, nd(rows, taken, f32_type)) } else { at.alloc(nd(rows, taken, f32_type)) };
    gather(values_into, "p0101");
    if !descending {
        at.instruction(pto::TMulSOperationBuilder::new(at.context, at.location).dst(values_into.value).src(values_into.value).scalar(at.number(f32_type, -1.0)).build());
    }
    if !direct {
        let sorted = at.view(values_into, Shape { valid: [valid_rows, Extent::Static(keep)], ..values_into.shape });
        if one_column {
            let narrow = at.alloc(Shape { cols: elements_per_block(element), element, ..sorted.shape });
            convert_into(at, sorted, narrow)?;
            let staged = at.view(narrow, Shape { valid: [valid_rows, Extent::Static(1)], ..narrow.shape });
            transpose_into(at, values_dst, staged);
        } else {
            convert_into(at, sorted, values_dst)?;
        }
    }
    k.bind(result(op), values_dst);
    k.bind(indices_result, indices_dst);
    Ok(())
}

/// `tile.take`: TGATHER by flat offsets into the source buffer.
pub fn take<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let source = materialise(k, at, operand(op, 0))?;
    let element = source.shape.element;
    if !matches!(bit_width(element), 16 | 32) {
        return Err(format!("PTO gathers 16- and 32-bit elements (A2/A3's TGATHER), not {element}"));
    }
    let mut indices = materialise(k, at, operand(op, 1))?;
    let index = i32_type(at);
    let indices_tile = TileType::try_from(operand(op, 1).r#type()).map_err(|_| "take indices")?;
    if bit_width(indices.shape.element) == 64 {
        let narrowed = at.alloc(Shape::vec_of(indices_tile, index, indices.shape.valid));
        convert_into(at, indices, narrowed)?;
        indices = narrowed;
    }
    // Row r starts at r x (the source buffer's columns); a one-column (DN)
    // source holds row r at r.
    let stride = if source.shape.is_column() { 1 } else { source.shape.cols };
    let rows = source.shape.valid[0];
    let length = round_up(indices_tile.rows(), 8);
    let line = at.alloc(Shape { valid: [Extent::Static(1), Extent::Static(indices_tile.rows())], ..nd(1, length, index) });
    at.instruction(pto::TCiOperationBuilder::new(at.context, at.location).dst(line.value).start(i32_constant(at, 0)).build());
    at.instruction(pto::TMulSOperationBuilder::new(at.context, at.location).dst(line.value).src(line.value).scalar(i32_constant(at, stride)).build());
    let starts = at.view(line, Shape { rows: length, cols: 1, layout: Layout::Dn, valid: [rows, Extent::Static(1)], ..line.shape });
    let offsets = at.alloc(indices.shape);
    if indices.shape.is_column() {
        let starts = at.view(line, Shape { valid: [Extent::Static(1), rows], ..line.shape });
        at.instruction(pto::TAddOperationBuilder::new(at.context, at.location).dst(as_row(at, offsets).value).src_0(as_row(at, indices).value).src_1(starts.value).build());
    } else {
        let add = attrs::expand_kind(at.context, "add");
        instructions::expand_binary(at, true, add, offsets.value, indices.value, starts.value);
    }
    let dst = destination(k, at, op, &indices.shape.valid)?;
    // A2/A3 walks the scratch with dst's row stride.
    let tmp = at.alloc(Shape { element: index, valid: offsets.shape.valid, rows: dst.shape.rows.max(offsets.shape.rows), cols: dst.shape.cols.max(offsets.shape.cols), ..offsets.shape });
    at.instruction(pto::TGatherOperationBuilder::new(at.context, at.location).dst(dst.value).src(source.value).indices(offsets.value).tmp(tmp.value).build());
    k.bind(result(op), dst);
    Ok(())
}

/// The largest tile of 8- or 16-bit elements `tile.put` scatters into: its
/// offsets are i16 (A2/A3's TSCATTER pairs 2-byte offsets with them).
pub const LARGEST_NARROW_PUT: i64 = 32768;

/// `a + b` for valid extents: static when both are.
fn sum<'c>(at: &At<'c>, a: Extent<'c>, b: Extent<'c>) -> Extent<'c> {
    let value = |e: Extent<'c>| match e {
        Extent::Static(n) => at.index(n),
        Extent::Dynamic(v) => v,
    };
    match (a, b) {
        (Extent::Static(x), Extent::Static(y)) => Extent::Static(x + y),
        _ => Extent::Dynamic(at.value("arith.addi", &[value(a), value(b)], Type::index(at.context))),
    }
}

/// `tile.put` (see the module comment).
pub fn put<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let input = TileType::try_from(operand(op, 0).r#type()).map_err(|_| "a put into a non-tile")?;
    let indices_tile = TileType::try_from(operand(op, 1).r#type()).map_err(|_| "put indices")?;
    let element = input.element_type();
    if !matches!(bit_width(element), 8 | 16 | 32) {
        return Err(format!("PTO scatters 8-, 16- and 32-bit elements (A2/A3's TSCATTER), not {element}"));
    }
    let source = materialise(k, at, operand(op, 0))?;
    let mut indices = materialise(k, at, operand(op, 1))?;
    let values = materialise(k, at, operand(op, 2))?;
    let index = i32_type(at);
    if bit_width(indices.shape.element) == 64 {
        let narrowed = at.alloc(Shape::vec_of(indices_tile, index, indices.shape.valid));
        convert_into(at, indices, narrowed)?;
        indices = narrowed;
    }
    let dst = destination(k, at, op, &source.shape.valid)?;
    let narrow = bit_width(element) < 32;
    let elements = dst.shape.rows * dst.shape.cols;
    if narrow && elements > LARGEST_NARROW_PUT {
        return Err(format!(
            "PTO scatters {element} elements by 16-bit offsets (A2/A3's TSCATTER): into a tile of at most {LARGEST_NARROW_PUT} elements, \
             got {elements} ({}x{} in UB); scatter into smaller row blocks",
            dst.shape.rows, dst.shape.cols
        ));
    }
    // One-column tiles (DN) as column 0 of ND ones: TCONCAT joins rows.
    let row_form = |b: Buffer<'c>| -> Buffer<'c> {
        if !b.shape.is_column() {
            return b;
        }
        let staged = at.alloc(column_in_rows(b.shape));
        transpose_into(at, staged, b);
        staged
    };
    let (source_rows, indices_rows, values_rows) = (row_form(source), row_form(indices), row_form(values));
    let rows = input.rows();
    let [valid_rows, valid_cols] = source.shape.valid;
    let picked = indices.shape.valid[1];
    // Row r of dst starts at r x its columns; a one-column (DN) dst holds row r at r.
    let stride = if dst.shape.is_column() { 1 } else { dst.shape.cols };
    let length = round_up(rows, 8);
    let line = at.alloc(Shape { valid: [Extent::Static(1), Extent::Static(rows)], ..nd(1, length, index) });
    at.instruction(pto::TCiOperationBuilder::new(at.context, at.location).dst(line.value).start(i32_constant(at, 0)).build());
    at.instruction(pto::TMulSOperationBuilder::new(at.context, at.location).dst(line.value).src(line.value).scalar(i32_constant(at, stride)).build());
    let starts = at.view(line, Shape { rows: length, cols: 1, layout: Layout::Dn, valid: [valid_rows, Extent::Static(1)], ..line.shape });
    let add = attrs::expand_kind(at.context, "add");
    // The input's own offsets: r x stride + c (TCI columns, TCOLEXPAND, TROWEXPANDADD).
    let width = round_up(input.cols(), 8);
    let columns_line = at.alloc(nd(1, width, index));
    at.instruction(pto::TCiOperationBuilder::new(at.context, at.location).dst(columns_line.value).start(i32_constant(at, 0)).build());
    let columns = at.alloc(nd(rows, width, index));
    instructions::expand(at, false, columns.value, columns_line.value);
    let region = [valid_rows, valid_cols];
    let columns = at.view(columns, Shape { valid: region, ..columns.shape });
    let own = at.alloc(Shape { valid: region, ..nd(rows, width, index) });
    instructions::expand_binary(at, true, add, own.value, columns.value, starts.value);
    // The values' offsets: r x stride + index.
    let theirs = at.alloc(indices_rows.shape);
    instructions::expand_binary(at, true, add, theirs.value, indices_rows.value, starts.value);
    // Each row: the input's, then the values (TCONCAT), for elements and offsets alike.
    let joined_cols = round_up(input.cols() + indices_tile.cols(), 32);
    let joined_valid = [valid_rows, sum(at, valid_cols, picked)];
    let offsets = at.alloc(Shape { valid: joined_valid, ..nd(rows, joined_cols, index) });
    at.instruction(pto::TConcatOperationBuilder::new(at.context, at.location).dst(offsets.value).src_0(own.value).src_1(theirs.value).build());
    let joined = at.alloc(Shape { valid: joined_valid, ..nd(rows, joined_cols, element) });
    at.instruction(pto::TConcatOperationBuilder::new(at.context, at.location).dst(joined.value).src_0(source_rows.value).src_1(values_rows.value).build());
    let offsets = if narrow {
        let short = at.alloc(Shape { element: IntegerType::new(at.context, 16).into(), ..offsets.shape });
        convert_into(at, offsets, short)?;
        short
    } else {
        offsets
    };
    at.instruction(pto::TScatterOperationBuilder::new(at.context, at.location).dst(dst.value).src(joined.value).idx(offsets.value).build());
    k.bind(result(op), dst);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::padded_row;

    /// A sorted row is padded to `32 x 4^p`: TSORT32's blocks, then groups
    /// of 4 runs per TMRGSORT pass, none straddling two rows.
    #[test]
    fn rows_are_padded_to_whole_groups_of_runs() {
        assert_eq!(padded_row(2), Some(32));
        assert_eq!(padded_row(32), Some(32));
        assert_eq!(padded_row(33), Some(128));
        assert_eq!(padded_row(128), Some(128));
        assert_eq!(padded_row(200), Some(512));
        assert_eq!(padded_row(2048), Some(2048));
        assert_eq!(padded_row(2049), None);
        for columns in 1..=2048 {
            let length = padded_row(columns).expect("within the limit");
            let runs = (length / 32) as u64;
            assert!(length >= columns && length % 32 == 0 && runs.is_power_of_two() && runs.trailing_zeros() % 2 == 0, "{columns}: {length}");
            assert!(length == 32 || length / 4 < columns, "{columns}: {length} is not the least");
        }
    }
}
