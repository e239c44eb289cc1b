//! Tile loads and stores: a `pto.global_view` of the GM tensor (rows and
//! columns along its last two dims, the valid region's extent) and a TLOAD
//! into / TSTORE from the tile's buffer. A row step (`x[0:32:2, :]`) is the
//! view's row stride; a column step of 2 or 4 (`x[:, 1::2]`) loads the
//! window of columns the slice spans and picks every 2nd or 4th element
//! with TGATHER's mask patterns (a column step stored to GM has no A2/A3
//! instruction: TSTORE writes each row as one contiguous burst).

use htp_dialects::tile::TileType;
use melior::ir::{OperationRef, ValueLike};

use super::buffer::{elements_per_block, extents_of, Buffer, Extent, Layout, Shape};
use super::state::{At, Kernel, PtoOps};
use super::relayout::transpose_into;
use htp_ir::builder::{bit_width, detach, parse_type, shape_of, Builder, V};
use crate::ods::pto;
use htp_dialects::ods::{tile, view};

/// `tile.load` into a buffer of the shape `shape_for` picks; `before` may
/// add instructions between the buffer's allocation and the TLOAD.
pub fn load<'c>(
    k: &mut Kernel<'c>,
    at: &At<'c>,
    op: OperationRef<'c, 'c>,
    shape_for: impl Fn(TileType<'c>, [Extent<'c>; 2]) -> Shape<'c>,
    before: impl Fn(&At<'c>, Buffer<'c>),
) -> Result<(), String> {
    let load = view::<tile::LoadOperation>(op).ok_or("not a tile.load")?;
    let error = |e: melior::Error| e.to_string();
    let old_indices: Vec<V> = load.indices().map_err(error)?.map(detach).collect();
    let (source, indices) = k.gm_tensor(detach(load.source().map_err(error)?), &old_indices)?;
    let sizes: Vec<V> = load.valid_sizes().map_err(error)?.map(|size| k.value(detach(size))).collect::<Result<_, _>>()?;
    let result: V = detach(load.result().map_err(error)?.into());
    let tile = TileType::try_from(result.r#type()).map_err(|_| "load of a non-tile")?;
    let shape = shape_for(tile, extents_of(tile, &sizes)?);
    let [row_step, col_step] = htp_dialects::tile::access_strides(op);
    if col_step != 1 {
        return load_strided_columns(k, at, result, tile, shape, (source, &indices), [row_step, col_step], before);
    }
    if row_step != 1 && !matches!(shape.layout, Layout::Nd | Layout::Nz) && !shape.is_column() {
        return Err(format!("PTO reads every n-th row of a tensor into row-major tiles; this load's tile is laid out {:?} (a transposed matmul operand): load it without the step", shape.layout));
    }
    // A one-column tile (DN) reads a column that is contiguous in GM (the
    // column of a tensor whose last dimension is 1) directly; a strided
    // column of a row-major tensor (or every n-th element of that column)
    // lands in column 0 of an ND tile and is transposed into the DN buffer.
    if shape.is_column() && (!unit_last_dim(source) || row_step != 1) {
        let dst = at.alloc(shape);
        before(at, dst);
        let staged = at.alloc(column_in_rows(shape));
        let view = global_view_stepped(at, source, &indices, &staged.shape.valid, Layout::Nd, false, shape.element, row_step);
        at.instruction(pto::TLoadOperationBuilder::new(at.context, at.location).dst(staged.value).src(view).build());
        transpose_into(at, dst, staged);
        k.bind(result, dst);
        return Ok(());
    }
    let layout = match shape.layout {
        Layout::Zn => Layout::Dn,
        _ if shape.is_column() => Layout::Dn,
        _ => Layout::Nd,
    };
    // A ZN cube operand is the transposed window; a column of an [N, 1]
    // tensor is the tensor's rows, read column-major.
    let transposed = shape.layout == Layout::Zn;
    let view = global_view_stepped(at, source, &indices, &shape.valid, layout, transposed, shape.element, row_step);
    let dst = at.alloc(shape);
    before(at, dst);
    at.instruction(pto::TLoadOperationBuilder::new(at.context, at.location).dst(dst.value).src(view).build());
    k.bind(result, dst);
    Ok(())
}

/// `tile.store`: TSTORE of the tile's valid region.
pub fn store<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let store = view::<tile::StoreOperation>(op).ok_or("not a tile.store")?;
    let buffer: Buffer = k.buffer(detach(store.value().map_err(|e| e.to_string())?))?;
    store_buffer(k, at, op, buffer)
}

