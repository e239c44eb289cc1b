//! Scalar arithmetic, comparisons and casts, with Python numbers taking the type their context needs; compile-time folding of Python arithmetic.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use crate::lower::builder::OpSpec;
use crate::lower::types::{Elem, ScalarTy};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

use super::*;

impl<'c> Lowerer<'c, '_> {
    /// `value` as a run-time scalar of type `ty`: Python numbers take `ty`;
    /// run-time scalars must already have it (index and integers convert).
    pub fn scalar_for(&self, value: &Val, ty: ScalarTy, range: TextRange) -> LResult<MlirValue> {
        match (value, ty) {
            (Val::Int(v), _) => {
                if ty == ScalarTy::Elem(Elem::I1) && !(*v == 0 || *v == 1) {
                    return Err(self.error(range, DiagnosticKind::Type, format!("the integer {v} is not a bool")));
                }
                self.scalar_const(range, *v as f64, Some(*v), ty)
            }
            (Val::Float(v), t) if t.is_float() => self.scalar_const(range, *v, None, ty),
            (Val::Float(_), _) => Err(self.error(range, DiagnosticKind::Type, format!(
                "a float constant cannot take the type {ty} (write an integer, or convert the other operand)"
            ))),
            (Val::Bool(b), ScalarTy::Elem(Elem::I1)) => self.scalar_const(range, 0.0, Some(*b as i64), ty),
            (Val::Scalar(v, have), _) if *have == ty => Ok(*v),
            (Val::Scalar(v, have), _) if have.is_integer() && ty.is_integer() && (*have == ScalarTy::Index || ty == ScalarTy::Index) => {
                let t = self.scalar_ty(range, ty)?;
                self.emit1(range, OpSpec::new("arith.index_cast", &[*v], &[t]))
            }
            (other, _) => Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch: expected a {ty} value, got {} (convert with htp.{ty}(x) or htp.cast)",
                other.describe()
            ))),
        }
    }

    pub fn to_index(&self, value: &Val, range: TextRange) -> LResult<MlirValue> {
        match value {
            Val::Int(_) | Val::Scalar(..) => self.scalar_for(value, ScalarTy::Index, range),
            other => Err(self.error(range, DiagnosticKind::Type, format!("expected an integer index, got {}", other.describe()))),
        }
    }

    /// The type two scalar operands meet at: a run-time operand's type wins
    /// over a Python number; index and integers meet at index.
    pub(super) fn unify_scalars(&self, a: &Val, b: &Val, range: TextRange) -> LResult<ScalarTy> {
        match (a, b) {
            (Val::Scalar(_, x), Val::Scalar(_, y)) if x == y => Ok(*x),
            (Val::Scalar(_, x), Val::Scalar(_, y)) if x.is_integer() && y.is_integer() && (*x == ScalarTy::Index || *y == ScalarTy::Index) => {
                Ok(ScalarTy::Index)
            }
            (Val::Scalar(_, x), Val::Scalar(_, y)) => Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch: {x} and {y} scalars (convert one with htp.{x}(...) or htp.{y}(...))"
            ))),
            (Val::Scalar(_, x), _) | (_, Val::Scalar(_, x)) => Ok(*x),
            _ => Err(self.internal(range, "unify_scalars on constants")),
        }
    }

    pub fn scalar_binary(&self, kind: BinKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let ty = self.unify_scalars(a, b, range)?;
        let x = self.scalar_for(a, ty, range)?;
        let y = self.scalar_for(b, ty, range)?;
        let float = ty.is_float();
        if ty == ScalarTy::Elem(Elem::I1) {
            return Err(self.error(range, DiagnosticKind::Type, format!("'{}' needs numbers, got bools", kind.symbol())));
        }
        let name = match (kind, float) {
            (BinKind::Add, false) => "arith.addi",
            (BinKind::Add, true) => "arith.addf",
            (BinKind::Sub, false) => "arith.subi",
            (BinKind::Sub, true) => "arith.subf",
            (BinKind::Mul, false) => "arith.muli",
            (BinKind::Mul, true) => "arith.mulf",
            (BinKind::Div, true) => "arith.divf",
            (BinKind::Div, false) => {
                return Err(self.error(range, DiagnosticKind::Type, "'/' on integers: use '//' for integer division"))
            }
            (BinKind::FloorDiv, false) => "arith.floordivsi",
            (BinKind::Mod, false) => return self.python_mod(x, y, ty, range),
            (BinKind::FloorDiv | BinKind::Mod, true) => {
                return Err(self.error(range, DiagnosticKind::Type, format!("'{}' needs integers, got {ty}", kind.symbol())))
            }
            (BinKind::Max, false) => "arith.maxsi",
            (BinKind::Max, true) => "arith.maximumf",
            (BinKind::Min, false) => "arith.minsi",
            (BinKind::Min, true) => "arith.minimumf",
        };
        let t = self.scalar_ty(range, ty)?;
        Ok(Val::Scalar(self.emit1(range, OpSpec::new(name, &[x, y], &[t]))?, ty))
    }

    /// Python's `x % y` on integers: the remainder takes the divisor's sign
    /// (`-7 % 3 == 2`), where `arith.remsi` truncates (`-1`): the truncated
    /// remainder, plus `y` when it is non-zero and its sign differs from `y`'s.
    pub(super) fn python_mod(&self, x: MlirValue, y: MlirValue, ty: ScalarTy, range: TextRange) -> LResult<Val> {
        let t = self.scalar_ty(range, ty)?;
        let i1 = self.ty(range, "i1")?;
        let remainder = self.emit1(range, OpSpec::new("arith.remsi", &[x, y], &[t]))?;
        let zero = self.scalar_const(range, 0.0, Some(0), ty)?;
        let cmp = |a: MlirValue, predicate: i64| self.emit1(range, OpSpec::new("arith.cmpi", &[a, zero], &[i1]).attr("predicate", self.i64_attr(predicate)));
        // arith.cmpi predicates: 1 = ne, 2 = slt.
        let non_zero = cmp(remainder, 1)?;
        let signs_differ = self.emit1(range, OpSpec::new("arith.xori", &[cmp(remainder, 2)?, cmp(y, 2)?], &[i1]))?;
        let adjust = self.emit1(range, OpSpec::new("arith.andi", &[non_zero, signs_differ], &[i1]))?;
        let adjusted = self.emit1(range, OpSpec::new("arith.addi", &[remainder, y], &[t]))?;
        Ok(Val::Scalar(self.emit1(range, OpSpec::new("arith.select", &[adjust, adjusted, remainder], &[t]))?, ty))
    }

    pub fn scalar_compare(&self, kind: CmpKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let ty = self.unify_scalars(a, b, range)?;
        let x = self.scalar_for(a, ty, range)?;
        let y = self.scalar_for(b, ty, range)?;
        let (name, pred) = if ty.is_float() { ("arith.cmpf", kind.cmpf()) } else { ("arith.cmpi", kind.cmpi()) };
        let i1 = self.ty(range, "i1")?;
        let v = self.emit1(range, OpSpec::new(name, &[x, y], &[i1]).attr("predicate", self.i64_attr(pred)))?;
        Ok(Val::Scalar(v, ScalarTy::Elem(Elem::I1)))
    }

    /// Converts a run-time scalar to another type (`htp.f32(x)` etc.).
    pub fn scalar_cast(&self, v: MlirValue, from: ScalarTy, to: ScalarTy, range: TextRange) -> LResult<MlirValue> {
        if from == to {
            return Ok(v);
        }
        let t = self.scalar_ty(range, to)?;
        let bits = |s: ScalarTy| match s {
            ScalarTy::Index => 64,
            ScalarTy::Elem(e) => e.bits(),
        };
        let name = match (from.is_float(), to.is_float()) {
            (false, false) if from == ScalarTy::Index || to == ScalarTy::Index => "arith.index_cast",
            (false, false) if bits(to) > bits(from) => "arith.extsi",
            (false, false) => "arith.trunci",
            (false, true) if from == ScalarTy::Index => {
                let i64t = ScalarTy::Elem(Elem::I64);
                let as_int = self.scalar_cast(v, from, i64t, range)?;
                return self.scalar_cast(as_int, i64t, to, range);
            }
            (false, true) => "arith.sitofp",
            (true, false) if to == ScalarTy::Index => {
                let i64t = ScalarTy::Elem(Elem::I64);
                let as_int = self.scalar_cast(v, from, i64t, range)?;
                return self.scalar_cast(as_int, i64t, to, range);
            }
            (true, false) => "arith.fptosi",
            (true, true) if bits(to) > bits(from) || (bits(to) == bits(from)) => "arith.extf",
            (true, true) => "arith.truncf",
        };
        if from.is_float() && to.is_float() && bits(to) == bits(from) {
            // f16 <-> bf16: through f32.
            let f32t = ScalarTy::Elem(Elem::F32);
            let wide = self.scalar_cast(v, from, f32t, range)?;
            return self.scalar_cast(wide, f32t, to, range);
        }
        self.emit1(range, OpSpec::new(name, &[v], &[t]))
    }
}

