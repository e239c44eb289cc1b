//! Tile ops -> PTO vector-core (AIV) instructions on UB tiles.

use htp_dialects::tile::TileType;
use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute, StringAttribute},
    operation::OperationLike,
    OperationRef, ValueLike,
};

use super::buffer::{extents_like, extents_of, Buffer, Extent, Layout, Pad, Shape};
use super::relayout::{as_row, transpose_into};
use super::state::{At, Kernel, PtoOps};
use htp_ir::query::{defining_op, key, single_user};
use super::{attrs, memory};
use htp_ir::builder::{bit_width, detach, shape_of, Builder, V};
use crate::ods::pto;

use super::instructions;
use crate::ops::TileOp;

pub fn lower<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: TileOp) -> Result<(), String> {
    use TileOp::*;
    match kind {
        Load if is_mask(result(op)) => load_mask(k, at, op),
        Load => memory::load(k, at, op, |tile, valid| Shape::vec_for(tile, valid), |_, _| {}),
        Store if is_mask(operand(op, 0)) => store_mask(k, at, op),
        Store => memory::store(k, at, op),
        Constant | Fill => fill(k, at, op),
        Add | Sub | Mul | Div | Max | Min => binary(k, at, op, kind),
        Exp | Log | Sqrt | Rsqrt | Recip | Abs | Neg | Relu => unary(k, at, op, kind),
        RowReduce => row_reduce(k, at, op),
        ColReduce => col_reduce(k, at, op),
        Broadcast => broadcast(k, at, op),
        Pad => pad(k, at, op),
        SetValid => set_valid(k, at, op),
        Cast => cast(k, at, op),
        Iota => iota(k, at, op),
        Cmp => compare(k, at, op),
        Select => select(k, at, op),
        Intrinsic => intrinsic(k, at, op),
        IntrinsicEffect => super::comm::lower(k, at, op),
        Transpose => transpose(k, at, op),
        Relayout => super::layouts::relayout(k, op),
        Gather => gather(k, at, op),
        Scatter => scatter(k, at, op),
        RowArgReduce => super::selection::row_arg_reduce(k, at, op),
        Sort => super::selection::sort(k, at, op),
        Take => super::selection::take(k, at, op),
        Put => super::selection::put(k, at, op),
        Slice => super::shapes::slice(k, at, op),
        Concat => super::shapes::concat(k, at, op),
        Reshape => super::shapes::reshape(k, at, op),
        Matmul => Err("matmul runs on the cube core; this kernel was planned for the vector core".into()),
    }
}

pub(super) fn operand<'c>(op: OperationRef<'c, 'c>, index: usize) -> V<'c> {
    detach(op.operand(index).expect("verified op has this operand"))
}

pub(super) fn result<'c>(op: OperationRef<'c, 'c>) -> V<'c> {
    detach(op.result(0).expect("tile op with a result").into())
}

pub fn result_tile<'c>(op: OperationRef<'c, 'c>) -> Result<TileType<'c>, String> {
    TileType::try_from(result(op).r#type()).map_err(|_| "expected a tile result".to_string())
}

/// The UB buffer for `op`'s result, its run-time valid sizes taken from `like`.
pub(super) fn destination<'c>(k: &Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, like: &[Extent<'c>; 2]) -> Result<Buffer<'c>, String> {
    let tile = result_tile(op)?;
    let shape = Shape::vec_for(tile, extents_like(tile, like)?);
    Ok(k.destination(at, result(op), shape))
}


fn transpose<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let source = materialise(k, at, operand(op, 0))?;
    let [rows, cols] = source.shape.valid;
    let dst = destination(k, at, op, &[cols, rows])?;
    transpose_into(at, dst, source);
    k.bind(result(op), dst);
    Ok(())
}

/// `tile.gather` from GM: MGATHER with whole rows (`Coalesce::Row`) from a
/// view of the table's columns `[column, column + C)`, the indices seen as
/// one row (what A2/A3 requires).
fn gather<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let indices = materialise(k, at, operand(op, 1))?;
    if !indices.shape.is_column() {
        return Err("gather indices must be a one-column tile".into());
    }
    let table = k.value(operand(op, 0))?;
    if shape_of(table.r#type()).len() != 2 {
        return Err("PTO gathers rows of a 2-D tensor".into());
    }
    let offsets = [at.index(0), k.value(operand(op, 2))?];
    let tile = result_tile(op)?;
    let valid = extents_like(tile, &[indices.shape.valid[0], Extent::Static(tile.cols())])?;
    let dst = k.destination(at, result(op), Shape::vec_for(tile, valid));
    let table_rows = at.value("memref.dim", &[table, offsets[0]], melior::ir::Type::index(at.context));
    let rows = Extent::Dynamic(table_rows);
    let view = memory::global_view(at, table, &offsets, &[rows, Extent::Static(tile.cols())], Layout::Nd, false, tile.element_type());
    at.instruction(pto::MGatherOperationBuilder::new(at.context, at.location).dst(dst.value).table(view).idx(as_row(at, indices).value).build());
    k.bind(result(op), dst);
    Ok(())
}

