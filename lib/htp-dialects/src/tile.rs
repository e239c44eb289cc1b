//! Typed access to `!tile.tile` from Rust, over the C API in
//! `dialects/tile/TileCAPI.h`.

use melior::{
    ir::{Type, TypeLike},
    Context,
};
use mlir_sys::{MlirContext, MlirType};

unsafe extern "C" {
    fn htpTypeIsATile(ty: MlirType) -> bool;
    fn htpTileTypeGet(ctx: MlirContext, rows: i64, cols: i64, element: MlirType) -> MlirType;
    fn htpTileTypeGetRows(ty: MlirType) -> i64;
    fn htpTileTypeGetCols(ty: MlirType) -> i64;
    fn htpTileTypeGetElementType(ty: MlirType) -> MlirType;
    fn htpTileTypeGetSizeInBytes(ty: MlirType) -> i64;
    fn htpTileTypeGetValidDim(ty: MlirType, dim: u32) -> i64;
    fn htpTileTypeGetLayout(ty: MlirType) -> mlir_sys::MlirAttribute;
    fn htpTileTypeWithLayout(ty: MlirType, layout: mlir_sys::MlirAttribute) -> MlirType;
}

/// One valid size of a tile: known now, or only at run time (`?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValidSize {
    Static(i64),
    Dynamic,
}

impl ValidSize {
    /// The C APIs' value for `?` (`ShapedType::kDynamic`).
    const DYNAMIC: i64 = i64::MIN;

    /// From the C APIs' encoding (`ShapedType::kDynamic` for `?`).
    pub fn from_raw(raw: i64) -> Self {
        if raw == Self::DYNAMIC { ValidSize::Dynamic } else { ValidSize::Static(raw) }
    }

    /// To the C APIs' encoding.
    pub fn to_raw(self) -> i64 {
        match self {
            ValidSize::Static(n) => n,
            ValidSize::Dynamic => Self::DYNAMIC,
        }
    }
}

/// Implements `TryFrom<Type>` (checked with a C API `isa` function) and
/// `Into<Type>` for a typed wrapper `struct $name<'c>(Type<'c>)`; for the
/// dialect wrappers of every crate.
#[macro_export]
macro_rules! checked_type {
    ($name:ident, $isa:ident) => {
        impl<'c> TryFrom<melior::ir::Type<'c>> for $name<'c> {
            type Error = melior::ir::Type<'c>;

            fn try_from(ty: melior::ir::Type<'c>) -> Result<Self, Self::Error> {
                if unsafe { $isa(melior::ir::TypeLike::to_raw(&ty)) } {
                    Ok(Self(ty))
                } else {
                    Err(ty)
                }
            }
        }

        impl<'c> From<$name<'c>> for melior::ir::Type<'c> {
            fn from(wrapper: $name<'c>) -> Self {
                wrapper.0
            }
        }
    };
}
pub use checked_type;

/// A `!tile.tile` type, checked on construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileType<'c>(Type<'c>);

impl<'c> TileType<'c> {
    /// `!tile.tile<rows x cols x element>`, or `None` when MLIR rejects it
    /// (the reason is reported to the context's diagnostic handlers).
    pub fn new(context: &'c Context, rows: i64, cols: i64, element: Type<'c>) -> Option<Self> {
        let raw = unsafe { htpTileTypeGet(context.to_raw(), rows, cols, element.to_raw()) };
        unsafe { Type::from_option_raw(raw) }.map(Self)
    }

    pub fn rows(&self) -> i64 {
        unsafe { htpTileTypeGetRows(self.0.to_raw()) }
    }

    pub fn cols(&self) -> i64 {
        unsafe { htpTileTypeGetCols(self.0.to_raw()) }
    }