pub(super) fn as_f64(v: &Val) -> f64 {
    match v {
        Val::Int(i) => *i as f64,
        Val::Float(f) => *f,
        Val::Bool(b) => *b as i64 as f64,
        _ => 0.0,
    }
}

/// Python arithmetic on compile-time numbers (None when an operand is not
/// a number; Err for division by zero or overflow).
pub fn fold_binary(kind: BinKind, a: &Val, b: &Val) -> Option<Result<Val, String>> {
    let ints = match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some((*x, *y)),
        _ => None,
    };
    if !(matches!(a, Val::Int(_) | Val::Float(_)) && matches!(b, Val::Int(_) | Val::Float(_))) {
        return None;
    }
    let overflow = || "integer overflow in a compile-time constant".to_string();
    Some(match (kind, ints) {
        (BinKind::Add, Some((x, y))) => x.checked_add(y).map(Val::Int).ok_or_else(overflow),
        (BinKind::Sub, Some((x, y))) => x.checked_sub(y).map(Val::Int).ok_or_else(overflow),
        (BinKind::Mul, Some((x, y))) => x.checked_mul(y).map(Val::Int).ok_or_else(overflow),
        (BinKind::Max, Some((x, y))) => Ok(Val::Int(x.max(y))),
        (BinKind::Min, Some((x, y))) => Ok(Val::Int(x.min(y))),
        (BinKind::FloorDiv | BinKind::Mod, Some((_, 0))) | (BinKind::Div, Some((_, 0))) => Err("division by zero in a compile-time constant".into()),
        // i64::MIN // -1 (and its remainder) overflows.
        (BinKind::FloorDiv | BinKind::Mod, Some((x, -1))) if x == i64::MIN => Err(overflow()),
        (BinKind::FloorDiv, Some((x, y))) => Ok(Val::Int(x.div_euclid(y) - if (x.rem_euclid(y) != 0) && y < 0 { 1 } else { 0 })),
        (BinKind::Mod, Some((x, y))) => Ok(Val::Int(x - y * (x.div_euclid(y) - if (x.rem_euclid(y) != 0) && y < 0 { 1 } else { 0 }))),
        (_, _) => {
            let (x, y) = (as_f64(a), as_f64(b));
            match kind {
                BinKind::Add => Ok(Val::Float(x + y)),
                BinKind::Sub => Ok(Val::Float(x - y)),
                BinKind::Mul => Ok(Val::Float(x * y)),
                BinKind::Div if y == 0.0 => Err("division by zero in a compile-time constant".into()),
                BinKind::Div => Ok(Val::Float(x / y)),
                BinKind::Max => Ok(Val::Float(x.max(y))),
                BinKind::Min => Ok(Val::Float(x.min(y))),
                BinKind::FloorDiv if y == 0.0 => Err("division by zero in a compile-time constant".into()),
                BinKind::FloorDiv => Ok(Val::Float((x / y).floor())),
                BinKind::Mod if y == 0.0 => Err("division by zero in a compile-time constant".into()),
                BinKind::Mod => Ok(Val::Float(x - y * (x / y).floor())),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: &Option<Result<Val, String>>) -> i64 {
        match v {
            Some(Ok(Val::Int(i))) => *i,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn folds_like_python() {
        assert_eq!(int(&fold_binary(BinKind::FloorDiv, &Val::Int(-7), &Val::Int(2))), -4);
        assert_eq!(int(&fold_binary(BinKind::Mod, &Val::Int(-7), &Val::Int(2))), 1);
        assert_eq!(int(&fold_binary(BinKind::FloorDiv, &Val::Int(7), &Val::Int(-2))), -4);
        assert_eq!(int(&fold_binary(BinKind::Mod, &Val::Int(7), &Val::Int(-2))), -1);
        assert!(matches!(fold_binary(BinKind::Div, &Val::Int(7), &Val::Int(2)), Some(Ok(Val::Float(f))) if f == 3.5));
        assert!(matches!(fold_binary(BinKind::Mod, &Val::Int(1), &Val::Int(0)), Some(Err(_))));
        assert!(matches!(fold_binary(BinKind::Mul, &Val::Int(i64::MAX), &Val::Int(2)), Some(Err(_))));
    }
}
