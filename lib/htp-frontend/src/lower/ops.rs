//! The `tile` operations and scalar arithmetic, with HTP's typing rules:
//! numpy-style implicit broadcasting of Rx1 / 1xC tiles, Python numbers
//! taking the type their context needs, and a diagnostic (never invalid IR)
//! when operands do not fit.

use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use htp_dialects::ods::tile;
use super::builder::OpSpec;
use super::types::{Elem, ScalarTy, TileTy, Valid};
use super::value::Val;
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

/// Elementwise binary operations (tile.* and arith.*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinKind {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    FloorDiv,
    Mod,
}

impl BinKind {
    pub fn symbol(self) -> &'static str {
        match self {
            BinKind::Add => "+",
            BinKind::Sub => "-",
            BinKind::Mul => "*",
            BinKind::Div => "/",
            BinKind::Max => "max",
            BinKind::Min => "min",
            BinKind::FloorDiv => "//",
            BinKind::Mod => "%",
        }
    }

    fn tile_op(self) -> Option<&'static str> {
        Some(match self {
            BinKind::Add => "tile.add",
            BinKind::Sub => "tile.sub",
            BinKind::Mul => "tile.mul",
            BinKind::Div => "tile.div",
            BinKind::Max => "tile.max",
            BinKind::Min => "tile.min",
            BinKind::FloorDiv | BinKind::Mod => return None,
        })
    }
}

/// Comparison predicates, in the order of the tile dialect's enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpKind {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpKind {
    fn tile_code(self) -> i64 {
        self as i64
    }
    /// `a op b` == `b swapped(op) a`.
    pub fn swapped(self) -> CmpKind {
        match self {
            CmpKind::Lt => CmpKind::Gt,
            CmpKind::Le => CmpKind::Ge,
            CmpKind::Gt => CmpKind::Lt,
            CmpKind::Ge => CmpKind::Le,
            k => k,
        }
    }
    pub fn eval<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpKind::Eq => a == b,
            CmpKind::Ne => a != b,
            CmpKind::Lt => a < b,
            CmpKind::Le => a <= b,
            CmpKind::Gt => a > b,
            CmpKind::Ge => a >= b,
        }
    }
    /// arith.cmpi predicate (signed).
    fn cmpi(self) -> i64 {
        match self {
            CmpKind::Eq => 0,
            CmpKind::Ne => 1,
            CmpKind::Lt => 2,
            CmpKind::Le => 3,
            CmpKind::Gt => 4,
            CmpKind::Ge => 5,
        }
    }
    /// arith.cmpf predicate (ordered; `ne` is unordered-or-not-equal like Python).
    fn cmpf(self) -> i64 {
        match self {
            CmpKind::Eq => 1,
            CmpKind::Gt => 2,
            CmpKind::Ge => 3,
            CmpKind::Lt => 4,
            CmpKind::Le => 5,
            CmpKind::Ne => 13,
        }
    }
}

/// Reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Max,
    Min,
}

impl ReduceKind {
    pub fn from_name(name: &str) -> Option<ReduceKind> {
        match name {
            "sum" => Some(ReduceKind::Sum),
            "max" => Some(ReduceKind::Max),
            "min" => Some(ReduceKind::Min),
            _ => None,
        }
    }
}

fn valid_text(v: Valid) -> String {
    match v {
        Valid::Static(n) => n.to_string(),
        Valid::Dynamic => "?".into(),
    }
}

