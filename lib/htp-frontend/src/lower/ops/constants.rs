//! Tiles of constants: fills, splats of scalars and `iota`.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use crate::lower::types::{Elem, ScalarTy, TileTy, Valid};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;


impl<'c> Lowerer<'c, '_> {
    pub fn fill(&self, scalar: MlirValue, ty: &TileTy, range: TextRange) -> LResult<MlirValue> {
        let t = self.tile_ty(range, ty)?;
        self.place1(range, tile::FillOperationBuilder::new(self.ctx, self.loc(range)).value(self.value(scalar)).result(t).build())
    }

    /// `tile.constant` of a Python number.
    pub fn tile_const(&self, value: &Val, ty: &TileTy, range: TextRange) -> LResult<MlirValue> {
        let scalar_ty = ScalarTy::Elem(ty.elem);
        let attr = match value {
            Val::Int(v) if ty.elem == Elem::I1 && !(*v == 0 || *v == 1) => {
                return Err(self.error(range, DiagnosticKind::Type, format!("the integer {v} is not a bool")))
            }
            Val::Int(v) => self.number_attr(range, *v as f64, Some(*v), scalar_ty)?,
            Val::Float(v) if ty.elem.is_float() => self.number_attr(range, *v, None, scalar_ty)?,
            Val::Bool(b) if ty.elem == Elem::I1 => self.number_attr(range, 0.0, Some(*b as i64), scalar_ty)?,
            other => {
                return Err(self.error(range, DiagnosticKind::Type, format!("{} cannot fill a {} tile", other.describe(), ty.elem)))
            }
        };
        let t = self.tile_ty(range, ty)?;
        self.place1(range, tile::ConstantOperationBuilder::new(self.ctx, self.loc(range)).value(attr).result(t).build())
    }

    /// A tile of type `ty` holding `value` (a constant or a scalar).
    pub fn splat(&self, value: &Val, ty: &TileTy, range: TextRange) -> LResult<MlirValue> {
        self.splat_like(value, ty, None, range)
    }

    /// A tile of type `ty` filled with `value`. A ragged `ty` takes its
    /// run-time valid sizes from `like` (a tile of the same valid region):
    /// a full tile narrowed with `tile.set_valid`.
    pub fn splat_like(&self, value: &Val, ty: &TileTy, like: Option<MlirValue>, range: TextRange) -> LResult<MlirValue> {
        if !ty.is_full() {
            let full = TileTy { valid: [Valid::Static(ty.shape[0]), Valid::Static(ty.shape[1])], ..*ty };
            let sizes = match like {
                _ if !ty.valid.iter().any(|v| matches!(v, Valid::Dynamic)) => Some(Vec::new()),
                Some(like) => htp_dialects::tile::dynamic_valid_sizes(like),
                None => None,
            };
            let Some(sizes) = sizes else {
                return Err(self.error(range, DiagnosticKind::Shape, format!(
                    "cannot make a {ty} from a scalar: tiles made from scalars are full, and this one has a run-time valid region"
                )));
            };
            let tile = self.splat_like(value, &full, None, range)?;
            let result = self.tile_ty(range, ty)?;
            let op = tile::SetValidOperationBuilder::new(self.ctx, self.loc(range))
                .input(self.value(tile))
                .valid_sizes(&self.values(&sizes))
                .result(result)
                .build();
            return self.place1(range, op);
        }
        if value.is_const() {
            self.tile_const(value, ty, range)
        } else {
            let s = self.scalar_for(value, ScalarTy::Elem(ty.elem), range)?;
            self.fill(s, ty, range)
        }
    }

    pub fn iota(&self, rows: i64, cols: i64, dim: i64, elem: Elem, range: TextRange) -> LResult<Val> {
        if elem == Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, "htp.iota needs a numeric element type"));
        }
        let t = TileTy::full(rows, cols, elem);
        let largest = if dim == 0 { rows - 1 } else { cols - 1 };
        let fits = match elem {
            Elem::I8 => largest <= i8::MAX as i64,
            Elem::I16 => largest <= i16::MAX as i64,
            Elem::F16 => largest <= 2048,
            Elem::BF16 => largest <= 256,
            _ => true,
        };
        if !fits {
            return Err(self.error(range, DiagnosticKind::Type, format!("index {largest} does not fit {elem} exactly")));
        }
        let rt = self.tile_ty(range, &t)?;
        let dimension = melior::ir::attribute::IntegerAttribute::try_from(self.i64_attr(dim)).map_err(|_| self.internal(range, "an i64 attribute"))?;
        Ok(Val::Tile(self.place1(range, tile::IotaOperationBuilder::new(self.ctx, self.loc(range)).dimension(dimension).result(rt).build())?, t))
    }
}
