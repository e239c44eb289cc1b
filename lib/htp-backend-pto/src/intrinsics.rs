//! The `pto` intrinsic set: PTO-ISA's vector instructions, callable from a
//! kernel as `pto.<name>(...)` after `from htp import pto`, named after the
//! instructions (`pto.add` is TADD, `pto.adds` TADDS) and typed as the ISA
//! types them on A2/A3 (docs/targets/pto-contract.md). Each call is a
//! `tile.intrinsic "pto.t<name>"` that only the PTO targets provide;
//! `conversion/vector.rs` lowers it to the instruction itself.

use htp_api::intrinsics::{Intrinsic, IntrinsicSet, IntrinsicShape};

const ARITHMETIC: &[&str] = &["i32", "i16", "f16", "f32"];
const FLOAT: &[&str] = &["f16", "f32"];

const fn binary(name: &'static str, op: &'static str, elements: &'static [&'static str], summary: &'static str) -> Intrinsic {
    Intrinsic { name, op, shape: IntrinsicShape::Elementwise { arity: 2 }, elements, summary }
}

const fn unary(name: &'static str, op: &'static str, elements: &'static [&'static str], summary: &'static str) -> Intrinsic {
    Intrinsic { name, op, shape: IntrinsicShape::Elementwise { arity: 1 }, elements, summary }
}

const fn scalar(name: &'static str, op: &'static str, summary: &'static str) -> Intrinsic {
    Intrinsic { name, op, shape: IntrinsicShape::TileScalar, elements: ARITHMETIC, summary }
}

pub static PTO: IntrinsicSet = IntrinsicSet {
    namespace: "pto",
    description: "PTO-ISA vector instructions (Ascend A2/A3)",
    intrinsics: &[
        binary("add", "pto.tadd", ARITHMETIC, "TADD: a + b"),
        binary("sub", "pto.tsub", ARITHMETIC, "TSUB: a - b"),
        binary("mul", "pto.tmul", ARITHMETIC, "TMUL: a * b"),
        binary("div", "pto.tdiv", FLOAT, "TDIV: a / b"),
        binary("max", "pto.tmax", ARITHMETIC, "TMAX: elementwise maximum"),
        binary("min", "pto.tmin", ARITHMETIC, "TMIN: elementwise minimum"),
        scalar("adds", "pto.tadds", "TADDS: t + s"),
        scalar("subs", "pto.tsubs", "TSUBS: t - s"),
        scalar("muls", "pto.tmuls", "TMULS: t * s"),
        scalar("maxs", "pto.tmaxs", "TMAXS: max(t, s)"),
        scalar("mins", "pto.tmins", "TMINS: min(t, s)"),
        unary("exp", "pto.texp", FLOAT, "TEXP: e^t"),
        unary("log", "pto.tlog", FLOAT, "TLOG: natural logarithm"),
        unary("sqrt", "pto.tsqrt", FLOAT, "TSQRT: square root"),
        unary("rsqrt", "pto.trsqrt", FLOAT, "TRSQRT: 1 / sqrt(t)"),
        unary("recip", "pto.trecip", FLOAT, "TRECIP: 1 / t"),
        unary("abs", "pto.tabs", FLOAT, "TABS: |t|"),
        unary("neg", "pto.tneg", ARITHMETIC, "TNEG: -t"),
        unary("relu", "pto.trelu", &["f16", "f32", "i32"], "TRELU: max(t, 0)"),
    ],
};

/// The capability a target needs to run an intrinsic op.
pub fn capabilities() -> Vec<String> {
    PTO.intrinsics.iter().map(|i| format!("intrinsic:{}", i.op)).collect()
}