/// `tile.scatter` into GM: MSCATTER with whole rows (`Coalesce::Row`) into
/// a view of the table's columns `[column, column + C)`, the indices seen
/// as one row (what A2/A3 reads). A2/A3 writes the rows in order, one DMA
/// each, so the last of equal indices wins.
fn scatter<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let tile = TileType::try_from(operand(op, 0).r#type()).map_err(|_| "a scatter of a non-tile")?;
    let element = tile.element_type();
    if !matches!(bit_width(element), 8 | 16 | 32) {
        return Err(format!("PTO scatters rows of 8-, 16- and 32-bit elements (A2/A3's MSCATTER), not {element}"));
    }
    let mut source = materialise(k, at, operand(op, 0))?;
    let mut indices = materialise(k, at, operand(op, 2))?;
    if !indices.shape.is_column() {
        return Err("scatter indices must be a one-column tile".into());
    }
    if bit_width(indices.shape.element) == 64 {
        let index = melior::ir::r#type::IntegerType::new(at.context, 32).into();
        let indices_tile = TileType::try_from(operand(op, 2).r#type()).map_err(|_| "scatter indices")?;
        let narrowed = at.alloc(Shape::vec_of(indices_tile, index, indices.shape.valid));
        convert_chain(at, indices, narrowed, |_| Err("i64 -> i32 is one TCVT".into()))?;
        indices = narrowed;
    }
    if source.shape.is_column() {
        // MSCATTER copies ND rows: a one-column tile as column 0 of one.
        let staged = at.alloc(memory::column_in_rows(source.shape));
        transpose_into(at, staged, source);
        source = staged;
    }
    let table = k.value(operand(op, 1))?;
    if shape_of(table.r#type()).len() != 2 {
        return Err("PTO scatters rows into a 2-D tensor".into());
    }
    let offsets = [at.index(0), k.value(operand(op, 3))?];
    let table_rows = at.value("memref.dim", &[table, offsets[0]], melior::ir::Type::index(at.context));
    let view = memory::global_view(at, table, &offsets, &[Extent::Dynamic(table_rows), Extent::Static(tile.cols())], Layout::Nd, false, element);
    at.instruction(pto::MScatterOperationBuilder::new(at.context, at.location).table(view).src(source.value).idx(as_row(at, indices).value).build());
    Ok(())
}

fn fill<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let tile = result_tile(op)?;
    let scalar = if op.operand_count() == 1 {
        k.value(operand(op, 0))?
    } else {
        let value = op.attribute("value").map_err(|e| e.to_string())?;
        if FloatAttribute::try_from(value).is_err() && IntegerAttribute::try_from(value).is_err() {
            return Err("PTO fills tiles with one value; a tile constant of several values cannot be lowered".into());
        }
        at.constant(value, tile.element_type())
    };
    let dst = destination(k, at, op, &extents_of(tile, &[])?)?;
    at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).scalar(scalar).build());
    k.bind(result(op), dst);
    Ok(())
}

fn binary<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: TileOp) -> Result<(), String> {
    let (mut lhs, mut rhs) = (operand(op, 0), operand(op, 1));
    if TileType::try_from(rhs.r#type()).is_err() {
        let source = k.buffer(lhs)?;
        let scalar = k.value(rhs)?;
        let dst = destination(k, at, op, &source.shape.valid)?;
        instructions::binary_scalar(at, kind, as_row(at, dst).value, as_row(at, source).value, scalar)?;
        k.bind(result(op), dst);
        return Ok(());
    }
    let commutes = kind.commutes();
    if commutes && k.deferred.contains_key(&key(lhs)) && !k.deferred.contains_key(&key(rhs)) {
        std::mem::swap(&mut lhs, &mut rhs);
    }
    if let Some(per_line) = k.deferred.remove(&key(rhs)) {
        // t op broadcast(v): one fused row/column-expand instruction. When
        // both operands broadcast ([R,1] op [1,C]) the left one is expanded
        // into a full tile first.
        let source = materialise(k, at, lhs)?;
        let dst = destination(k, at, op, &source.shape.valid)?;
        let expand_kind = attrs::expand_kind(at.context, kind.mnemonic());
        instructions::expand_binary(at, per_line.shape.is_column(), expand_kind, dst.value, source.value, per_line.value);
        k.bind(result(op), dst);
        return Ok(());
    }
    let (a, b) = (materialise(k, at, lhs)?, materialise(k, at, rhs)?);
    let dst = destination(k, at, op, &a.shape.valid)?;
    let row = as_row(at, dst);
    let (a_row, b_row) = (as_row(at, a), as_row(at, b));
    let (a_row, b_row) = if kind == TileOp::Add { (one_type(at, a_row, row), one_type(at, b_row, row)) } else { (a_row, b_row) };
    instructions::binary(at, kind, row.value, a_row.value, b_row.value)?;
    if matches!(kind, TileOp::Max | TileOp::Min) && htp_ir::builder::is_float(a.shape.element) {
        propagate_nan(at, dst, b);
    }
    k.bind(result(op), dst);
    Ok(())
}

