//! `cpu-polynomial-exp`: `math.exp` on f32 (and on f16/bf16, through f32)
//! becomes arithmetic — a range reduction `x = k ln2 + r`, Cephes' degree-7
//! polynomial for `exp(r)` and a scale by `2^k` built from the exponent
//! bits — so that LLVM vectorises the loops around it. `math.exp` lowered
//! as is becomes a call of libm's `expf` per element, which no loop
//! vectoriser crosses: softmax and attention spend most of their time
//! there (docs/performance.md).
//!
//! Accuracy: about 1 ulp (relative error below 2e-7) over the normal
//! range; results below the smallest normal are the correctly scaled
//! denormals (the scale is applied as two powers of two), `exp(-inf)` is 0,
//! `exp(x)` is +inf from `ln(FLT_MAX)` up and NaN stays NaN.

use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::IntegerAttribute,
        operation::OperationLike,
        r#type::IntegerType,
        OperationRef, Type, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"cpu-polynomial-exp", "func.func"> {
        summary: "Expand math.exp on f32/f16/bf16 into a vectorisable polynomial (the cpu target)",
        dialects: [arith, func],
        run: run,
    }
}

/// About how many ops (constants aside) one f32 `math.exp` becomes; the
/// weight `cpu-split-large-bodies` gives it (count the ops `exp_f32` builds).
pub const EXPANDED_OPS: usize = 40;

/// The largest argument with a finite f32 result: ln(FLT_MAX).
const LN_FLT_MAX: f64 = 88.722_839_355_468_75;
/// Below this the result rounds to 0 even as a denormal: ln(2^-150).
const ZERO_BELOW: f64 = -103.972_077_083_991_8;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2 split in two (Cephes): k * LN2_HI is exact for |k| < 2^9.
const LN2_HI: f64 = 0.693_359_375;
const LN2_LO: f64 = -2.121_944_400_546_905_8e-4;
/// exp(r) - 1 - r = r^2 * P(r) on |r| <= ln2 / 2 (Cephes expf).
const P: [f64; 6] = [1.987_569_150_0e-4, 1.398_199_950_7e-3, 8.333_451_907_3e-3, 4.166_579_589_4e-2, 1.666_666_545_9e-1, 5.000_000_120_1e-1];

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    for op in htp_ir::query::ops_named_where(function, "math.exp", |op| op.result(0).is_ok_and(|r| is_small_float(r.r#type()))) {
        htp_pass::processing(op.location());
        let at = Emitter { context, block: op.block().expect("an op in a block"), anchor: op, location: op.location() };
        let x = detach(op.operand(0).expect("math.exp has an operand"));
        let ty = x.r#type();
        let f32_type = Type::float32(context);
        let wide = if ty == f32_type { x } else { at.value("arith.extf", &[x], f32_type) };
        let result = exp_f32(&at, wide);
        let narrow = if ty == f32_type { result } else { at.value("arith.truncf", &[result], ty) };
        let old = op.result(0).expect("math.exp has a result");
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), narrow.to_raw());
            mlir_sys::mlirOperationDestroy(op.to_raw());
        }
    }
    Ok(())
}

fn is_small_float(ty: Type) -> bool {
    matches!(ty.to_string().as_str(), "f32" | "f16" | "bf16")
}

/// exp(x) of an f32 value, in arith/math ops.
fn exp_f32<'c>(at: &Emitter<'c, '_>, x: V<'c>) -> V<'c> {
    let f32_type = x.r#type();
    let i32_type: Type = IntegerType::new(at.context, 32).into();
    let float = |value: f64| at.number(f32_type, value);
    let int = |value: i64| at.constant(IntegerAttribute::new(i32_type, value).into(), i32_type);
    let binary = |name: &str, a: V<'c>, b: V<'c>| at.value(name, &[a, b], a.r#type());
    let compare = |predicate: i64, a: V<'c>, b: V<'c>| {
        let i64_type: Type = IntegerType::new(at.context, 64).into();
        let bool_type: Type = IntegerType::new(at.context, 1).into();
        at.value_with("arith.cmpf", &[a, b], bool_type, &[("predicate", IntegerAttribute::new(i64_type, predicate).into())])
    };
    let select = |c: V<'c>, a: V<'c>, b: V<'c>| at.value("arith.select", &[c, a, b], a.r#type());

    // Clamped to where the result is finite and not yet 0 (NaN is restored at the end).
    let clamped = binary("arith.minimumf", binary("arith.maximumf", x, float(ZERO_BELOW)), float(LN_FLT_MAX));
    // k = round(x / ln 2), r = x - k ln 2 (in two parts), |r| <= ln2 / 2.
    let k = at.value("math.floor", &[binary("arith.addf", binary("arith.mulf", clamped, float(LOG2_E)), float(0.5))], f32_type);
    let r = binary("arith.subf", clamped, binary("arith.mulf", k, float(LN2_HI)));
    let r = binary("arith.subf", r, binary("arith.mulf", k, float(LN2_LO)));
    let mut p = float(P[0]);
    for coefficient in &P[1..] {
        p = binary("arith.addf", binary("arith.mulf", p, r), float(*coefficient));
    }
    let r2 = binary("arith.mulf", r, r);
    let y = binary("arith.addf", binary("arith.addf", binary("arith.mulf", p, r2), r), float(1.0));
    // 2^k as two powers of two (k in [-150, 128]: each half is a normal float).
    let ki = at.value("arith.fptosi", &[k], i32_type);
    let half = binary("arith.shrsi", ki, int(1));
    let rest = binary("arith.subi", ki, half);
    let power = |e: V<'c>| {
        let bits = binary("arith.shli", binary("arith.addi", e, int(127)), int(23));
        at.value("arith.bitcast", &[bits], f32_type)
    };
    let scaled = binary("arith.mulf", binary("arith.mulf", y, power(half)), power(rest));
    // Overflow to +inf, underflow to 0 (the two-step scale would round the
    // smallest denormal up); NaN stays NaN (predicates: 2 = ogt, 4 = olt, 14 = uno).
    let result = select(compare(2, x, float(LN_FLT_MAX)), float(f64::INFINITY), scaled);
    let result = select(compare(4, x, float(ZERO_BELOW)), float(0.0), result);
    select(compare(14, x, x), x, result)
}
