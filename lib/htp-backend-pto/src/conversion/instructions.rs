//! The PTO instruction of a tile op of a given kind, built with the typed
//! builders melior generates from the `pto` dialect's ODS
//! (`crate::ods::pto`): a kind without an instruction is a
//! diagnostic, an instruction the dialect lacks a compile error.

use crate::ods::pto;
use crate::ops::TileOp;
use htp_ir::builder::V;

use super::state::{At, PtoOps};

fn none(what: &str, kind: &str) -> String {
    format!("PTO has no {what} instruction for '{kind}'")
}

/// `tile.<kind> a, b` into `dst`: TADD, TSUB, TMUL, TDIV, TMAX, TMIN.
pub fn binary<'c>(at: &At<'c>, kind: TileOp, dst: V<'c>, a: V<'c>, b: V<'c>) -> Result<(), String> {
    macro_rules! build {
        ($builder:ident) => {
            at.instruction(pto::$builder::new(at.context, at.location).dst(dst).src_0(a).src_1(b).build())
        };
    }
    match kind {
        TileOp::Add => build!(TAddOperationBuilder),
        TileOp::Sub => build!(TSubOperationBuilder),
        TileOp::Mul => build!(TMulOperationBuilder),
        TileOp::Div => build!(TDivOperationBuilder),
        TileOp::Max => build!(TMaxOperationBuilder),
        TileOp::Min => build!(TMinOperationBuilder),
        _ => return Err(none("tile-tile", kind.mnemonic())),
    }
    Ok(())
}

/// `tile.<kind> src, scalar` into `dst`: TADDS, TSUBS, TMULS, TDIVS, TMAXS, TMINS.
pub fn binary_scalar<'c>(at: &At<'c>, kind: TileOp, dst: V<'c>, src: V<'c>, scalar: V<'c>) -> Result<(), String> {
    macro_rules! build {
        ($builder:ident) => {
            at.instruction(pto::$builder::new(at.context, at.location).dst(dst).src(src).scalar(scalar).build())
        };
    }
    match kind {
        TileOp::Add => build!(TAddSOperationBuilder),
        TileOp::Sub => build!(TSubSOperationBuilder),
        TileOp::Mul => build!(TMulSOperationBuilder),
        TileOp::Div => build!(TDivSOperationBuilder),
        TileOp::Max => build!(TMaxSOperationBuilder),
        TileOp::Min => build!(TMinSOperationBuilder),
        _ => return Err(none("tile-scalar", kind.mnemonic())),
    }
    Ok(())
}

/// `tile.<kind> src` into `dst`: TEXP, TLOG, TSQRT, TRSQRT, TABS, TNEG, TRELU, TRECIP.
pub fn unary<'c>(at: &At<'c>, kind: TileOp, dst: V<'c>, src: V<'c>) -> Result<(), String> {
    macro_rules! build {
        ($builder:ident) => {
            at.instruction(pto::$builder::new(at.context, at.location).dst(dst).src(src).build())
        };
    }
    match kind {
        TileOp::Exp => build!(TExpOperationBuilder),
        TileOp::Log => build!(TLogOperationBuilder),
        TileOp::Sqrt => build!(TSqrtOperationBuilder),
        TileOp::Rsqrt => build!(TRsqrtOperationBuilder),
        TileOp::Abs => build!(TAbsOperationBuilder),
        TileOp::Neg => build!(TNegOperationBuilder),
        TileOp::Relu => build!(TReluOperationBuilder),
        TileOp::Recip => build!(TRecipOperationBuilder),
        _ => return Err(none("unary", kind.mnemonic())),
    }
    Ok(())
}

/// A reduction along each row of `src` into `dst`, through `tmp`: TROWSUM, TROWMAX, TROWMIN.
pub fn row_reduce<'c>(at: &At<'c>, kind: &str, dst: V<'c>, src: V<'c>, tmp: V<'c>) -> Result<(), String> {
    macro_rules! build {
        ($builder:ident) => {
            at.instruction(pto::$builder::new(at.context, at.location).dst(dst).src(src).tmp(tmp).build())
        };
    }
    match kind {
        "sum" => build!(TRowSumOperationBuilder),
        "max" => build!(TRowMaxOperationBuilder),
        "min" => build!(TRowMinOperationBuilder),
        _ => return Err(none("row reduction", kind)),
    }
    Ok(())
}

/// A reduction along each column of `src` into `dst`: TCOLSUM, TCOLMAX, TCOLMIN.
pub fn col_reduce<'c>(at: &At<'c>, kind: &str, dst: V<'c>, src: V<'c>) -> Result<(), String> {
    macro_rules! build {
        ($builder:ident) => {
            at.instruction(pto::$builder::new(at.context, at.location).dst(dst).src(src).build())
        };
    }
    match kind {
        "sum" => build!(TColSumOperationBuilder),
        "max" => build!(TColMaxOperationBuilder),
        "min" => build!(TColMinOperationBuilder),
        _ => return Err(none("column reduction", kind)),
    }
    Ok(())
}

/// `per_line` (a column: one value per row; or a row) expanded over `dst`:
/// TROWEXPAND or TCOLEXPAND.
pub fn expand<'c>(at: &At<'c>, per_column: bool, dst: V<'c>, per_line: V<'c>) {
    if per_column {
        at.instruction(pto::TRowExpandOperationBuilder::new(at.context, at.location).dst(dst).src(per_line).build());
    } else {
        at.instruction(pto::TColExpandOperationBuilder::new(at.context, at.location).dst(dst).src(per_line).build());
    }
}

/// `src <kind> per_line` into `dst`, the per-line operand expanded on the
/// fly: TROWEXPAND_OP / TCOLEXPAND_OP with the `kind` attribute.
pub fn expand_binary<'c>(at: &At<'c>, per_column: bool, kind: melior::ir::Attribute<'c>, dst: V<'c>, src: V<'c>, per_line: V<'c>) {
    if per_column {
        at.instruction(pto::TRowExpandBinOperationBuilder::new(at.context, at.location).kind(kind).dst(dst).src_0(src).src_1(per_line).build());
    } else {
        at.instruction(pto::TColExpandBinOperationBuilder::new(at.context, at.location).kind(kind).dst(dst).src_0(src).src_1(per_line).build());
    }
}

/// An accumulating (`accumulate`) or initialising matmul: TMATMUL_ACC or TMATMUL.
pub fn matmul<'c>(at: &At<'c>, accumulate: bool, acc: V<'c>, left: V<'c>, right: V<'c>) {
    if accumulate {
        at.instruction(pto::TMatmulAccOperationBuilder::new(at.context, at.location).acc(acc).left(left).right(right).build());
    } else {
        at.instruction(pto::TMatmulOperationBuilder::new(at.context, at.location).acc(acc).left(left).right(right).build());
    }
}