/// TMAX/TMIN keep the first operand when the second is NaN (`std::max`
/// semantics on the simulator; the chip's are unverified, pto-contract.md
/// 2.2); `htp.maximum`/`minimum` promise IEEE's NaN-wins: where `b` is NaN
/// (`b != b`), `dst` takes `b`.
fn propagate_nan<'c>(at: &At<'c>, dst: Buffer<'c>, b: Buffer<'c>) {
    let source = full_width(at, b);
    let mask = at.alloc(Shape::mask_for_rows(&source.shape));
    let into = mask_for_data(at, mask, &source.shape);
    let not_equal = attrs::cmp_mode(at.context, "ne");
    at.instruction(pto::TCmpOperationBuilder::new(at.context, at.location).mode(not_equal).mask(into.value).src_0(source.value).src_1(source.value).build());
    select_into(at, dst, mask, b, dst);
}

/// `tile.intrinsic "pto.<instruction>"` (the `pto` intrinsic set): the
/// instruction itself, destination first, tiles seen as rows.
fn intrinsic<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let callee = op.attribute("callee").ok().and_then(|a| StringAttribute::try_from(a).ok()).ok_or("an intrinsic without a callee")?;
    let instruction = callee.value().to_string();
    if crate::intrinsics::PTO.intrinsics.iter().all(|i| i.op != instruction) {
        return Err(format!("'{instruction}' is not an intrinsic of the PTO targets"));
    }
    let mut sources = Vec::new();
    let mut valid = None;
    for index in 0..op.operand_count() {
        let value = operand(op, index);
        if TileType::try_from(value.r#type()).is_ok() {
            let buffer = materialise(k, at, value)?;
            valid.get_or_insert(buffer.shape.valid);
            sources.push(as_row(at, buffer).value);
        } else {
            sources.push(k.value(value)?);
        }
    }
    let dst = destination(k, at, op, &valid.ok_or("an intrinsic without a tile operand")?)?;
    let mut operands = vec![as_row(at, dst).value];
    operands.extend(sources);
    at.instr(&instruction, &operands, &[]);
    k.bind(result(op), dst);
    Ok(())
}

/// The buffer of a tile, emitting a deferred broadcast if nothing fused it.
pub(super) fn materialise<'c>(k: &mut Kernel<'c>, at: &At<'c>, tile: V<'c>) -> Result<Buffer<'c>, String> {
    if let Some(per_line) = k.deferred.remove(&key(tile)) {
        let producer = defining_op(tile).ok_or("broadcast without an op")?;
        let dst = destination(k, at, producer, &per_line.shape.valid)?;
        expand(at, dst, per_line);
        k.bind(tile, dst);
        return Ok(dst);
    }
    k.buffer(tile)
}

fn expand<'c>(at: &At<'c>, dst: Buffer<'c>, per_line: Buffer<'c>) {
    instructions::expand(at, per_line.shape.is_column(), dst.value, per_line.value);
}

fn unary<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: TileOp) -> Result<(), String> {
    let source = k.buffer(operand(op, 0))?;
    let dst = destination(k, at, op, &source.shape.valid)?;
    let row = as_row(at, dst);
    let source_row = if kind == TileOp::Abs { one_type(at, as_row(at, source), row) } else { as_row(at, source) };
    instructions::unary(at, kind, row.value, source_row.value)?;
    k.bind(result(op), dst);
    Ok(())
}

fn reduction_kind(op: OperationRef) -> Result<&'static str, String> {
    let kind = op.attribute("kind").map_err(|e| e.to_string())?;
    match IntegerAttribute::try_from(kind).map(|a| a.value()) {
        Ok(0) => Ok("sum"),
        Ok(1) => Ok("max"),
        Ok(2) => Ok("min"),
        _ => Err("unknown reduction kind".into()),
    }
}

fn row_reduce<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let kind = reduction_kind(op)?;
    let source = k.buffer(operand(op, 0))?;
    if source.shape.is_column() {
        return Err("a row reduction of a one-column tile is the tile itself".into());
    }
    let dst = destination(k, at, op, &source.shape.valid)?;
    // PTO-ISA's row reductions take as many source rows as the destination
    // has; a one-column destination has at least a 32-byte block of rows.
    let source = with_rows(at, source, dst.shape.rows);
    let scratch = at.alloc(source.shape);
    instructions::row_reduce(at, kind, dst.value, source.value, scratch.value)?;
    k.bind(result(op), dst);
    Ok(())
}

/// `buffer` (a row-major tile) with at least `rows` rows: copied into the
/// top of a taller zero-filled tile (TFILLPAD_EXPAND), seen with its own
/// valid region. For instructions that pair it with a one-column tile,
/// whose rows are rounded up to a 32-byte block.
pub(super) fn with_rows<'c>(at: &At<'c>, buffer: Buffer<'c>, rows: i64) -> Buffer<'c> {
    if buffer.shape.rows >= rows || buffer.shape.is_column() {
        return buffer;
    }
    let taller = at.alloc(Shape { rows, pad: Pad::Zero, ..buffer.shape.fully_valid() });
    at.instruction(pto::TFillPadOperationBuilder::new(at.context, at.location).dst(taller.value).src(buffer.value).build());
    at.view(taller, Shape { rows, pad: Pad::Null, ..buffer.shape })
}

