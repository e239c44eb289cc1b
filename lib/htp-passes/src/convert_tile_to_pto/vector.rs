//! Tile ops -> PTO vector-core (AIV) instructions on UB tiles.

use htp_dialects::tile::TileType;
use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    operation::OperationLike,
    OperationRef, ValueLike,
};

use super::buffer::{extents_like, extents_of, Buffer, Extent, Layout, Pad, Shape};
use super::kernel::{At, Kernel};
use crate::ir_query::{defining_op, has_single_use, key, uses};
use super::{attrs, memory};
use crate::ir_builder::{detach, Builder, V};

pub fn lower<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: &str) -> Result<(), String> {
    match kind {
        "load" => memory::load(k, at, op, |tile, valid| Shape::vec_for(tile, valid), |_, _| {}),
        "store" => memory::store(k, at, op),
        "constant" | "fill" => fill(k, at, op),
        "add" | "sub" | "mul" | "div" | "max" | "min" => binary(k, at, op, kind),
        "exp" | "log" | "sqrt" | "rsqrt" | "recip" | "abs" | "neg" | "relu" => unary(k, at, op, kind),
        "row_reduce" => row_reduce(k, at, op),
        "col_reduce" => col_reduce(k, at, op),
        "broadcast" => broadcast(k, at, op),
        "pad" => pad(k, at, op),
        "set_valid" => set_valid(k, at, op),
        "cast" => cast(k, at, op),
        "matmul" => Err("matmul runs on the cube core; this kernel was planned for the vector core".into()),
        other => Err(format!("tile.{other} has no PTO vector lowering yet")),
    }
}

fn operand<'c>(op: OperationRef<'c, 'c>, index: usize) -> V<'c> {
    detach(op.operand(index).expect("verified op has this operand"))
}

fn result<'c>(op: OperationRef<'c, 'c>) -> V<'c> {
    detach(op.result(0).expect("tile op with a result").into())
}

pub fn result_tile<'c>(op: OperationRef<'c, 'c>) -> Result<TileType<'c>, String> {
    TileType::try_from(result(op).r#type()).map_err(|_| "expected a tile result".to_string())
}

/// The UB buffer for `op`'s result, its run-time valid sizes taken from `like`.
fn destination<'c>(k: &Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, like: &[Extent<'c>; 2]) -> Result<Buffer<'c>, String> {
    let tile = result_tile(op)?;
    let shape = Shape::vec_for(tile, extents_like(tile, like)?);
    Ok(k.destination(at, result(op), shape))
}

/// A one-column buffer seen as one row, so elementwise instructions (which
/// want ND tiles) apply to per-row values.
fn as_row<'c>(at: &At<'c>, buffer: Buffer<'c>) -> Buffer<'c> {
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
    at.instr("pto.texpands", &[as_row(at, dst).value, scalar], &[]);
    k.bind(result(op), dst);
    Ok(())
}

fn binary<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: &str) -> Result<(), String> {
    let (mut lhs, mut rhs) = (operand(op, 0), operand(op, 1));
    if TileType::try_from(rhs.r#type()).is_err() {
        let source = k.buffer(lhs)?;
        let scalar = k.value(rhs)?;
        let dst = destination(k, at, op, &source.shape.valid)?;
        at.instr(&format!("pto.t{kind}s"), &[as_row(at, dst).value, as_row(at, source).value, scalar], &[]);
        k.bind(result(op), dst);
        return Ok(());
    }
    let commutes = matches!(kind, "add" | "mul" | "max" | "min");
    if commutes && k.deferred.contains_key(&key(lhs)) && !k.deferred.contains_key(&key(rhs)) {
        std::mem::swap(&mut lhs, &mut rhs);
    }
    if let Some(per_line) = k.deferred.remove(&key(rhs)) {
        // t op broadcast(v): one fused row/column-expand instruction.
        let source = k.buffer(lhs)?;
        let dst = destination(k, at, op, &source.shape.valid)?;
        let name = if per_line.shape.is_column() { "pto.trowexpand_op" } else { "pto.tcolexpand_op" };
        at.instr(name, &[dst.value, source.value, per_line.value], &[("kind", attrs::expand_kind(at.context, kind))]);
        k.bind(result(op), dst);
        return Ok(());
    }
    let (a, b) = (materialise(k, at, lhs)?, materialise(k, at, rhs)?);
    let dst = destination(k, at, op, &a.shape.valid)?;
    at.instr(&format!("pto.t{kind}"), &[as_row(at, dst).value, as_row(at, a).value, as_row(at, b).value], &[]);
    k.bind(result(op), dst);
    Ok(())
}

/// The buffer of a tile, emitting a deferred broadcast if nothing fused it.
fn materialise<'c>(k: &mut Kernel<'c>, at: &At<'c>, tile: V<'c>) -> Result<Buffer<'c>, String> {
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
    let name = if per_line.shape.is_column() { "pto.trowexpand" } else { "pto.tcolexpand" };
    at.instr(name, &[dst.value, per_line.value], &[]);
}

fn unary<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>, kind: &str) -> Result<(), String> {
    let source = k.buffer(operand(op, 0))?;
    let dst = destination(k, at, op, &source.shape.valid)?;
    at.instr(&format!("pto.t{kind}"), &[as_row(at, dst).value, as_row(at, source).value], &[]);
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
    let scratch = at.alloc(source.shape);
    at.instr(&format!("pto.trow{kind}"), &[dst.value, source.value, scratch.value], &[]);
    k.bind(result(op), dst);
    Ok(())
}

fn col_reduce<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let kind = reduction_kind(op)?;
    let source = k.buffer(operand(op, 0))?;
    let dst = destination(k, at, op, &source.shape.valid)?;
    at.instr(&format!("pto.tcol{kind}"), &[dst.value, source.value], &[]);
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
    let fusable = has_single_use(result(op))
        && uses(result(op)).first().is_some_and(|user| {
            let name = user.name().as_string_ref().as_str().unwrap_or("").to_string();
            let rhs = user.operand(1).ok().map(|v| key(detach(v))) == Some(key(result(op)));
            let commutes = matches!(name.as_str(), "tile.add" | "tile.mul" | "tile.max" | "tile.min");
            matches!(name.as_str(), "tile.add" | "tile.sub" | "tile.mul" | "tile.div" | "tile.max" | "tile.min")
                && (rhs || commutes)
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
    let source = k.buffer(operand(op, 0))?;
    let pad = pad_value(operand(op, 1))?;
    let shape = Shape { pad, ..source.shape.fully_valid() };
    let dst = at.alloc(shape);
    at.instr("pto.tfillpad", &[dst.value, source.value], &[]);
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
    let valid = extents_of(result_tile(op)?, &sizes)?;
    let view = at.view(source, source.shape.with_valid(valid));
    k.bind(result(op), view);
    Ok(())
}

/// `tile.cast` rounds to nearest-even between floats and truncates float ->
/// integer, as numpy's astype does.
fn cast<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let source = k.buffer(operand(op, 0))?;
    let tile = result_tile(op)?;
    let to_int = melior::ir::r#type::IntegerType::try_from(tile.element_type()).is_ok();
    let from_float = crate::ir_builder::is_float(source.shape.element);
    let mode = if to_int && from_float { "trunc" } else { "rint" };
    let dst = destination(k, at, op, &source.shape.valid)?;
    at.instr("pto.tcvt", &[as_row(at, dst).value, as_row(at, source).value], &[("round", attrs::round_mode(at.context, mode))]);
    k.bind(result(op), dst);
    Ok(())
}
