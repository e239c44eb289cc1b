//! Element type conversions of tiles.

use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use crate::lower::types::{Elem, ScalarTy};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;


impl<'c> Lowerer<'c, '_> {
    pub fn cast(&self, v: &Val, elem: Elem, range: TextRange) -> LResult<Val> {
        match v {
            Val::Tile(x, t) => {
                if t.elem == elem {
                    return Ok(v.clone());
                }
                let r = t.with_elem(elem);
                let rt = self.tile_ty(range, &r)?;
                Ok(Val::Tile(self.place1(range, tile::CastOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(*x)).result(rt).build())?, r))
            }
            Val::Scalar(x, t) => Ok(Val::Scalar(self.scalar_cast(*x, *t, ScalarTy::Elem(elem), range)?, ScalarTy::Elem(elem))),
            Val::Int(i) if elem.is_float() => Ok(Val::Float(*i as f64)),
            Val::Int(i) if elem == Elem::I1 => Ok(Val::Bool(*i != 0)),
            Val::Int(_) => Ok(v.clone()),
            Val::Float(f) if elem.is_int() && elem != Elem::I1 => Ok(Val::Int(f.trunc() as i64)),
            Val::Float(_) => Ok(v.clone()),
            Val::Bool(b) if elem == Elem::I1 => Ok(Val::Bool(*b)),
            Val::Bool(b) => Ok(if elem.is_float() { Val::Float(*b as i64 as f64) } else { Val::Int(*b as i64) }),
            other => Err(self.error(range, DiagnosticKind::Type, format!("cannot convert {} to {elem}", other.describe()))),
        }
    }
}