fn col_reduce<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let kind = reduction_kind(op)?;
    let source = k.buffer(operand(op, 0))?;
    let dst = destination(k, at, op, &source.shape.valid)?;
    if super::reductions::through_rows(kind, &source.shape) {
        super::reductions::reduce(at, kind, dst, source)?;
    } else {
        instructions::col_reduce(at, kind, dst.value, source.value)?;
    }
    k.bind(result(op), dst);
    Ok(())
}

/// A broadcast used once, by an elementwise op, is left for that op to fuse
/// (TROWEXPANDSUB and friends); otherwise it is a TROWEXPAND / TCOLEXPAND.
fn broadcast<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let source = k.buffer(operand(op, 0))?;
    let (rows, cols) = (source.shape.rows, source.shape.cols);
    if !(source.shape.is_column() || rows == 1) || (source.shape.is_column() && rows == 1 && cols == 1) {
        return Err("PTO broadcasts one column or one row".into());
    }
    // A 1x1 tile repeated down a column: the expand instructions write ND
    // tiles only, so expand it into column 0 of an ND tile (TCOLEXPAND of
    // the value seen as a row) and move that column into the DN buffer.
    if Shape::vec_for(result_tile(op)?, [source.shape.valid[0], source.shape.valid[1]]).is_column() {
        let dst = destination(k, at, op, &[source.shape.valid[0], source.shape.valid[1]])?;
        let staged = at.alloc(super::memory::column_in_rows(dst.shape));
        instructions::expand(at, false, staged.value, as_row(at, source).value);
        transpose_into(at, dst, staged);
        k.bind(result(op), dst);
        return Ok(());
    }
    let fusable = single_user(result(op)).is_some_and(|user| {
        let Some(kind) = TileOp::of(user) else { return false };
        let rhs = htp_ir::query::operand_at(user, 1).map(key) == Some(key(result(op)));
        kind.is_elementwise_binary() && (rhs || kind.commutes())
    });
    if fusable {
        k.deferred.insert(key(result(op)), source);
        return Ok(());
    }
    let dst = destination(k, at, op, &[source.shape.valid[0], source.shape.valid[1]])?;
    expand(at, dst, source);
    k.bind(result(op), dst);
    Ok(())
}

/// `tile.pad` -> TFILLPAD into a full tile whose type carries the pad value.
fn pad<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    if is_mask(operand(op, 0)) {
        // Its valid region is rows of packed bytes, not the tile's (see `set_valid`).
        return Err("PTO holds a bool tile (a mask) as packed bits, which it cannot pad: pad the data it compares, then compare again".into());
    }
    let source = k.buffer(operand(op, 0))?;
    let Ok(pad) = pad_value(operand(op, 1)) else {
        return pad_with_fill(k, at, op, source);
    };
    // TFILLPAD takes +-inf of a 16-bit float from std::numeric_limits, which
    // the simulator's libstdc++ (Debian 12) does not specialise for
    // _Float16: it pads with 0. A fill and a copy give +-inf everywhere.
    let sixteen_bit_float = htp_ir::builder::is_float(source.shape.element) && bit_width(source.shape.element) == 16;
    if sixteen_bit_float && matches!(pad, Pad::Max | Pad::Min) {
        return pad_with_fill(k, at, op, source);
    }
    // The tile's whole region is valid now (not the buffer's: a row of a
    // narrow tile is padded to 32 bytes).
    let shape = Shape { pad, valid: extents_of(result_tile(op)?, &[])?, ..source.shape };
    let dst = at.alloc(shape);
    at.instruction(pto::TFillPadOperationBuilder::new(at.context, at.location).dst(dst.value).src(source.value).build());
    k.bind(result(op), dst);
    Ok(())
}

/// Any other pad value (1.5, a run-time scalar): fill a full tile with it
/// (TEXPANDS), then copy the source's valid region over it (TMOV between
/// views with the source's valid region).
/// A one-column tile is filled and copied as the one row its bytes are.
fn pad_with_fill<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, source: Buffer<'c>) -> Result<(), String> {
    let value = k.value(operand(op, 1))?;
    let full = Shape { pad: Pad::Null, valid: extents_of(result_tile(op)?, &[])?, ..source.shape };
    let dst = at.alloc(full);
    at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).scalar(value).build());
    let inside = as_row(at, at.view(dst, Shape { valid: source.shape.valid, ..full }));
    at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(inside.value).src(as_row(at, source).value).build());
    k.bind(result(op), dst);
    Ok(())
}

/// PTO pads with zero or the element type's largest/smallest value.
pub fn pad_value(value: V) -> Result<Pad, String> {
    let constant = defining_op(value)
        .filter(|op| op.name().as_string_ref().as_str() == Ok("arith.constant"))
        .and_then(|op| op.attribute("value").ok());
    let number = constant.and_then(|a| {
        FloatAttribute::try_from(a).map(|f| f.value()).ok().or_else(|| IntegerAttribute::try_from(a).ok().map(|i| i.value() as f64))
    });
    match number {
        Some(v) if v == 0.0 => Ok(Pad::Zero),
        Some(v) if v == f64::INFINITY => Ok(Pad::Max),
        Some(v) if v == f64::NEG_INFINITY => Ok(Pad::Min),
        _ => Err("PTO pads with 0, +inf or -inf only (TFILLPAD's pad values)".into()),
    }
}