/// `tile.store` of `buffer` (the stored tile, or its bytes for a mask).
pub fn store_buffer<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, buffer: Buffer<'c>) -> Result<(), String> {
    let store = view::<tile::StoreOperation>(op).ok_or("not a tile.store")?;
    let old_indices: Vec<V> = store.indices().map(detach).collect();
    let (dest, indices) = k.gm_tensor(detach(store.dest().map_err(|e| e.to_string())?), &old_indices)?;
    // The tensor's element type (the cube's fixpipe converts an f32
    // accumulator on the way out), or the bytes of a bool tensor.
    let tensor_element = htp_ir::builder::element_of(dest.r#type());
    let element = if bit_width(tensor_element) == 1 { buffer.shape.element } else { tensor_element };
    let [row_step, col_step] = htp_dialects::tile::access_strides(op);
    if col_step != 1 {
        return Err(format!(
            "PTO stores tiles to GM with TSTORE, which writes each row as one contiguous burst (A2/A3): a store with a column step \
             ({col_step}) would have to leave the elements between untouched, and no A2/A3 instruction scatters a row to GM; store the \
             columns whole (interleave them on chip first: htp.concat, htp.reshape) or run this kernel on the cpu target"
        ));
    }
    if buffer.shape.is_column() && (!unit_last_dim(dest) || row_step != 1) {
        // A column of a row-major tensor: strided in GM, so it goes out
        // from column 0 of an ND tile (see `load`).
        let staged = at.alloc(column_in_rows(buffer.shape));
        transpose_into(at, staged, buffer);
        let view = global_view_stepped(at, dest, &indices, &staged.shape.valid, Layout::Nd, false, element, row_step);
        at.instruction(pto::TStoreOperationBuilder::new(at.context, at.location).dst(view).src(staged.value).build());
        return Ok(());
    }
    let layout = if buffer.shape.is_column() { Layout::Dn } else { Layout::Nd };
    if row_step != 1 && buffer.shape.layout != Layout::Nd {
        return Err("PTO writes every n-th row of a tensor from row-major tiles; this tile is not one (a cube result): store it without the step".into());
    }
    let view = global_view_stepped(at, dest, &indices, &buffer.shape.valid, layout, false, element, row_step);
    at.instruction(pto::TStoreOperationBuilder::new(at.context, at.location).dst(view).src(buffer.value).build());
    Ok(())
}

/// The ND tile whose column 0 holds the one-column tile `column`: a row
/// per element, each a 32-byte block.
pub(super) fn column_in_rows(column: Shape) -> Shape {
    Shape { cols: elements_per_block(column.element), layout: Layout::Nd, valid: [column.valid[0], Extent::Static(1)], ..column }
}

