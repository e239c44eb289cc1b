//! Tile loads and stores: a `pto.global_view` of the GM tensor (rows and
//! columns along its last two dims, the valid region's extent) and a TLOAD
//! into / TSTORE from the tile's buffer.

use htp_dialects::tile::TileType;
use melior::ir::{operation::OperationLike, OperationRef, ValueLike};

use super::buffer::{extents_of, Buffer, Extent, Layout, Shape};
use super::kernel::{At, Kernel, PtoOps};
use htp_ir::builder::{detach, parse_type, shape_of, Builder, V};

/// `tile.load` into a buffer of the shape `shape_for` picks; `before` may
/// add instructions between the buffer's allocation and the TLOAD.
pub fn load<'c>(
    k: &mut Kernel<'c>,
    at: &At<'c>,
    op: OperationRef<'c, 'c>,
    shape_for: impl Fn(TileType<'c>, [Extent<'c>; 2]) -> Shape<'c>,
    before: impl Fn(&At<'c>, Buffer<'c>),
) -> Result<(), String> {
    let old_source = detach(op.operand(0).unwrap());
    let rank = shape_of(old_source.r#type()).len();
    let old_indices: Vec<V> = (1..=rank).map(|i| detach(op.operand(i).unwrap())).collect();
    let (source, indices) = k.gm_tensor(old_source, &old_indices)?;
    let sizes: Vec<V> = (rank + 1..op.operand_count()).map(|i| k.value(detach(op.operand(i).unwrap()))).collect::<Result<_, _>>()?;
    let tile = TileType::try_from(op.result(0).unwrap().r#type()).map_err(|_| "load of a non-tile")?;
    let shape = shape_for(tile, extents_of(tile, &sizes)?);
    // A one-column tile (DN) reads a column that is contiguous in GM: the
    // column of a tensor whose last dimension is 1.
    if shape.is_column() && !unit_last_dim(source) {
        return Err("PTO loads a one-column tile only from a tensor whose last dimension is 1 (or a column-major one); load a row and transpose".into());
    }
    let layout = match shape.layout {
        Layout::Zn => Layout::Dn,
        _ if shape.is_column() => Layout::Dn,
        _ => Layout::Nd,
    };
    let view = global_view(at, source, &indices, &shape.valid, layout, shape.element);
    let dst = at.alloc(shape);
    before(at, dst);
    at.instr("pto.tload", &[dst.value, view], &[]);
    k.bind(detach(op.result(0).unwrap().into()), dst);
    Ok(())
}

/// `tile.store`: TSTORE of the tile's valid region.
pub fn store<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let buffer: Buffer = k.buffer(detach(op.operand(0).unwrap()))?;
    let old_indices: Vec<V> = (2..op.operand_count()).map(|i| detach(op.operand(i).unwrap())).collect();
    let (dest, indices) = k.gm_tensor(detach(op.operand(1).unwrap()), &old_indices)?;
    if buffer.shape.is_column() && !unit_last_dim(dest) {
        return Err("PTO stores a one-column tile only to a tensor whose last dimension is 1 (or a column-major one); transpose it to a row first".into());
    }
    let element = htp_ir::builder::element_of(dest.r#type());
    let layout = if buffer.shape.is_column() { Layout::Dn } else { Layout::Nd };
    let view = global_view(at, dest, &indices, &buffer.shape.valid, layout, element);
    at.instr("pto.tstore", &[view, buffer.value], &[]);
    Ok(())
}

/// Whether `tensor`'s last dimension is statically 1: its columns are
/// contiguous in GM, column-major and row-major at once.
fn unit_last_dim(tensor: V) -> bool {
    shape_of(tensor.r#type()).last() == Some(&1)
}

/// `pto.global_view %tensor[indices] sizes [...] dims [rank-2, rank-1]`:
/// the 2-D window of `extent` starting at `indices`. A DN view reads the
/// window transposed: its rows run along the tensor's last dim.
pub fn global_view<'c>(
    at: &At<'c>,
    tensor: V<'c>,
    indices: &[V<'c>],
    extent: &[Extent<'c>; 2],
    layout: Layout,
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
    let dims = if layout == Layout::Dn { [rank - 1, rank - 2] } else { [rank - 2, rank - 1] };
    let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(at.context, &[1, indices.len() as i32, dynamic.len() as i32]);
    at.value_with(
        "pto.global_view",
        &operands,
        ty,
        &[
            ("dims", melior::ir::attribute::DenseI64ArrayAttribute::new(at.context, &dims).into()),
            ("operandSegmentSizes", segments.into()),
        ],
    )
}
