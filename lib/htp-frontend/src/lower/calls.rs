//! Calls: the `htp` functions (one per tile operation, plus constructors
//! and conversions), methods of values, and calls of other kernels, which
//! are inlined.

use ruff_python_ast::{Expr, ExprCall};
use ruff_text_size::{Ranged, TextRange};

use htp_dialects::ods::tile;
use super::intrinsic::Namespace;
use super::ops::{BinKind, ReduceKind};
use super::types::{Elem, ScalarTy, TileTy};
use super::value::{DimV, Val};
use super::{literal_const, const_val, Env, LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;
use crate::parse::KernelDef;
use crate::signature::{parse_annotation, AnnotatedDim, Annotation};

/// Evaluated arguments of a call.
struct Args {
    positional: Vec<(Val, TextRange)>,
    keywords: Vec<(String, Val, TextRange)>,
}

/// Every function a kernel can call (besides other kernels), for the
/// "unknown function" message and the docs test.
pub const BUILTIN_FUNCTIONS: &[&str] = &[
    "exp", "log", "sqrt", "rsqrt", "recip", "abs", "neg", "relu", "add", "sub", "mul", "div", "maximum", "minimum", "max",
    "min", "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min", "row_reduce", "col_reduce", "broadcast",
    "matmul", "dot", "cast", "transpose", "relayout", "where", "select", "full", "zeros", "ones", "full_like", "zeros_like", "ones_like", "iota", "gather", "pad", "float", "int",
    "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "bool", "sigmoid", "silu", "gelu", "tanh", "erf", "softplus",
    "row_argmax", "row_argmin", "argmax", "argmin", "sort", "argsort", "topk", "scatter",
    "concat", "concatenate", "reshape",
];

impl<'c> Lowerer<'c, '_> {
    fn eval_args(&mut self, call: &ExprCall) -> LResult<Args> {
        let mut positional = Vec::new();
        for a in call.arguments.args.iter() {
            if let Expr::Starred(_) = a {
                return Err(self.unsupported(a.range(), "*args in a call"));
            }
            positional.push((self.lower_expr(a)?, a.range()));
        }
        let mut keywords = Vec::new();
        for k in call.arguments.keywords.iter() {
            let Some(name) = &k.arg else {
                return Err(self.unsupported(k.range, "**kwargs in a call"));
            };
            keywords.push((name.id.to_string(), self.lower_expr(&k.value)?, k.range));
        }
        Ok(Args { positional, keywords })
    }

    /// Matches `args` to `params` (names, in order); `required` leading
    /// ones must be given. Returns one slot per parameter.
    /// The arguments of `full`/`zeros`/`ones` and their `_like` forms: `[first, dtype]` (`first`
    /// the shape or the tile) and the value — `full`'s argument, else 0 or 1.
    fn fill_arguments(&self, name: &str, args: Args, first: &str, range: TextRange) -> LResult<(Vec<Option<(Val, TextRange)>>, Val)> {
        if name.starts_with("full") {
            let s = self.bind(name, args, &[first, "value", "dtype"], 2, range)?;
            let value = s[1].as_ref().map(|x| x.0.clone()).unwrap_or(Val::NoneV);
            return Ok((vec![s[0].clone(), s[2].clone()], value));
        }
        let s = self.bind(name, args, &[first, "dtype"], 1, range)?;
        Ok((s, Val::Int(i64::from(name.starts_with("ones")))))
    }

    fn bind(&self, fname: &str, args: Args, params: &[&str], required: usize, range: TextRange) -> LResult<Vec<Option<(Val, TextRange)>>> {
        if args.positional.len() > params.len() {
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "{fname}() takes at most {} arguments, got {}", params.len(), args.positional.len()
            )));
        }
        let mut slots: Vec<Option<(Val, TextRange)>> = vec![None; params.len()];
        for (i, a) in args.positional.into_iter().enumerate() {
            slots[i] = Some(a);
        }
        for (name, v, r) in args.keywords {
            let Some(i) = params.iter().position(|p| *p == name) else {
                return Err(self.error(r, DiagnosticKind::Invalid, format!("{fname}() has no parameter '{name}'")));
            };
            if slots[i].is_some() {
                return Err(self.error(r, DiagnosticKind::Invalid, format!("{fname}() got '{name}' twice")));
            }
            slots[i] = Some((v, r));
        }
        if let Some(i) = slots[..required].iter().position(Option::is_none) {
            return Err(self.error(range, DiagnosticKind::Invalid, format!("{fname}() is missing the argument '{}'", params[i])));
        }
        Ok(slots)
    }

    pub fn lower_call(&mut self, call: &ExprCall) -> LResult<Val> {
        let range = call.range();
        match &*call.func {
            Expr::Name(n) => {
                let name = n.id.as_str();
                if let Some(v) = self.env.get(name) {
                    return Err(self.error(n.range, DiagnosticKind::Type, format!("'{name}' is {}, not a function", v.describe())));
                }
                let own = self.callee_alias(name);
                if let Some(kernel) = self.program.kernel(own.as_deref().unwrap_or(name)) {
                    let args = self.eval_args(call)?;
                    return self.inline_call(kernel, args, range);
                }
                let args = self.eval_args(call)?;
                self.builtin(name, args, n.range, range)
            }
            Expr::Attribute(a) => {
                let attr = a.attr.id.as_str();
                let module = match &*a.value {
                    Expr::Name(m) if !self.env.contains_key(m.id.as_str()) => Some(self.namespace(m.id.as_str(), m.range)?),
                    _ => None,
                };
                if let Some(Namespace::Math) = module {
                    return Err(self.error(a.range, DiagnosticKind::UnknownName, format!(
                        "math.{attr}() runs in Python, not in kernels: use htp.{attr} where it exists"
                    )));
                }
                if let Some(Namespace::Intrinsics(set)) = module {
                    // An intrinsic with effects takes tensor blocks as they are written (not loaded).
                    if let Some(intrinsic) = set.get(attr).filter(|i| matches!(i.shape, htp_api::intrinsics::IntrinsicShape::Effect { .. })) {
                        return self.effect_intrinsic(set, intrinsic, call, range);
                    }
                    let args = self.eval_args(call)?;
                    let keywords = args.keywords.len();
                    return self.intrinsic(set, attr, args.positional, keywords, a.range, range);
                }
                if let Some(Namespace::Model(model)) = module {
                    return self.construct(model, attr, call, a.range, range);
                }
                if let Some(Namespace::Helpers(set)) = &module {
                    let Some(helper) = self.program.kernel(attr) else {
                        return Err(self.error(a.range, DiagnosticKind::UnknownName, format!("the intrinsic set '{set}' has no function '{attr}'")));
                    };
                    let args = self.eval_args(call)?;
                    return self.inline_call(helper, args, range);
                }
                if module.is_some() {
                    if !BUILTIN_FUNCTIONS.contains(&attr) {
                        if let Some(kernel) = self.program.kernel(attr) {
                            let args = self.eval_args(call)?;
                            return self.inline_call(kernel, args, range);
                        }
                    }
                    let args = self.eval_args(call)?;
                    return self.builtin(attr, args, a.range, range);
                }
                let receiver = self.lower_expr(&a.value)?;
                let args = self.eval_args(call)?;
                match (attr, &receiver) {
                    ("astype", Val::Tile(..) | Val::Scalar(..)) => {
                        let s = self.bind("astype", args, &["dtype"], 1, range)?;
                        let elem = self.dtype_arg(&s[0], range)?;
                        self.cast(&receiver, elem, range)
                    }
                    // `t.reshape(rows, cols)` or `t.reshape((rows, cols))`, as numpy takes both.
                    ("reshape", Val::Tile(..)) => match args.positional.as_slice() {
                        [(Val::Tuple(shape), r)] if args.keywords.is_empty() => self.reshape(&receiver, shape, *r, range),
                        [(rows, r0), (cols, r1)] if args.keywords.is_empty() => self.reshape(&receiver, &[rows.clone(), cols.clone()], r0.cover(*r1), range),
                        _ => Err(self.error(range, DiagnosticKind::Invalid, "t.reshape() takes the new shape: t.reshape(rows, cols) or t.reshape((rows, cols))")),
                    },
                    _ => Err(self.error(a.range, DiagnosticKind::UnknownName, format!("{} has no method '{attr}'", receiver.describe()))),
                }
            }
            other => Err(self.unsupported(other.range(), "calling this expression")),
        }
    }

    fn dtype_arg(&self, slot: &Option<(Val, TextRange)>, range: TextRange) -> LResult<Elem> {
        match slot {
            Some((Val::DType(e), _)) => Ok(*e),
            Some((other, r)) => Err(self.error(*r, DiagnosticKind::Type, format!("expected an element type (htp.f32, ...), got {}", other.describe()))),
            None => Err(self.internal(range, "missing dtype")),
        }
    }

    fn int_arg(&self, slot: &Option<(Val, TextRange)>, what: &str, range: TextRange) -> LResult<i64> {
        match slot {
            Some((Val::Int(v), _)) => Ok(*v),
            Some((other, r)) => Err(self.error(*r, DiagnosticKind::Type, format!("{what} must be a compile-time integer, got {}", other.describe()))),
            None => Err(self.internal(range, format!("missing {what}"))),
        }
    }

    /// A `(rows, cols)` tile shape of compile-time positive integers.
    fn shape_arg(&self, slot: &Option<(Val, TextRange)>, range: TextRange) -> LResult<[i64; 2]> {
        match slot {
            Some((Val::Tuple(items), r)) => match items.as_slice() {
                [Val::Int(a), Val::Int(b)] if *a > 0 && *b > 0 => Ok([*a, *b]),
                _ => Err(self.error(*r, DiagnosticKind::Shape, "a tile shape is (rows, cols) with two positive compile-time integers")),
            },
            Some((other, r)) => Err(self.error(*r, DiagnosticKind::Shape, format!(
                "a tile shape is (rows, cols) with two positive compile-time integers, got {}", other.describe()
            ))),
            None => Err(self.internal(range, "missing shape")),
        }
    }

    /// A selection along rows: `axis` must be given and be 1 (or -1).
    fn row_axis(&self, fname: &str, slot: &Option<(Val, TextRange)>, range: TextRange) -> LResult<()> {
        match slot {
            Some((Val::Int(1 | -1), _)) => Ok(()),
            Some((Val::Int(axis), r)) => Err(self.error(*r, DiagnosticKind::Invalid, format!(
                "htp.{fname} works along each row: axis=1 (or -1), got axis={axis} (for columns, transpose first: htp.transpose(t))"
            ))),
            Some((other, r)) => Err(self.error(*r, DiagnosticKind::Type, format!(
                "htp.{fname}'s axis must be the compile-time integer 1 (or -1), got {}", other.describe()
            ))),
            None => Err(self.error(range, DiagnosticKind::Invalid, format!(
                "htp.{fname} needs axis=1 (along each row; a whole-tile, flattened selection is not in the language)"
            ))),
        }
    }

    /// A compile-time bool argument (`descending=True`), or `default`.
    fn bool_arg(&self, slot: &Option<(Val, TextRange)>, fname: &str, what: &str, default: bool) -> LResult<bool> {
        match slot {
            None => Ok(default),
            Some((Val::Bool(b), _)) => Ok(*b),
            Some((other, r)) => Err(self.error(*r, DiagnosticKind::Type, format!(
                "htp.{fname}()'s {what} must be the compile-time constant True or False, got {}", other.describe()
            ))),
        }
    }

    fn tile_arg<'v>(&self, slot: &'v Option<(Val, TextRange)>, fname: &str, range: TextRange) -> LResult<&'v Val> {
        match slot {
            Some((v @ Val::Tile(..), _)) => Ok(v),
            Some((other, r)) => Err(self.error(*r, DiagnosticKind::Type, format!("{fname}() needs a tile, got {}", other.describe()))),
            None => Err(self.internal(range, "missing tile")),
        }
    }

    fn builtin(&mut self, name: &str, args: Args, name_range: TextRange, range: TextRange) -> LResult<Val> {
        match name {
            "exp" | "log" | "sqrt" | "rsqrt" | "recip" | "relu" | "neg" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                let v = s[0].as_ref().map(|(v, _)| v.clone()).unwrap_or(Val::NoneV);
                self.unary(name, &v, range)
            }
            "sigmoid" | "silu" | "tanh" | "erf" | "softplus" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                let v = s[0].as_ref().map(|(v, _)| v.clone()).unwrap_or(Val::NoneV);
                self.activation(name, &v, false, range)
            }
            "gelu" => {
                let s = self.bind(name, args, &["x", "approximate"], 1, range)?;
                let v = s[0].as_ref().map(|(v, _)| v.clone()).unwrap_or(Val::NoneV);
                let tanh_form = match &s[1] {
                    None => false,
                    Some((Val::Str(form), _)) if form == "none" => false,
                    Some((Val::Str(form), _)) if form == "tanh" => true,
                    Some((other, r)) => {
                        return Err(self.error(*r, DiagnosticKind::Invalid, format!(
                            "gelu()'s approximate is \"none\" (the erf form) or \"tanh\", got {}", other.describe()
                        )))
                    }
                };
                self.activation(name, &v, tanh_form, range)
            }
            "abs" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                match &s[0] {
                    Some((Val::Int(v), _)) => Ok(Val::Int(v.abs())),
                    Some((Val::Float(v), _)) => Ok(Val::Float(v.abs())),
                    Some((v, _)) => self.unary("abs", v, range),
                    None => Err(self.internal(range, "missing x")),
                }
            }
            "add" | "sub" | "mul" | "div" | "maximum" | "minimum" | "max" | "min" => {
                let s = self.bind(name, args, &["a", "b"], 2, range).map_err(|e| {
                    if matches!(name, "max" | "min") {
                        self.error(range, DiagnosticKind::Invalid, format!(
                            "{name}() takes two values (elementwise); reduce a tile with htp.row_{name} or htp.col_{name}"
                        ))
                    } else {
                        e
                    }
                })?;
                let kind = match name {
                    "add" => BinKind::Add,
                    "sub" => BinKind::Sub,
                    "mul" => BinKind::Mul,
                    "div" => BinKind::Div,
                    "maximum" | "max" => BinKind::Max,
                    _ => BinKind::Min,
                };
                let (a, b) = (&s[0].as_ref().map(|x| x.0.clone()), &s[1].as_ref().map(|x| x.0.clone()));
                match (a, b) {
                    (Some(a), Some(b)) => self.binary(kind, a, b, range),
                    _ => Err(self.internal(range, "missing operands")),
                }
            }
            "row_sum" | "row_max" | "row_min" | "col_sum" | "col_max" | "col_min" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                let t = self.tile_arg(&s[0], name, range)?;
                let kind = ReduceKind::from_name(&name[4..]).ok_or_else(|| self.internal(range, "reduction kind"))?;
                self.reduce(kind, if name.starts_with("row") { 1 } else { 0 }, t, range)
            }
            "row_reduce" | "col_reduce" => {
                let s = self.bind(name, args, &["x", "kind"], 2, range)?;
                let t = self.tile_arg(&s[0], name, range)?;
                let kind = match &s[1] {
                    Some((Val::Str(k), r)) => ReduceKind::from_name(k).ok_or_else(|| {
                        self.error(*r, DiagnosticKind::Invalid, format!("unknown reduction '{k}': use \"sum\", \"max\" or \"min\""))
                    })?,
                    Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                        "the reduction kind is \"sum\", \"max\" or \"min\", got {}", other.describe()
                    ))),
                    None => return Err(self.internal(range, "missing kind")),
                };
                self.reduce(kind, if name == "row_reduce" { 1 } else { 0 }, t, range)
            }
            "broadcast" => {
                let s = self.bind(name, args, &["x", "shape"], 2, range)?;
                let shape = self.shape_arg(&s[1], range)?;
                match self.tile_arg(&s[0], name, range)? {
                    Val::Tile(v, t) => {
                        let (v, t) = self.broadcast_to(*v, *t, shape, range)?;
                        Ok(Val::Tile(v, t))
                    }
                    _ => Err(self.internal(range, "tile_arg")),
                }
            }
            "matmul" | "dot" => {
                let s = self.bind(name, args, &["a", "b", "acc", "dtype"], 2, range)?;
                let out = match &s[3] {
                    Some(_) => Some(self.dtype_arg(&s[3], range)?),
                    None => None,
                };
                let acc = s[2].as_ref().map(|x| &x.0).filter(|v| !matches!(v, Val::NoneV));
                match (&s[0], &s[1]) {
                    (Some((a, _)), Some((b, _))) => self.matmul(a, b, acc, out, range),
                    _ => Err(self.internal(range, "missing operands")),
                }
            }
            "cast" => {
                let s = self.bind(name, args, &["x", "dtype"], 2, range)?;
                let elem = self.dtype_arg(&s[1], range)?;
                match &s[0] {
                    Some((v, _)) => self.cast(v, elem, range),
                    None => Err(self.internal(range, "missing x")),
                }
            }
            "pad" => {
                let s = self.bind(name, args, &["x", "value"], 2, range)?;
                let Val::Tile(tile, ty) = self.tile_arg(&s[0], name, range)?.clone() else {
                    return Err(self.internal(range, "tile_arg returned a non-tile"));
                };
                let (value, value_range) = s[1].clone().ok_or_else(|| self.internal(range, "missing value"))?;
                if ty.is_full() {
                    return Ok(Val::Tile(tile, ty));
                }
                let fill = self.scalar_for(&value, ScalarTy::Elem(ty.elem), value_range)?;
                let full = TileTy { layout: ty.layout, ..TileTy::full(ty.shape[0], ty.shape[1], ty.elem) };
                let result = self.tile_ty(range, &full)?;
                let op = tile::PadOperationBuilder::new(self.ctx, self.loc(range)).input(self.value(tile)).value(self.value(fill)).result(result).build();
                let padded = self.place1(range, op)?;
                Ok(Val::Tile(padded, full))
            }
            "transpose" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                let t = self.tile_arg(&s[0], name, range)?;
                self.transpose(t, range)
            }
            "relayout" => {
                let s = self.bind(name, args, &["x", "layout"], 2, range)?;
                let Val::Tile(tile, ty) = self.tile_arg(&s[0], name, range)?.clone() else {
                    return Err(self.internal(range, "tile_arg returned a non-tile"));
                };
                let layout = match &s[1] {
                    Some((Val::Str(facet), facet_range)) => Some(self.facet_layout(facet, &ty, *facet_range)?),
                    Some((Val::NoneV, _)) => None,
                    Some((other, r)) => {
                        return Err(self.error(*r, DiagnosticKind::Type, format!(
                            "relayout() takes a layout facet's name (a string such as \"row_major\"), or None for the target's choice; got {}",
                            other.describe()
                        )))
                    }
                    None => return Err(self.internal(range, "missing layout")),
                };
                let (value, ty) = self.relayout_to((tile, ty), layout, range)?;
                Ok(Val::Tile(value, ty))
            }
            "where" | "select" => {
                let s = self.bind(name, args, &["mask", "a", "b"], 3, range)?;
                match (&s[0], &s[1], &s[2]) {
                    (Some((m, _)), Some((a, _)), Some((b, _))) => self.select(m, a, b, range),
                    _ => Err(self.internal(range, "missing operands")),
                }
            }
            "full" | "zeros" | "ones" => {
                let (s, value) = self.fill_arguments(name, args, "shape", range)?;
                let shape = self.shape_arg(&s[0], range)?;
                let elem = match &s[1] {
                    Some(_) => self.dtype_arg(&s[1], range)?,
                    None => match &value {
                        Val::Scalar(_, ScalarTy::Elem(e)) => *e,
                        Val::Int(_) if name == "full" => Elem::I32,
                        Val::Bool(_) => Elem::I1,
                        _ => Elem::F32,
                    },
                };
                let ty = TileTy::full(shape[0], shape[1], elem);
                Ok(Val::Tile(self.splat(&value, &ty, range)?, ty))
            }
            "full_like" | "zeros_like" | "ones_like" => {
                // numpy's *_like: the tile's shape and valid region (a ragged
                // block's zeros), its element type unless dtype says otherwise.
                let (s, value) = self.fill_arguments(name, args, "t", range)?;
                let Some((Val::Tile(like, like_ty), _)) = &s[0] else {
                    let (what, at) = s[0].as_ref().map(|(v, r)| (v.describe(), *r)).unwrap_or_else(|| ("nothing".into(), range));
                    return Err(self.error(at, DiagnosticKind::Type, format!("htp.{name}() takes a tile first, got {what}")));
                };
                let elem = if s[1].is_some() { self.dtype_arg(&s[1], range)? } else { like_ty.elem };
                let ty = TileTy { elem, layout: None, ..*like_ty };
                Ok(Val::Tile(self.splat_like(&value, &ty, Some(*like), range)?, ty))
            }
            "iota" => {
                let s = self.bind(name, args, &["shape", "dim", "dtype"], 2, range)?;
                let shape = self.shape_arg(&s[0], range)?;
                let dim = self.int_arg(&s[1], "the iota dimension", range)?;
                if !(dim == 0 || dim == 1) {
                    return Err(self.error(range, DiagnosticKind::Invalid, format!("iota dimension must be 0 (rows) or 1 (columns), got {dim}")));
                }
                let elem = if s[2].is_some() { self.dtype_arg(&s[2], range)? } else { Elem::I32 };
                self.iota(shape[0], shape[1], dim, elem, range)
            }
            "gather" => {
                // A tile first: each row's elements by column (`tile.take`);
                // a tensor first: rows of the tensor (`tile.gather`).
                let first = args.positional.first().map(|a| &a.0).or_else(|| args.keywords.iter().find(|k| k.0 == "x").map(|k| &k.1));
                if let Some(Val::Tile(..)) = first {
                    let s = self.bind(name, args, &["x", "index", "axis"], 2, range)?;
                    self.row_axis("gather(t, index, axis=1)", &s[2], range)?;
                    return match (&s[0], &s[1]) {
                        (Some((t, _)), Some((index, index_range))) => self.take(t, index, *index_range, range),
                        _ => Err(self.internal(range, "missing operands")),
                    };
                }
                let s = self.bind(name, args, &["x", "rows", "col", "cols"], 4, range)?;
                self.gather(&s, range)
            }
            "scatter" => {
                // A tile first: elements into each row by column (`tile.put`);
                // a tensor first: rows of a tile into rows of the tensor
                // (`tile.scatter`), as `gather` reads them (D76).
                let first = args.positional.first().map(|a| (&a.0, a.1)).or_else(|| args.keywords.iter().find(|k| k.0 == "x").map(|k| (&k.1, k.2)));
                if let Some((other, r)) = first.filter(|(v, _)| !matches!(v, Val::Tile(..) | Val::Tensor(..))) {
                    return Err(self.error(r, DiagnosticKind::Type, format!(
                        "htp.scatter takes a tile first (htp.scatter(t, index, src, axis=1): elements into each row) \
                         or a tensor (htp.scatter(y, rows, col, t): rows into the tensor), got {}", other.describe()
                    )));
                }
                if let Some((Val::Tile(..), _)) = first {
                    let s = self.bind(name, args, &["x", "index", "src", "axis"], 3, range)?;
                    self.row_axis("scatter(t, index, src, axis=1)", &s[3], range)?;
                    return match (&s[0], &s[1], &s[2]) {
                        (Some((t, _)), Some((index, index_range)), Some((src, src_range))) => self.put(t, index, *index_range, src, *src_range, range),
                        _ => Err(self.internal(range, "missing operands")),
                    };
                }
                let s = self.bind(name, args, &["x", "rows", "col", "src"], 4, range)?;
                self.scatter_rows(&s, range)?;
                Ok(Val::NoneV)
            }
            "row_argmax" | "row_argmin" | "argmax" | "argmin" => {
                let s = if name.starts_with("row_") {
                    self.bind(name, args, &["x"], 1, range)?
                } else {
                    let s = self.bind(name, args, &["x", "axis"], 1, range)?;
                    self.row_axis(name, &s[1], range)?;
                    s
                };
                let kind = if name.ends_with("max") { ReduceKind::Max } else { ReduceKind::Min };
                let v = s[0].as_ref().map(|(v, _)| v.clone()).unwrap_or(Val::NoneV);
                self.row_arg_reduce(name, kind, &v, range)
            }
            "sort" | "argsort" => {
                let s = self.bind(name, args, &["x", "descending"], 1, range)?;
                let descending = self.bool_arg(&s[1], name, "descending", false)?;
                let v = s[0].as_ref().map(|(v, _)| v.clone()).unwrap_or(Val::NoneV);
                let (values, indices) = self.sort(name, &v, descending, None, range)?;
                Ok(if name == "sort" { values } else { indices })
            }
            "topk" => {
                let s = self.bind(name, args, &["x", "k", "largest"], 2, range)?;
                let k = match &s[1] {
                    Some((Val::Int(k), r)) => (*k, *r),
                    Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                        "htp.topk()'s k must be a compile-time integer (a literal or an htp.Const[int]), got {}", other.describe()
                    ))),
                    None => return Err(self.internal(range, "missing k")),
                };
                let largest = self.bool_arg(&s[2], name, "largest", true)?;
                let v = s[0].as_ref().map(|(v, _)| v.clone()).unwrap_or(Val::NoneV);
                let (values, indices) = self.sort(name, &v, largest, Some(k), range)?;
                Ok(Val::Tuple(vec![values, indices]))
            }
            "concat" | "concatenate" => {
                let s = self.bind(name, args, &["tiles", "axis"], 1, range)?;
                let axis = match &s[1] {
                    None => (0, range),
                    Some((Val::Int(axis), r)) => (*axis, *r),
                    Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                        "htp.{name}()'s axis must be the compile-time integer 0 or 1, got {}", other.describe()
                    ))),
                };
                match &s[0] {
                    Some((tiles, r)) => self.concat(tiles, *r, axis, range),
                    None => Err(self.internal(range, "missing tiles")),
                }
            }
            "reshape" => {
                let s = self.bind(name, args, &["x", "shape"], 2, range)?;
                match (&s[0], &s[1]) {
                    (Some((x, _)), Some((Val::Tuple(shape), r))) => self.reshape(x, shape, *r, range),
                    (Some(_), Some((other, r))) => Err(self.error(*r, DiagnosticKind::Shape, format!(
                        "htp.reshape()'s shape is (rows, cols), got {}", other.describe()
                    ))),
                    _ => Err(self.internal(range, "missing operands")),
                }
            }
            "float" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                match &s[0] {
                    Some((Val::Str(t), r)) => match t.trim().to_ascii_lowercase().as_str() {
                        "inf" | "+inf" | "infinity" => Ok(Val::Float(f64::INFINITY)),
                        "-inf" | "-infinity" => Ok(Val::Float(f64::NEG_INFINITY)),
                        "nan" => Ok(Val::Float(f64::NAN)),
                        other => other.parse::<f64>().map(Val::Float).map_err(|_| {
                            self.error(*r, DiagnosticKind::Invalid, format!("float() of an unknown string {t:?}"))
                        }),
                    },
                    Some((v, _)) => self.cast(v, Elem::F32, range),
                    None => Err(self.internal(range, "missing x")),
                }
            }
            "int" => {
                let s = self.bind(name, args, &["x"], 1, range)?;
                match &s[0] {
                    Some((v, _)) => self.cast(v, Elem::I64, range),
                    None => Err(self.internal(range, "missing x")),
                }
            }
            "range" | "static_range" => Err(self.error(range, DiagnosticKind::Unsupported, format!("{name}() can only be used as the iterable of a for loop"))),
            _ => {
                if let Some(elem) = if name == "bool" { Some(Elem::I1) } else { Elem::from_name(name) } {
                    let s = self.bind(name, args, &["x"], 1, range)?;
                    return match &s[0] {
                        Some((v, _)) => self.cast(v, elem, range),
                        None => Err(self.internal(range, "missing x")),
                    };
                }
                Err(self.error(name_range, DiagnosticKind::UnknownName, format!(
                    "unknown function '{name}' (see docs/language.md for the functions a kernel can call)"
                )))
            }
        }
    }

    fn gather(&mut self, s: &[Option<(Val, TextRange)>], range: TextRange) -> LResult<Val> {
        let tensor = match &s[0] {
            Some((Val::Tensor(t), _)) if t.dims.len() == 2 => t.clone(),
            Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!("gather() needs a 2-D tensor, got {}", other.describe()))),
            None => return Err(self.internal(range, "missing x")),
        };
        let (rows, rows_ty) = match &s[1] {
            Some((Val::Tile(v, t), _)) if t.shape[1] == 1 && matches!(t.elem, Elem::I32 | Elem::I64) => (*v, *t),
            Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                "gather() needs an Rx1 tile of i32 or i64 row indices, got {}", other.describe()
            ))),
            None => return Err(self.internal(range, "missing rows")),
        };
        let col = match &s[2] {
            Some((v, r)) => self.to_index(v, *r)?,
            None => return Err(self.internal(range, "missing col")),
        };
        let cols = self.int_arg(&s[3], "the number of gathered columns", range)?;
        if cols <= 0 {
            return Err(self.error(range, DiagnosticKind::Shape, "gather() needs a positive number of columns"));
        }
        // The window of columns lies inside the tensor (unlike a slice's
        // tail, it is not ragged: docs/language.md, "Gather"); checked here
        // when it is known, at run time on the CPU otherwise.
        if let DimV::Static(d) = tensor.dims[1] {
            if cols > d {
                return Err(self.error(range, DiagnosticKind::Shape, format!("gathers {cols} columns from '{}' with {d}", tensor.name)));
            }
            if let Some((Val::Int(start), r)) = &s[2] {
                if *start < 0 || start + cols > d {
                    return Err(self.error(*r, DiagnosticKind::Shape, format!(
                        "gathers columns {start}..{} of '{}', which has {d}: the window must lie inside the tensor",
                        start + cols, tensor.name
                    )));
                }
            }
        }
        let result = TileTy { shape: [rows_ty.shape[0], cols], elem: tensor.elem, valid: [rows_ty.valid[0], super::types::Valid::Static(cols)], layout: None };
        let rt = self.tile_ty(range, &result)?;
        let op = tile::GatherOperationBuilder::new(self.ctx, self.loc(range))
            .source(self.value(tensor.value))
            .row_indices(self.value(rows))
            .column(self.value(col))
            .result(rt)
            .build();
        let v = self.place1(range, op)?;
        Ok(Val::Tile(v, result))
    }

    /// `htp.scatter(y, rows, col, t)`: row `r` of `t` into row `rows[r, 0]`
    /// of the 2-D tensor `y` at columns `col..`, rows in order (the last
    /// of equal indices wins): a `tile.scatter`, the inverse of `gather`.
    fn scatter_rows(&mut self, s: &[Option<(Val, TextRange)>], range: TextRange) -> LResult<()> {
        const CALL: &str = "htp.scatter(y, rows, col, t)";
        let tensor = match &s[0] {
            Some((Val::Tensor(t), _)) if t.dims.len() == 2 => t.clone(),
            Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                "{CALL} needs a 2-D tensor (or, with a tile first, htp.scatter(t, index, src, axis=1)), got {}", other.describe()
            ))),
            None => return Err(self.internal(range, "missing x")),
        };
        if let Some(parameter) = &tensor.input_of {
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "cannot scatter into '{}': it is an input ({parameter}), which a kernel only reads; declare the parameter htp.InOut[...] to read and write it, or htp.Out[...] to only write it",
                tensor.name
            )));
        }
        let (rows, rows_ty) = match &s[1] {
            Some((Val::Tile(v, t), _)) if t.shape[1] == 1 && matches!(t.elem, Elem::I32 | Elem::I64) => (*v, *t),
            Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                "{CALL} needs an Rx1 tile of i32 or i64 row indices, got {}", other.describe()
            ))),
            None => return Err(self.internal(range, "missing rows")),
        };
        let col = match &s[2] {
            Some((v, r)) => self.to_index(v, *r)?,
            None => return Err(self.internal(range, "missing col")),
        };
        let (value, ty, value_range) = match &s[3] {
            Some((Val::Tile(v, t), r)) => (*v, *t, *r),
            Some((other, r)) => return Err(self.error(*r, DiagnosticKind::Type, format!(
                "{CALL} stores the rows of a tile, got {}", other.describe()
            ))),
            None => return Err(self.internal(range, "missing src")),
        };
        if ty.elem != tensor.elem {
            return Err(self.error(value_range, DiagnosticKind::Type, format!(
                "element type mismatch: scattering a {ty} into the {} tensor '{}' (convert with htp.cast(t, htp.{}))",
                tensor.elem, tensor.name, tensor.elem
            )));
        }
        if ty.shape[0] != rows_ty.shape[0] || ty.valid[0] != rows_ty.valid[0] {
            return Err(self.error(value_range, DiagnosticKind::Shape, format!(
                "{CALL} writes row r of t to row rows[r, 0]: the {ty} and the row indices {rows_ty} must have the same rows (and valid rows)"
            )));
        }
        // The window of columns lies inside the tensor (docs/language.md,
        // "Gather"): checked here when it is known, at run time on the CPU
        // otherwise.
        if let (DimV::Static(d), super::types::Valid::Static(cols)) = (&tensor.dims[1], ty.valid[1]) {
            let d = *d;
            if cols > d {
                return Err(self.error(value_range, DiagnosticKind::Shape, format!("scatters {cols} columns into '{}' with {d}", tensor.name)));
            }
            if let Some((Val::Int(start), r)) = &s[2] {
                if *start < 0 || start + cols > d {
                    return Err(self.error(*r, DiagnosticKind::Shape, format!(
                        "scatters into columns {start}..{} of '{}', which has {d}: the window must lie inside the tensor",
                        start + cols, tensor.name
                    )));
                }
            }
        }
        let op = tile::ScatterOperationBuilder::new(self.ctx, self.loc(range))
            .value(self.value(value))
            .dest(self.value(tensor.value))
            .row_indices(self.value(rows))
            .column(self.value(col))
            .build();
        self.place(op);
        Ok(())
    }

    /// Inlines a call of another kernel or helper: its parameters are bound
    /// to the arguments in a fresh scope and its body lowered in place.
    fn inline_call(&mut self, kernel: &KernelDef, args: Args, range: TextRange) -> LResult<Val> {
        let name = kernel.def.name.id.to_string();
        if self.inlining.contains(&name) {
            return Err(self.error(range, DiagnosticKind::Unsupported, format!("recursive call of '{name}' (kernels are inlined)")));
        }
        let params = &kernel.def.parameters;
        if params.vararg.is_some() || params.kwarg.is_some() {
            let callee_src = &self.program.sources[kernel.source];
            return Err(crate::parse::diagnostic(callee_src, params.range, DiagnosticKind::Unsupported, "kernels cannot take *args or **kwargs"));
        }
        let all: Vec<_> = params.posonlyargs.iter().chain(&params.args).chain(&params.kwonlyargs).collect();
        let names: Vec<&str> = all.iter().map(|p| p.parameter.name.id.as_str()).collect();
        let slots = self.bind(&name, args, &names, 0, range)?;

        // Check and bind in the callee's scope; messages about the callee's
        // annotations point into the callee's source.
        let callee_src = &self.program.sources[kernel.source];
        let callee_err = |r: TextRange, kind, msg: String| crate::parse::diagnostic(callee_src, r, kind, msg);
        let mut env = Env::new();
        for (p, slot) in all.iter().zip(slots) {
            let pname = p.parameter.name.id.as_str();
            let (value, arg_range) = match slot {
                Some(v) => v,
                None => match p.default.as_deref().and_then(literal_const) {
                    Some(c) => (const_val(c), range),
                    None => return Err(self.error(range, DiagnosticKind::Invalid, format!("{name}() is missing the argument '{pname}'"))),
                },
            };
            let annotation = match p.parameter.annotation() {
                Some(a) => parse_annotation(a).map_err(|m| callee_err(a.range(), DiagnosticKind::Invalid, m))?,
                None => Annotation::Any,
            };
            match (&annotation, &value) {
                (Annotation::Tensor { elem, shape, .. }, Val::Tensor(t)) => {
                    if t.elem != *elem || t.user_rank != shape.len() {
                        return Err(self.error(arg_range, DiagnosticKind::Type, format!(
                            "argument '{pname}' of {name}(): expected a rank-{} {elem} tensor, got {}", shape.len(), value.describe()
                        )));
                    }
                    let dims = &t.dims[t.dims.len() - t.user_rank..];
                    for (d, a) in dims.iter().zip(shape) {
                        match (a, d) {
                            (AnnotatedDim::Static(x), DimV::Static(y)) if x != y => {
                                return Err(self.error(arg_range, DiagnosticKind::Shape, format!(
                                    "argument '{pname}' of {name}(): expected size {x}, got {y}"
                                )))
                            }
                            (AnnotatedDim::Name(sym), _) => {
                                let v = match d {
                                    DimV::Static(y) => Val::Int(*y),
                                    DimV::Dynamic(v) => Val::Scalar(*v, ScalarTy::Index),
                                };
                                env.entry(sym.clone()).or_insert(v);
                            }
                            _ => {}
                        }
                    }
                }
                (Annotation::Tensor { .. }, _) => {
                    return Err(self.error(arg_range, DiagnosticKind::Type, format!(
                        "argument '{pname}' of {name}() must be a tensor, got {}", value.describe()
                    )))
                }
                (Annotation::Scalar(elem), v) if v.is_const() || matches!(v, Val::Scalar(..)) => {
                    if let Val::Scalar(_, ty) = v {
                        if *ty != ScalarTy::Elem(*elem) {
                            return Err(self.error(arg_range, DiagnosticKind::Type, format!(
                                "argument '{pname}' of {name}(): expected a {elem} scalar, got {}", v.describe()
                            )));
                        }
                    }
                }
                (Annotation::Scalar(elem), _) => {
                    return Err(self.error(arg_range, DiagnosticKind::Type, format!(
                        "argument '{pname}' of {name}(): expected a {elem} scalar, got {}", value.describe()
                    )))
                }
                (Annotation::Model { namespace, name: type_name }, v) => {
                    let (a, model) = match (p.parameter.annotation(), self.namespace(namespace, range)) {
                        (Some(a), Ok(super::intrinsic::Namespace::Model(model))) => (a, model),
                        (Some(a), _) => {
                            return Err(callee_err(a.range(), DiagnosticKind::Invalid, format!(
                                "'{namespace}.{type_name}' is not a type: expected htp.Tensor[dtype, dims...], a scalar type, htp.Const or a programming model's type"
                            )))
                        }
                        (None, _) => return Err(self.internal(range, "an annotation that is not there")),
                    };
                    let Some(model_type) = model.model_type(type_name) else {
                        let names: Vec<&str> = model.types.iter().map(|t| t.name).collect();
                        return Err(callee_err(a.range(), DiagnosticKind::UnknownName, format!(
                            "the programming model '{}' has no type '{type_name}' (it has: {})",
                            model.name,
                            if names.is_empty() { "none".into() } else { names.join(", ") }
                        )));
                    };
                    let fits = match v {
                        Val::Model(raw) => (model_type.matches)(melior::ir::ValueLike::r#type(&unsafe { melior::ir::Value::from_raw(*raw) })),
                        _ => false,
                    };
                    if !fits {
                        return Err(self.error(arg_range, DiagnosticKind::Type, format!(
                            "argument '{pname}' of {name}(): expected a {namespace}.{type_name}, got {}", v.describe()
                        )));
                    }
                }
                (Annotation::Const(_), v) if !v.is_const() => {
                    return Err(self.error(arg_range, DiagnosticKind::Type, format!(
                        "argument '{pname}' of {name}() is a compile-time constant, got {}", v.describe()
                    )))
                }
                _ => {}
            }
            // A tensor passed for an `htp.Tensor` parameter is an input of the callee.
            let value = match (&annotation, value) {
                (Annotation::Tensor { is_output: false, .. }, Val::Tensor(mut t)) => {
                    if t.input_of.is_none() {
                        t.input_of = Some(format!("'{}' passed for the htp.Tensor parameter '{pname}' of {name}()", t.name));
                    }
                    Val::Tensor(t)
                }
                (_, value) => value,
            };
            env.insert(pname.to_string(), value);
        }

        let saved_env = std::mem::replace(&mut self.env, env);
        let saved_src = std::mem::replace(&mut self.src, kernel.source);
        self.inlining.insert(name.clone());
        self.call_stack.push(name);
        let result = self.lower_function_body(&kernel.def.body);
        if let Some(name) = self.call_stack.pop() {
            self.inlining.remove(&name);
        }
        self.src = saved_src;
        self.env = saved_env;
        // An error inside the callee also names the call that inlined it
        // (a note after its excerpt; nested calls add one note each).
        let result = result.map_err(|mut error| {
            let site = self.error(range, error.kind, String::new());
            let excerpt = error.excerpt();
            if !excerpt.is_empty() {
                error.message = format!("{}\n{excerpt}", error.message);
                error.source_line.clear();
            }
            error.message = format!("{}\nnote: called from {}:{}:{}", error.message, site.file, site.line, site.col);
            error
        });
        Ok(result?.unwrap_or(Val::NoneV))
    }
}
