//! Shape operations on tiles: subscripts of a tile (`t[0:8, 32:64]`,
//! `t[:, 0::2]`, `t[:, 3]`: `tile.slice`), `htp.concat` (`tile.concat`) and
//! `htp.reshape` / `t.reshape` (`tile.reshape`). docs/language.md, "Tile
//! shapes". Tiles have static shapes, so every bound, step, axis and shape
//! here is a compile-time constant; what the valid region of a ragged tile
//! cannot say is refused at the user's line with what to do instead.

use mlir_sys::MlirValue;
use ruff_python_ast::Expr;
use ruff_text_size::{Ranged, TextRange};

use crate::diagnostics::DiagnosticKind;
use crate::lower::builder::OpSpec;
use crate::lower::types::{TileTy, Valid};
use crate::lower::value::Val;
use crate::lower::{LResult, Lowerer};

/// One dimension of a tile subscript: the first element, the step and the
/// number of elements taken.
struct Range1 {
    offset: i64,
    stride: i64,
    size: i64,
    /// The item's source, for errors.
    range: TextRange,
}

const DIM_NAMES: [&str; 2] = ["rows", "columns"];

impl<'c> Lowerer<'c, '_> {
    /// `tile[items]`: a block of the tile (`tile.slice`). One item subscripts
    /// the rows (numpy's rule), two the rows and the columns; a slice with
    /// constant bounds and step, or a constant index (which keeps its
    /// dimension: `t[:, 3]` is an `R x 1` tile, as `x[:, 3]` of a tensor is).
    pub fn subscript_tile(&self, tile: MlirValue, ty: TileTy, slice: &Expr, range: TextRange) -> LResult<Val> {
        let items: Vec<&Expr> = match slice {
            Expr::Tuple(t) if !t.parenthesized || !t.elts.is_empty() => t.elts.iter().collect(),
            other => vec![other],
        };
        if items.len() > 2 {
            return Err(self.error(slice.range(), DiagnosticKind::Shape, format!(
                "{} indices for a tile, which has 2 dimensions (rows, columns)", items.len()
            )));
        }
        let mut dims = Vec::new();
        for d in 0..2 {
            let extent = ty.shape[d];
            dims.push(match items.get(d) {
                None => Range1 { offset: 0, stride: 1, size: extent, range: slice.range() },
                Some(item) => self.tile_range(item, d, extent)?,
            });
        }
        let mut result = TileTy { shape: [dims[0].size, dims[1].size], elem: ty.elem, valid: ty.valid, layout: None };
        for (d, dim) in dims.iter().enumerate() {
            result.valid[d] = match ty.valid[d] {
                Valid::Static(v) if dim.offset >= v => {
                    return Err(self.error(dim.range, DiagnosticKind::Shape, format!(
                        "this subscript starts at {} {}, past the {} valid {} of the {ty}: it would hold no valid element",
                        DIM_NAMES[d].trim_end_matches('s'), dim.offset, v, DIM_NAMES[d]
                    )))
                }
                Valid::Static(v) => Valid::Static(dim.size.min((v - dim.offset + dim.stride - 1) / dim.stride)),
                Valid::Dynamic if dim.offset == 0 && dim.stride == 1 && dim.size == ty.shape[d] => Valid::Dynamic,
                Valid::Dynamic => {
                    return Err(self.error(dim.range, DiagnosticKind::Shape, format!(
                        "the {ty} has ragged {} (how many are valid is known only at run time: the tail of a loop over a \
                         dimension its block does not divide), so a subscript takes them whole (`:`); pad the tile first \
                         to take part of them: htp.pad(t, 0.0)",
                        DIM_NAMES[d]
                    )))
                }
            };
        }
        if dims.iter().zip(ty.shape).all(|(d, extent)| d.offset == 0 && d.stride == 1 && d.size == extent) {
            return Ok(Val::Tile(tile, ty));
        }
        let rt = self.tile_ty(range, &result)?;
        let offsets = self.parse_attr(range, &format!("array<i64: {}, {}>", dims[0].offset, dims[1].offset))?;
        // A step along a dimension of one element is no step.
        let strides = [0, 1].map(|d| if dims[d].size == 1 { 1 } else { dims[d].stride });
        let mut op = OpSpec::new("tile.slice", std::slice::from_ref(&tile), std::slice::from_ref(&rt)).attr("offsets", offsets);
        let strides_attr = self.strides_attr(range, strides)?;
        if let Some(strides) = &strides_attr {
            op = op.attr("strides", *strides);
        }
        Ok(Val::Tile(self.emit1(range, op)?, result))
    }

    /// One item of a tile subscript along dimension `d` of `extent`
    /// elements, with Python's meaning of negative constants.
    fn tile_range(&self, item: &Expr, d: usize, extent: i64) -> LResult<Range1> {
        let constant = |e: &Expr, what: &str| -> LResult<i64> {
            match self.const_eval(e) {
                Some(Val::Int(v)) => Ok(v),
                _ => Err(self.error(e.range(), DiagnosticKind::Shape, format!(
                    "a tile's {what} must be a compile-time integer (tiles have static shapes); \
                     to take a block at a run-time offset, load it from the tensor: x[i:i + B, ...]"
                ))),
            }
        };
        let name = DIM_NAMES[d];
        let normalise = |v: i64| if v < 0 { v + extent } else { v };
        match item {
            Expr::Slice(s) => {
                let stride = match &s.step {
                    None => 1,
                    Some(step) => match constant(step, "subscript step")? {
                        k if k > 0 => k,
                        k => {
                            return Err(self.error(step.range(), DiagnosticKind::Shape, format!(
                                "a slice's step must be positive, got {k} (HTP takes elements forwards)"
                            )))
                        }
                    },
                };
                let lower = match &s.lower {
                    None => 0,
                    Some(l) => normalise(constant(l, "subscript bound")?),
                };
                let upper = match &s.upper {
                    None => extent,
                    Some(u) => normalise(constant(u, "subscript bound")?),
                };
                if lower < 0 || upper > extent || lower >= upper {
                    return Err(self.error(s.range, DiagnosticKind::Shape, format!(
                        "the slice {lower}:{upper} of the tile's {extent} {name} is {}",
                        if lower >= upper && lower >= 0 && upper <= extent { "empty" } else { "outside them" }
                    )));
                }
                Ok(Range1 { offset: lower, stride, size: (upper - lower + stride - 1) / stride, range: s.range })
            }
            other => {
                let index = constant(other, "index")?;
                let at = normalise(index);
                if !(0..extent).contains(&at) {
                    return Err(self.error(other.range(), DiagnosticKind::Shape, format!(
                        "index {index} is outside the tile's {extent} {name}"
                    )));
                }
                Ok(Range1 { offset: at, stride: 1, size: 1, range: other.range() })
            }
        }
    }

    /// `htp.concat([a, b, ...], axis=0)`: the tiles one after the other
    /// along `axis` (numpy's `concatenate`).
    pub fn concat(&self, tiles: &Val, tiles_range: TextRange, axis: (i64, TextRange), range: TextRange) -> LResult<Val> {
        let Val::Tuple(items) = tiles else {
            return Err(self.error(tiles_range, DiagnosticKind::Type, format!(
                "htp.concat() takes a list or tuple of tiles, got {}", tiles.describe()
            )));
        };
        let axis = match axis.0 {
            0 | -2 => 0,
            1 | -1 => 1,
            other => {
                return Err(self.error(axis.1, DiagnosticKind::Invalid, format!(
                    "htp.concat()'s axis is 0 (stack rows) or 1 (join columns), or -2 / -1; got {other}"
                )))
            }
        };
        let mut inputs: Vec<(MlirValue, TileTy)> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            match item {
                Val::Tile(v, t) => inputs.push((*v, *t)),
                other => {
                    return Err(self.error(tiles_range, DiagnosticKind::Type, format!(
                        "htp.concat() joins tiles; item {index} is {} (make a tile with htp.full((R, C), value))",
                        other.describe()
                    )))
                }
            }
        }
        let Some(&(first, first_ty)) = inputs.first() else {
            return Err(self.error(tiles_range, DiagnosticKind::Invalid, "htp.concat() needs at least one tile"));
        };
        let other = 1 - axis;
        let mut total = 0;
        for (index, (_, t)) in inputs.iter().enumerate() {
            if t.elem != first_ty.elem {
                return Err(self.error(tiles_range, DiagnosticKind::Type, format!(
                    "htp.concat(): tile {index} is a {t}, tile 0 a {first_ty}: the element types must be equal (convert with htp.cast(t, htp.{}))",
                    first_ty.elem
                )));
            }
            if t.shape[other] != first_ty.shape[other] || t.valid[other] != first_ty.valid[other] {
                return Err(self.error(tiles_range, DiagnosticKind::Shape, format!(
                    "htp.concat() along axis {axis}: tile {index} is a {t}, tile 0 a {first_ty}; their {} must agree (and their valid {})",
                    DIM_NAMES[other], DIM_NAMES[other]
                )));
            }
            if t.valid[axis] != Valid::Static(t.shape[axis]) {
                return Err(self.error(tiles_range, DiagnosticKind::Shape, format!(
                    "htp.concat() along axis {axis}: tile {index} is a {t}, whose {} are not all valid; the joined {} \
                     must be (pad it first: htp.pad(t, 0.0))",
                    DIM_NAMES[axis], DIM_NAMES[axis]
                )));
            }
            total += t.shape[axis];
        }
        if inputs.len() == 1 {
            return Ok(Val::Tile(first, first_ty));
        }
        let mut result = TileTy { layout: None, ..first_ty };
        result.shape[axis] = total;
        result.valid[axis] = Valid::Static(total);
        let rt = self.tile_ty(range, &result)?;
        let values: Vec<MlirValue> = inputs.iter().map(|(v, _)| *v).collect();
        let op = OpSpec::new("tile.concat", &values, std::slice::from_ref(&rt)).attr("axis", self.i64_attr(axis as i64));
        Ok(Val::Tile(self.emit1(range, op)?, result))
    }

    /// `htp.reshape(t, (rows, cols))` / `t.reshape(rows, cols)`: the same
    /// elements in another shape, row-major (numpy's C order); one
    /// dimension may be -1 (the one the element count implies).
    pub fn reshape(&self, v: &Val, shape: &[Val], shape_range: TextRange, range: TextRange) -> LResult<Val> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.reshape() needs a tile, got {}", v.describe())));
        };
        let wrong = || {
            self.error(shape_range, DiagnosticKind::Shape, format!(
                "a tile's new shape is (rows, cols): two compile-time integers, one of them may be -1; got {}",
                Val::Tuple(shape.to_vec()).describe()
            ))
        };
        let [Val::Int(rows), Val::Int(cols)] = shape else { return Err(wrong()) };
        let count = t.shape[0] * t.shape[1];
        let (rows, cols) = match (*rows, *cols) {
            (-1, -1) => return Err(wrong()),
            (-1, c) if c > 0 && count % c == 0 => (count / c, c),
            (r, -1) if r > 0 && count % r == 0 => (r, count / r),
            (r, c) if r > 0 && c > 0 => (r, c),
            (r, c) if r == -1 || c == -1 => {
                return Err(self.error(shape_range, DiagnosticKind::Shape, format!(
                    "cannot reshape the {t} ({count} elements) into ({r}, {c}): {count} is not a multiple of {}",
                    if r == -1 { c } else { r }
                )))
            }
            _ => return Err(wrong()),
        };
        if rows * cols != count {
            return Err(self.error(shape_range, DiagnosticKind::Shape, format!(
                "cannot reshape the {t} ({count} elements) into {rows}x{cols} ({} elements): a reshape keeps every element",
                rows * cols
            )));
        }
        if !t.is_full() {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "htp.reshape() moves elements between rows, so it needs a fully valid tile; this is a {t} \
                 (a ragged tail): pad it first, htp.pad(t, 0.0)"
            )));
        }
        if [rows, cols] == t.shape {
            return Ok(Val::Tile(*x, *t));
        }
        let result = TileTy::full(rows, cols, t.elem);
        let rt = self.tile_ty(range, &result)?;
        Ok(Val::Tile(self.emit1(range, OpSpec::new("tile.reshape", std::slice::from_ref(x), std::slice::from_ref(&rt)))?, result))
    }
}
