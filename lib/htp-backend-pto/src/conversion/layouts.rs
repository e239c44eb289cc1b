//! Layout facets on PTO: which tile layouts a program may ask for here
//! (the target's `layout:` capabilities), the `nz` facet PTO registers
//! (its cube fractals: 16 rows of 32 bytes, blocks in column-major order),
//! the Axe form of each of PTO's tile layouts, and `tile.relayout`.
//!
//! Vector tiles live in UB row-major (ND; a one-column tile is also DN, the
//! same bytes); cube operands live in L1/L0 as NZ fractals, staged by the
//! loads that feed a matmul. So a program may name `row_major` anywhere
//! and `nz` on tiles used as matmul operands (or relaid again).

use std::sync::Arc;

use htp_dialects::layout::{classify, Axe, Facet};
use htp_dialects::ods::{tile, view};
use htp_dialects::tile::TileType;
use melior::ir::{OperationRef, ValueLike};

use super::buffer::Layout;
use crate::ops::TileOp;
use super::state::Kernel;
use htp_ir::builder::{bit_width, detach};
use htp_ir::query::uses;

/// The layouts a PTO program may give its tiles.
pub const CAPABILITIES: &[&str] = &["layout:row_major", "layout:nz"];

/// Rows of one cube fractal.
const FRACTAL_ROWS: i64 = 16;
/// Bytes of one fractal row.
const FRACTAL_ROW_BYTES: i64 = 32;

/// Elements in one fractal row for `bits`-bit elements.
fn fractal_cols(bits: u32) -> i64 {
    FRACTAL_ROW_BYTES * 8 / i64::from(bits.max(8))
}

impl Layout {
    /// This PTO tile layout as an Axe layout of a `rows x cols` tile of
    /// `bits`-bit elements (`None` when the fractals do not divide it).
    pub fn axe(self, rows: i64, cols: i64, bits: u32) -> Option<Axe> {
        match self {
            Layout::Nd => Some(Axe::row_major(rows, cols)),
            Layout::Dn => Some(Axe::col_major(rows, cols)),
            Layout::Nz => Axe::fractal(rows, cols, FRACTAL_ROWS, fractal_cols(bits), true),
            Layout::Zn => Axe::fractal(rows, cols, FRACTAL_ROWS, fractal_cols(bits), false),
        }
    }
}

/// The `nz` layout facet: PTO's cube fractals.
pub fn nz_facet() -> Facet {
    Facet {
        name: "nz".into(),
        description: "16-row fractals of 32 bytes, blocks in column-major order, rows inside (PTO's NZ; cube operands)".into(),
        provider: "htp-backend-pto".into(),
        build: Arc::new(|rows, cols, bits| Ok(Layout::Nz.axe(rows, cols, bits))),
    }
}

/// `tile.relayout`: the result is the input's buffer when PTO holds the
/// requested layout there — `row_major` (or none) for vector tiles, `nz`
/// for tiles that only feed matmuls or another relayout (their loads stage
/// them as NZ in L1; the vector side holds its copy row-major).
pub fn relayout<'c>(k: &mut Kernel<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let relayout = view::<tile::RelayoutOperation>(op).ok_or_else(|| format!("not a {}", TileOp::Relayout.name()))?;
    let input = detach(relayout.input().map_err(|e| e.to_string())?);
    let output = detach(relayout.result().map_err(|e| e.to_string())?.into());
    let tile = TileType::try_from(output.r#type()).map_err(|_| format!("{} makes a tile", TileOp::Relayout.name()))?;
    let source = k.buffer(input)?;
    if let Some(layout) = tile.layout() {
        let bits = bit_width(tile.element_type());
        let facet = classify(&layout, tile.rows(), tile.cols(), bits);
        match facet.as_deref() {
            Some("row_major") => {}
            Some("nz") => {
                // Matmul operands; or relaid again (the vector side holds the
                // same tile row-major in UB).
                let cube_only = uses(output)
                    .iter()
                    .all(|user| matches!(TileOp::of(*user), Some(TileOp::Matmul | TileOp::Relayout)));
                if !cube_only {
                    return Err("an NZ tile lives in the cube's L1/L0 on PTO: use it only as a matmul operand, or relayout it \
                                to row_major for vector work"
                        .into());
                }
            }
            other => {
                return Err(format!(
                    "PTO has no tile layout {} here (it holds row_major tiles, and nz for matmul operands)",
                    other.map(|name| format!("'{name}'")).unwrap_or_else(|| "like this one".into())
                ))
            }
        }
    }
    k.bind(output, source);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pto_layouts_are_axe_layouts() {
        assert_eq!(Layout::Nd.axe(16, 64, 32), Some(Axe::row_major(16, 64)));
        // f16 fractals are 16 x 16, f32 ones 16 x 8.
        assert_eq!(Layout::Nz.axe(32, 32, 16), Axe::fractal(32, 32, 16, 16, true));
        assert_eq!(Layout::Nz.axe(32, 32, 32), Axe::fractal(32, 32, 16, 8, true));
        assert_eq!(Layout::Nz.axe(20, 32, 16), None);
        let nz = Layout::Nz.axe(32, 32, 16).unwrap();
        assert_eq!(nz.memory_offset(&[17, 3]), Some(256 + 16 + 3));
    }
}
