//! On-chip tile buffers: where a tile lives (PTO's tile location), how its
//! bytes are laid out, and its valid region, with the `!pto.tile` type that
//! says all of it.

use htp_dialects::tile::{TileType, ValidSize};
use melior::ir::Type;

use htp_ir::builder::{bit_width, V};

/// PTO's tile locations (`TileType::Vec`, ...): UB, L1, L0A, L0B, L0C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Vec,
    Mat,
    Left,
    Right,
    Acc,
}

impl Place {
    pub fn keyword(self) -> &'static str {
        match self {
            Place::Vec => "vec",
            Place::Mat => "mat",
            Place::Left => "left",
            Place::Right => "right",
            Place::Acc => "acc",
        }
    }
}

/// Block layout + fractal layout, named as in PTO: ND (row-major), DN
/// (column-major), NZ and ZN (the cube's 16-row fractals, column-major and
/// row-major blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Nd,
    Dn,
    Nz,
    Zn,
}

/// A valid-region extent: known at compile time or an index value.
#[derive(Clone, Copy)]
pub enum Extent<'c> {
    Static(i64),
    Dynamic(V<'c>),
}

impl Extent<'_> {
    fn text(&self) -> String {
        match self {
            Extent::Static(n) => n.to_string(),
            Extent::Dynamic(_) => "?".into(),
        }
    }
}

/// What `pto.tfillpad` writes outside the valid region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pad {
    Null,
    Zero,
    Max,
    Min,
}

/// A tile buffer in the lowered kernel: the `pto.alloc_tile` (or
/// `pto.tile_view`) value plus what the lowering needs to know about it.
#[derive(Clone, Copy)]
pub struct Buffer<'c> {
    pub value: V<'c>,
    pub shape: Shape<'c>,
}

/// Everything in a `!pto.tile` type, with the run-time valid extents.
#[derive(Clone, Copy)]
pub struct Shape<'c> {
    pub place: Place,
    pub rows: i64,
    pub cols: i64,
    pub element: Type<'c>,
    pub layout: Layout,
    pub valid: [Extent<'c>; 2],
    pub pad: Pad,
}

