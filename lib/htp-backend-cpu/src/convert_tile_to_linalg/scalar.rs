//! The scalar op that implements one element of a tile op, chosen by the
//! element type (floats: ordered/IEEE ops; integers: signed ops).

use melior::ir::{attribute::IntegerAttribute, r#type::IntegerType, Type, ValueLike};

use htp_ir::builder::{bit_width, is_float, BodyBuilder, Builder, V};

/// Each tile binary op and its arith op on floats and on integers.
const BINARY: [(&str, &str, &str); 6] = [
    ("add", "arith.addf", "arith.addi"),
    ("sub", "arith.subf", "arith.subi"),
    ("mul", "arith.mulf", "arith.muli"),
    ("div", "arith.divf", "arith.divsi"),
    ("max", "arith.maximumf", "arith.maxsi"),
    ("min", "arith.minimumf", "arith.minsi"),
];

/// The arith op for a tile binary op (`add`, `sub`, ...) on `element`.
pub fn binary(kind: &str, element: Type) -> &'static str {
    let Some(&(_, float, integer)) = BINARY.iter().find(|(name, _, _)| *name == kind) else {
        unreachable!("not a tile binary op: {kind}")
    };
    if is_float(element) {
        float
    } else {
        integer
    }
}

/// One element of `tile.div` on integers: truncating, with the divisions
/// that would trap the process (SIGFPE) defined instead — `x / 0` is 0 and
/// the type's smallest value `/ -1` wraps to itself, as numpy's integer
/// arithmetic does (tile division has no per-element error to report).
pub fn divide_integers<'c>(b: &BodyBuilder<'c>, x: V<'c>, y: V<'c>) -> V<'c> {
    let element = x.r#type();
    let i1: Type = IntegerType::new(b.context, 1).into();
    let (zero, one, minus_one) = (b.number(element, 0.0), b.number(element, 1.0), b.number(element, -1.0));
    let by_zero = compare(b, 0, y, zero);
    let by_minus_one = compare(b, 0, y, minus_one);
    let trapping = b.value("arith.ori", &[by_zero, by_minus_one], i1);
    let divisor = b.value("arith.select", &[trapping, one, y], element);
    let quotient = b.value("arith.divsi", &[x, divisor], element);
    let negated = b.value("arith.subi", &[zero, x], element);
    let quotient = b.value("arith.select", &[by_minus_one, negated, quotient], element);
    b.value("arith.select", &[by_zero, zero, quotient], element)
}

/// The combiner and identity of a reduction kind (0 sum, 1 max, 2 min).
pub fn reduction(kind: i64, element: Type) -> (&'static str, f64) {
    let combiner = binary(["add", "max", "min"][kind as usize], element);
    let identity = match (kind, is_float(element)) {
        (0, _) => 0.0,
        (1, true) => f64::NEG_INFINITY,
        (2, true) => f64::INFINITY,
        (1, false) => -(2f64.powi(bit_width(element) as i32 - 1)),
        (2, false) => 2f64.powi(bit_width(element) as i32 - 1) - 1.0,
        _ => unreachable!("reduction kinds are sum, max, min"),
    };
    (combiner, identity)
}

/// `tile.cmp` predicate (eq ne lt le gt ge) as an arith.cmpf / cmpi predicate.
/// Floats compare ordered, except `ne`, which is true for NaN.
pub fn compare<'c>(builder: &BodyBuilder<'c>, predicate: i64, a: V<'c>, b: V<'c>) -> V<'c> {
    let element = a.r#type();
    let i1 = IntegerType::new(builder.context, 1).into();
    let i64_type = IntegerType::new(builder.context, 64).into();
    let (name, code) = if is_float(element) {
        ("arith.cmpf", [1, 13, 4, 5, 2, 3][predicate as usize])
    } else {
        ("arith.cmpi", [0, 1, 2, 3, 4, 5][predicate as usize])
    };
    builder.value_with(name, &[a, b], i1, &[("predicate", IntegerAttribute::new(i64_type, code).into())])
}

/// Converts `value` to `target` the way `tile.cast` defines: floats round to
/// nearest, float->int truncates toward zero, ints are signed, i1 is 0/1 and
/// anything -> i1 is "not zero".
pub fn convert<'c>(builder: &BodyBuilder<'c>, value: V<'c>, target: Type<'c>) -> V<'c> {
    let source = value.r#type();
    if source == target {
        return value;
    }
    let (from, to) = (bit_width(source), bit_width(target));
    match (is_float(source), is_float(target)) {
        (true, true) if from == to => {
            // f16 <-> bf16: through f32.
            let f32_type = Type::float32(builder.context);
            let wide = builder.value("arith.extf", &[value], f32_type);
            builder.value("arith.truncf", &[wide], target)
        }
        (true, true) => builder.value(if to > from { "arith.extf" } else { "arith.truncf" }, &[value], target),
        (false, true) => builder.value(if from == 1 { "arith.uitofp" } else { "arith.sitofp" }, &[value], target),
        (true, false) if to == 1 => {
            let zero = builder.number(source, 0.0);
            let ne = 1; // tile.cmp `ne`
            compare(builder, ne, value, zero)
        }
        (true, false) => {
            // fptosi of a value outside the target's range (inf, NaN, 1e30)
            // is poison in LLVM: different garbage on every run. Saturate
            // instead (NaN becomes 0), as Rust's `as` does.
            // The largest f32 below 2^(bits-1) (exact in f32 and f64).
            let limit = 2f64.powi(to as i32 - 1);
            let (low, high) = (-limit, limit * (1.0 - 2f64.powi(-24)));
            let f32_type = Type::float32(builder.context);
            let wide = if from < 32 { builder.value("arith.extf", &[value], f32_type) } else { value };
            let wide_type = wide.r#type();
            let clamped_low = builder.value("arith.maximumf", &[wide, builder.number(wide_type, low)], wide_type);
            let clamped = builder.value("arith.minimumf", &[clamped_low, builder.number(wide_type, high)], wide_type);
            // NaN != NaN: replace it by 0 before converting.
            let is_nan = builder.value_with(
                "arith.cmpf",
                &[wide, wide],
                Type::from(melior::ir::r#type::IntegerType::new(builder.context, 1)),
                &[("predicate", melior::ir::attribute::IntegerAttribute::new(Type::from(melior::ir::r#type::IntegerType::new(builder.context, 64)), 14).into())],
            );
            let zero = builder.number(wide_type, 0.0);
            let finite = builder.value("arith.select", &[is_nan, zero, clamped], wide_type);
            builder.value("arith.fptosi", &[finite], target)
        }
        (false, false) if to == 1 => {
            let zero = builder.number(source, 0.0);
            compare(builder, 1, value, zero)
        }
        (false, false) if from == 1 => builder.value("arith.extui", &[value], target),
        (false, false) => builder.value(if to > from { "arith.extsi" } else { "arith.trunci" }, &[value], target),
    }
}
