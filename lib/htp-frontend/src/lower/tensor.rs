//! Tensors: binding parameters, and tile loads and stores through slices.
//!
//! `x[i:i + BM, j:j + BN]` addresses a BMxBN tile whose top-left element is
//! `x[i, j]`. Slice sizes are compile-time constants. A slice that may run
//! past the end of its dimension (a symbolic dimension, or a static one that
//! the block does not divide) gets a run-time valid size
//! `min(BM, dim - i)`: the ragged tail. A step (`x[:, 0::2]`, a positive
//! constant) addresses every step-th element: the tile holds
//! `ceil(span / step)` of them, the valid size `min(that, ceil((dim - i) / step))`.

use mlir_sys::MlirValue;
use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{Expr, ExprSlice, Operator};
use ruff_text_size::{Ranged, TextRange};

use htp_dialects::ods::tile;
use super::builder::OpSpec;
use super::types::{Elem, ScalarTy, TileTy, Valid};
use super::value::{DimV, TensorV, Val};
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

/// The static size a view taking a symbolic dimension whole records (its
/// valid extent, the dimension at run time, is what a task receives): larger
/// than any tensor's dimension, small enough for index arithmetic.
const WHOLE_SYMBOLIC_SPAN: i64 = 1 << 40;
use crate::signature::DimSig;

/// The tile a subscript of a tensor addresses.
pub struct Access {
    /// One index per view dimension.
    pub indices: Vec<MlirValue>,
    pub shape: [i64; 2],
    pub valid: [Valid; 2],
    /// The run-time valid sizes, in order (rows, then columns).
    pub valid_values: Vec<MlirValue>,
    /// Every dimension indexed by a single value (`lens[b]`, `table[b, i]`):
    /// one element.
    pub element: bool,
    /// The step along the tile's rows and columns (1 without one).
    pub strides: [i64; 2],
}

impl Access {
    pub fn tile_ty(&self, elem: Elem) -> TileTy {
        TileTy { shape: self.shape, elem, valid: self.valid, layout: None }
    }
}

/// A slice `lower:upper:step` of one tensor dimension.
struct SliceBounds {
    start: MlirValue,
    start_const: Option<i64>,
    /// `upper - lower`: the block a loop steps by.
    span: i64,
    step: i64,
    /// The elements the tile holds: `ceil(span / step)`.
    size: i64,
}