impl<'c> Lowerer<'c, '_> {
    // ----- scalars -------------------------------------------------------

    /// `value` as a run-time scalar of type `ty`: Python numbers take `ty`;
    /// run-time scalars must already have it (index and integers convert).
    pub fn scalar_for(&self, value: &Val, ty: ScalarTy, range: TextRange) -> LResult<MlirValue> {
        match (value, ty) {
            (Val::Int(v), _) => {
                if ty == ScalarTy::Elem(Elem::I1) && !(*v == 0 || *v == 1) {
                    return Err(self.error(range, DiagnosticKind::Type, format!("the integer {v} is not a bool")));
                }
                self.scalar_const(range, *v as f64, Some(*v), ty)
            }
            (Val::Float(v), t) if t.is_float() => self.scalar_const(range, *v, None, ty),
            (Val::Float(_), _) => Err(self.error(range, DiagnosticKind::Type, format!(
                "a float constant cannot take the type {ty} (write an integer, or convert the other operand)"
            ))),
            (Val::Bool(b), ScalarTy::Elem(Elem::I1)) => self.scalar_const(range, 0.0, Some(*b as i64), ty),
            (Val::Scalar(v, have), _) if *have == ty => Ok(*v),
            (Val::Scalar(v, have), _) if have.is_integer() && ty.is_integer() && (*have == ScalarTy::Index || ty == ScalarTy::Index) => {
                let t = self.scalar_ty(range, ty)?;
                self.emit1(range, OpSpec::new("arith.index_cast", &[*v], &[t]))
            }
            (other, _) => Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch: expected a {ty} value, got {} (convert with htp.{ty}(x) or htp.cast)",
                other.describe()
            ))),
        }
    }

    pub fn to_index(&self, value: &Val, range: TextRange) -> LResult<MlirValue> {
        match value {
            Val::Int(_) | Val::Scalar(..) => self.scalar_for(value, ScalarTy::Index, range),
            other => Err(self.error(range, DiagnosticKind::Type, format!("expected an integer index, got {}", other.describe()))),
        }
    }

    /// The type two scalar operands meet at: a run-time operand's type wins
    /// over a Python number; index and integers meet at index.
    fn unify_scalars(&self, a: &Val, b: &Val, range: TextRange) -> LResult<ScalarTy> {
        match (a, b) {
            (Val::Scalar(_, x), Val::Scalar(_, y)) if x == y => Ok(*x),
            (Val::Scalar(_, x), Val::Scalar(_, y)) if x.is_integer() && y.is_integer() && (*x == ScalarTy::Index || *y == ScalarTy::Index) => {
                Ok(ScalarTy::Index)
            }
            (Val::Scalar(_, x), Val::Scalar(_, y)) => Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch: {x} and {y} scalars (convert one with htp.{x}(...) or htp.{y}(...))"
            ))),
            (Val::Scalar(_, x), _) | (_, Val::Scalar(_, x)) => Ok(*x),
            _ => Err(self.internal(range, "unify_scalars on constants")),
        }
    }

    pub fn scalar_binary(&self, kind: BinKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let ty = self.unify_scalars(a, b, range)?;
        let x = self.scalar_for(a, ty, range)?;
        let y = self.scalar_for(b, ty, range)?;
        let float = ty.is_float();
        if ty == ScalarTy::Elem(Elem::I1) {
            return Err(self.error(range, DiagnosticKind::Type, format!("'{}' needs numbers, got bools", kind.symbol())));
        }
        let name = match (kind, float) {
            (BinKind::Add, false) => "arith.addi",
            (BinKind::Add, true) => "arith.addf",
            (BinKind::Sub, false) => "arith.subi",
            (BinKind::Sub, true) => "arith.subf",
            (BinKind::Mul, false) => "arith.muli",
            (BinKind::Mul, true) => "arith.mulf",
            (BinKind::Div, true) => "arith.divf",
            (BinKind::Div, false) => {
                return Err(self.error(range, DiagnosticKind::Type, "'/' on integers: use '//' for integer division"))
            }
            (BinKind::FloorDiv, false) => "arith.floordivsi",
            (BinKind::Mod, false) => return self.python_mod(x, y, ty, range),
            (BinKind::FloorDiv | BinKind::Mod, true) => {
                return Err(self.error(range, DiagnosticKind::Type, format!("'{}' needs integers, got {ty}", kind.symbol())))
            }
            (BinKind::Max, false) => "arith.maxsi",
            (BinKind::Max, true) => "arith.maximumf",
            (BinKind::Min, false) => "arith.minsi",
            (BinKind::Min, true) => "arith.minimumf",
        };
        let t = self.scalar_ty(range, ty)?;
        Ok(Val::Scalar(self.emit1(range, OpSpec::new(name, &[x, y], &[t]))?, ty))
    }

    /// Python's `x % y` on integers: the remainder takes the divisor's sign
    /// (`-7 % 3 == 2`), where `arith.remsi` truncates (`-1`): the truncated
    /// remainder, plus `y` when it is non-zero and its sign differs from `y`'s.
    fn python_mod(&self, x: MlirValue, y: MlirValue, ty: ScalarTy, range: TextRange) -> LResult<Val> {
        let t = self.scalar_ty(range, ty)?;
        let i1 = self.ty(range, "i1")?;
        let remainder = self.emit1(range, OpSpec::new("arith.remsi", &[x, y], &[t]))?;
        let zero = self.scalar_const(range, 0.0, Some(0), ty)?;
        let cmp = |a: MlirValue, predicate: i64| self.emit1(range, OpSpec::new("arith.cmpi", &[a, zero], &[i1]).attr("predicate", self.i64_attr(predicate)));
        // arith.cmpi predicates: 1 = ne, 2 = slt.
        let non_zero = cmp(remainder, 1)?;
        let signs_differ = self.emit1(range, OpSpec::new("arith.xori", &[cmp(remainder, 2)?, cmp(y, 2)?], &[i1]))?;
        let adjust = self.emit1(range, OpSpec::new("arith.andi", &[non_zero, signs_differ], &[i1]))?;
        let adjusted = self.emit1(range, OpSpec::new("arith.addi", &[remainder, y], &[t]))?;
        Ok(Val::Scalar(self.emit1(range, OpSpec::new("arith.select", &[adjust, adjusted, remainder], &[t]))?, ty))
    }

    pub fn scalar_compare(&self, kind: CmpKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let ty = self.unify_scalars(a, b, range)?;
        let x = self.scalar_for(a, ty, range)?;
        let y = self.scalar_for(b, ty, range)?;
        let (name, pred) = if ty.is_float() { ("arith.cmpf", kind.cmpf()) } else { ("arith.cmpi", kind.cmpi()) };
        let i1 = self.ty(range, "i1")?;
        let v = self.emit1(range, OpSpec::new(name, &[x, y], &[i1]).attr("predicate", self.i64_attr(pred)))?;
        Ok(Val::Scalar(v, ScalarTy::Elem(Elem::I1)))
    }

    /// Converts a run-time scalar to another type (`htp.f32(x)` etc.).
    pub fn scalar_cast(&self, v: MlirValue, from: ScalarTy, to: ScalarTy, range: TextRange) -> LResult<MlirValue> {
        if from == to {
            return Ok(v);
        }
        let t = self.scalar_ty(range, to)?;
        let bits = |s: ScalarTy| match s {
            ScalarTy::Index => 64,
            ScalarTy::Elem(e) => e.bits(),
        };
        let name = match (from.is_float(), to.is_float()) {
            (false, false) if from == ScalarTy::Index || to == ScalarTy::Index => "arith.index_cast",
            (false, false) if bits(to) > bits(from) => "arith.extsi",
            (false, false) => "arith.trunci",
            (false, true) if from == ScalarTy::Index => {
                let i64t = ScalarTy::Elem(Elem::I64);
                let as_int = self.scalar_cast(v, from, i64t, range)?;
                return self.scalar_cast(as_int, i64t, to, range);
            }
            (false, true) => "arith.sitofp",
            (true, false) if to == ScalarTy::Index => {
                let i64t = ScalarTy::Elem(Elem::I64);
                let as_int = self.scalar_cast(v, from, i64t, range)?;
                return self.scalar_cast(as_int, i64t, to, range);
            }
            (true, false) => "arith.fptosi",
            (true, true) if bits(to) > bits(from) || (bits(to) == bits(from)) => "arith.extf",
            (true, true) => "arith.truncf",
        };
        if from.is_float() && to.is_float() && bits(to) == bits(from) {
            // f16 <-> bf16: through f32.
            let f32t = ScalarTy::Elem(Elem::F32);
            let wide = self.scalar_cast(v, from, f32t, range)?;
            return self.scalar_cast(wide, f32t, to, range);
        }
        self.emit1(range, OpSpec::new(name, &[v], &[t]))
    }

    // ----- tile creation -------------------------------------------------

    pub fn fill(&self, scalar: MlirValue, ty: &TileTy, range: TextRange) -> LResult<MlirValue> {
        let t = self.tile_ty(range, ty)?;
        self.place1(range, tile::FillOperationBuilder::new(self.ctx, self.loc(range)).value(self.value(scalar)).result(t).build())
    }

    /// `tile.constant` of a Python number.
    pub fn tile_const(&self, value: &Val, ty: &TileTy, range: TextRange) -> LResult<MlirValue> {
        let scalar_ty = ScalarTy::Elem(ty.elem);
        let attr = match value {
            Val::Int(v) if ty.elem == Elem::I1 && !(*v == 0 || *v == 1) => {
                return Err(self.error(range, DiagnosticKind::Type, format!("the integer {v} is not a bool")))
            }
            Val::Int(v) => self.number_attr(range, *v as f64, Some(*v), scalar_ty)?,
            Val::Float(v) if ty.elem.is_float() => self.number_attr(range, *v, None, scalar_ty)?,
            Val::Bool(b) if ty.elem == Elem::I1 => self.number_attr(range, 0.0, Some(*b as i64), scalar_ty)?,
            other => {
                return Err(self.error(range, DiagnosticKind::Type, format!("{} cannot fill a {} tile", other.describe(), ty.elem)))
            }
        };
        let t = self.tile_ty(range, ty)?;
        self.place1(range, tile::ConstantOperationBuilder::new(self.ctx, self.loc(range)).value(attr).result(t).build())
    }

    /// A tile of type `ty` holding `value` (a constant or a scalar).
    pub fn splat(&self, value: &Val, ty: &TileTy, range: TextRange) -> LResult<MlirValue> {
        self.splat_like(value, ty, None, range)
    }

    /// A tile of type `ty` filled with `value`. A ragged `ty` takes its
    /// run-time valid sizes from `like` (a tile of the same valid region):
    /// a full tile narrowed with `tile.set_valid`.
    pub fn splat_like(&self, value: &Val, ty: &TileTy, like: Option<MlirValue>, range: TextRange) -> LResult<MlirValue> {
        if !ty.is_full() {
            let full = TileTy { valid: [Valid::Static(ty.shape[0]), Valid::Static(ty.shape[1])], ..*ty };
            let sizes = match like {
                _ if !ty.valid.iter().any(|v| matches!(v, Valid::Dynamic)) => Some(Vec::new()),
                Some(like) => htp_dialects::tile::dynamic_valid_sizes(like),
                None => None,
            };
            let Some(sizes) = sizes else {
                return Err(self.error(range, DiagnosticKind::Shape, format!(
                    "cannot make a {ty} from a scalar: tiles made from scalars are full, and this one has a run-time valid region"
                )));
            };
            let tile = self.splat_like(value, &full, None, range)?;
            let result = self.tile_ty(range, ty)?;
            let op = tile::SetValidOperationBuilder::new(self.ctx, self.loc(range))
                .input(self.value(tile))
                .valid_sizes(&self.values(&sizes))
                .result(result)
                .build();
            return self.place1(range, op);
        }
        if value.is_const() {
            self.tile_const(value, ty, range)
        } else {
            let s = self.scalar_for(value, ScalarTy::Elem(ty.elem), range)?;
            self.fill(s, ty, range)
        }
    }

    // ----- broadcasting --------------------------------------------------

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
        // A size-1 dimension broadcast along a ragged one would need a
        // run-time valid size that tile.broadcast cannot take.
        for d in 0..2 {
            for (x, y) in [(ta, tb), (tb, ta)] {
                if x.shape[d] == 1 && y.shape[d] != 1 && y.valid[d] == Valid::Dynamic {
                    return Err(self.error(range, DiagnosticKind::Shape, format!(
                        "shape mismatch in '{what}': cannot broadcast the {x} along dimension {d} of the {y}, whose valid size is only known at run time; \
                         compute the broadcast operand from the same ragged tile, or use blocks that divide the dimension"
                    )));
                }
            }
        }
        let a = self.broadcast_to(a.0, ta, shape, range)?;
        let b = self.broadcast_to(b.0, tb, shape, range)?;
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

    /// `v` with `layout` (`tile.relayout`), unless it has it already.
    pub fn relayout_to(&self, (v, t): (MlirValue, TileTy), layout: Option<&'static str>, range: TextRange) -> LResult<(MlirValue, TileTy)> {
        if t.layout == layout {
            return Ok((v, t));
        }
        let r = TileTy { layout, ..t };
        let rt = self.tile_ty(range, &r)?;
        Ok((self.place1(range, tile::RelayoutOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(v)).result(rt).build())?, r))
    }

    fn check_same_elem(&self, a: &TileTy, b: &TileTy, what: &str, range: TextRange) -> LResult<()> {
        if a.elem != b.elem {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch in '{what}': {a} and {b} (convert one with htp.cast(t, htp.{}))", a.elem
            )));
        }
        Ok(())
    }

    // ----- elementwise ---------------------------------------------------

    /// `a <op> b` where at least one side is a tile.
    pub fn tile_binary(&self, kind: BinKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let Some(op) = kind.tile_op() else {
            return Err(self.error(range, DiagnosticKind::Unsupported, format!("'{}' is not defined on tiles", kind.symbol())));
        };
        match (a, b) {
            (Val::Tile(x, tx), Val::Tile(y, ty)) => {
                self.check_same_elem(tx, ty, kind.symbol(), range)?;
                self.check_numeric(tx, kind.symbol(), range)?;
                let ((x, t), (y, _)) = self.broadcast_pair((*x, *tx), (*y, *ty), kind.symbol(), range)?;
                let rt = self.tile_ty(range, &t)?;
                Ok(Val::Tile(self.emit1(range, OpSpec::new(op, &[x, y], &[rt]))?, t))
            }
            (Val::Tile(x, t), s) => {
                self.check_numeric(t, kind.symbol(), range)?;
                let s = self.scalar_for(s, ScalarTy::Elem(t.elem), range)?;
                let rt = self.tile_ty(range, t)?;
                Ok(Val::Tile(self.emit1(range, OpSpec::new(op, &[*x, s], &[rt]))?, *t))
            }
            (s, Val::Tile(x, t)) => match kind {
                BinKind::Add | BinKind::Mul | BinKind::Max | BinKind::Min => self.tile_binary(kind, b, a, range),
                // s - t == (-t) + s keeps t's valid region.
                BinKind::Sub => {
                    let neg = self.unary("neg", &Val::Tile(*x, *t), range)?;
                    self.tile_binary(BinKind::Add, &neg, s, range)
                }
                // s / t == recip(t) * s for floats.
                BinKind::Div if t.elem.is_float() => {
                    let r = self.unary("recip", &Val::Tile(*x, *t), range)?;
                    if matches!(s, Val::Int(1)) || matches!(s, Val::Float(f) if *f == 1.0) {
                        return Ok(r);
                    }
                    self.tile_binary(BinKind::Mul, &r, s, range)
                }
                _ => {
                    let lhs = self.splat_like(s, t, Some(*x), range)?;
                    self.tile_binary(kind, &Val::Tile(lhs, *t), b, range)
                }
            },
            _ => Err(self.internal(range, "tile_binary without a tile")),
        }
    }

    fn check_numeric(&self, t: &TileTy, what: &str, range: TextRange) -> LResult<()> {
        if t.elem == Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "'{what}' needs numeric tiles, got a {t} (use htp.where to combine masks)"
            )));
        }
        Ok(())
    }

    /// exp, log, sqrt, rsqrt, recip (float only); abs, neg, relu.
    pub fn unary(&self, name: &str, v: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.{name} needs a tile, got {}", v.describe())));
        };
        let float_only = matches!(name, "exp" | "log" | "sqrt" | "rsqrt" | "recip");
        if float_only && !t.elem.is_float() {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "htp.{name} needs a floating-point tile, got a {t} (convert with htp.cast(t, htp.f32))"
            )));
        }
        self.check_numeric(t, name, range)?;
        let rt = self.tile_ty(range, t)?;
        Ok(Val::Tile(self.emit1(range, OpSpec::new(&format!("tile.{name}"), &[*x], &[rt]))?, *t))
    }

    // ----- reductions, matmul, layout ------------------------------------

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

    /// `a @ b`, optionally `+ acc` (fused into one tile.matmul when `acc`
    /// has the product's type), with the result element type `out`, or
    /// acc's, or the widened input type.
    pub fn matmul(&self, a: &Val, b: &Val, acc: Option<&Val>, out: Option<Elem>, range: TextRange) -> LResult<Val> {
        let (Val::Tile(x, ta), Val::Tile(y, tb)) = (a, b) else {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "matmul needs two tiles, got {} and {}", a.describe(), b.describe()
            )));
        };
        if ta.elem != tb.elem {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "element type mismatch in '@': {ta} and {tb} (both operands need the same element type)"
            )));
        }
        if ta.shape[1] != tb.shape[0] {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "shape mismatch in '@': {ta} has {} columns but {tb} has {} rows", ta.shape[1], tb.shape[0]
            )));
        }
        if ta.valid[1] != tb.valid[0] {
            return Err(self.error(range, DiagnosticKind::Shape, format!(
                "shape mismatch in '@': the valid columns of {ta} and the valid rows of {tb} differ"
            )));
        }
        let acc_elem = match acc {
            Some(Val::Tile(_, t)) => Some(t.elem),
            _ => None,
        };
        let elem = match out.or(acc_elem) {
            Some(e) => e,
            None => match ta.elem {
                Elem::F16 | Elem::BF16 | Elem::F32 => Elem::F32,
                Elem::I8 => Elem::I32,
                e => e,
            },
        };
        let supported = match ta.elem {
            Elem::F16 => matches!(elem, Elem::F32 | Elem::F16),
            Elem::BF16 | Elem::F32 => elem == Elem::F32,
            Elem::I8 => elem == Elem::I32,
            _ => false,
        };
        if !supported {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "matmul of {} tiles into {elem} is not supported (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)",
                ta.elem
            )));
        }
        let result = TileTy { shape: [ta.shape[0], tb.shape[1]], elem, valid: [ta.valid[0], tb.valid[1]], layout: None };
        let rt = self.tile_ty(range, &result)?;
        match acc {
            Some(Val::Tile(c, tc)) if *tc == result => {
                Ok(Val::Tile(self.place1(range, self.matmul_op(range, *x, *y, Some(*c), rt))?, result))
            }
            Some(other) => {
                let product = Val::Tile(self.place1(range, self.matmul_op(range, *x, *y, None, rt))?, result);
                self.binary(BinKind::Add, other, &product, range)
            }
            None => Ok(Val::Tile(self.place1(range, self.matmul_op(range, *x, *y, None, rt))?, result)),
        }
    }

    pub fn transpose(&self, v: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(x, t) = v else {
            return Err(self.error(range, DiagnosticKind::Type, format!("transpose needs a tile, got {}", v.describe())));
        };
        let r = TileTy { shape: [t.shape[1], t.shape[0]], elem: t.elem, valid: [t.valid[1], t.valid[0]], layout: None };
        let rt = self.tile_ty(range, &r)?;
        Ok(Val::Tile(self.place1(range, tile::TransposeOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(*x)).result(rt).build())?, r))
    }

    pub fn cast(&self, v: &Val, elem: Elem, range: TextRange) -> LResult<Val> {
        match v {
            Val::Tile(x, t) => {
                if t.elem == elem {
                    return Ok(v.clone());
                }
                let r = t.with_elem(elem);
                let rt = self.tile_ty(range, &r)?;
                Ok(Val::Tile(self.place1(range, tile::CastOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(*x)).result(rt).build())?, r))
            }
            Val::Scalar(x, t) => Ok(Val::Scalar(self.scalar_cast(*x, *t, ScalarTy::Elem(elem), range)?, ScalarTy::Elem(elem))),
            Val::Int(i) if elem.is_float() => Ok(Val::Float(*i as f64)),
            Val::Int(i) if elem == Elem::I1 => Ok(Val::Bool(*i != 0)),
            Val::Int(_) => Ok(v.clone()),
            Val::Float(f) if elem.is_int() && elem != Elem::I1 => Ok(Val::Int(f.trunc() as i64)),
            Val::Float(_) => Ok(v.clone()),
            Val::Bool(b) if elem == Elem::I1 => Ok(Val::Bool(*b)),
            Val::Bool(b) => Ok(if elem.is_float() { Val::Float(*b as i64 as f64) } else { Val::Int(*b as i64) }),
            other => Err(self.error(range, DiagnosticKind::Type, format!("cannot convert {} to {elem}", other.describe()))),
        }
    }

    /// Comparison where at least one side is a tile: an i1 mask tile.
    pub fn tile_compare(&self, kind: CmpKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        // tile.cmp's predicate is an i32 enum attribute.
        let code = self.i32_attr(kind.tile_code());
        match (a, b) {
            (Val::Tile(x, tx), Val::Tile(y, ty)) => {
                self.check_same_elem(tx, ty, "comparison", range)?;
                let ((x, t), (y, _)) = self.broadcast_pair((*x, *tx), (*y, *ty), "comparison", range)?;
                let m = t.with_elem(Elem::I1);
                let mt = self.tile_ty(range, &m)?;
                Ok(Val::Tile(self.place1(range, self.compare_op(range, code, x, y, mt))?, m))
            }
            (Val::Tile(x, t), s) => {
                let s = self.scalar_for(s, ScalarTy::Elem(t.elem), range)?;
                let m = t.with_elem(Elem::I1);
                let mt = self.tile_ty(range, &m)?;
                Ok(Val::Tile(self.place1(range, self.compare_op(range, code, *x, s, mt))?, m))
            }
            (_, Val::Tile(..)) => self.tile_compare(kind.swapped(), b, a, range),
            _ => Err(self.internal(range, "tile_compare without a tile")),
        }
    }

    /// `htp.where(mask, a, b)`: a and b are tiles (broadcast to the mask's
    /// shape) or scalars (filled).
    pub fn select(&self, mask: &Val, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        let Val::Tile(m, mt) = mask else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.where needs a mask tile first, got {}", mask.describe())));
        };
        if mt.elem != Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, format!(
                "htp.where needs a bool mask tile (from a comparison), got a {mt}"
            )));
        }
        let elem = match (a, b) {
            (Val::Tile(_, t), _) | (_, Val::Tile(_, t)) => t.elem,
            (Val::Scalar(_, ScalarTy::Elem(e)), _) | (_, Val::Scalar(_, ScalarTy::Elem(e))) => *e,
            (Val::Float(_), _) | (_, Val::Float(_)) => Elem::F32,
            (Val::Bool(_), Val::Bool(_)) => Elem::I1,
            _ => Elem::I32,
        };
        // The mask broadcasts too: `where(t[:, 0:1] > 0, t, u)` selects whole rows.
        let (mut m, mut mt) = (m, mt);
        let (mut m_owned, mut mt_owned) = (*m, *mt);
        for v in [a, b] {
            if let Val::Tile(x, t) = v {
                let (_, (m2, mt2)) = self.broadcast_pair((*x, *t), (m_owned, mt_owned), "where", range)?;
                m_owned = m2;
                mt_owned = mt2;
            }
        }
        // A mask has no layout (tile.select: the result's type with i1 elements).
        (m_owned, mt_owned) = self.relayout_to((m_owned, mt_owned), None, range)?;
        m = &m_owned;
        mt = &mt_owned;
        // Tile operands broadcast to the mask's shape first; the result is
        // laid out as the first of them then is (the other is relaid to
        // it); the mask's own layout does not matter.
        let mut tiles = Vec::new();
        for v in [a, b] {
            tiles.push(match v {
                Val::Tile(x, t) => {
                    if t.elem != elem {
                        return Err(self.error(range, DiagnosticKind::Type, format!(
                            "element type mismatch in htp.where: {t} where {elem} is expected"
                        )));
                    }
                    Some(self.broadcast_pair((*x, *t), (*m, *mt), "where", range)?.0)
                }
                _ => None,
            });
        }
        let layout = tiles.iter().flatten().map(|(_, t)| t.layout).next().flatten();
        let target = TileTy { layout, ..mt.with_elem(elem) };
        let mut operands = Vec::new();
        for (v, tile) in [a, b].into_iter().zip(tiles) {
            operands.push(match tile {
                Some(tile) => self.relayout_to(tile, layout, range)?.0,
                None => self.splat_like(v, &target, Some(*m), range)?,
            });
        }
        let rt = self.tile_ty(range, &target)?;
        let op = tile::SelectOperationBuilder::new(self.ctx, self.loc(range))
            .mask(self.value(*m))
            .true_value(self.value(operands[0]))
            .false_value(self.value(operands[1]))
            .result(rt)
            .build();
        Ok(Val::Tile(self.place1(range, op)?, target))
    }

    pub fn iota(&self, rows: i64, cols: i64, dim: i64, elem: Elem, range: TextRange) -> LResult<Val> {
        if elem == Elem::I1 {
            return Err(self.error(range, DiagnosticKind::Type, "htp.iota needs a numeric element type"));
        }
        let t = TileTy::full(rows, cols, elem);
        let largest = if dim == 0 { rows - 1 } else { cols - 1 };
        let fits = match elem {
            Elem::I8 => largest <= i8::MAX as i64,
            Elem::I16 => largest <= i16::MAX as i64,
            Elem::F16 => largest <= 2048,
            Elem::BF16 => largest <= 256,
            _ => true,
        };
        if !fits {
            return Err(self.error(range, DiagnosticKind::Type, format!("index {largest} does not fit {elem} exactly")));
        }
        let rt = self.tile_ty(range, &t)?;
        let dimension = melior::ir::attribute::IntegerAttribute::try_from(self.i64_attr(dim)).map_err(|_| self.internal(range, "an i64 attribute"))?;
        Ok(Val::Tile(self.place1(range, tile::IotaOperationBuilder::new(self.ctx, self.loc(range)).dimension(dimension).result(rt).build())?, t))
    }

    /// Any binary operation: constants fold, scalars use arith, tiles use tile.
    pub fn binary(&self, kind: BinKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        if let Some(v) = fold_binary(kind, a, b) {
            return v.map_err(|m| self.error(range, DiagnosticKind::Invalid, m));
        }
        match (a, b) {
            (Val::Tile(..), _) | (_, Val::Tile(..)) => {
                let other = if matches!(a, Val::Tile(..)) { b } else { a };
                if !(other.is_const() || matches!(other, Val::Scalar(..) | Val::Tile(..))) {
                    return Err(self.error(range, DiagnosticKind::Type, format!(
                        "'{}' between a tile and {}", kind.symbol(), other.describe()
                    )));
                }
                self.tile_binary(kind, a, b, range)
            }
            (Val::Scalar(..), _) | (_, Val::Scalar(..))
                if (a.is_const() || matches!(a, Val::Scalar(..))) && (b.is_const() || matches!(b, Val::Scalar(..))) =>
            {
                self.scalar_binary(kind, a, b, range)
            }
            _ => Err(self.error(range, DiagnosticKind::Type, format!(
                "'{}' is not defined between {} and {}", kind.symbol(), a.describe(), b.describe()
            ))),
        }
    }

    pub fn compare(&self, kind: CmpKind, a: &Val, b: &Val, range: TextRange) -> LResult<Val> {
        match (a, b) {
            (Val::Int(x), Val::Int(y)) => Ok(Val::Bool(kind.eval(x, y))),
            (Val::Int(_) | Val::Float(_), Val::Int(_) | Val::Float(_)) => Ok(Val::Bool(kind.eval(as_f64(a), as_f64(b)))),
            (Val::Bool(x), Val::Bool(y)) if matches!(kind, CmpKind::Eq | CmpKind::Ne) => Ok(Val::Bool(kind.eval(x, y))),
            (Val::Tile(..), _) | (_, Val::Tile(..)) => self.tile_compare(kind, a, b, range),
            (Val::Scalar(..), _) | (_, Val::Scalar(..))
                if (a.is_const() || matches!(a, Val::Scalar(..))) && (b.is_const() || matches!(b, Val::Scalar(..))) =>
            {
                self.scalar_compare(kind, a, b, range)
            }
            _ => Err(self.error(range, DiagnosticKind::Type, format!(
                "cannot compare {} and {}", a.describe(), b.describe()
            ))),
        }
    }
}

