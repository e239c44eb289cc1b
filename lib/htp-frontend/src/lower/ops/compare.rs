//! Comparisons (tile masks or scalar booleans) and selection by a mask.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use crate::lower::types::{Elem, ScalarTy, TileTy};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

use super::*;
use super::scalar::as_f64;

impl<'c> Lowerer<'c, '_> {
    /// Comparison where at least one side is a tile: an i1 mask tile.
    pub fn tile_compare(&self, kind: CmpKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        // tile.cmp's predicate is an i32 enum attribute.
        let code = self.i32_attr(kind.tile_code());
        match (a, b) {
            (Val::Tile(x, tx), Val::Tile(y, ty)) => {
                self.check_same_elem(tx, ty, "comparison", range)?;
                let ((x, t), (y, _)) = self.broadcast_pair((*x, *tx), (*y, *ty), "comparison", range)?;
                let m = t.with_elem(Elem::I1);
                let mt = self.tile_ty(range, &m)?;
                Ok(Val::Tile(self.place1(range, self.compare_op(range, code, x, y, mt))?, m))
            }
            (Val::Tile(x, t), s) => {
                let s = self.scalar_for(s, ScalarTy::Elem(t.elem), range)?;
                let m = t.with_elem(Elem::I1);
                let mt = self.tile_ty(range, &m)?;
                Ok(Val::Tile(self.place1(range, self.compare_op(range, code, *x, s, mt))?, m))
            }
            (_, Val::Tile(..)) => self.tile_compare(kind.swapped(), b, a, range),
            _ => Err(self.internal(range, "tile_compare without a tile")),
        }
    }

    /// `htp.where(mask, a, b)`: a and b are tiles (broadcast to the mask's
    /// shape) or scalars (filled).
    pub fn select(&self, mask: &Val, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(m, mt) = mask else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.where needs a mask tile first, got {}", mask.describe())));
        };
        if mt.elem != Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "htp.where needs a bool mask tile (from a comparison), got a {mt}"
            )));
        }
        let elem = match (a, b) {
            (Val::Tile(_, t), _) | (_, Val::Tile(_, t)) => t.elem,
            (Val::Scalar(_, ScalarTy::Elem(e)), _) | (_, Val::Scalar(_, ScalarTy::Elem(e))) => *e,
            (Val::Float(_), _) | (_, Val::Float(_)) => Elem::F32,
            (Val::Bool(_), Val::Bool(_)) => Elem::I1,
            _ => Elem::I32,
        };
        // The mask broadcasts too: `where(t[:, 0:1] > 0, t, u)` selects whole rows.
        let (mut m, mut mt) = (m, mt);
        let (mut m_owned, mut mt_owned) = (*m, *mt);
        for v in [a, b] {
            if let Val::Tile(x, t) = v {
                let (_, (m2, mt2)) = self.broadcast_pair((*x, *t), (m_owned, mt_owned), "where", range)?;
                m_owned = m2;
                mt_owned = mt2;
            }
        }
        // A mask has no layout (tile.select: the result's type with i1 elements).
        (m_owned, mt_owned) = self.relayout_to((m_owned, mt_owned), None, range)?;
        m = &m_owned;
        mt = &mt_owned;
        // Tile operands broadcast to the mask's shape first; the result is
        // laid out as the first of them then is (the other is relaid to
        // it); the mask's own layout does not matter.
        let mut tiles = Vec::new();
        for v in [a, b] {
            tiles.push(match v {
                Val::Tile(x, t) => {
                    if t.elem != elem {
                        return Err(self.error(range, DiagnosticKind::Type, format!(
                            "element type mismatch in htp.where: {t} where {elem} is expected"
                        )));
                    }
                    Some(self.broadcast_pair((*x, *t), (*m, *mt), "where", range)?.0)
                }
                _ => None,
            });
        }
        let layout = tiles.iter().flatten().map(|(_, t)| t.layout).next().flatten();
        let target = TileTy { layout, ..mt.with_elem(elem) };
        let mut operands = Vec::new();
        for (v, tile) in [a, b].into_iter().zip(tiles) {
            operands.push(match tile {
                Some(tile) => self.relayout_to(tile, layout, range)?.0,
                None => self.splat_like(v, &target, Some(*m), range)?,
            });
        }
        let rt = self.tile_ty(range, &target)?;
        let op = tile::SelectOperationBuilder::new(self.ctx, self.loc(range))
            .mask(self.value(*m))
            .true_value(self.value(operands[0]))
            .false_value(self.value(operands[1]))
            .result(rt)
            .build();
        Ok(Val::Tile(self.place1(range, op)?, target))
    }

    pub fn compare(&self, kind: CmpKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        match (a, b) {
            (Val::Int(x), Val::Int(y)) => Ok(Val::Bool(kind.eval(x, y))),
            (Val::Int(_) | Val::Float(_), Val::Int(_) | Val::Float(_)) => Ok(Val::Bool(kind.eval(as_f64(a), as_f64(b)))),
            (Val::Bool(x), Val::Bool(y)) if matches!(kind, CmpKind::Eq | CmpKind::Ne) => Ok(Val::Bool(kind.eval(x, y))),
            (Val::Tile(..), _) | (_, Val::Tile(..)) => self.tile_compare(kind, a, b, range),
            (Val::Scalar(..), _) | (_, Val::Scalar(..))
                if (a.is_const() || matches!(a, Val::Scalar(..))) && (b.is_const() || matches!(b, Val::Scalar(..))) =>
            {
                self.scalar_compare(kind, a, b, range)
            }
            _ => Err(self.error(range, DiagnosticKind::Type, format!(
                "cannot compare {} and {}", a.describe(), b.describe()
            ))),
        }
    }

    /// `tile.cmp <predicate> lhs, rhs` (rhs a tile or a scalar).
    pub(super) fn compare_op(&self, range: TextRange, predicate: melior::ir::Attribute<'c>, lhs: MlirValue, rhs: MlirValue, mask: melior::ir::Type<'c>) -> tile::CmpOperation<'c> {
        tile::CmpOperationBuilder::new(self.ctx, self.loc(range))
            .predicate(predicate)
            .lhs(self.value(lhs))
            .rhs(self.value(rhs))
            .result(mask)
            .build()
    }
}