impl<'c> Lowerer<'c, '_> {
    /// `strides [SR, SC]` of a strided access, none for unit strides.
    pub fn strides_attr(&self, range: TextRange, strides: [i64; 2]) -> LResult<Option<melior::ir::Attribute<'c>>> {
        if strides == [1, 1] {
            return Ok(None);
        }
        Ok(Some(self.parse_attr(range, &format!("array<i64: {}, {}>", strides[0], strides[1]))?))
    }

    /// Reads the sizes of a memref parameter and views a 1-D one as 1xN.
    pub fn bind_tensor(&mut self, range: TextRange, name: &str, arg: MlirValue, elem: Elem, shape: &[DimSig], is_output: bool) -> LResult<TensorV> {
        let index = self.ty(range, "index")?;
        let mut dims = Vec::new();
        for (i, d) in shape.iter().enumerate() {
            dims.push(match d {
                DimSig::Static(v) => DimV::Static(*v),
                // Equal names are equal sizes: reuse the first tensor's.
                DimSig::Symbol(sym) if matches!(self.env.get(sym), Some(Val::Scalar(_, ScalarTy::Index))) => match self.env.get(sym) {
                    Some(Val::Scalar(v, _)) => DimV::Dynamic(*v),
                    _ => return Err(self.internal(range, "symbol")),
                },
                DimSig::Symbol(_) => {
                    let c = self.index_const(range, i as i64)?;
                    DimV::Dynamic(self.emit1(range, OpSpec::new("memref.dim", &[arg, c], &[index]))?)
                }
            });
        }
        let shape_text = shape
            .iter()
            .map(|d| match d {
                DimSig::Static(v) => v.to_string(),
                DimSig::Symbol(s) => s.clone(),
            })
            .collect();
        let mut value = arg;
        if shape.len() == 1 {
            let (static_size, dynamic): (i64, Vec<MlirValue>) = match dims[0] {
                DimV::Static(v) => (v, vec![]),
                DimV::Dynamic(v) => (i64::MIN, vec![v]),
            };
            let size_text = if static_size == i64::MIN { "?".to_string() } else { static_size.to_string() };
            let view_ty = self.ty(range, &format!("memref<1x{size_text}x{}>", elem.mlir()))?;
            let mut operands = vec![arg];
            operands.extend(dynamic);
            value = self.emit1(
                range,
                OpSpec::new("memref.expand_shape", &operands, &[view_ty])
                    .attr("reassociation", self.parse_attr(range, "[[0, 1]]")?)
                    .attr("static_output_shape", self.parse_attr(range, &format!("array<i64: 1, {static_size}>"))?),
            )?;
            dims.insert(0, DimV::Static(1));
        }
        let input_of = (!is_output).then(|| format!("the kernel's htp.Tensor parameter '{name}'"));
        Ok(TensorV { name: name.to_string(), value, elem, dims, user_rank: shape.len(), shape_text, input_of, window: false })
    }

    /// The tile addressed by `tensor[slice]`.
    pub fn access(&mut self, tensor: &TensorV, slice: &Expr) -> LResult<Access> {
        self.access_spanning(tensor, slice, false)
    }

    /// The block `tensor[slice]` names as a model construct's argument (a
    /// WSP task's view): as [`Self::access`], except that `:` (or a missing
    /// item) over a symbolic dimension takes the whole dimension, its
    /// extent known at run time (`k_cache[l, :, :]`). A tile needs a static
    /// size; a view is never materialised as one.
    pub fn access_view(&mut self, tensor: &TensorV, slice: &Expr) -> LResult<Access> {
        self.access_spanning(tensor, slice, true)
    }

    fn access_spanning(&mut self, tensor: &TensorV, slice: &Expr, whole_symbolic: bool) -> LResult<Access> {
        let items: Vec<&Expr> = match slice {
            Expr::Tuple(t) if !t.parenthesized || !t.elts.is_empty() => t.elts.iter().collect(),
            other => vec![other],
        };
        if items.len() > tensor.user_rank {
            return Err(self.error(slice.range(), DiagnosticKind::Shape, format!(
                "{} indices for the rank-{} tensor '{}'", items.len(), tensor.user_rank, tensor.name
            )));
        }
        let element = items.len() == tensor.user_rank && !items.iter().any(|item| matches!(item, Expr::Slice(_)));
        let view_rank = tensor.dims.len();
        let mut indices = Vec::new();
        let mut shape = [1i64; 2];
        let mut valid = [Valid::Static(1); 2];
        let mut valid_values = Vec::new();
        let mut strides = [1i64; 2];
        for vd in 0..view_rank {
            let is_tile_dim = vd + 2 >= view_rank;
            let user_dim = (vd + tensor.user_rank).checked_sub(view_rank);
            let item = user_dim.and_then(|u| items.get(u).copied());
            let dim = tensor.dims[vd];
            let Some(item) = item else {
                // A dimension the subscript does not mention (or the leading 1
                // of a 1-D view): the whole dimension, from 0.
                indices.push(self.index_const(slice.range(), 0)?);
                if is_tile_dim {
                    let t = vd + 2 - view_rank;
                    match dim {
                        DimV::Static(v) => {
                            shape[t] = v;
                            valid[t] = Valid::Static(v);
                        }
                        DimV::Dynamic(extent) if whole_symbolic => {
                            shape[t] = WHOLE_SYMBOLIC_SPAN;
                            valid[t] = Valid::Dynamic;
                            valid_values.push(extent);
                        }
                        DimV::Dynamic(_) => {
                            return Err(self.error(slice.range(), DiagnosticKind::Shape, format!(
                                "dimension {} of '{}' is symbolic ('{}'): give its block explicitly, e.g. [i:i + BLOCK]",
                                user_dim.unwrap_or(0), tensor.name, user_dim.and_then(|u| tensor.shape_text.get(u)).map(String::as_str).unwrap_or("?")
                            )));
                        }
                    }
                }
                continue;
            };
            let user_dim = user_dim.unwrap_or(0);
            match item {
                Expr::Slice(s) => {
                    if !is_tile_dim {
                        return Err(self.error(item.range(), DiagnosticKind::Shape, format!(
                            "dimension {user_dim} of '{}' is not one of the tile's two dimensions (the last two): index it with a single value",
                            tensor.name
                        )));
                    }
                    let t = vd + 2 - view_rank;
                    let bounds = self.slice_bounds(tensor, user_dim, dim, s, whole_symbolic)?;
                    indices.push(bounds.start);
                    shape[t] = bounds.size;
                    // A step along a dimension of one element is no step.
                    strides[t] = if bounds.size == 1 { 1 } else { bounds.step };
                    valid[t] = self.slice_valid(tensor, user_dim, dim, &bounds, item.range(), &mut valid_values)?;
                }
                _ => {
                    let v = self.lower_expr(item)?;
                    indices.push(self.to_index(&v, item.range())?);
                }
            }
        }
        Ok(Access { indices, shape, valid, valid_values, element, strides })
    }

    /// Start (as index), start if constant, span, step and size of
    /// `lower:upper:step`.
    fn slice_bounds(&mut self, tensor: &TensorV, user_dim: usize, dim: DimV, s: &ExprSlice, whole_symbolic: bool) -> LResult<SliceBounds> {
        let step = match &s.step {
            None => 1,
            Some(step) => match self.const_eval(step) {
                Some(Val::Int(k)) if k > 0 => k,
                Some(Val::Int(k)) => {
                    return Err(self.error(step.range(), DiagnosticKind::Shape, format!(
                        "a slice's step must be positive, got {k} (HTP takes elements forwards)"
                    )))
                }
                _ => {
                    return Err(self.error(step.range(), DiagnosticKind::Shape,
                        "the step of a slice must be a compile-time integer (a literal or an htp.Const[int])"))
                }
            },
        };
        let start_const = match &s.lower {
            None => Some(0),
            Some(l) => match self.const_eval(l) {
                Some(Val::Int(v)) => Some(v),
                _ => None,
            },
        };
        let span = match (&s.lower, &s.upper) {
            (_, None) => match (dim, start_const) {
                (DimV::Static(d), Some(st)) => d - st,
                // A view to the end of a symbolic dimension: its run-time
                // extent (`slice_valid`'s `dim - start`) is the view's.
                (DimV::Dynamic(_), _) if whole_symbolic => WHOLE_SYMBOLIC_SPAN,
                _ => {
                    return Err(self.error(s.range, DiagnosticKind::Shape, format!(
                        "an open-ended slice of dimension {user_dim} of '{}' needs a static size and start: write [i:i + BLOCK]",
                        tensor.name
                    )))
                }
            },
            (lower, Some(upper)) => self.slice_size(lower.as_deref(), upper, start_const).ok_or_else(|| {
                self.error(upper.range(), DiagnosticKind::Shape,
                    "the size of a slice must be a compile-time constant: write [i:i + BLOCK] with BLOCK a constant")
            })?,
        };
        if span <= 0 {
            return Err(self.error(s.range, DiagnosticKind::Shape, format!("slice of size {span}: tiles need at least one row and column")));
        }
        let size = (span + step - 1) / step;
        let start = match (&s.lower, start_const) {
            (_, Some(v)) => self.index_const(s.range, v)?,
            (Some(l), None) => {
                let v = self.lower_expr(l)?;
                self.to_index(&v, l.range())?
            }
            (None, None) => self.index_const(s.range, 0)?,
        };
        Ok(SliceBounds { start, start_const, span, step, size })
    }

    /// `upper - lower` when it is a compile-time constant: `i:i + B`, `a:b`
    /// with constant bounds, `:B`, or both bounds one expression plus
    /// constants (`i + 1:i + 32`).
    fn slice_size(&self, lower: Option<&Expr>, upper: &Expr, start_const: Option<i64>) -> Option<i64> {
        if let (Some(st), Some(Val::Int(u))) = (start_const, self.const_eval(upper)) {
            return Some(u - st);
        }
        let lower = lower?;
        if let Expr::BinOp(b) = upper {
            if b.op == Operator::Add && ComparableExpr::from(&*b.left) == ComparableExpr::from(lower) {
                if let Some(Val::Int(v)) = self.const_eval(&b.right) {
                    return Some(v);
                }
            }
        }
        let (lower_base, lower_offset) = self.base_and_offset(lower)?;
        let (upper_base, upper_offset) = self.base_and_offset(upper)?;
        (ComparableExpr::from(lower_base) == ComparableExpr::from(upper_base)).then(|| upper_offset - lower_offset)
    }

    /// `e + k` / `e - k` (k a compile-time integer) as (e, ±k); `e` as (e, 0).
    fn base_and_offset<'e>(&self, expr: &'e Expr) -> Option<(&'e Expr, i64)> {
        if let Expr::BinOp(b) = expr {
            if let Some(Val::Int(k)) = self.const_eval(&b.right) {
                match b.op {
                    Operator::Add => return Some((&b.left, k)),
                    Operator::Sub => return Some((&b.left, k.checked_neg()?)),
                    _ => {}
                }
            }
        }
        Some((expr, 0))
    }

    /// The valid size of a slice along its dimension: `min(size, ceil((dim
    /// - start) / step))`, static where it can be.
    fn slice_valid(
        &mut self,
        tensor: &TensorV,
        user_dim: usize,
        dim: DimV,
        bounds: &SliceBounds,
        range: TextRange,
        valid_values: &mut Vec<MlirValue>,
    ) -> LResult<Valid> {
        let &SliceBounds { start, start_const, span, step, size } = bounds;
        let dim_value = match dim {
            // A block larger than the dimension is ragged like any tail
            // (`x[b, 0:16, :]` of 8 rows is valid for 8).
            DimV::Static(d) => {
                match start_const {
                    Some(st) if st >= d || st < 0 => {
                        return Err(self.error(range, DiagnosticKind::Shape, format!(
                            "slice start {st} is outside dimension {user_dim} of '{}' ({d})", tensor.name
                        )))
                    }
                    Some(st) => return Ok(Valid::Static(size.min((d - st + step - 1) / step))),
                    // A block that divides the dimension, at a run-time start:
                    // starts are assumed to be multiples of the block (as a
                    // `range(0, D, BLOCK)` loop gives), so the tile is full.
                    None if d % span == 0 => return Ok(Valid::Static(size)),
                    None => self.index_const(range, d)?,
                }
            }
            // A block of one along a symbolic dimension is that element's
            // row or column, as an index is (`q[b:b + 1, :]` is `q[b, :]`):
            // the start is assumed inside the dimension (the cpu checks it),
            // as a block that divides a static dimension is assumed aligned.
            DimV::Dynamic(_) if span == 1 => return Ok(Valid::Static(size)),
            DimV::Dynamic(v) => v,
        };
        let index = self.ty(range, "index")?;
        let mut left = self.emit1(range, OpSpec::new("arith.subi", &[dim_value, start], &[index]))?;
        if step > 1 {
            // ceil(left / step), also for a start past the end (a negative
            // `left`: the access is out of bounds, and the CPU says so).
            let bias = self.index_const(range, step - 1)?;
            let biased = self.emit1(range, OpSpec::new("arith.addi", &[left, bias], &[index]))?;
            let divisor = self.index_const(range, step)?;
            left = self.emit1(range, OpSpec::new("arith.floordivsi", &[biased, divisor], &[index]))?;
        }
        let block = self.index_const(range, size)?;
        let valid = self.emit1(range, OpSpec::new("arith.minsi", &[left, block], &[index]))?;
        valid_values.push(valid);
        Ok(Valid::Dynamic)
    }

    /// `tensor[slice]` as a value: a `tile.load`; one element
    /// (`lens[b]`, every dimension indexed by a value) a scalar read, as in
    /// numpy: a `memref.load` (bounds-checked on the cpu), usable as a loop
    /// bound, an offset or an operand.
    pub fn load(&mut self, tensor: &TensorV, slice: &Expr, range: TextRange) -> LResult<Val> {
        let access = self.access(tensor, slice)?;
        if access.element && unsafe { mlir_sys::mlirTypeIsAMemRef(mlir_sys::mlirValueGetType(tensor.value)) } {
            let ty = ScalarTy::Elem(tensor.elem);
            let element = self.scalar_ty(range, ty)?;
            // A 1-D tensor is read through its parameter, not its 1xN view.
            use melior::ir::{operation::OperationLike, ValueLike};
            let view = unsafe { melior::ir::Value::from_raw(tensor.value) };
            let source = melior::ir::operation::OperationResult::try_from(view)
                .ok()
                .map(|result| result.owner())
                .filter(|owner| tensor.user_rank == 1 && owner.name().as_string_ref().as_str() == Ok("memref.expand_shape"))
                .and_then(|owner| owner.operand(0).ok().map(|base| base.to_raw()));
            let (source, indices) = match source {
                Some(base) => (base, &access.indices[1..]),
                None => (tensor.value, &access.indices[..]),
            };
            let mut operands = vec![source];
            operands.extend(indices);
            let v = self.emit1(range, OpSpec::new("memref.load", &operands, &[element]))?;
            return Ok(Val::Scalar(v, ty));
        }
        let tile = access.tile_ty(tensor.elem);
        let ty = self.tile_ty(range, &tile)?;
        let mut op = tile::LoadOperationBuilder::new(self.ctx, self.loc(range))
            .source(self.value(tensor.value))
            .indices(&self.values(&access.indices))
            .valid_sizes(&self.values(&access.valid_values))
            .result(ty);
        if let Some(strides) = self.strides_attr(range, access.strides)? {
            op = op.strides(strides);
        }
        let op = op.build();
        let segments = [1, access.indices.len() as i32, access.valid_values.len() as i32];
        let v = self.place1(range, htp_dialects::ods::with_segments(op, &segments))?;
        Ok(Val::Tile(v, tile))
    }

    /// Narrows a tile stored into `target` to the slice's valid region, so
    /// that a full tile stored into the ragged tail writes only the
    /// in-bounds part: a `tile.set_valid` whose run-time sizes are the
    /// slice's. Per dimension (slice, tile): (?, static) and (t, v > t)
    /// narrow; (?, ?) and (t, v <= t) are stored as they are.
    pub(super) fn narrow_to_slice(
        &mut self,
        tile: MlirValue,
        ty: TileTy,
        target: &TileTy,
        slice_sizes: &[MlirValue],
        range: TextRange,
    ) -> LResult<(MlirValue, TileTy)> {
        let mut slice_sizes = slice_sizes.iter();
        let mut narrowed = ty.clone();
        let mut sizes = Vec::new();
        let mut changed = false;
        for d in 0..2 {
            match (target.valid[d], ty.valid[d]) {
                (Valid::Dynamic, tile_valid) => {
                    let size = *slice_sizes.next().ok_or_else(|| self.internal(range, "ragged slice without a size"))?;
                    changed |= matches!(tile_valid, Valid::Static(_));
                    narrowed.valid[d] = Valid::Dynamic;
                    sizes.push(size);
                }
                (Valid::Static(t), Valid::Static(v)) if v > t => {
                    narrowed.valid[d] = Valid::Static(t);
                    changed = true;
                }
                (Valid::Static(_), Valid::Dynamic) => sizes.push(MlirValue { ptr: std::ptr::null_mut() }),
                (Valid::Static(_), Valid::Static(_)) => {}
            }
        }
        if !changed {
            return Ok((tile, ty));
        }
        if sizes.iter().any(|s| s.ptr.is_null()) {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "cannot store {ty} into the ragged slice {target}: one dimension is ragged in the tile and the other                  in the slice; pad the tile with htp.pad(t, 0.0) first"
            )));
        }
        let result_ty = self.tile_ty(range, &narrowed)?;
        let op = tile::SetValidOperationBuilder::new(self.ctx, self.loc(range))
            .input(self.value(tile))
            .valid_sizes(&self.values(&sizes))
            .result(result_ty)
            .build();
        let v = self.place1(range, op)?;
        Ok((v, narrowed))
    }

    /// `tensor[slice] = value`: a `tile.store`.
    pub fn store(&mut self, tensor: &TensorV, slice: &Expr, value: Val, value_range: TextRange, range: TextRange) -> LResult<()> {
        if let Some(parameter) = &tensor.input_of {
            // The caller's array may be read-only (bytes, a memmap) or a copy
            // the write would never reach: an input is never written.
            // Named as the store writes it (a helper's parameter, not the caller's tensor).
            let written = self.source().parsed_text.get(range.start().to_usize()..range.end().to_usize()).and_then(|t| t.split('[').next()).unwrap_or(&tensor.name);
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "cannot store into '{}': it is an input ({parameter}), which a kernel only reads; declare the parameter htp.InOut[...] to read and write it, or htp.Out[...] to only write it",
                written.trim()
            )));
        }
        let access = self.access(tensor, slice)?;
        let target = access.tile_ty(tensor.elem);
        let (tile, ty) = match value {
            Val::Tile(v, ty) => (v, ty),
            v if v.is_const() || matches!(v, Val::Scalar(..)) => {
                let full = TileTy::full(target.shape[0], target.shape[1], tensor.elem);
                let s = self.scalar_for(&v, ScalarTy::Elem(tensor.elem), value_range)?;
                (self.fill(s, &full, value_range)?, full)
            }
            other => {
                return Err(self.error(value_range, DiagnosticKind::Type, format!("cannot store {} into a tensor", other.describe())))
            }
        };
        if ty.shape != target.shape {
            return Err(self.error(value_range, DiagnosticKind::Shape, format!(
                "shape mismatch: storing a {} into a {}x{} slice of '{}'", ty, target.shape[0], target.shape[1], tensor.name
            )));
        }
        if ty.elem != tensor.elem {
            return Err(self.error(value_range, DiagnosticKind::Type, format!(
                "element type mismatch: storing a {} into the {} tensor '{}' (convert with htp.cast(t, htp.{}))",
                ty, tensor.elem, tensor.name, tensor.elem
            )));
        }
        let (tile, _) = self.narrow_to_slice(tile, ty, &target, &access.valid_values, value_range)?;
        let mut op = tile::StoreOperationBuilder::new(self.ctx, self.loc(range))
            .value(self.value(tile))
            .dest(self.value(tensor.value))
            .indices(&self.values(&access.indices));
        if let Some(strides) = self.strides_attr(range, access.strides)? {
            op = op.strides(strides);
        }
        let op = op.build();
        self.place(op);
        Ok(())
    }
}
