//! Typed access to `!pto.tile` and `!pto.gtensor` from Rust, over the C API
//! in `dialects/pto/PTOCAPI.h`.

use melior::{
    ir::{Type, TypeLike},
    Context,
};
use mlir_sys::{MlirContext, MlirType};

pub use htp_dialects::tile::ValidSize;
use htp_dialects::checked_type;

unsafe extern "C" {
    fn htpTypeIsAPTOTile(ty: MlirType) -> bool;
    #[allow(clippy::too_many_arguments)]
    fn htpPTOTileTypeGet(
        ctx: MlirContext,
        location: i32,
        rows: i64,
        cols: i64,
        element: MlirType,
        valid_rows: i64,
        valid_cols: i64,
        blayout: i32,
        slayout: i32,
        fractal: i64,
        pad: i32,
    ) -> MlirType;
    fn htpPTOTileTypeGetLocation(ty: MlirType) -> i32;
    fn htpPTOTileTypeGetRows(ty: MlirType) -> i64;
    fn htpPTOTileTypeGetCols(ty: MlirType) -> i64;
    fn htpPTOTileTypeGetElementType(ty: MlirType) -> MlirType;
    fn htpPTOTileTypeGetValidDim(ty: MlirType, dim: u32) -> i64;
    fn htpPTOTileTypeGetBLayout(ty: MlirType) -> i32;
    fn htpPTOTileTypeGetSLayout(ty: MlirType) -> i32;
    fn htpPTOTileTypeGetFractal(ty: MlirType) -> i64;
    fn htpPTOTileTypeGetPad(ty: MlirType) -> i32;
    fn htpPTOTileTypeGetSizeInBytes(ty: MlirType) -> i64;
    fn htpPTOGetUsableCapacity(location: i32) -> i64;
    fn htpTypeIsAPTOGlobalTensor(ty: MlirType) -> bool;
    fn htpPTOGlobalTensorTypeGet(ctx: MlirContext, rows: i64, cols: i64, element: MlirType, layout: i32) -> MlirType;
    fn htpPTOGlobalTensorTypeGetDim(ty: MlirType, dim: u32) -> i64;
    fn htpPTOGlobalTensorTypeGetElementType(ty: MlirType) -> MlirType;
    fn htpPTOGlobalTensorTypeGetLayout(ty: MlirType) -> i32;
}

/// Rust enums mirroring the ODS enums (same discriminants as the C API).
macro_rules! pto_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $value:literal => $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($variant = $value),* }

        impl $name {
            fn from_raw(value: i32) -> Self {
                match value {
                    $($value => Self::$variant,)*
                    other => panic!("unknown {} value {other}", stringify!($name)),
                }
            }

            /// The keyword the type syntax uses.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),* }
            }
        }
    };
}

pto_enum!(
    /// Where a tile lives (PTO-ISA `TileType`).
    Location { Vec = 0 => "vec", Mat = 1 => "mat", Left = 2 => "left", Right = 3 => "right", Acc = 4 => "acc", Bias = 5 => "bias" }
);
pto_enum!(
    /// A tile's block layout.
    BLayout { RowMajor = 0 => "row_major", ColMajor = 1 => "col_major" }
);
pto_enum!(
    /// A tile's inner (fractal box) layout.
    SLayout { None = 0 => "none", RowMajor = 1 => "row_major", ColMajor = 2 => "col_major" }
);
pto_enum!(
    /// What TFILLPAD writes outside the valid region.
    PadValue { Null = 0 => "null", Zero = 1 => "zero", Max = 2 => "max", Min = 3 => "min" }
);
pto_enum!(
    /// A GM tensor's layout.
    GTLayout { Nd = 0 => "nd", Dn = 1 => "dn", Nz = 2 => "nz" }
);

impl Location {
    /// The A2/A3 bytes of this location's buffer that tiles may use (the UB
    /// without PTO-ISA's hidden 8 KB scratch: 188416).
    pub fn usable_capacity(self) -> i64 {
        unsafe { htpPTOGetUsableCapacity(self as i32) }
    }
}

/// Everything a `!pto.tile` says; `TileSpec::new` gives the defaults
/// (whole tile valid, row_major, no boxes, fractal 512, pad null).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileSpec<'c> {
    pub location: Location,
    pub rows: i64,
    pub cols: i64,
    pub element: Type<'c>,
    pub valid: [ValidSize; 2],
    pub blayout: BLayout,
    pub slayout: SLayout,
    pub fractal: i64,
    pub pad: PadValue,
}

impl<'c> TileSpec<'c> {
    pub fn new(location: Location, rows: i64, cols: i64, element: Type<'c>) -> Self {
        Self {
            location,
            rows,
            cols,
            element,
            valid: [ValidSize::Static(rows), ValidSize::Static(cols)],
            blayout: BLayout::RowMajor,
            slayout: SLayout::None,
            fractal: 512,
            pad: PadValue::Null,
        }
    }
}


