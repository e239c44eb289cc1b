//! Tile ops -> PTO cube-core (AIC) instructions: operands are loaded from GM
//! into L1 (`mat`, NZ fractals; a transposed operand is loaded as ZN from a
//! column-major view, so the transpose costs nothing), moved to L0A/L0B
//! (`left`/`right`) and multiplied into L0C (`acc`), which is stored to GM.

use htp_dialects::tile::TileType;
use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    block::BlockLike,
    operation::OperationLike,
    Block, BlockRef, OperationRef, Region, RegionLike, Type,
};

use super::buffer::{extents_of, Buffer, Extent, Layout, Pad, Place, Shape};
use super::state::{At, Kernel, PtoOps};
use htp_ir::query::{has_single_use, key, single_user};
use super::memory;
use super::vector::{pad_value, result_tile, set_valid};
use htp_ir::builder::{detach, Builder, V};
use crate::ods::pto;
use crate::ops::TileOp;
use htp_dialects::ods::{tile, view};

pub fn lower<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: TileOp) -> Result<(), String> {
    match kind {
        TileOp::Constant => zeros(k, op),
        TileOp::Load => {
            let transposed = feeds_transpose(op);
            let padded_transposed = feeds_padded_transpose(op);
            // Few-row or narrow operands become whole fractal tiles whose
            // extra rows/columns are zero.
            let tile = result_tile(op)?;
            let logical = if transposed || padded_transposed { (tile.cols(), tile.rows()) } else { (tile.rows(), tile.cols()) };
            let shape_for = |tile: TileType<'c>, valid: [Extent<'c>; 2]| {
                let shape = if transposed || padded_transposed {
                    Shape { rows: tile.cols(), cols: tile.rows(), valid: [valid[1], valid[0]], ..Shape::cube_for(tile, Place::Mat, Layout::Zn, valid) }
                } else {
                    Shape::cube_for(tile, Place::Mat, Layout::Nz, valid)
                };
                rounded(shape)
            };
            memory::load(
                k,
                at,
                op,
                shape_for,
                |at, buffer| {
                    if padded_transposed || buffer.shape.is_rounded_up(logical.0, logical.1) {
                        zero_fill(at, buffer);
                    }
                },
            )
        }
        TileOp::Transpose => {
            let transpose = view::<tile::TransposeOperation>(op).ok_or("not a tile.transpose")?;
            let error = |e: melior::Error| e.to_string();
            let source = k.buffer(detach(transpose.input().map_err(error)?))?;
            if source.shape.layout != Layout::Zn {
                return Err("the cube transposes an operand only as it is loaded from GM (transpose a loaded tile directly)".into());
            }
            k.bind(detach(transpose.result().map_err(error)?.into()), source);
            Ok(())
        }
        TileOp::Pad => pad(k, at, op),
        TileOp::Relayout => super::layouts::relayout(k, op),
        TileOp::Matmul => matmul(k, at, op),
        TileOp::Store => memory::store(k, at, op),
        TileOp::SetValid => set_valid(k, at, op),
        other => Err(format!("{} cannot run on the cube core", other.name())),
    }
}

/// The L0C accumulator for a matmul result tile: whole fractals, the
/// valid region the tile's (a cluster task hands over just that region).
/// L0C holds f32 (or i32): an f16/bf16 result accumulates in f32 and the
/// store's fixpipe converts it on the way to GM.
pub fn acc_shape<'c>(k: &Kernel<'c>, tile: TileType<'c>, valid: [Extent<'c>; 2]) -> Shape<'c> {
    let shape = Shape::cube_for(tile, Place::Acc, Layout::Nz, valid);
    let wide = if htp_ir::builder::is_float(shape.element) {
        Type::float32(k.context)
    } else {
        melior::ir::r#type::IntegerType::new(k.context, 32).into()
    };
    rounded(Shape { element: wide, ..shape })
}