    pub fn element_type(&self) -> Type<'c> {
        unsafe { Type::from_raw(htpTileTypeGetElementType(self.0.to_raw())) }
    }

    /// The valid size of dimension `dim` (0 = rows, 1 = columns); the full
    /// dimension when the tile has no valid region.
    pub fn valid_size(&self, dim: u32) -> ValidSize {
        assert!(dim < 2, "a tile has two dimensions");
        ValidSize::from_raw(unsafe { htpTileTypeGetValidDim(self.0.to_raw(), dim) })
    }

    /// The tile's layout (`layout = #layout.axe<...>`), if it has one.
    pub fn layout(&self) -> Option<crate::layout::Axe> {
        let raw = unsafe { htpTileTypeGetLayout(self.0.to_raw()) };
        unsafe { melior::ir::Attribute::from_option_raw(raw) }.and_then(crate::layout::Axe::from_attribute)
    }

    /// The same tile with `layout` (`None`: without one); `None` when the
    /// layout does not fit the tile (reported to the context's handlers).
    pub fn with_layout(&self, context: &'c Context, layout: Option<&crate::layout::Axe>) -> Option<Self> {
        let attribute = match layout {
            Some(layout) => melior::ir::AttributeLike::to_raw(&layout.to_attribute(context)?),
            None => mlir_sys::MlirAttribute { ptr: std::ptr::null() },
        };
        let raw = unsafe { htpTileTypeWithLayout(self.0.to_raw(), attribute) };
        unsafe { Type::from_option_raw(raw) }.map(Self)
    }

    /// The same tile (shape, valid region, layout) holding `element`s.
    pub fn with_element(&self, context: &'c Context, element: Type<'c>) -> Option<Self> {
        // `!tile.tile<RxCx<element>...>`: the element follows the shape.
        let text = self.0.to_string();
        let old = format!("x{}", self.element_type());
        let at = text.find(&old)?;
        let new = format!("{}x{}{}", &text[..at], element, &text[at + old.len()..]);
        Type::parse(context, &new).and_then(|ty| Self::try_from(ty).ok())
    }

    /// On-chip storage of the whole tile in bytes (i1 bit-packed).
    pub fn size_in_bytes(&self) -> i64 {
        unsafe { htpTileTypeGetSizeInBytes(self.0.to_raw()) }
    }

    /// [`Self::size_in_bytes`] in checked arithmetic: None when the size
    /// does not fit an i64 (a 2^31 x 2^31 f32 tile).
    pub fn checked_size_in_bytes(&self) -> Option<i64> {
        let bits = unsafe { mlir_sys::mlirTypeIsAInteger(self.element_type().to_raw()) }
            .then(|| unsafe { mlir_sys::mlirIntegerTypeGetWidth(self.element_type().to_raw()) } as i64)
            .or_else(|| unsafe { mlir_sys::mlirTypeIsAFloat(self.element_type().to_raw()) }
                .then(|| unsafe { mlir_sys::mlirFloatTypeGetWidth(self.element_type().to_raw()) } as i64))?;
        let bits = (self.rows() as i128).checked_mul(self.cols() as i128)?.checked_mul(bits as i128)?;
        i64::try_from((bits + 7) / 8).ok()
    }
}

checked_type!(TileType, htpTypeIsATile);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::new_context;

    #[test]
    fn builds_and_queries_a_tile_type() {
        let context = new_context();
        let tile = TileType::new(&context, 16, 64, Type::float16(&context)).unwrap();
        assert_eq!((tile.rows(), tile.cols()), (16, 64));
        assert_eq!(tile.size_in_bytes(), 16 * 64 * 2);
        assert_eq!(tile.element_type(), Type::float16(&context));
        assert_eq!(Type::from(tile).to_string(), "!tile.tile<16x64xf16>");
    }

    #[test]
    fn valid_sizes_are_static_dynamic_or_the_whole_dimension() {
        let context = new_context();
        let parse = |text: &str| TileType::try_from(Type::parse(&context, text).unwrap()).unwrap();
        let partial = parse("!tile.tile<16x64xf32, valid = ?x48>");
        assert_eq!(partial.valid_size(0), ValidSize::Dynamic);
        assert_eq!(partial.valid_size(1), ValidSize::Static(48));
        assert_eq!(parse("!tile.tile<16x64xf32>").valid_size(0), ValidSize::Static(16));
    }

    #[test]
    fn a_tile_takes_a_layout_that_fits_it() {
        let context = new_context();
        let tile = TileType::new(&context, 16, 64, Type::float32(&context)).unwrap();
        assert_eq!(tile.layout(), None);
        let dn = crate::layout::Axe::col_major(16, 64);
        let laid_out = tile.with_layout(&context, Some(&dn)).unwrap();
        assert_eq!(laid_out.layout(), Some(dn));
        assert_eq!(Type::from(laid_out).to_string(), "!tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>");
        assert_eq!(laid_out.with_layout(&context, None), Some(tile));
        assert!(tile.with_layout(&context, Some(&crate::layout::Axe::row_major(16, 32))).is_none());
    }

    #[test]
    fn i1_tiles_are_bit_packed() {
        let context = new_context();
        let mask = TileType::try_from(Type::parse(&context, "!tile.tile<16x64xi1>").unwrap()).unwrap();
        assert_eq!(mask.size_in_bytes(), 16 * 64 / 8);
    }

    #[test]
    fn rejects_invalid_shapes_without_crashing() {
        let context = new_context();
        context.attach_diagnostic_handler(|_| true);
        assert!(TileType::new(&context, 0, 64, Type::float32(&context)).is_none());
        assert!(TileType::new(&context, 4, 4, Type::float64(&context)).is_none());
    }

    #[test]
    fn other_types_are_not_tiles() {
        let context = new_context();
        assert!(TileType::try_from(Type::float32(&context)).is_err());
    }
}

