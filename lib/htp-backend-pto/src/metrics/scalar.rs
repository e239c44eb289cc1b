//! The scalar ops of orchestrations and kernels (`arith`, `memref.dim`,
//! `memref.expand_shape`), evaluated on concrete values. Integers of every
//! width and `index` are i64; floats are f64 (only their ordering and
//! conversions to integers can change what a kernel moves).

use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    operation::OperationLike,
    OperationRef, ValueLike,
};

use super::interpret::Value;

/// Whether `name` is an op [`evaluate`] handles.
pub fn handles(name: &str) -> bool {
    name.starts_with("arith.") || name == "memref.dim" || name == "memref.expand_shape"
}

/// The result of the scalar op `op` (named `name`) on `operands`.
pub fn evaluate(op: OperationRef, name: &str, operands: &[Value]) -> Result<Value, String> {
    let int = |i: usize| match operands.get(i) {
        Some(Value::Int(v)) => Ok(*v),
        _ => Err(format!("{name}: operand {i} is not an integer")),
    };
    let float = |i: usize| match operands.get(i) {
        Some(Value::Float(v)) => Ok(*v),
        Some(Value::Int(v)) => Ok(*v as f64),
        _ => Err(format!("{name}: operand {i} is not a float")),
    };
    let ints = || Ok::<(i64, i64), String>((int(0)?, int(1)?));
    let floats = || Ok::<(f64, f64), String>((float(0)?, float(1)?));
    let nonzero = |v: i64| if v == 0 { Err(format!("{name}: division by zero")) } else { Ok(v) };
    let predicate = || {
        op.attribute("predicate")
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map(|a| a.value())
            .ok_or(format!("{name} without a predicate"))
    };
    let result_width = || op.result(0).ok().and_then(|r| htp_ir::builder::int_width(r.r#type()));
    Ok(match name {
        "arith.constant" => {
            let attribute = op.attribute("value").map_err(|_| "arith.constant without a value".to_string())?;
            if let Ok(integer) = IntegerAttribute::try_from(attribute) {
                // i1 `true` reads back as -1.
                if result_width() == Some(1) { Value::Int((integer.value() != 0) as i64) } else { Value::Int(integer.value()) }
            } else if let Ok(number) = FloatAttribute::try_from(attribute) {
                Value::Float(number.value())
            } else {
                return Err(format!("arith.constant {attribute} is not a scalar"));
            }
        }
        "arith.addi" => Value::Int(ints()?.0.wrapping_add(ints()?.1)),
        "arith.subi" => Value::Int(ints()?.0.wrapping_sub(ints()?.1)),
        "arith.muli" => Value::Int(ints()?.0.wrapping_mul(ints()?.1)),
        "arith.divsi" | "arith.divui" => Value::Int(int(0)? / nonzero(int(1)?)?),
        "arith.remsi" | "arith.remui" => Value::Int(int(0)? % nonzero(int(1)?)?),
        "arith.ceildivsi" | "arith.ceildivui" => Value::Int(ceil_div(int(0)?, nonzero(int(1)?)?)),
        "arith.floordivsi" => Value::Int(int(0)?.div_euclid(nonzero(int(1)?)?) - correction(int(0)?, int(1)?)),
        "arith.minsi" | "arith.minui" => Value::Int(ints()?.0.min(ints()?.1)),
        "arith.maxsi" | "arith.maxui" => Value::Int(ints()?.0.max(ints()?.1)),
        "arith.andi" => Value::Int(ints()?.0 & ints()?.1),
        "arith.ori" => Value::Int(ints()?.0 | ints()?.1),
        "arith.xori" => Value::Int(ints()?.0 ^ ints()?.1),
        "arith.cmpi" => {
            let (a, b) = ints()?;
            let (ua, ub) = (a as u64, b as u64);
            Value::Int(match predicate()? {
                0 => a == b,
                1 => a != b,
                2 => a < b,
                3 => a <= b,
                4 => a > b,
                5 => a >= b,
                6 => ua < ub,
                7 => ua <= ub,
                8 => ua > ub,
                9 => ua >= ub,
                other => return Err(format!("arith.cmpi predicate {other}")),
            } as i64)
        }
        "arith.select" => match operands {
            [Value::Int(condition), a, b] => if *condition != 0 { a.clone() } else { b.clone() },
            _ => return Err("arith.select on a non-scalar".into()),
        },
        "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui" => Value::Int(int(0)?),
        "arith.trunci" => {
            let v = int(0)?;
            match result_width() {
                Some(width) if width < 64 => {
                    let shift = 64 - width;
                    Value::Int((v << shift) >> shift)
                }
                _ => Value::Int(v),
            }
        }
        "arith.sitofp" | "arith.uitofp" | "arith.extf" | "arith.truncf" => Value::Float(float(0)?),
        "arith.fptosi" | "arith.fptoui" => Value::Int(float(0)? as i64),
        "arith.addf" => Value::Float(floats()?.0 + floats()?.1),
        "arith.subf" => Value::Float(floats()?.0 - floats()?.1),
        "arith.mulf" => Value::Float(floats()?.0 * floats()?.1),
        "arith.divf" => Value::Float(floats()?.0 / floats()?.1),
        "arith.negf" => Value::Float(-float(0)?),
        "arith.maximumf" | "arith.maxnumf" => Value::Float(floats()?.0.max(floats()?.1)),
        "arith.minimumf" | "arith.minnumf" => Value::Float(floats()?.0.min(floats()?.1)),
        "arith.cmpf" => {
            let (a, b) = floats()?;
            let unordered = a.is_nan() || b.is_nan();
            let ordered = |holds: bool| !unordered && holds;
            let or_unordered = |holds: bool| unordered || holds;
            Value::Int(match predicate()? {
                0 => false,
                1 => ordered(a == b),
                2 => ordered(a > b),
                3 => ordered(a >= b),
                4 => ordered(a < b),
                5 => ordered(a <= b),
                6 => ordered(a != b),
                7 => !unordered,
                8 => or_unordered(a == b),
                9 => or_unordered(a > b),
                10 => or_unordered(a >= b),
                11 => or_unordered(a < b),
                12 => or_unordered(a <= b),
                13 => or_unordered(a != b),
                14 => unordered,
                15 => true,
                other => return Err(format!("arith.cmpf predicate {other}")),
            } as i64)
        }
        "memref.dim" => match operands {
            [Value::Tensor(tensor), Value::Int(dim)] => {
                Value::Int(*tensor.shape.get(*dim as usize).ok_or(format!("memref.dim {dim} of a rank-{} tensor", tensor.shape.len()))?)
            }
            _ => return Err("memref.dim of a non-tensor".into()),
        },
        // A 1-D tensor seen as 1 x N: same bytes, the result type's shape
        // with each `?` taken from the output-shape operands in order.
        "memref.expand_shape" => match operands.split_first() {
            Some((Value::Tensor(tensor), sizes)) => {
                let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
                let mut dynamic = sizes.iter();
                let shape = htp_ir::builder::shape_of(ty)
                    .into_iter()
                    .map(|d| {
                        if d >= 0 {
                            Ok(d)
                        } else {
                            match dynamic.next() {
                                Some(Value::Int(v)) => Ok(*v),
                                _ => Err("memref.expand_shape without a size for a `?`".to_string()),
                            }
                        }
                    })
                    .collect::<Result<Vec<i64>, String>>()?;
                Value::Tensor(super::interpret::Tensor { gm: tensor.gm, shape })
            }
            _ => return Err("memref.expand_shape of a non-tensor".into()),
        },
        other => return Err(format!("unsupported op {other}")),
    })
}

fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) == (b < 0)) { q + 1 } else { q }
}

/// `div_euclid` rounds toward -inf only for positive divisors; floordiv
/// by a negative divisor with a remainder is one lower than it.
fn correction(a: i64, b: i64) -> i64 {
    if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_rounds_like_mlir() {
        assert_eq!(ceil_div(7, 2), 4);
        assert_eq!(ceil_div(-7, 2), -3);
        assert_eq!(ceil_div(8, 2), 4);
        // floordivsi: toward -inf.
        assert_eq!(7i64.div_euclid(2) - correction(7, 2), 3);
        assert_eq!((-7i64).div_euclid(2) - correction(-7, 2), -4);
        assert_eq!(7i64.div_euclid(-2) - correction(7, -2), -4);
        assert_eq!((-7i64).div_euclid(-2) - correction(-7, -2), 3);
    }
}