/// `shape` with rows and columns rounded up to whole cube fractals, the
/// valid region unchanged: 16 for 16- and 32-bit operands (and f32
/// accumulators), 32 for 8-bit operands — whose fractal rows are 32 bytes —
/// and for the i32 accumulators of their products, so that M, K and N agree
/// between the left, right and accumulator tiles.
pub(super) fn rounded(shape: Shape<'_>) -> Shape<'_> {
    let i32_acc = shape.place == Place::Acc && !htp_ir::builder::is_float(shape.element);
    let unit = if i32_acc { 32 } else { super::buffer::fractal_unit(shape.element) };
    Shape { rows: super::buffer::round_up(shape.rows, unit), cols: super::buffer::round_up(shape.cols, unit), ..shape }
}

/// The single user of `op`'s result, if it has exactly one.
fn result_user<'c>(op: OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    single_user(htp_ir::query::result_at(op, 0)?)
}

fn feeds_transpose(op: OperationRef) -> bool {
    result_user(op).is_some_and(|u| TileOp::of(u) == Some(TileOp::Transpose))
}

/// `transpose(pad(load))`: the load becomes the transposed (ZN) operand,
/// zero-filled first because the cube cannot pad a ZN tile after the fact.
fn feeds_padded_transpose(op: OperationRef) -> bool {
    result_user(op).is_some_and(|pad| TileOp::of(pad) == Some(TileOp::Pad) && feeds_transpose(pad))
}

/// Zeroes an L1 buffer before a load fills its valid part. TFILLPAD on L1
/// takes only NZ tiles, so it works on an NZ view of the same bytes whose
/// valid region is one element: everything else becomes zero, and that
/// element lies in the (non-empty) valid region the load then writes.
fn zero_fill<'c>(at: &At<'c>, buffer: Buffer<'c>) {
    let nz = Shape { layout: Layout::Nz, pad: Pad::Zero, valid: [Extent::Static(1), Extent::Static(1)], ..buffer.shape };
    let view = at.view(buffer, nz);
    at.instruction(pto::TFillPadOperationBuilder::new(at.context, at.location).dst(view.value).src(view.value).build());
}

/// A zero tile on the cube is not materialised: it may only start a matmul
/// accumulation, whose first TMATMUL overwrites the accumulator.
fn zeros<'c>(k: &mut Kernel<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let value = op.attribute("value").map_err(|e| e.to_string())?;
    let zero = FloatAttribute::try_from(value).map(|f| f.value() == 0.0).ok().or_else(|| IntegerAttribute::try_from(value).ok().map(|i| i.value() == 0));
    if zero != Some(true) {
        return Err("the cube core has no way to fill a tile; only zeros that start a matmul accumulation are allowed".into());
    }
    k.zeros.insert(key(detach(op.result(0).map_err(|e| e.to_string())?.into())), result_tile(op)?);
    Ok(())
}

/// Zero padding of an L1 operand (TFILLPAD on an NZ tile, in place).
fn pad<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let pad = view::<tile::PadOperation>(op).ok_or("not a tile.pad")?;
    let error = |e: melior::Error| e.to_string();
    let source = k.buffer(detach(pad.input().map_err(error)?))?;
    let result: V = detach(pad.result().map_err(error)?.into());
    if pad_value(detach(pad.value().map_err(error)?))? != Pad::Zero {
        return Err("on the cube core operand tiles can be padded only with zeros".into());
    }
    if source.shape.layout == Layout::Zn && feeds_transpose(op) {
        // Zero-filled before it was loaded (`zero_fill`).
        k.bind(result, at.view(source, Shape { pad: Pad::Zero, ..source.shape.fully_valid() }));
        return Ok(());
    }
    if source.shape.layout != Layout::Nz {
        return Err("on the cube core only NZ operand tiles (and transposed ones that are loaded for it) can be padded".into());
    }
    // The cube's TFILLPAD works in place (it zeroes what lies outside the
    // tile's own valid region), so pad a zero-padded view of the loaded tile
    // and hand on a fully valid view of the same bytes.
    let padded = at.view(source, Shape { pad: Pad::Zero, ..source.shape });
    at.instruction(pto::TFillPadOperationBuilder::new(at.context, at.location).dst(padded.value).src(padded.value).build());
    k.bind(result, at.view(padded, padded.shape.fully_valid()));
    Ok(())
}

