//! The `pto` dialect's enum attributes, spelled in one place (I32 enums,
//! stored as their case number like upstream `arith.cmpi`'s predicate).

use melior::{
    ir::{attribute::IntegerAttribute, r#type::IntegerType, Attribute},
    Context,
};

fn case<'c>(context: &'c Context, cases: &[&str], name: &str) -> Attribute<'c> {
    let value = cases.iter().position(|c| *c == name).unwrap_or_else(|| panic!("no pto enum case {name}"));
    IntegerAttribute::new(IntegerType::new(context, 32).into(), value as i64).into()
}

/// The operation of a fused row/column-expand instruction (`sub` for
/// TROWEXPANDSUB, ...).
pub fn expand_kind<'c>(context: &'c Context, kind: &str) -> Attribute<'c> {
    case(context, &["add", "sub", "mul", "div", "max", "min", "expdif"], kind)
}

/// TCVT's rounding mode.
pub fn round_mode<'c>(context: &'c Context, mode: &str) -> Attribute<'c> {
    case(context, &["none", "rint", "round", "floor", "ceil", "trunc", "odd"], mode)
}

/// The direction of a cross-core pipe (`c2v`, `v2c`).
pub fn cross_core<'c>(context: &'c Context, dir: &str) -> Attribute<'c> {
    case(context, &["c2v", "v2c"], dir)
}

/// TCMP/TCMPS's comparison (CmpMode), numbered as `tile.cmp`'s predicate.
pub fn cmp_mode<'c>(context: &'c Context, mode: &str) -> Attribute<'c> {
    case(context, &["eq", "ne", "lt", "le", "gt", "ge"], mode)
}

/// TGATHER's mask pattern (`p0101`, `p1010`, `p0001` ... `p1000`): PTO-ISA's
/// `MaskPattern` numbers them from 1.
pub fn mask_pattern<'c>(context: &'c Context, pattern: &str) -> Attribute<'c> {
    let cases = ["p0101", "p1010", "p0001", "p0010", "p0100", "p1000"];
    let value = cases.iter().position(|c| *c == pattern).unwrap_or_else(|| panic!("no pto mask pattern {pattern}")) + 1;
    IntegerAttribute::new(IntegerType::new(context, 32).into(), value as i64).into()
}