fn as_f64(v: &Val) -> f64 {
    match v {
        Val::Int(i) => *i as f64,
        Val::Float(f) => *f,
        Val::Bool(b) => *b as i64 as f64,
        _ => 0.0,
    }
}

/// Python arithmetic on compile-time numbers (None when an operand is not
/// a number; Err for division by zero or overflow).
pub fn fold_binary(kind: BinKind, a: &Val, b: &Val) -> Option<Result<Val, String>> {
    let ints = match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some((*x, *y)),
        _ => None,
    };
    if !(matches!(a, Val::Int(_) | Val::Float(_)) && matches!(b, Val::Int(_) | Val::Float(_))) {
        return None;
    }
    let overflow = || "integer overflow in a compile-time constant".to_string();
    Some(match (kind, ints) {
        (BinKind::Add, Some((x, y))) => x.checked_add(y).map(Val::Int).ok_or_else(overflow),
        (BinKind::Sub, Some((x, y))) => x.checked_sub(y).map(Val::Int).ok_or_else(overflow),
        (BinKind::Mul, Some((x, y))) => x.checked_mul(y).map(Val::Int).ok_or_else(overflow),
        (BinKind::Max, Some((x, y))) => Ok(Val::Int(x.max(y))),
        (BinKind::Min, Some((x, y))) => Ok(Val::Int(x.min(y))),
        (BinKind::FloorDiv | BinKind::Mod, Some((_, 0))) | (BinKind::Div, Some((_, 0))) => Err("division by zero in a compile-time constant".into()),
        // i64::MIN // -1 (and its remainder) overflows.
        (BinKind::FloorDiv | BinKind::Mod, Some((x, -1))) if x == i64::MIN => Err(overflow()),
        (BinKind::FloorDiv, Some((x, y))) => Ok(Val::Int(x.div_euclid(y) - if (x.rem_euclid(y) != 0) && y < 0 { 1 } else { 0 })),
        (BinKind::Mod, Some((x, y))) => Ok(Val::Int(x - y * (x.div_euclid(y) - if (x.rem_euclid(y) != 0) && y < 0 { 1 } else { 0 }))),
        (_, _) => {
            let (x, y) = (as_f64(a), as_f64(b));
            match kind {
                BinKind::Add => Ok(Val::Float(x + y)),
                BinKind::Sub => Ok(Val::Float(x - y)),
                BinKind::Mul => Ok(Val::Float(x * y)),
                BinKind::Div if y == 0.0 => Err("division by zero in a compile-time constant".into()),
                BinKind::Div => Ok(Val::Float(x / y)),
                BinKind::Max => Ok(Val::Float(x.max(y))),
                BinKind::Min => Ok(Val::Float(x.min(y))),
                BinKind::FloorDiv if y == 0.0 => Err("division by zero in a compile-time constant".into()),
                BinKind::FloorDiv => Ok(Val::Float((x / y).floor())),
                BinKind::Mod if y == 0.0 => Err("division by zero in a compile-time constant".into()),
                BinKind::Mod => Ok(Val::Float(x - y * (x / y).floor())),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: &Option<Result<Val, String>>) -> i64 {
        match v {
            Some(Ok(Val::Int(i))) => *i,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn folds_like_python() {
        assert_eq!(int(&fold_binary(BinKind::FloorDiv, &Val::Int(-7), &Val::Int(2))), -4);
        assert_eq!(int(&fold_binary(BinKind::Mod, &Val::Int(-7), &Val::Int(2))), 1);
        assert_eq!(int(&fold_binary(BinKind::FloorDiv, &Val::Int(7), &Val::Int(-2))), -4);
        assert_eq!(int(&fold_binary(BinKind::Mod, &Val::Int(7), &Val::Int(-2))), -1);
        assert!(matches!(fold_binary(BinKind::Div, &Val::Int(7), &Val::Int(2)), Some(Ok(Val::Float(f))) if f == 3.5));
        assert!(matches!(fold_binary(BinKind::Mod, &Val::Int(1), &Val::Int(0)), Some(Err(_))));
        assert!(matches!(fold_binary(BinKind::Mul, &Val::Int(i64::MAX), &Val::Int(2)), Some(Err(_))));
    }
}

impl<'c> Lowerer<'c, '_> {
    /// `tile.matmul lhs, rhs[, acc]`.
    fn matmul_op(&self, range: TextRange, lhs: MlirValue, rhs: MlirValue, acc: Option<MlirValue>, result: melior::ir::Type<'c>) -> tile::MatmulOperation<'c> {
        let builder = tile::MatmulOperationBuilder::new(self.ctx, self.loc(range)).lhs(self.value(lhs)).rhs(self.value(rhs));
        match acc {
            Some(acc) => builder.acc(self.value(acc)).result(result).build(),
            None => builder.result(result).build(),
        }
    }

    /// `tile.cmp <predicate> lhs, rhs` (rhs a tile or a scalar).
    fn compare_op(&self, range: TextRange, predicate: melior::ir::Attribute<'c>, lhs: MlirValue, rhs: MlirValue, mask: melior::ir::Type<'c>) -> tile::CmpOperation<'c> {
        tile::CmpOperationBuilder::new(self.ctx, self.loc(range))
            .predicate(predicate)
            .lhs(self.value(lhs))
            .rhs(self.value(rhs))
            .result(mask)
            .build()
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