pub fn set_valid<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let source = k.buffer(operand(op, 0))?;
    let sizes: Vec<V> = (1..op.operand_count()).map(|i| k.value(operand(op, i))).collect::<Result<_, _>>()?;
    let tile = result_tile(op)?;
    // A mask's valid region is in its own terms (rows of packed bytes).
    let valid = Shape::vec_for(tile, extents_of(tile, &sizes)?).valid;
    let view = at.view(source, source.shape.with_valid(valid));
    k.bind(result(op), view);
    Ok(())
}

/// `tile.cast` rounds to nearest-even between floats and truncates float ->
/// integer, as numpy's astype does.
/// `tile.cast`: one TCVT, or a chain of them through the types A2/A3
/// converts between (`conversion_path`).
fn cast<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    if is_mask(operand(op, 0)) {
        return cast_mask(k, at, op);
    }
    let source = k.buffer(operand(op, 0))?;
    let tile = result_tile(op)?;
    let dst = destination(k, at, op, &source.shape.valid)?;
    let valid = dst.shape.valid;
    convert_chain(at, source, dst, |element| Ok(Shape::vec_of(tile, parse_element(at.context, element)?, valid)))?;
    k.bind(result(op), dst);
    Ok(())
}

/// `source` converted into `dst` by TCVTs along `conversion_path`, each
/// intermediate step in a buffer `intermediate(element)` makes: a float
/// truncates into an integer (numpy's astype), every other step rounds to
/// nearest.
pub(super) fn convert_chain<'c>(
    at: &At<'c>,
    source: Buffer<'c>,
    dst: Buffer<'c>,
    intermediate: impl Fn(&str) -> Result<Shape<'c>, String>,
) -> Result<(), String> {
    let (from, to) = (source.shape.element.to_string(), dst.shape.element.to_string());
    let path = conversion_path(&from, &to);
    let mut current = source;
    for (index, step) in path.iter().enumerate() {
        let next = if index + 1 == path.len() { dst } else { at.alloc(intermediate(step)?) };
        let to_int = melior::ir::r#type::IntegerType::try_from(next.shape.element).is_ok();
        let mode = if to_int && htp_ir::builder::is_float(current.shape.element) { "trunc" } else { "rint" };
        at.instruction(pto::TCvtOperationBuilder::new(at.context, at.location).dst(as_row(at, next).value).src(as_row(at, current).value).round(attrs::round_mode(at.context, mode)).build());
        current = next;
    }
    Ok(())
}

/// The element types a cast from `from` to `to` goes through on A2/A3,
/// ending with `to`: TCVT converts f32 -> f16, bf16, i16, i32, i64; f16 ->
/// f32, i32, i16, i8; bf16 -> f32, i32; i16 -> f16, f32; i32 -> f32, i16,
/// i64, f16; i64 -> f32, i32; i8 -> f16 (pto-contract.md 2.7). Other pairs
/// chain those so that every value the destination holds converts exactly:
/// a float truncates to an integer once, at its first step into one (into
/// i32, never through a narrower float that could round it up first), and
/// integers pass through f16 only when what they carry fits i8 (|v| <= 2048
/// is exact in f16); float -> float goes through f32 (one rounding).
pub(super) fn conversion_path<'a>(from: &str, to: &'a str) -> Vec<&'a str> {
    let steps: &[&'static str] = match (from, to) {
        ("f32", "i8") | ("bf16", "i8") | ("i64", "i8") => &["i32", "f16", "i8"],
        ("f16", "bf16") | ("i16", "bf16") | ("i32", "bf16") | ("i64", "bf16") => &["f32", "bf16"],
        ("bf16", "f16") | ("i64", "f16") => &["f32", "f16"],
        ("f16", "i64") => &["i32", "i64"],
        ("bf16", "i16") => &["f32", "i16"],
        ("bf16", "i64") | ("i16", "i64") => &["f32", "i64"],
        ("i16", "i32") => &["f32", "i32"],
        ("i16", "i8") | ("i32", "i8") => &["f16", "i8"],
        ("i64", "i16") => &["i32", "i16"],
        ("i8", "f32") => &["f16", "f32"],
        ("i8", "bf16") => &["f16", "f32", "bf16"],
        ("i8", "i32") => &["f16", "i32"],
        ("i8", "i16") => &["f16", "i16"],
        ("i8", "i64") => &["f16", "i32", "i64"],
        _ => return vec![to],
    };
    steps.to_vec()
}

fn parse_element<'c>(context: &'c melior::Context, name: &str) -> Result<melior::ir::Type<'c>, String> {
    melior::ir::Type::parse(context, name).ok_or_else(|| format!("not an element type: {name}"))
}