/// The L0A/L0B tile of matmul operand `old`: moved there from L1 when it
/// was popped from the vector core (`Kernel::cross`), else moved now.
fn to_l0<'c>(k: &mut Kernel<'c>, at: &At<'c>, old: V<'c>, place: Place) -> Result<Buffer<'c>, String> {
    if let Some(l0) = k.popped_operands.get(&(key(old), place)) {
        return Ok(*l0);
    }
    let operand = k.buffer(old)?;
    if operand.shape.place != Place::Mat {
        return Err("a matmul operand must come from a tile loaded (and possibly padded) in this kernel".into());
    }
    Ok(move_to_l0(at, operand, place))
}

/// TMOV of an L1 operand into a new L0A (`Place::Left`) or L0B tile.
pub(super) fn move_to_l0<'c>(at: &At<'c>, operand: Buffer<'c>, place: Place) -> Buffer<'c> {
    let l0 = at.alloc(Shape { place, pad: Pad::Null, ..operand.shape });
    at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(l0.value).src(operand.value).build());
    l0
}

fn matmul<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let product = view::<tile::MatmulOperation>(op).ok_or("not a tile.matmul")?;
    let error = |e: melior::Error| e.to_string();
    let result: V = detach(product.result().map_err(error)?.into());
    let left = to_l0(k, at, detach(product.lhs().map_err(error)?), Place::Left)?;
    let right = to_l0(k, at, detach(product.rhs().map_err(error)?), Place::Right)?;
    let accumulator = product.acc().ok().map(detach);
    let fresh = |k: &Kernel<'c>| -> Result<Buffer<'c>, String> {
        let tile = result_tile(op)?;
        // Run-time valid sizes: the operands' (a popped operand is whole
        // fractals, zero beyond its tile: its sizes come from where it was made).
        let valid = match extents_of(tile, &[]) {
            Ok(valid) => valid,
            Err(_) => k.traced_valid(result).unwrap_or([left.shape.valid[0], right.shape.valid[1]]),
        };
        Ok(k.destination(at, result, acc_shape(k, tile, valid)))
    };
    let dst = match accumulator {
        None => {
            let dst = fresh(k)?;
            super::instructions::matmul(at, false, dst.value, left.value, right.value);
            dst
        }
        Some(acc) if k.zeros.contains_key(&key(acc)) => {
            let dst = fresh(k)?;
            super::instructions::matmul(at, false, dst.value, left.value, right.value);
            dst
        }
        Some(acc) => {
            let dst = k.buffer(acc)?;
            if !has_single_use(acc) {
                return Err("the accumulator is read again after this matmul; the cube updates it in place".into());
            }
            match k.zero_on_entry.get(&key(dst.value)).copied() {
                // Zero on the loop's first trip: TMATMUL then, TMATMUL_ACC after.
                Some((induction, lower)) => {
                    let i1 = melior::ir::r#type::IntegerType::new(at.context, 1).into();
                    let eq = IntegerAttribute::new(melior::ir::r#type::IntegerType::new(at.context, 64).into(), 0).into();
                    let first = at.value_with("arith.cmpi", &[induction, lower], i1, &[("predicate", eq)]);
                    let branch = |accumulate: bool| {
                        let region = Region::new();
                        let block = region.append_block(Block::new(&[]));
                        let block: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(block.to_raw()) };
                        let inner = At { block, ..*at };
                        super::instructions::matmul(&inner, accumulate, dst.value, left.value, right.value);
                        inner.op("scf.yield", &[], &[], &[], vec![]);
                        region
                    };
                    at.op("scf.if", &[first], &[], &[], vec![branch(false), branch(true)]);
                }
                None => super::instructions::matmul(at, true, dst.value, left.value, right.value),
            }
            dst
        }
    };
    k.bind(result, dst);
    Ok(())
}

