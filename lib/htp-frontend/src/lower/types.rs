//! HTP's element, scalar and tile types, and their MLIR spelling.

use std::fmt;

use melior::{ir::Type, Context};

pub use htp_api::Elem;

/// The type of a run-time scalar: an element type, or `index` for loop
/// variables, tensor sizes and slice offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarTy {
    Index,
    Elem(Elem),
}

impl ScalarTy {
    pub fn mlir(self) -> &'static str {
        match self {
            ScalarTy::Index => "index",
            ScalarTy::Elem(e) => e.mlir(),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarTy::Elem(e) if e.is_float())
    }

    /// Integers and `index` (not i1).
    pub fn is_integer(self) -> bool {
        match self {
            ScalarTy::Index => true,
            ScalarTy::Elem(e) => e.is_int() && e != Elem::I1,
        }
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarTy::Index => f.write_str("index"),
            ScalarTy::Elem(e) => e.fmt(f),
        }
    }
}

/// One valid size of a tile: static, or known only at run time (`?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Valid {
    Static(i64),
    Dynamic,
}

/// A tile type: static shape, element type, valid region, layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileTy {
    pub shape: [i64; 2],
    pub elem: Elem,
    /// Valid rows and columns; equal to the shape for a full tile.
    pub valid: [Valid; 2],
    /// The layout (`#layout.axe<...>` text, interned) from `htp.relayout`;
    /// `None` lets the target choose. Elementwise ops keep it; ops that
    /// make a tile of another shape or element type drop it.
    pub layout: Option<&'static str>,
}

impl TileTy {
    pub fn full(rows: i64, cols: i64, elem: Elem) -> Self {
        Self { shape: [rows, cols], elem, valid: [Valid::Static(rows), Valid::Static(cols)], layout: None }
    }

    /// Another element type (no layout: one laid out for the old element
    /// size may not fit the new one).
    pub fn with_elem(self, elem: Elem) -> Self {
        Self { elem, layout: None, ..self }
    }

    pub fn is_full(&self) -> bool {
        self.valid[0] == Valid::Static(self.shape[0]) && self.valid[1] == Valid::Static(self.shape[1])
    }

    pub fn has_dynamic_valid(&self) -> bool {
        self.valid.contains(&Valid::Dynamic)
    }

    /// `!tile.tile<RxCxT[, valid = VRxVC][, layout = #layout.axe<...>]>`.
    pub fn mlir(&self) -> String {
        let mut text = format!("!tile.tile<{}x{}x{}", self.shape[0], self.shape[1], self.elem.mlir());
        if !self.is_full() {
            text.push_str(&format!(", valid = {}x{}", valid_str(self.valid[0]), valid_str(self.valid[1])));
        }
        if let Some(layout) = self.layout {
            text.push_str(&format!(", layout = {layout}"));
        }
        text + ">"
    }
}

fn valid_str(v: Valid) -> String {
    match v {
        Valid::Static(n) => n.to_string(),
        Valid::Dynamic => "?".to_string(),
    }
}

impl fmt::Display for TileTy {
    /// How diagnostics name a tile: `tile[16x64, f32]`, `tile[16x64, f32, valid ?x64]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tile[{}x{}, {}", self.shape[0], self.shape[1], self.elem)?;
        if !self.is_full() {
            write!(f, ", valid {}x{}", valid_str(self.valid[0]), valid_str(self.valid[1]))?;
        }
        if let Some(layout) = self.layout {
            write!(f, ", layout {layout}")?;
        }
        f.write_str("]")
    }
}

impl TileTy {
    /// The tile type `ty` is, when it is a `!tile.tile` without a layout
    /// (a value a model's construct made). `Err` for a laid-out tile, whose
    /// layout the front end cannot take over yet.
    pub fn of(ty: Type) -> Option<Result<TileTy, String>> {
        use htp_dialects::tile::{TileType, ValidSize};
        let tile = TileType::try_from(ty).ok()?;
        if tile.layout().is_some() {
            return Some(Err(format!("a tile with a layout ({ty})")));
        }
        let elem = Elem::from_name(&tile.element_type().to_string())?;
        let valid = |dim| match tile.valid_size(dim) {
            ValidSize::Static(n) => Valid::Static(n),
            ValidSize::Dynamic => Valid::Dynamic,
        };
        Some(Ok(TileTy { shape: [tile.rows(), tile.cols()], elem, valid: [valid(0), valid(1)], layout: None }))
    }
}

/// Parses a type string HTP generated itself; failure is an HTP bug.
pub fn parse_type<'c>(context: &'c Context, text: &str) -> Result<Type<'c>, String> {
    Type::parse(context, text).ok_or_else(|| format!("internal error: MLIR rejected the type `{text}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spells_tile_types_like_the_dialect() {
        let mut t = TileTy::full(16, 64, Elem::F32);
        assert_eq!(t.mlir(), "!tile.tile<16x64xf32>");
        t.valid[0] = Valid::Dynamic;
        assert_eq!(t.mlir(), "!tile.tile<16x64xf32, valid = ?x64>");
        assert_eq!(t.to_string(), "tile[16x64, f32, valid ?x64]");
    }
}