/// A `!pto.tile` type, checked on construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileType<'c>(Type<'c>);

impl<'c> TileType<'c> {
    /// The tile `spec` describes, or `None` when the verifier rejects it
    /// (the reason is reported to the context's diagnostic handlers).
    pub fn new(context: &'c Context, spec: &TileSpec<'c>) -> Option<Self> {
        let raw = unsafe {
            htpPTOTileTypeGet(
                context.to_raw(),
                spec.location as i32,
                spec.rows,
                spec.cols,
                spec.element.to_raw(),
                spec.valid[0].to_raw(),
                spec.valid[1].to_raw(),
                spec.blayout as i32,
                spec.slayout as i32,
                spec.fractal,
                spec.pad as i32,
            )
        };
        unsafe { Type::from_option_raw(raw) }.map(Self)
    }

    /// All parameters, e.g. to build a variant of this tile.
    pub fn spec(&self) -> TileSpec<'c> {
        TileSpec {
            location: self.location(),
            rows: self.rows(),
            cols: self.cols(),
            element: self.element_type(),
            valid: [self.valid_size(0), self.valid_size(1)],
            blayout: self.blayout(),
            slayout: self.slayout(),
            fractal: self.fractal(),
            pad: self.pad(),
        }
    }

    pub fn location(&self) -> Location {
        Location::from_raw(unsafe { htpPTOTileTypeGetLocation(self.0.to_raw()) })
    }

    pub fn rows(&self) -> i64 {
        unsafe { htpPTOTileTypeGetRows(self.0.to_raw()) }
    }

    pub fn cols(&self) -> i64 {
        unsafe { htpPTOTileTypeGetCols(self.0.to_raw()) }
    }

    pub fn element_type(&self) -> Type<'c> {
        unsafe { Type::from_raw(htpPTOTileTypeGetElementType(self.0.to_raw())) }
    }

    /// The valid size of dimension `dim` (0 = rows, 1 = columns); the full
    /// dimension when the tile has no valid region.
    pub fn valid_size(&self, dim: u32) -> ValidSize {
        assert!(dim < 2, "a tile has two dimensions");
        ValidSize::from_raw(unsafe { htpPTOTileTypeGetValidDim(self.0.to_raw(), dim) })
    }

    pub fn blayout(&self) -> BLayout {
        BLayout::from_raw(unsafe { htpPTOTileTypeGetBLayout(self.0.to_raw()) })
    }

    pub fn slayout(&self) -> SLayout {
        SLayout::from_raw(unsafe { htpPTOTileTypeGetSLayout(self.0.to_raw()) })
    }

    pub fn fractal(&self) -> i64 {
        unsafe { htpPTOTileTypeGetFractal(self.0.to_raw()) }
    }

    pub fn pad(&self) -> PadValue {
        PadValue::from_raw(unsafe { htpPTOTileTypeGetPad(self.0.to_raw()) })
    }

    /// rows * cols * sizeof(element).
    pub fn size_in_bytes(&self) -> i64 {
        unsafe { htpPTOTileTypeGetSizeInBytes(self.0.to_raw()) }
    }
}

checked_type!(TileType, htpTypeIsAPTOTile);

/// A `!pto.gtensor` type (2-D GM view), checked on construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalTensorType<'c>(Type<'c>);

impl<'c> GlobalTensorType<'c> {
    /// `!pto.gtensor<rows x cols x element, layout>`, or `None` when invalid.
    pub fn new(context: &'c Context, rows: ValidSize, cols: ValidSize, element: Type<'c>, layout: GTLayout) -> Option<Self> {
        let raw = unsafe {
            htpPTOGlobalTensorTypeGet(context.to_raw(), rows.to_raw(), cols.to_raw(), element.to_raw(), layout as i32)
        };
        unsafe { Type::from_option_raw(raw) }.map(Self)
    }

    /// Dimension `dim` (0 = rows, 1 = columns), static or `?`.
    pub fn size(&self, dim: u32) -> ValidSize {
        assert!(dim < 2, "a gtensor has two dimensions");
        ValidSize::from_raw(unsafe { htpPTOGlobalTensorTypeGetDim(self.0.to_raw(), dim) })
    }

    pub fn element_type(&self) -> Type<'c> {
        unsafe { Type::from_raw(htpPTOGlobalTensorTypeGetElementType(self.0.to_raw())) }
    }

    pub fn layout(&self) -> GTLayout {
        GTLayout::from_raw(unsafe { htpPTOGlobalTensorTypeGetLayout(self.0.to_raw()) })
    }
}

