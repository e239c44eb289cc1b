//! Selection along each row: the column of a row's max/min
//! (`tile.row_arg_reduce`), sorts and top-k (`tile.sort`), picking
//! elements of each row by column (`tile.take`) and writing them back
//! (`tile.put`). docs/language.md, "Selection".

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use crate::diagnostics::DiagnosticKind;
use crate::lower::builder::OpSpec;
use crate::lower::types::{Elem, TileTy, Valid};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};

use super::ReduceKind;

impl<'c> Lowerer<'c, '_> {
    /// The tile a selection function works on, checked: numeric elements.
    fn selection_input(&self, fname: &str, v: &Val, range: TextRange) -> LResult<(MlirValue, TileTy)> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.{fname}() needs a tile, got {}", v.describe())));
        };
        if t.elem == Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "htp.{fname}() needs a numeric tile, got a {t} (a mask orders nothing: htp.cast it to htp.i32 first)"
            )));
        }
        Ok((*x, *t))
    }

    /// `htp.row_argmax(t)` / `htp.row_argmin(t)` (and `htp.argmax(t, axis=1)`):
    /// an Rx1 i32 tile of each row's column of its max / min.
    pub fn row_arg_reduce(&self, fname: &str, kind: ReduceKind, v: &Val, range: TextRange) -> LResult<Val> {
        let (x, t) = self.selection_input(fname, v, range)?;
        let result = TileTy {
            shape: [t.shape[0], 1],
            elem: Elem::I32,
            valid: [t.valid[0], Valid::Static(1)],
            layout: None,
        };
        let rt = self.tile_ty(range, &result)?;
        let code = match kind {
            ReduceKind::Sum => return Err(self.internal(range, "an arg reduction of a sum")),
            ReduceKind::Max => 1,
            ReduceKind::Min => 2,
        };
        let op = OpSpec::new("tile.row_arg_reduce", std::slice::from_ref(&x), std::slice::from_ref(&rt)).attr("kind", self.i32_attr(code));
        Ok(Val::Tile(self.emit1(range, op)?, result))
    }

    /// `tile.sort`: each row sorted (`descending` or not), its first `keep`
    /// elements and their columns. `fname` names the user's function.
    pub fn sort(&self, fname: &str, v: &Val, descending: bool, keep: Option<(i64, TextRange)>, range: TextRange) -> LResult<(Val, Val)> {
        let (x, t) = self.selection_input(fname, v, range)?;
        if t.valid[1] != Valid::Static(t.shape[1]) {
            let valid = match t.valid[1] {
                Valid::Static(n) => n.to_string(),
                Valid::Dynamic => "only known at run time".into(),
            };
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "htp.{fname}() sorts whole rows, but the {t} has {valid} valid columns of {}: \
                 pad it first (htp.pad(t, -htp.inf) keeps the padding last in a descending sort)",
                t.shape[1]
            )));
        }
        let cols = t.shape[1];
        let keep = match keep {
            None => cols,
            Some((k, r)) if k < 1 || k > cols => {
                return Err(self.error(r, DiagnosticKind::Shape, format!(
                    "htp.{fname}()'s k must be between 1 and the tile's {cols} columns, got {k}"
                )))
            }
            Some((k, _)) => k,
        };
        let rows_valid = t.valid[0];
        let values = TileTy { shape: [t.shape[0], keep], elem: t.elem, valid: [rows_valid, Valid::Static(keep)], layout: None };
        let indices = TileTy { elem: Elem::I32, ..values };
        let types = [self.tile_ty(range, &values)?, self.tile_ty(range, &indices)?];
        let mut op = OpSpec::new("tile.sort", std::slice::from_ref(&x), &types);
        if descending {
            op = op.attr("descending", self.parse_attr(range, "unit")?);
        }
        let results = self.emit(range, op)?;
        match results.as_slice() {
            [v, i] => Ok((Val::Tile(*v, values), Val::Tile(*i, indices))),
            _ => Err(self.internal(range, "tile.sort has two results")),
        }
    }

    /// `htp.gather(t, index, axis=1)`: `t[r, index[r, j]]` (`tile.take`).
    pub fn take(&self, v: &Val, index: &Val, index_range: TextRange, range: TextRange) -> LResult<Val> {
        let (x, t) = self.selection_input("gather", v, range)?;
        let (i, it) = match index {
            Val::Tile(i, it) if matches!(it.elem, Elem::I32 | Elem::I64) => (*i, *it),
            other => {
                return Err(self.error(index_range, DiagnosticKind::Type, format!(
                    "htp.gather(t, index, axis=1) needs a tile of i32 or i64 column indices, got {}", other.describe()
                )))
            }
        };
        if it.shape[0] != t.shape[0] || it.valid[0] != t.valid[0] {
            return Err(self.error(index_range, DiagnosticKind::Shape, format!(
                "htp.gather(t, index, axis=1) picks from each row of t by the same row of index: \
                 the {t} and the index {it} must have the same rows (and valid rows)"
            )));
        }
        let result = TileTy { elem: t.elem, layout: None, ..it };
        let rt = self.tile_ty(range, &result)?;
        let operands = [x, i];
        Ok(Val::Tile(self.emit1(range, OpSpec::new("tile.take", &operands, std::slice::from_ref(&rt)))?, result))
    }

    /// `htp.scatter(t, index, src, axis=1)`: `t` with `t[r, index[r, j]] =
    /// src[r, j]`, the last `j` winning (`tile.put`). `src` is a tile of
    /// the index's shape and `t`'s element type, or a scalar (every picked
    /// element becomes it).
    pub fn put(&self, v: &Val, index: &Val, index_range: TextRange, src: &Val, src_range: TextRange, range: TextRange) -> LResult<Val> {
        const CALL: &str = "htp.scatter(t, index, src, axis=1)";
        let (x, t) = self.selection_input("scatter", v, range)?;
        let (i, it) = match index {
            Val::Tile(i, it) if matches!(it.elem, Elem::I32 | Elem::I64) => (*i, *it),
            other => {
                return Err(self.error(index_range, DiagnosticKind::Type, format!(
                    "{CALL} needs a tile of i32 or i64 column indices, got {}", other.describe()
                )))
            }
        };
        if it.shape[0] != t.shape[0] || it.valid[0] != t.valid[0] {
            return Err(self.error(index_range, DiagnosticKind::Shape, format!(
                "{CALL} writes into each row of t by the same row of index: \
                 the {t} and the index {it} must have the same rows (and valid rows)"
            )));
        }
        let values_ty = TileTy { elem: t.elem, layout: None, ..it };
        let values = match src {
            Val::Tile(s, st) => {
                if st.elem != t.elem {
                    return Err(self.error(src_range, DiagnosticKind::Type, format!(
                        "{CALL} writes src into t: src must have t's element type {}, got a {st} (convert with htp.cast(src, htp.{}))",
                        t.elem, t.elem
                    )));
                }
                if st.shape != it.shape || st.valid != it.valid {
                    return Err(self.error(src_range, DiagnosticKind::Shape, format!(
                        "{CALL} writes src[r, j] at index[r, j]: src must have the index's shape and valid region ({it}), got a {st}"
                    )));
                }
                *s
            }
            other if other.is_const() || matches!(other, Val::Scalar(..)) => self.splat_like(other, &values_ty, Some(i), src_range)?,
            other => {
                return Err(self.error(src_range, DiagnosticKind::Type, format!(
                    "{CALL} needs src as a tile (of the index's shape) or a scalar, got {}", other.describe()
                )))
            }
        };
        let result = TileTy { layout: None, ..t };
        let rt = self.tile_ty(range, &result)?;
        let operands = [x, i, values];
        Ok(Val::Tile(self.emit1(range, OpSpec::new("tile.put", &operands, std::slice::from_ref(&rt)))?, result))
    }
}