impl<'c> Shape<'c> {
    /// The vector-core (UB) buffer for a tile: ND, with the columns rounded
    /// up so a row is a whole number of 32-byte blocks; a one-column tile (a
    /// value per row, as reductions make) is DN with the rows rounded up the
    /// same way, which is what PTO's row reductions and row broadcasts take.
    pub fn vec_for(tile: TileType<'c>, valid: [Extent<'c>; 2]) -> Self {
        if bit_width(tile.element_type()) == 1 {
            return Self::mask_for(tile, valid);
        }
        Self::vec_of(tile, tile.element_type(), valid)
    }

    /// The UB buffer for a tile of `tile`'s shape holding `element`s (a
    /// mask's bytes, its data converted, ...), laid out as `vec_for` says.
    pub fn vec_of(tile: TileType<'c>, element: Type<'c>, valid: [Extent<'c>; 2]) -> Self {
        let per_block = elements_per_block(element);
        let (rows, cols, layout) = if tile.cols() == 1 {
            (round_up(tile.rows(), per_block), 1, Layout::Dn)
        } else {
            (tile.rows(), round_up(tile.cols(), per_block), Layout::Nd)
        };
        Shape { place: Place::Vec, rows, cols, element, layout, valid, pad: Pad::Null }
    }

    /// The buffer of an `i1` (mask) tile: the packed predicate tile that
    /// PTO's TCMP/TCMPS write and TSEL reads, `ui8` bytes holding one bit per
    /// data column (LSB first), each data row starting a new row of bytes.
    /// Its rows and columns are those of the data seen as rows (`as_row` in
    /// `vector.rs`: a one-column tile is one row). The compares and selects
    /// work on whole data rows (valid columns = the buffer's columns, see
    /// `vector::full_width`), so a mask row holds `data cols / 8` valid
    /// bytes; room is left for data rounded to 16 columns (2-byte elements),
    /// and the row is a whole number of 32-byte blocks.
    pub fn mask_for(tile: TileType<'c>, valid: [Extent<'c>; 2]) -> Self {
        // `to_ref` views the ContextRef value itself as a Context: keep it in
        // a local that outlives the reference (a temporary would dangle).
        let context_ref = melior::ir::r#type::TypeLike::context(&tile.element_type());
        let context = unsafe { context_ref.to_ref() };
        let element = melior::ir::r#type::IntegerType::unsigned(context, 8).into();
        let (rows, cols, valid_rows) =
            if tile.cols() == 1 { (1, tile.rows(), Extent::Static(1)) } else { (tile.rows(), tile.cols(), valid[0]) };
        Self::packed_mask(rows, cols, valid_rows, element)
    }

    /// The mask of a data buffer in row form (`data`, e.g. after
    /// `vector::full_width`): one bit per column, as `mask_for` lays it out.
    pub fn mask_for_rows(data: &Shape<'c>) -> Self {
        let context_ref = melior::ir::r#type::TypeLike::context(&data.element);
        let context = unsafe { context_ref.to_ref() };
        let element = melior::ir::r#type::IntegerType::unsigned(context, 8).into();
        Self::packed_mask(data.rows, data.cols, data.valid[0], element)
    }

    fn packed_mask(rows: i64, cols: i64, valid_rows: Extent<'c>, byte: Type<'c>) -> Self {
        let bytes = round_up(cols, 16) / 8;
        let valid = [valid_rows, Extent::Static(bytes)];
        Shape { place: Place::Vec, rows, cols: round_up(bytes, 32), element: byte, layout: Layout::Nd, valid, pad: Pad::Null }
    }

    /// A tile of the same logical size as `tile` in a cube location.
    pub fn cube_for(tile: TileType<'c>, place: Place, layout: Layout, valid: [Extent<'c>; 2]) -> Self {
        Shape { place, rows: tile.rows(), cols: tile.cols(), element: tile.element_type(), layout, valid, pad: Pad::Null }
    }

    /// The shape a matmul operand made by vector work crosses to the cube
    /// in (`Kernel::cross`): `tile` as whole fractals (`fractal_dims`) at
    /// `place`, fully valid.
    pub fn crossing_operand(tile: TileType<'c>, place: Place, layout: Layout) -> Self {
        let (rows, cols) = fractal_dims(tile);
        let valid = [Extent::Static(rows), Extent::Static(cols)];
        Shape { place, rows, cols, element: tile.element_type(), layout, valid, pad: Pad::Null }
    }

    /// Whether this tile is larger than the valid region it was made for
    /// (`cube_padded` rounded it up).
    pub fn is_rounded_up(&self, rows: i64, cols: i64) -> bool {
        self.rows != rows || self.cols != cols
    }

    pub fn size_in_bytes(&self) -> i64 {
        self.rows * self.cols * (bit_width(self.element) as i64 / 8).max(1)
    }

    /// Is this a one-column (value-per-row) vector tile?
    pub fn is_column(&self) -> bool {
        self.place == Place::Vec && self.layout == Layout::Dn && self.cols == 1
    }

    /// The run-time valid extents, in order (rows, then columns).
    pub fn dynamic_valid(&self) -> Vec<V<'c>> {
        self.valid
            .iter()
            .filter_map(|e| match e {
                Extent::Dynamic(v) => Some(*v),
                Extent::Static(_) => None,
            })
            .collect()
    }

    pub fn with_valid(mut self, valid: [Extent<'c>; 2]) -> Self {
        self.valid = valid;
        self
    }

    pub fn fully_valid(self) -> Self {
        let valid = [Extent::Static(self.rows), Extent::Static(self.cols)];
        self.with_valid(valid)
    }

    /// The `!pto.tile<...>` type text.
    pub fn type_text(&self) -> String {
        let mut text = format!("!pto.tile<{}, {}x{}x{}", self.place.keyword(), self.rows, self.cols, self.element);
        let full = matches!(self.valid, [Extent::Static(r), Extent::Static(c)] if r == self.rows && c == self.cols);
        if !full {
            text += &format!(", valid = {}x{}", self.valid[0].text(), self.valid[1].text());
        }
        if matches!(self.place, Place::Vec | Place::Mat) {
            text += match self.layout {
                Layout::Nd => "",
                Layout::Dn => ", blayout = col_major",
                Layout::Nz => ", blayout = col_major, slayout = row_major",
                Layout::Zn => ", slayout = col_major",
            };
        }
        text += match self.pad {
            Pad::Null => "",
            Pad::Zero => ", pad = zero",
            Pad::Max => ", pad = max",
            Pad::Min => ", pad = min",
        };
        text + ">"
    }
}