/// `tile.iota`. TCI (`pto.tci`) writes `0, 1, ...` into one row only, and
/// runs on the scalar pipe: axis 1 is a TCI row broadcast down the rows
/// (TCOLEXPAND); axis 0 is a TCI row seen as an Rx1 col_major column (the
/// same bytes: element `r` of both is at `r * 4`) broadcast along the rows
/// (TROWEXPAND). An axis of extent 1 is all zeros (TEXPANDS). i32 and i16 are
/// made directly; f32 and f16 through an i32 tile and TCVT (exact: the
/// front end checks that the indices fit).
fn iota<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let tile = result_tile(op)?;
    let axis = IntegerAttribute::try_from(op.attribute("dimension").map_err(|e| e.to_string())?).map_err(|_| "iota dimension")?.value();
    let element = tile.element_type();
    let direct = matches!(htp_ir::builder::int_width(element), Some(32 | 16));
    let float = element.to_string() == "f32" || element.to_string() == "f16";
    if !direct && !float {
        return Err(format!("PTO makes index tiles of i32, i16, f32 or f16 (TCI), not {element}"));
    }
    let dst = destination(k, at, op, &extents_of(tile, &[])?)?;
    let index = if direct { element } else { melior::ir::r#type::IntegerType::new(at.context, 32).into() };
    let indices = if direct { dst } else { at.alloc(Shape { element: index, ..dst.shape }) };
    let zero = at.constant(IntegerAttribute::new(index, 0).into(), index);
    let extent = if axis == 0 { tile.rows() } else { tile.cols() };
    if extent == 1 {
        at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(as_row(at, indices).value).scalar(zero).build());
    } else if indices.shape.is_column() || indices.shape.rows == 1 {
        // Already one row (a column tile's indices run along its one row view).
        at.instruction(pto::TCiOperationBuilder::new(at.context, at.location).dst(as_row(at, indices).value).start(zero).build());
    } else {
        let per_block = 32 / (htp_ir::builder::bit_width(index) as i64 / 8);
        let length = super::buffer::round_up(extent, per_block);
        let row = at.alloc(Shape {
            rows: 1,
            cols: length,
            element: index,
            layout: Layout::Nd,
            valid: [Extent::Static(1), Extent::Static(extent)],
            pad: Pad::Null,
            ..indices.shape
        });
        at.instruction(pto::TCiOperationBuilder::new(at.context, at.location).dst(row.value).start(zero).build());
        let line = if axis == 1 {
            row
        } else {
            let column = Shape { rows: length, cols: 1, layout: Layout::Dn, valid: [Extent::Static(extent), Extent::Static(1)], ..row.shape };
            at.view(row, column)
        };
        expand(at, indices, line);
    }
    if !direct {
        at.instruction(pto::TCvtOperationBuilder::new(at.context, at.location).dst(as_row(at, dst).value).src(as_row(at, indices).value).round(attrs::round_mode(at.context, "rint")).build());
    }
    k.bind(result(op), dst);
    Ok(())
}

/// A row-form buffer (`as_row`) seen with all its columns valid. TCMP/TCMPS
/// and TSEL work on whole rows: PTO-ISA's CPU simulation packs and reads the
/// mask bits as a stream of `valid columns` bits per row and wraps mask rows
/// by the mask's valid bytes, which agree only when the valid columns are
/// the buffer's (a multiple of 8). The extra columns are the buffer's own
/// padding: comparing or selecting them is harmless.
fn full_width<'c>(at: &At<'c>, buffer: Buffer<'c>) -> Buffer<'c> {
    let row = as_row(at, buffer);
    let shape = row.shape.with_valid([row.shape.valid[0], Extent::Static(row.shape.cols)]);
    retyped(at, row, shape)
}

/// pto-isa's CPU model (the simulator's) declares TADD and TABS over one
/// tile type for the destination and every source (`TADD_IMPL(tile_shape&
/// dst, tile_shape& src0, tile_shape& src1)`, `pto/cpu/TAdd.hpp`, `TAbs.hpp`;
/// TSEL too, see `select_into`), so the pto dialect's verifier asks for one
/// type there. A source that differs from the destination only in what the
/// instruction does not read (its pad value, a static or run-time valid
/// extent: the instruction covers `dst`'s valid region) is seen as the
/// destination's type; any other difference is left for the verifier.
fn one_type<'c>(at: &At<'c>, source: Buffer<'c>, dst: Buffer<'c>) -> Buffer<'c> {
    let (s, d) = (&source.shape, &dst.shape);
    if (s.place, s.rows, s.cols, s.layout, s.element) != (d.place, d.rows, d.cols, d.layout, d.element) {
        return source;
    }
    retyped(at, source, dst.shape)
}

/// `buffer` as a tile of `shape` (a `pto.tile_view` unless the types agree).
fn retyped<'c>(at: &At<'c>, buffer: Buffer<'c>, shape: Shape<'c>) -> Buffer<'c> {
    if buffer.shape.type_text() == shape.type_text() {
        return Buffer { value: buffer.value, shape };
    }
    at.view(buffer, shape)
}

/// The mask seen with one valid byte per 8 columns of `data` (a full-width
/// row form), its rows those of `data`.
fn mask_for_data<'c>(at: &At<'c>, mask: Buffer<'c>, data: &Shape<'c>) -> Buffer<'c> {
    let shape = mask.shape.with_valid([data.valid[0], Extent::Static(data.cols / 8)]);
    retyped(at, mask, shape)
}