/// Whether `tensor`'s last dimension is statically 1: its columns are
/// contiguous in GM, column-major and row-major at once.
fn unit_last_dim(tensor: V) -> bool {
    shape_of(tensor.r#type()).last() == Some(&1)
}

/// `tile.load` with a column step of 2 or 4 into the ND buffer `shape`: the
/// window of columns the slice spans, `(n - 1) * step + 1` for `n` columns,
/// is loaded (TLOAD, the row step as the view's), seen as `n * step`
/// columns (the window's last `step - 1` are never picked) and TGATHER's
/// mask pattern `P0101` / `P0001` keeps the first of every 2 / 4 elements
/// of each row. A2/A3's TGATHER writes the picked elements as one stream,
/// so the tile's columns fill whole 32-byte rows and are all valid; it
/// picks 16- and 32-bit elements.
#[allow(clippy::too_many_arguments)]
fn load_strided_columns<'c>(
    k: &mut Kernel<'c>,
    at: &At<'c>,
    result: V<'c>,
    tile: TileType<'c>,
    shape: Shape<'c>,
    (source, indices): (V<'c>, &[V<'c>]),
    [row_step, col_step]: [i64; 2],
    before: impl Fn(&At<'c>, Buffer<'c>),
) -> Result<(), String> {
    let pattern = match col_step {
        2 => "p0101",
        4 => "p0001",
        _ => {
            return Err(format!(
                "PTO picks every 2nd or every 4th column of a tensor (TGATHER's mask patterns on A2/A3), not every {}: \
                 load the columns whole and pick on the cpu target, or use a step of 2 or 4",
                super::shapes::ordinal(col_step)
            ))
        }
    };
    let bits = bit_width(shape.element);
    if bits != 16 && bits != 32 {
        return Err(format!("PTO picks every n-th column with TGATHER, which moves 16- and 32-bit elements (A2/A3), not {}", shape.element));
    }
    if shape.place != super::buffer::Place::Vec || shape.layout != Layout::Nd {
        return Err("PTO picks every n-th column of a tensor on the vector core into a row-major tile; this load feeds a matmul directly: \
             load the columns whole, or pick them into a tile first and use that"
            .into());
    }
    let n = tile.cols();
    if shape.cols != n {
        return Err(format!(
            "PTO picks every n-th column with TGATHER, which writes the picked elements of all rows as one stream (A2/A3: its \
             destination is contiguous), so the tile's {n} {} columns must fill whole 32-byte rows (a multiple of {})",
            shape.element,
            elements_per_block(shape.element)
        ));
    }
    if !matches!(shape.valid[1], Extent::Static(v) if v == n) {
        return Err(format!(
            "PTO picks every n-th column with TGATHER, whose destination columns are all valid (A2/A3): this slice's {n} columns may \
             run past the tensor's edge (a ragged tail); slice a static column range"
        ));
    }
    let window = (n - 1) * col_step + 1;
    let staged = at.alloc(Shape {
        cols: super::buffer::round_up(n * col_step, elements_per_block(shape.element)),
        valid: [shape.valid[0], Extent::Static(window)],
        ..shape
    });
    let view = global_view_stepped(at, source, indices, &staged.shape.valid, Layout::Nd, false, shape.element, row_step);
    at.instruction(pto::TLoadOperationBuilder::new(at.context, at.location).dst(staged.value).src(view).build());
    let picked_from = at.view(staged, staged.shape.with_valid([shape.valid[0], Extent::Static(n * col_step)]));
    let dst = at.alloc(shape);
    before(at, dst);
    at.instruction(
        pto::TGatherMaskOperationBuilder::new(at.context, at.location)
            .pattern(super::attrs::mask_pattern(at.context, pattern))
            .dst(dst.value)
            .src(picked_from.value)
            .build(),
    );
    k.bind(result, dst);
    Ok(())
}

/// `pto.global_view %tensor[indices] sizes [...] dims [rank-2, rank-1]`:
/// the 2-D window of `extent` starting at `indices`, in `layout`. A
/// `transposed` view reads the window transposed: its rows run along the
/// tensor's last dim (`dims [rank-1, rank-2]`).
pub fn global_view<'c>(
    at: &At<'c>,
    tensor: V<'c>,
    indices: &[V<'c>],
    extent: &[Extent<'c>; 2],
    layout: Layout,
    transposed: bool,
    element: melior::ir::Type<'c>,
) -> V<'c> {
    global_view_stepped(at, tensor, indices, extent, layout, transposed, element, 1)
}

/// `global_view` taking every `row_step`-th row of the tensor (`row_step`
/// on the view).
#[allow(clippy::too_many_arguments)]
pub fn global_view_stepped<'c>(
    at: &At<'c>,
    tensor: V<'c>,
    indices: &[V<'c>],
    extent: &[Extent<'c>; 2],
    layout: Layout,
    transposed: bool,
    element: melior::ir::Type<'c>,
    row_step: i64,
) -> V<'c> {
    let rank = indices.len() as i64;
    let text = |e: &Extent| match e {
        Extent::Static(n) => n.to_string(),
        Extent::Dynamic(_) => "?".into(),
    };
    let layout_text = if layout == Layout::Dn { ", layout = dn" } else { "" };
    let ty = parse_type(at.context, &format!("!pto.gtensor<{}x{}x{element}{layout_text}>", text(&extent[0]), text(&extent[1])));
    let dynamic: Vec<V> = extent.iter().filter_map(|e| if let Extent::Dynamic(v) = e { Some(*v) } else { None }).collect();
    let mut operands = vec![tensor];
    operands.extend_from_slice(indices);
    operands.extend(&dynamic);
    let dims = if transposed { [rank - 1, rank - 2] } else { [rank - 2, rank - 1] };
    let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(at.context, &[1, indices.len() as i32, dynamic.len() as i32]);
    let mut attributes = vec![
        ("dims", melior::ir::attribute::DenseI64ArrayAttribute::new(at.context, &dims).into()),
        ("operandSegmentSizes", segments.into()),
    ];
    if row_step != 1 {
        let i64_type = melior::ir::r#type::IntegerType::new(at.context, 64).into();
        attributes.push(("row_step", melior::ir::attribute::IntegerAttribute::new(i64_type, row_step).into()));
    }
    at.value_with(pto::GlobalViewOperation::name(), &operands, ty, &attributes)
}
