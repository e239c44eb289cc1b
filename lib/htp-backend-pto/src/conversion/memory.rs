//! Tile loads and stores: a `pto.global_view` of the GM tensor (rows and
//! columns along its last two dims, the valid region's extent) and a TLOAD
//! into / TSTORE from the tile's buffer.

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
    // A one-column tile (DN) reads a column that is contiguous in GM (the
    // column of a tensor whose last dimension is 1) directly; a strided
    // column of a row-major tensor lands in column 0 of an ND tile and is
    // transposed into the DN buffer.
    if shape.is_column() && !unit_last_dim(source) {
        let dst = at.alloc(shape);
        before(at, dst);
        let staged = at.alloc(column_in_rows(shape));
        let view = global_view(at, source, &indices, &staged.shape.valid, Layout::Nd, false, shape.element);
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
    let view = global_view(at, source, &indices, &shape.valid, layout, transposed, shape.element);
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
    if buffer.shape.is_column() && !unit_last_dim(dest) {
        // A column of a row-major tensor: strided in GM, so it goes out
        // from column 0 of an ND tile (see `load`).
        let staged = at.alloc(column_in_rows(buffer.shape));
        transpose_into(at, staged, buffer);
        let view = global_view(at, dest, &indices, &staged.shape.valid, Layout::Nd, false, element);
        at.instruction(pto::TStoreOperationBuilder::new(at.context, at.location).dst(view).src(staged.value).build());
        return Ok(());
    }
    let layout = if buffer.shape.is_column() { Layout::Dn } else { Layout::Nd };
    let view = global_view(at, dest, &indices, &buffer.shape.valid, layout, false, element);
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
    at.value_with(
        pto::GlobalViewOperation::name(),
        &operands,
        ty,
        &[
            ("dims", melior::ir::attribute::DenseI64ArrayAttribute::new(at.context, &dims).into()),
            ("operandSegmentSizes", segments.into()),
        ],
    )
}