/// `tile.cmp` -> TCMPS (tile, scalar) or TCMP (tile, tile) into the packed
/// mask. The tile predicates are numbered as PTO's CmpMode. A2/A3 compares
/// f32 and f16 with every mode but i32 only for equality (its TCMP/TCMPS
/// ignore the mode for i32), and TCMPS reads i16 bits as f16; so i32 (other
/// than `eq`) and i16 tiles are converted to f32 first (TCVT, and
/// `arith.sitofp` for a scalar) and compared in f32. That is exact for
/// |values| < 2^24 (indices, counters); larger i32 values may round and
/// compare equal.
fn compare<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    const MODES: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
    let predicate = IntegerAttribute::try_from(op.attribute("predicate").map_err(|e| e.to_string())?).map_err(|_| "cmp predicate")?.value();
    let mode = *MODES.get(predicate as usize).ok_or("unknown comparison predicate")?;
    let lhs = materialise(k, at, operand(op, 0))?;
    let element = lhs.shape.element;
    let width = htp_ir::builder::int_width(element);
    let in_f32 = match (width, element.to_string().as_str()) {
        (Some(32), _) => mode != "eq",
        (Some(16), _) => true,
        (None, "f32" | "f16") => false,
        _ => return Err(format!("PTO compares f32, f16, i32 and i16 tiles, not {element}")),
    };
    let f32_type = melior::ir::Type::float32(at.context);
    let to_f32 = |buffer: Buffer<'c>| -> Buffer<'c> {
        if !in_f32 {
            return buffer;
        }
        let converted = at.alloc(Shape { element: f32_type, ..buffer.shape });
        at.instruction(pto::TCvtOperationBuilder::new(at.context, at.location).dst(converted.value).src(buffer.value).round(attrs::round_mode(at.context, "rint")).build());
        converted
    };
    let source = to_f32(full_width(at, lhs));
    let dst = destination(k, at, op, &lhs.shape.valid)?;
    let mask = mask_for_data(at, dst, &source.shape);
    let rhs = operand(op, 1);
    let mode = attrs::cmp_mode(at.context, mode);
    if TileType::try_from(rhs.r#type()).is_err() {
        let mut scalar = k.value(rhs)?;
        if in_f32 {
            scalar = at.value("arith.sitofp", &[scalar], f32_type);
        }
        at.instruction(pto::TCmpSOperationBuilder::new(at.context, at.location).mode(mode).mask(mask.value).src(source.value).scalar(scalar).build());
    } else {
        let other = to_f32(full_width(at, materialise(k, at, rhs)?));
        let other = retyped(at, other, source.shape);
        at.instruction(pto::TCmpOperationBuilder::new(at.context, at.location).mode(mode).mask(mask.value).src_0(source.value).src_1(other.value).build());
    }
    k.bind(result(op), dst);
    Ok(())
}

/// `tile.select` -> TSEL(dst, mask, a, b, tmp). Scalars reach it as
/// `tile.constant`/`tile.fill` tiles (TEXPANDS). PTO-ISA's TSEL takes dst,
/// a and b as one C++ tile type, so a and b are seen with dst's type; `tmp`
/// is the 32-byte ui32 scratch A2/A3 keeps the mask's address in.
fn select<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let mask = k.buffer(operand(op, 0))?;
    let (a, b) = (materialise(k, at, operand(op, 1))?, materialise(k, at, operand(op, 2))?);
    let element = a.shape.element;
    if !matches!(htp_ir::builder::bit_width(element), 16 | 32) {
        return Err(format!("PTO selects tiles of 16- or 32-bit elements (TSEL), not {element}"));
    }
    let dst = destination(k, at, op, &a.shape.valid)?;
    select_into(at, dst, mask, a, b);
    k.bind(result(op), dst);
    Ok(())
}

/// TSEL: `dst` gets `a` where `mask` is set, else `b` (whole rows).
fn select_into<'c>(at: &At<'c>, dst: Buffer<'c>, mask: Buffer<'c>, a: Buffer<'c>, b: Buffer<'c>) {
    let whole = full_width(at, dst);
    let a = retyped(at, as_row(at, a), whole.shape);
    let b = retyped(at, as_row(at, b), whole.shape);
    let mask = mask_for_data(at, mask, &whole.shape);
    let ui32 = melior::ir::r#type::IntegerType::unsigned(at.context, 32).into();
    let tmp = at.alloc(Shape {
        rows: 1,
        cols: 8,
        element: ui32,
        layout: Layout::Nd,
        valid: [Extent::Static(1), Extent::Static(8)],
        pad: Pad::Null,
        ..whole.shape
    });
    at.instruction(pto::TSelOperationBuilder::new(at.context, at.location).dst(whole.value).mask(mask.value).src_0(a.value).src_1(b.value).tmp(tmp.value).build());
}

