//! Tile layouts: relayouts and the layout facet a name asks for.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use crate::lower::types::TileTy;
use crate::lower::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;


impl<'c> Lowerer<'c, '_> {
    /// `v` with `layout` (`tile.relayout`), unless it has it already.
    pub fn relayout_to(&self, (v, t): (MlirValue, TileTy), layout: Option<&'static str>, range: TextRange) -> LResult<(MlirValue, TileTy)> {
        if t.layout == layout {
            return Ok((v, t));
        }
        let r = TileTy { layout, ..t };
        let rt = self.tile_ty(range, &r)?;
        Ok((self.place1(range, tile::RelayoutOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(v)).result(rt).build())?, r))
    }

    /// The layout the registered facet `name` gives a tile of type `ty`, as
    /// interned `#layout.axe<...>` text.
    pub fn facet_layout(&self, name: &str, ty: &TileTy, range: TextRange) -> LResult<&'static str> {
        let Some(facet) = htp_dialects::layout::facet(name) else {
            let known: Vec<String> = htp_dialects::layout::facets().into_iter().map(|f| format!("\"{}\"", f.name)).collect();
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "unknown layout {name:?}: the registered layout facets are {} (htp.layouts() lists them)",
                known.join(", ")
            )));
        };
        let built = (facet.build)(ty.shape[0], ty.shape[1], ty.elem.bits()).map_err(|why| {
            self.error(range, DiagnosticKind::Invalid, format!("the layout facet '{name}' (from {}) failed for a {ty}: {why}", facet.provider))
        })?;
        let axe = built.ok_or_else(|| {
            self.error(range, DiagnosticKind::Shape, format!("the layout '{name}' ({}) has no form for a {ty}", facet.description))
        })?;
        // A facet (an extension's, say) may build a layout that is not one,
        // or does not fit the tile: MLIR's verifiers say why, at this line.
        let base = self.tile_ty(range, &TileTy { layout: None, ..*ty })?;
        let base = htp_dialects::tile::TileType::try_from(base).map_err(|_| self.internal(range, "a tile type"))?;
        let (laid_out, errors) = htp_dialects::diagnostics::collect_errors(self.ctx, || base.with_layout(self.ctx, Some(&axe)));
        let Some(laid_out) = laid_out.and_then(|t| t.layout()).and_then(|l| l.to_attribute(self.ctx)) else {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "the layout facet '{name}' (from {}) gives a {ty} a layout that does not fit it: {}",
                facet.provider,
                htp_dialects::diagnostics::reasons(errors)
            )));
        };
        Ok(intern(laid_out.to_string()))
    }
}

/// One `'static` copy of each layout text (tile types are `Copy`; a program
/// names few layouts).
fn intern(text: String) -> &'static str {
    static TEXTS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut texts = TEXTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(known) = texts.iter().find(|t| **t == text) {
        return known;
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    texts.push(leaked);
    leaked
}
