//! Matrix products and transposes.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use crate::lower::types::{Elem, TileTy};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

use super::*;

impl<'c> Lowerer<'c, '_> {
    /// `a @ b`, optionally `+ acc` (fused into one tile.matmul when `acc`
    /// has the product's type), with the result element type `out`, or
    /// acc's, or the widened input type.
    pub fn matmul(&self, a: &Val, b: &Val, acc: Option<&Val>, out: Option<Elem>, range: TextRange) -> LResult<Val> {
        let (Val::Tile(x, ta), Val::Tile(y, tb)) = (a, b) else {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "matmul needs two tiles, got {} and {}", a.describe(), b.describe()
            )));
        };
        if ta.elem != tb.elem {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch in '@': {ta} and {tb} (both operands need the same element type)"
            )));
        }
        if ta.shape[1] != tb.shape[0] {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "shape mismatch in '@': {ta} has {} columns but {tb} has {} rows", ta.shape[1], tb.shape[0]
            )));
        }
        if ta.valid[1] != tb.valid[0] {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "shape mismatch in '@': the valid columns of {ta} and the valid rows of {tb} differ"
            )));
        }
        let acc_elem = match acc {
            Some(Val::Tile(_, t)) => Some(t.elem),
            _ => None,
        };
        let elem = match out.or(acc_elem) {
            Some(e) => e,
            None => match ta.elem {
                Elem::F16 | Elem::BF16 | Elem::F32 => Elem::F32,
                Elem::I8 => Elem::I32,
                e => e,
            },
        };
        let supported = match ta.elem {
            Elem::F16 => matches!(elem, Elem::F32 | Elem::F16),
            Elem::BF16 | Elem::F32 => elem == Elem::F32,
            Elem::I8 => elem == Elem::I32,
            _ => false,
        };
        if !supported {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "matmul of {} tiles into {elem} is not supported (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)",
                ta.elem
            )));
        }
        let result = TileTy { shape: [ta.shape[0], tb.shape[1]], elem, valid: [ta.valid[0], tb.valid[1]], layout: None };
        let rt = self.tile_ty(range, &result)?;
        match acc {
            Some(Val::Tile(c, tc)) if *tc == result => {
                Ok(Val::Tile(self.place1(range, self.matmul_op(range, *x, *y, Some(*c), rt))?, result))
            }
            Some(other) => {
                let product = Val::Tile(self.place1(range, self.matmul_op(range, *x, *y, None, rt))?, result);
                self.binary(BinKind::Add, other, &product, range)
            }
            None => Ok(Val::Tile(self.place1(range, self.matmul_op(range, *x, *y, None, rt))?, result)),
        }
    }

    /// `tile.matmul lhs, rhs[, acc]`.
    pub(super) fn matmul_op(&self, range: TextRange, lhs: MlirValue, rhs: MlirValue, acc: Option<MlirValue>, result: melior::ir::Type<'c>) -> tile::MatmulOperation<'c> {
        let builder = tile::MatmulOperationBuilder::new(self.ctx, self.loc(range)).lhs(self.value(lhs)).rhs(self.value(rhs));
        match acc {
            Some(acc) => builder.acc(self.value(acc)).result(result).build(),
            None => builder.result(result).build(),
        }
    }

    pub fn transpose(&self, v: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("transpose needs a tile, got {}", v.describe())));
        };
        let r = TileTy { shape: [t.shape[1], t.shape[0]], elem: t.elem, valid: [t.valid[1], t.valid[0]], layout: None };
        let rt = self.tile_ty(range, &r)?;
        Ok(Val::Tile(self.place1(range, tile::TransposeOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(*x)).result(rt).build())?, r))
    }
}