pub(super) fn is_mask(tile: V) -> bool {
    TileType::try_from(tile.r#type()).is_ok_and(|t| bit_width(t.element_type()) == 1)
}

/// A bool tensor holds a byte per element in GM; a mask tile is packed
/// bits. Loading one: the bytes (TLOAD into an i8 tile), converted to f16
/// (TCVT; TCMPS compares f16, not bytes) and compared with 0 into the mask.
fn load_mask<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let byte = melior::ir::r#type::IntegerType::new(at.context, 8).into();
    memory::load(k, at, op, |tile, valid| Shape::vec_of(tile, byte, valid), |_, _| {})?;
    let bytes = k.buffer(result(op))?;
    let half_type = melior::ir::Type::float16(at.context);
    let half = at.alloc(Shape { element: half_type, ..bytes.shape });
    at.instruction(pto::TCvtOperationBuilder::new(at.context, at.location).dst(half.value).src(bytes.value).round(attrs::round_mode(at.context, "rint")).build());
    let mask = at.alloc(Shape::mask_for(result_tile(op)?, bytes.shape.valid));
    let source = full_width(at, half);
    let zero = at.number(half_type, 0.0);
    let into = mask_for_data(at, mask, &source.shape);
    let not_equal = attrs::cmp_mode(at.context, "ne");
    at.instruction(pto::TCmpSOperationBuilder::new(at.context, at.location).mode(not_equal).mask(into.value).src(source.value).scalar(zero).build());
    k.bind(result(op), mask);
    Ok(())
}

/// Storing a mask to a bool tensor: 1 or 0 selected in f16 (TSEL takes
/// 16- and 32-bit elements), converted to bytes (TCVT) and stored.
fn store_mask<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let mask = k.buffer(operand(op, 0))?;
    let tile = TileType::try_from(operand(op, 0).r#type()).map_err(|_| "a store of a non-tile")?;
    let cols = match tile.valid_size(1) {
        htp_dialects::tile::ValidSize::Static(n) if tile.cols() > 1 => n,
        _ => return Err("PTO stores a mask to a bool tensor only from a tile of several columns with a static valid width".into()),
    };
    let byte = melior::ir::r#type::IntegerType::new(at.context, 8).into();
    let bytes = Shape::vec_of(tile, byte, [mask.shape.valid[0], Extent::Static(cols)]);
    let half_type = melior::ir::Type::float16(at.context);
    let half = Shape { element: half_type, ..bytes };
    let constant = |value: f64| {
        let filled = at.alloc(half.fully_valid());
        at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(filled.value).scalar(at.number(half_type, value)).build());
        filled
    };
    let (ones, zeros) = (constant(1.0), constant(0.0));
    let selected = at.alloc(half);
    select_into(at, selected, mask, ones, zeros);
    let out = at.alloc(bytes);
    at.instruction(pto::TCvtOperationBuilder::new(at.context, at.location).dst(out.value).src(selected.value).round(attrs::round_mode(at.context, "rint")).build());
    memory::store_buffer(k, at, op, out)
}

/// A mask cast to numbers, 1 where it is set and 0 elsewhere: TSEL of
/// filled f16 tiles (TSEL takes 16- and 32-bit elements), then the TCVTs to
/// the result's type — as a mask is stored to a bool tensor. A mask's valid
/// region is rows of packed bytes: the columns are the tile's, static.
fn cast_mask<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let mask = k.buffer(operand(op, 0))?;
    let tile = result_tile(op)?;
    let cols = match tile.valid_size(1) {
        htp_dialects::tile::ValidSize::Static(n) if tile.cols() > 1 => n,
        _ => return Err("PTO converts a mask to numbers only from a tile of several columns with a static valid width".into()),
    };
    let valid = [mask.shape.valid[0], Extent::Static(cols)];
    let dst = destination(k, at, op, &valid)?;
    let half_type = melior::ir::Type::float16(at.context);
    let half = Shape::vec_of(tile, half_type, valid);
    let constant = |value: f64| {
        let filled = at.alloc(half.fully_valid());
        at.instruction(pto::TExpandSOperationBuilder::new(at.context, at.location).dst(filled.value).scalar(at.number(half_type, value)).build());
        filled
    };
    let (ones, zeros) = (constant(1.0), constant(0.0));
    if dst.shape.element == half_type {
        select_into(at, dst, mask, ones, zeros);
    } else {
        let selected = at.alloc(half);
        select_into(at, selected, mask, ones, zeros);
        convert_chain(at, selected, dst, |element| Ok(Shape::vec_of(tile, parse_element(at.context, element)?, valid)))?;
    }
    k.bind(result(op), dst);
    Ok(())
}

#[cfg(test)]
mod tests {
    use melior::ir::operation::OperationLike;

    /// Every cast between HTP's element types has a path, and every step of
    /// it is a TCVT the `pto` dialect's verifier (A2/A3's table) accepts.
    #[test]
    fn every_cast_has_a_path_of_conversions_a2a3_has() {
        let context = crate::new_context().expect("the PTO dialect registers");
        let types = ["f32", "f16", "bf16", "i64", "i32", "i16", "i8"];
        for from in types {
            for to in types.into_iter().filter(|t| *t != from) {
                let path = super::conversion_path(from, to);
                assert_eq!(path.last(), Some(&to), "{from} -> {to}");
                let mut current = from;
                for step in path {
                    let text = format!(
                        "func.func @f(%d: !pto.tile<vec, 16x64x{step}>, %s: !pto.tile<vec, 16x64x{current}>) {{\n  \
                         pto.tcvt %d, %s round rint : !pto.tile<vec, 16x64x{step}>, !pto.tile<vec, 16x64x{current}>\n  return\n}}"
                    );
                    let module = melior::ir::Module::parse(&context, &text);
                    assert!(module.is_some_and(|m| m.as_operation().verify()), "{from} -> {to}: the step {current} -> {step}");
                    current = step;
                }
            }
        }
    }
}