checked_type!(GlobalTensorType, htpTypeIsAPTOGlobalTensor);

#[cfg(test)]
mod tests {
    use super::*;


    fn parse<'c>(context: &'c Context, text: &str) -> TileType<'c> {
        TileType::try_from(Type::parse(context, text).unwrap()).unwrap()
    }

    #[test]
    fn builds_and_queries_a_tile_type() {
        let context = crate::new_context().unwrap();
        let spec = TileSpec::new(Location::Vec, 16, 64, Type::float16(&context));
        let tile = TileType::new(&context, &spec).unwrap();
        assert_eq!((tile.location(), tile.rows(), tile.cols()), (Location::Vec, 16, 64));
        assert_eq!(tile.size_in_bytes(), 16 * 64 * 2);
        assert_eq!(tile.element_type(), Type::float16(&context));
        assert_eq!(tile.spec(), spec);
        assert_eq!(Type::from(tile).to_string(), "!pto.tile<vec, 16x64xf16>");
    }

    #[test]
    fn every_parameter_round_trips() {
        let context = crate::new_context().unwrap();
        let mut spec = TileSpec::new(Location::Mat, 128, 64, Type::bfloat16(&context));
        spec.valid = [ValidSize::Dynamic, ValidSize::Static(48)];
        spec.blayout = BLayout::ColMajor;
        spec.slayout = SLayout::RowMajor;
        spec.pad = PadValue::Zero;
        let tile = TileType::new(&context, &spec).unwrap();
        assert_eq!(tile.spec(), spec);
        assert_eq!(
            Type::from(tile).to_string(),
            "!pto.tile<mat, 128x64xbf16, valid = ?x48, blayout = col_major, slayout = row_major, pad = zero>"
        );
        let acc = parse(&context, "!pto.tile<acc, 128x128xf32>");
        assert_eq!((acc.location(), acc.fractal(), acc.pad()), (Location::Acc, 512, PadValue::Null));
    }

    #[test]
    fn rejects_invalid_tiles_without_crashing() {
        let context = crate::new_context().unwrap();
        context.attach_diagnostic_handler(|_| true);
        // 3 f32 columns are 12 bytes, not a multiple of 32.
        assert!(TileType::new(&context, &TileSpec::new(Location::Vec, 16, 3, Type::float32(&context))).is_none());
        // acc holds f32 or i32 only.
        assert!(TileType::new(&context, &TileSpec::new(Location::Acc, 16, 16, Type::float16(&context))).is_none());
        // left/right/acc/bias tiles have the layout of their location.
        let mut left = TileSpec::new(Location::Left, 16, 16, Type::float16(&context));
        left.blayout = BLayout::ColMajor;
        assert!(TileType::new(&context, &left).is_none());
        // A valid region equal to the shape is the default one.
        let mut full = TileSpec::new(Location::Vec, 16, 64, Type::float32(&context));
        full.valid = [ValidSize::Static(16), ValidSize::Static(64)];
        assert_eq!(Type::from(TileType::new(&context, &full).unwrap()).to_string(), "!pto.tile<vec, 16x64xf32>");
    }

    #[test]
    fn capacities_are_the_a2a3_buffers() {
        assert_eq!(Location::Vec.usable_capacity(), 188416);
        assert_eq!(Location::Mat.usable_capacity(), 524288);
        assert_eq!(Location::Acc.usable_capacity(), 131072);
        assert_eq!(Location::Bias.usable_capacity(), 1024);
    }

    #[test]
    fn global_tensors() {
        let context = crate::new_context().unwrap();
        let f32 = Type::float32(&context);
        let g = GlobalTensorType::new(&context, ValidSize::Dynamic, ValidSize::Static(1), f32, GTLayout::Dn).unwrap();
        assert_eq!((g.size(0), g.size(1), g.layout()), (ValidSize::Dynamic, ValidSize::Static(1), GTLayout::Dn));
        assert_eq!(g.element_type(), f32);
        assert_eq!(Type::from(g).to_string(), "!pto.gtensor<?x1xf32, layout = dn>");
        assert!(TileType::try_from(Type::from(g)).is_err());
    }
}

/// The `pto.alloc_tile` whose buffer a tile value is, looking through
/// `pto.tile_view`s; `None` for a tile some other op made.
pub fn root_alloc<'c>(tile: htp_ir::builder::V<'c>) -> Option<melior::ir::OperationRef<'c, 'c>> {

    let mut current = tile;
    loop {
        let op = htp_ir::query::defining_op(current)?;
        match crate::ops::PtoOp::of(op) {
            Some(crate::ops::PtoOp::TileView) => current = htp_ir::query::operand_at(op, 0)?,
            Some(crate::ops::PtoOp::AllocTile) => return Some(op),
            _ => return None,
        }
    }
}

