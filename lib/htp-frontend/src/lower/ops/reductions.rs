//! Row and column reductions.

use ruff_text_size::TextRange;

use crate::lower::builder::OpSpec;
use crate::lower::types::{TileTy, Valid};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

use super::*;

impl<'c> Lowerer<'c, '_> {
    /// Reduces dimension `dim` (1: each row, 0: each column).
    pub fn reduce(&self, kind: ReduceKind, dim: usize, v: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("a reduction needs a tile, got {}", v.describe())));
        };
        self.check_numeric(t, "reduction", range)?;
        let mut r = TileTy { layout: None, ..*t };
        r.shape[dim] = 1;
        r.valid[dim] = Valid::Static(1);
        let rt = self.tile_ty(range, &r)?;
        // tile.row_reduce/col_reduce take the i32 ReductionKind enum.
        let code = match kind {
            ReduceKind::Sum => 0,
            ReduceKind::Max => 1,
            ReduceKind::Min => 2,
        };
        let op = if dim == 1 { "tile.row_reduce" } else { "tile.col_reduce" };
        Ok(Val::Tile(self.emit1(range, OpSpec::new(op, &[*x], &[rt]).attr("kind", self.i32_attr(code)))?, r))
    }
}