/// The run-time valid sizes (one per `?` dim, rows first) of a tile value,
/// read off the op that set them: a `tile.load`'s or `tile.set_valid`'s
/// size operands, looking through tile ops whose result keeps an operand's
/// shape and valid region (elementwise ops, casts, selects, pads of the
/// other dim...) and, dim by dim, through those whose result keeps an
/// operand's rows or columns (reductions, `argmax`, `topk`, `gather` by
/// column, broadcasts, a matmul's rows and columns, a transpose's swapped
/// dims). `None` where a block argument (a loop or branch) carries the tile.
/// Shared by the front end (filling scalars to a ragged tile) and the CPU
/// bounds check.
pub fn dynamic_valid_sizes(tile: mlir_sys::MlirValue) -> Option<Vec<mlir_sys::MlirValue>> {
    let dynamic = valid_pattern(tile)?.2;
    let sizes = valid_sizes_per_dim(tile, 256)?;
    (0..2).filter(|&d| dynamic[d]).map(|d| sizes[d]).collect()
}

/// (rows, cols, which of the two valid sizes are run-time ones) of a tile value.
fn valid_pattern(value: mlir_sys::MlirValue) -> Option<(i64, i64, [bool; 2])> {
    let tile = unsafe { TileType::try_from(Type::from_raw(mlir_sys::mlirValueGetType(value))) }.ok()?;
    Some((tile.rows(), tile.cols(), [0, 1].map(|d| tile.valid_size(d) == ValidSize::Dynamic)))
}

/// `dynamic_valid_sizes` by dim: the run-time valid size of each `?` dim.
fn valid_sizes_per_dim(tile: mlir_sys::MlirValue, depth: usize) -> Option<[Option<mlir_sys::MlirValue>; 2]> {
    use mlir_sys::*;
    let (rows, cols, dynamic) = valid_pattern(tile)?;
    if dynamic == [false, false] {
        return Some([None, None]);
    }
    if depth == 0 || !unsafe { mlirValueIsAOpResult(tile) } {
        return None;
    }
    let op = unsafe { mlirOpResultGetOwner(tile) };
    let name_ref = unsafe { mlirIdentifierStr(mlirOperationGetName(op)) };
    let name = unsafe { std::str::from_utf8(std::slice::from_raw_parts(name_ref.data as *const u8, name_ref.length)) }.ok()?;
    let operands = unsafe { mlirOperationGetNumOperands(op) } as isize;
    let operand = |i: isize| unsafe { mlirOperationGetOperand(op, i) };
    // The sizes of the `?` dims, in order, given as operands from `first`.
    let from_operands = |first: isize| -> Option<[Option<MlirValue>; 2]> {
        let mut next = first;
        let mut sizes = [None, None];
        for d in 0..2 {
            if dynamic[d] {
                if next >= operands {
                    return None;
                }
                sizes[d] = Some(operand(next));
                next += 1;
            }
        }
        Some(sizes)
    };
    // Each `?` dim of this tile from `inner`'s dim `map[d]`.
    let keep = |inner: [Option<MlirValue>; 2], map: [usize; 2]| -> Option<[Option<MlirValue>; 2]> {
        let mut sizes = [None, None];
        for d in 0..2 {
            if dynamic[d] {
                sizes[d] = Some(inner[map[d]]?);
            }
        }
        Some(sizes)
    };
    match name {
        "tile.load" => {
            let source = unsafe { mlirValueGetType(operand(0)) };
            let rank = unsafe { mlirShapedTypeGetRank(source) } as isize;
            from_operands(1 + rank)
        }
        "tile.set_valid" => from_operands(1),
        // A slice's `?` dims are its input's, taken whole; a concat's are its
        // inputs' other dim: the same dims.
        "tile.slice" | "tile.concat" if operands > 0 => keep(valid_sizes_per_dim(operand(0), depth - 1)?, [0, 1]),
        "tile.transpose" if operands > 0 => keep(valid_sizes_per_dim(operand(0), depth - 1)?, [1, 0]),
        _ if name.starts_with("tile.") => {
            // An operand with this tile's shape and valid region (elementwise ops) ...
            if let Some(same) = (0..operands).map(operand).find(|&v| valid_pattern(v) == Some((rows, cols, dynamic))) {
                return valid_sizes_per_dim(same, depth - 1);
            }
            // ... else, dim by dim, one as long along it with a run-time size there.
            let mut sizes = [None, None];
            for d in 0..2 {
                if dynamic[d] {
                    let along = (0..operands).map(operand).find(|&v| {
                        valid_pattern(v).is_some_and(|(r, c, dy)| [r, c][d] == [rows, cols][d] && dy[d])
                    })?;
                    sizes[d] = Some(valid_sizes_per_dim(along, depth - 1)?[d]?);
                }
            }
            Some(sizes)
        }
        _ => None,
    }
}

/// The `strides [SR, SC]` of a `tile.load`, `tile.store` or `tile.slice`:
/// the step along the tile's rows and columns, `[1, 1]` without the
/// attribute.
pub fn access_strides(op: melior::ir::OperationRef) -> [i64; 2] {
    use melior::ir::operation::OperationLike;
    let Some(strides) = op.attribute("strides").ok().and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok()) else {
        return [1, 1];
    };
    [strides.element(0).unwrap_or(1), strides.element(1).unwrap_or(1)]
}
