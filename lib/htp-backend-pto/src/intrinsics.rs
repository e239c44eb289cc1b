//! The `pto` intrinsic set: PTO-ISA's vector instructions, callable from a
//! kernel as `pto.<name>(...)` after `from htp import pto`, named after the
//! instructions (`pto.add` is TADD, `pto.adds` TADDS) and typed as the ISA
//! types them on A2/A3 (docs/targets/pto-contract.md). Each call is a
//! `tile.intrinsic "pto.t<name>"` that only the PTO targets provide;
//! `conversion/vector.rs` lowers it to the instruction itself.

use htp_api::intrinsics::{EffectKeyword, EffectParam, Intrinsic, IntrinsicSet, IntrinsicShape};

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

const fn effect(name: &'static str, op: &'static str, params: &'static [EffectParam], keywords: &'static [EffectKeyword], returns_index: bool, summary: &'static str) -> Intrinsic {
    Intrinsic { name, op, shape: IntrinsicShape::Effect { params, keywords, returns_index }, elements: &[], summary }
}

/// The `comm` intrinsic set: communication between the chips of a group
/// (pto-runtime's L3 workers, each chip with a copy of the kernel's
/// communication windows, `comm.Window[...]` parameters), after `from htp
/// import comm`. Lowered by `conversion/comm.rs` to the `pto.comm_*` ops:
/// PTO-ISA's `pto::comm` TNOTIFY/TWAIT and TPUT's store.
pub static COMM: IntrinsicSet = IntrinsicSet {
    namespace: "comm",
    description: "communication between chips (pto-runtime L3 windows; PTO-ISA TPUT/TNOTIFY/TWAIT)",
    intrinsics: &[
        effect("rank", "comm.rank", &[], &[], true, "this chip's rank in its group, 0 .. comm.size() - 1"),
        effect("size", "comm.size", &[], &[], true, "the number of chips in the group"),
        effect(
            "put",
            "comm.put",
            &[EffectParam::Index("peer"), EffectParam::Block { name: "block", window: true }, EffectParam::Tile("tile")],
            &[],
            false,
            "put(peer, w[...], t): the tile stored into peer's copy of the window block (TPUT's store; peer == rank stores locally)",
        ),
        effect(
            "notify",
            "comm.notify",
            &[EffectParam::Index("peer"), EffectParam::Element { name: "signal", window: true }, EffectParam::I32("value")],
            &[EffectKeyword { name: "op", choices: &[("add", "add"), ("set", "set")], default: "add" }],
            false,
            "notify(peer, s[i], v, op=\"add\"|\"set\"): TNOTIFY of peer's copy of the i32 signal, after every earlier write landed",
        ),
        effect(
            "wait",
            "comm.wait",
            &[EffectParam::Element { name: "signal", window: true }, EffectParam::I32("value")],
            &[EffectKeyword {
                name: "cmp",
                choices: &[(">=", "ge"), (">", "gt"), ("==", "eq"), ("!=", "ne"), ("<", "lt"), ("<=", "le")],
                default: "ge",
            }],
            false,
            "wait(s[i], v, cmp=\">=\"): TWAIT until this chip's signal compares true against v",
        ),
    ],
};

/// The capability a target needs to run an intrinsic op (both sets), and
/// communication windows (`comm.Window[...]`).
pub fn capabilities() -> Vec<String> {
    let mut provided: Vec<String> = PTO.intrinsics.iter().chain(COMM.intrinsics).map(|i| format!("intrinsic:{}", i.op)).collect();
    provided.push(htp_api::capabilities::WINDOW.to_string());
    provided
}
