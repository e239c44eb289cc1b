//! Elementwise tile operations (tile.add, tile.exp, ...) and the binary operators on tiles or scalars.

use ruff_text_size::TextRange;

use crate::lower::builder::OpSpec;
use crate::lower::types::{Elem, ScalarTy, TileTy};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

use super::*;

impl<'c> Lowerer<'c, '_> {
    pub(super) fn check_same_elem(&self, a: &TileTy, b: &TileTy, what: &str, range: TextRange) -> LResult<()> {
        if a.elem != b.elem {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch in '{what}': {a} and {b} (convert one with htp.cast(t, htp.{}))", a.elem
            )));
        }
        Ok(())
    }

    /// `a <op> b` where at least one side is a tile.
    pub fn tile_binary(&self, kind: BinKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let Some(op) = kind.tile_op() else {
            return Err(self.error(range, DiagnosticKind::Unsupported, format!("'{}' is not defined on tiles", kind.symbol())));
        };
        match (a, b) {
            (Val::Tile(x, tx), Val::Tile(y, ty)) => {
                self.check_same_elem(tx, ty, kind.symbol(), range)?;
                self.check_numeric(tx, kind.symbol(), range)?;
                let ((x, t), (y, _)) = self.broadcast_pair((*x, *tx), (*y, *ty), kind.symbol(), range)?;
                let rt = self.tile_ty(range, &t)?;
                Ok(Val::Tile(self.emit1(range, OpSpec::new(op, &[x, y], &[rt]))?, t))
            }
            (Val::Tile(x, t), s) => {
                self.check_numeric(t, kind.symbol(), range)?;
                let s = self.scalar_for(s, ScalarTy::Elem(t.elem), range)?;
                let rt = self.tile_ty(range, t)?;
                Ok(Val::Tile(self.emit1(range, OpSpec::new(op, &[*x, s], &[rt]))?, *t))
            }
            (s, Val::Tile(x, t)) => match kind {
                BinKind::Add | BinKind::Mul | BinKind::Max | BinKind::Min => self.tile_binary(kind, b, a, range),
                // s - t == (-t) + s keeps t's valid region.
                BinKind::Sub => {
                    let neg = self.unary("neg", &Val::Tile(*x, *t), range)?;
                    self.tile_binary(BinKind::Add, &neg, s, range)
                }
                // s / t == recip(t) * s for floats.
                BinKind::Div if t.elem.is_float() => {
                    let r = self.unary("recip", &Val::Tile(*x, *t), range)?;
                    if matches!(s, Val::Int(1)) || matches!(s, Val::Float(f) if *f == 1.0) {
                        return Ok(r);
                    }
                    self.tile_binary(BinKind::Mul, &r, s, range)
                }
                _ => {
                    let lhs = self.splat_like(s, t, Some(*x), range)?;
                    self.tile_binary(kind, &Val::Tile(lhs, *t), b, range)
                }
            },
            _ => Err(self.internal(range, "tile_binary without a tile")),
        }
    }

    pub(super) fn check_numeric(&self, t: &TileTy, what: &str, range: TextRange) -> LResult<()> {
        if t.elem == Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "'{what}' needs numeric tiles, got a {t} (use htp.where to combine masks)"
            )));
        }
        Ok(())
    }

    /// exp, log, sqrt, rsqrt, recip (float only); abs, neg, relu.
    pub fn unary(&self, name: &str, v: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.{name} needs a tile, got {}", v.describe())));
        };
        let float_only = matches!(name, "exp" | "log" | "sqrt" | "rsqrt" | "recip");
        if float_only && !t.elem.is_float() {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "htp.{name} needs a floating-point tile, got a {t} (convert with htp.cast(t, htp.f32))"
            )));
        }
        self.check_numeric(t, name, range)?;
        let rt = self.tile_ty(range, t)?;
        Ok(Val::Tile(self.emit1(range, OpSpec::new(&format!("tile.{name}"), &[*x], &[rt]))?, *t))
    }

    /// Any binary operation: constants fold, scalars use arith, tiles use tile.
    pub fn binary(&self, kind: BinKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        if let Some(v) = fold_binary(kind, a, b) {
            return v.map_err(|m| self.error(range, DiagnosticKind::Invalid, m));
        }
        match (a, b) {
            (Val::Tile(..), _) | (_, Val::Tile(..)) => {
                let other = if matches!(a, Val::Tile(..)) { b } else { a };
                if !(other.is_const() || matches!(other, Val::Scalar(..) | Val::Tile(..))) {
                    return Err(self.error(range, DiagnosticKind::Type, format!(
                        "'{}' between a tile and {}", kind.symbol(), other.describe()
                    )));
                }
                self.tile_binary(kind, a, b, range)
            }
            (Val::Scalar(..), _) | (_, Val::Scalar(..))
                if (a.is_const() || matches!(a, Val::Scalar(..))) && (b.is_const() || matches!(b, Val::Scalar(..))) =>
            {
                self.scalar_binary(kind, a, b, range)
            }
            _ => Err(self.error(range, DiagnosticKind::Type, format!(
                "'{}' is not defined between {} and {}", kind.symbol(), a.describe(), b.describe()
            ))),
        }
    }
}