/// The valid extents of a tile type, taking the dynamic ones from `dynamic`
/// (in order).
pub fn extents_of<'c>(tile: TileType<'c>, dynamic: &[V<'c>]) -> Result<[Extent<'c>; 2], String> {
    let mut next = dynamic.iter();
    let mut extent = |dim| match tile.valid_size(dim) {
        ValidSize::Static(n) => Ok(Extent::Static(n)),
        ValidSize::Dynamic => next.next().map(|v| Extent::Dynamic(*v)).ok_or("missing run-time valid size".to_string()),
    };
    Ok([extent(0)?, extent(1)?])
}

/// The valid extents of `tile`, taking dynamic ones from `source` dim by dim.
pub fn extents_like<'c>(tile: TileType<'c>, source: &[Extent<'c>; 2]) -> Result<[Extent<'c>; 2], String> {
    let extent = |dim: usize| match tile.valid_size(dim as u32) {
        ValidSize::Static(n) => Ok(Extent::Static(n)),
        ValidSize::Dynamic => match source[dim] {
            Extent::Dynamic(v) => Ok(Extent::Dynamic(v)),
            Extent::Static(_) => Err("a run-time valid size that no operand carries".to_string()),
        },
    };
    Ok([extent(0)?, extent(1)?])
}

/// Elements of `element` in one 32-byte block (a UB row's unit).
pub fn elements_per_block(element: Type) -> i64 {
    (32 / (bit_width(element) as i64 / 8).max(1)).max(1)
}

pub fn round_up(n: i64, multiple: i64) -> i64 {
    (n + multiple - 1) / multiple * multiple
}

/// The element a matmul result crosses from the cube to the vector core
/// in: L0C's, f32 for float results (an f16 or bf16 result is converted on
/// the vector core) and i32 for integer ones.
pub fn accumulator_element<'c>(tile: TileType<'c>) -> Type<'c> {
    let context_ref = melior::ir::r#type::TypeLike::context(&tile.element_type());
    let context = unsafe { context_ref.to_ref() };
    if htp_ir::builder::is_float(tile.element_type()) {
        Type::float32(context)
    } else {
        melior::ir::r#type::IntegerType::new(context, 32).into()
    }
}

/// `tile`'s rows and columns rounded up to whole cube fractals as the cube
/// rounds its operands (`cube::rounded`): 16 (32 for 8-bit elements, so
/// that M, K and N agree with their i32 accumulator's). A matmul operand
/// that vector work makes crosses to the cube in this shape, zero beyond
/// the tile (`Kernel::cross`).
pub fn fractal_dims(tile: TileType) -> (i64, i64) {
    let unit = fractal_unit(tile.element_type());
    (round_up(tile.rows(), unit), round_up(tile.cols(), unit))
}

/// The rows and columns an operand tile of `element`s is rounded up to on
/// the cube: 16, or 32 for 8-bit elements (whose fractal rows are 32 bytes).
pub fn fractal_unit(element: Type) -> i64 {
    if bit_width(element) == 8 {
        32
    } else {
        16
    }
}
