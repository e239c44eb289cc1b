//! numpy-style implicit broadcasting of Rx1 / 1xC tiles.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use crate::lower::types::{TileTy, Valid};
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

use super::*;

impl<'c> Lowerer<'c, '_> {
    /// `tile.broadcast` of `v` to `shape` (each dimension 1 or equal).
    pub fn broadcast_to(&self, v: MlirValue, from: TileTy, shape: [i64; 2], range: TextRange) -> LResult<(MlirValue, TileTy)> {
        if from.shape == shape {
            return Ok((v, from));
        }
        let mut to = TileTy { shape, layout: None, ..from };
        for d in 0..2 {
            if from.shape[d] == shape[d] {
                continue;
            }
            if from.shape[d] != 1 {
                return Err(self.error(range, DiagnosticKind::Shape, format!(
                    "shape mismatch: cannot broadcast a {from} to {}x{} (only a dimension of size 1 broadcasts)", shape[0], shape[1]
                )));
            }
            to.valid[d] = Valid::Static(shape[d]);
        }
        let t = self.tile_ty(range, &to)?;
        Ok((self.place1(range, tile::BroadcastOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(v)).result(t).build())?, to))
    }

    /// `v` narrowed to the valid region `valid` (whose `?` sizes are
    /// `sizes`, in order): a broadcast tile meeting a ragged one.
    fn set_valid_like(&self, v: (MlirValue, TileTy), valid: [Valid; 2], sizes: &[MlirValue], range: TextRange) -> LResult<(MlirValue, TileTy)> {
        let to = TileTy { valid, ..v.1 };
        let t = self.tile_ty(range, &to)?;
        let sizes: Vec<_> = sizes.iter().map(|s| self.value(*s)).collect();
        let op = tile::SetValidOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(v.0)).valid_sizes(&sizes).result(t).build();
        Ok((self.place1(range, op)?, to))
    }

    /// Brings two tiles to one shape numpy-style and checks that their
    /// element types and valid regions agree.
    pub fn broadcast_pair(&self, a: (MlirValue, TileTy), b: (MlirValue, TileTy), what: &str, range: TextRange) -> LResult<((MlirValue, TileTy), (MlirValue, TileTy))> {
        let (ta, tb) = (a.1, b.1);
        let mut shape = [0; 2];
        for d in 0..2 {
            shape[d] = match (ta.shape[d], tb.shape[d]) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                _ => {
                    return Err(self.error(range, DiagnosticKind::Shape, format!(
                        "shape mismatch in '{what}': {ta} and {tb} (dimensions must be equal or 1)"
                    )))
                }
            };
        }
        // A size-1 dimension broadcast along a ragged one takes the ragged
        // tile's valid region (`tile.set_valid` with its run-time sizes,
        // traced to the load or set_valid that made them); a tile whose sizes
        // a loop or branch carries cannot say them.
        let mut narrow: [Option<Vec<MlirValue>>; 2] = [None, None];
        for d in 0..2 {
            for (side, (x, y, y_value)) in [(ta, tb, b.0), (tb, ta, a.0)].into_iter().enumerate() {
                // (The other dimension must already agree: otherwise the
                // valid regions differ, reported below.)
                if x.shape[d] == 1 && y.shape[d] != 1 && y.valid[d] == Valid::Dynamic && x.valid[1 - d] == y.valid[1 - d] {
                    let Some(sizes) = htp_dialects::tile::dynamic_valid_sizes(y_value) else {
                        return Err(self.error(range, DiagnosticKind::Shape, format!(
                            "shape mismatch in '{what}': cannot broadcast the {x} along dimension {d} of the {y}, whose valid size a loop or branch carries; \
                             compute the broadcast operand from the same ragged tile, or pad the ragged tile (htp.pad)"
                        )));
                    };
                    narrow[side] = Some(sizes);
                }
            }
        }
        let mut a = self.broadcast_to(a.0, ta, shape, range)?;
        let mut b = self.broadcast_to(b.0, tb, shape, range)?;
        if let Some(sizes) = narrow[0].take() {
            a = self.set_valid_like(a, tb.valid, &sizes, range)?;
        }
        if let Some(sizes) = narrow[1].take() {
            b = self.set_valid_like(b, ta.valid, &sizes, range)?;
        }
        if a.1.valid != b.1.valid {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "shape mismatch in '{what}': valid regions differ ({}x{} and {}x{}): {ta} and {tb}",
                valid_text(a.1.valid[0]), valid_text(a.1.valid[1]), valid_text(b.1.valid[0]), valid_text(b.1.valid[1])
            )));
        }
        // Operands laid out differently: the left one's layout wins (an
        // operand without one takes the other's), as a relayout.
        let layout = a.1.layout.or(b.1.layout);
        let a = self.relayout_to(a, layout, range)?;
        let b = self.relayout_to(b, layout, range)?;
        Ok((a, b))
    }
}
