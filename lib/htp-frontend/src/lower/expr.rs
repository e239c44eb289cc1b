//! Expressions: names, numbers, operators, subscripts; calls are in calls.rs.

use ruff_python_ast::{BoolOp, CmpOp, Expr, Number, Operator, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use super::builder::OpSpec;
use super::ops::{fold_binary, BinKind, CmpKind};
use super::types::{Elem, ScalarTy};
use super::value::{DimV, Val};
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

/// What a construct is called in "unsupported" messages.
pub fn expr_kind_name(expr: &Expr) -> &'static str {
    match expr {
        Expr::ListComp(_) => "a list comprehension",
        Expr::SetComp(_) => "a set comprehension",
        Expr::DictComp(_) => "a dict comprehension",
        Expr::Generator(_) => "a generator expression",
        Expr::Lambda(_) => "a lambda",
        Expr::Dict(_) => "a dict",
        Expr::Set(_) => "a set",
        Expr::Await(_) => "await",
        Expr::Yield(_) | Expr::YieldFrom(_) => "yield",
        Expr::FString(_) | Expr::TString(_) => "an f-string",
        Expr::BytesLiteral(_) => "a bytes literal",
        Expr::Starred(_) => "a starred expression",
        Expr::Named(_) => "an assignment expression (:=)",
        Expr::EllipsisLiteral(_) => "an ellipsis (...)",
        Expr::Slice(_) => "a slice outside a subscript",
        Expr::IpyEscapeCommand(_) => "an IPython escape",
        _ => "this expression",
    }
}

/// Module-level names a kernel may use without defining them: element
/// types and a few float constants (`htp.inf`, `math.inf`, `math.pi`).
fn builtin_value(name: &str) -> Option<Val> {
    if let Some(e) = Elem::from_name(name) {
        return Some(Val::DType(e));
    }
    Some(match name {
        "inf" => Val::Float(f64::INFINITY),
        "nan" => Val::Float(f64::NAN),
        "pi" => Val::Float(std::f64::consts::PI),
        "e" => Val::Float(std::f64::consts::E),
        _ => return None,
    })
}

fn bin_kind(op: Operator) -> Option<BinKind> {
    Some(match op {
        Operator::Add => BinKind::Add,
        Operator::Sub => BinKind::Sub,
        Operator::Mult => BinKind::Mul,
        Operator::Div => BinKind::Div,
        Operator::FloorDiv => BinKind::FloorDiv,
        Operator::Mod => BinKind::Mod,
        _ => return None,
    })
}

fn cmp_kind(op: CmpOp) -> Option<CmpKind> {
    Some(match op {
        CmpOp::Eq => CmpKind::Eq,
        CmpOp::NotEq => CmpKind::Ne,
        CmpOp::Lt => CmpKind::Lt,
        CmpOp::LtE => CmpKind::Le,
        CmpOp::Gt => CmpKind::Gt,
        CmpOp::GtE => CmpKind::Ge,
        _ => return None,
    })
}

impl<'c> Lowerer<'c, '_> {
    pub fn unsupported(&self, range: TextRange, what: &str) -> crate::diagnostics::Diagnostic {
        self.error(range, DiagnosticKind::Unsupported, format!("unsupported Python construct in a kernel: {what}"))
    }

    /// The value of `expr` if it is a compile-time constant, without
    /// emitting anything.
    pub fn const_eval(&self, expr: &Expr) -> Option<Val> {
        match expr {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64().map(Val::Int),
                Number::Float(f) => Some(Val::Float(*f)),
                Number::Complex { .. } => None,
            },
            Expr::BooleanLiteral(b) => Some(Val::Bool(b.value)),
            Expr::Name(n) => self.env.get(n.id.as_str()).filter(|v| v.is_const()).cloned(),
            Expr::Attribute(a) => match &*a.value {
                Expr::Name(m) if !self.env.contains_key(m.id.as_str()) => builtin_value(a.attr.id.as_str()).filter(Val::is_const),
                _ => None,
            },
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => match self.const_eval(&u.operand)? {
                Val::Int(v) => v.checked_neg().map(Val::Int),
                Val::Float(v) => Some(Val::Float(-v)),
                _ => None,
            },
            Expr::BinOp(b) => {
                let kind = bin_kind(b.op)?;
                fold_binary(kind, &self.const_eval(&b.left)?, &self.const_eval(&b.right)?)?.ok()
            }
            _ => None,
        }
    }

    pub fn lower_expr(&mut self, expr: &Expr) -> LResult<Val> {
        crate::deep(|| self.lower_expr_here(expr))
    }

    fn lower_expr_here(&mut self, expr: &Expr) -> LResult<Val> {
        let range = expr.range();
        match expr {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64().map(Val::Int).ok_or_else(|| {
                    self.error(range, DiagnosticKind::Invalid, "integer constant does not fit in 64 bits")
                }),
                Number::Float(f) => Ok(Val::Float(*f)),
                Number::Complex { .. } => Err(self.unsupported(range, "complex numbers")),
            },
            Expr::BooleanLiteral(b) => Ok(Val::Bool(b.value)),
            Expr::NoneLiteral(_) => Ok(Val::NoneV),
            Expr::StringLiteral(s) => Ok(Val::Str(s.value.to_str().to_string())),
            Expr::Name(n) => {
                let name = n.id.as_str();
                if let Some(v) = self.env.get(name) {
                    return Ok(v.clone());
                }
                if let Some(v) = builtin_value(name) {
                    return Ok(v);
                }
                let hint = if self.program.kernel(name).is_some() { " (kernels can be called, not used as values)" } else { "" };
                Err(self.error(range, DiagnosticKind::UnknownName, format!("unknown name '{name}'{hint}")))
            }
            Expr::Attribute(a) => {
                let attr = a.attr.id.as_str();
                if let Expr::Name(m) = &*a.value {
                    if !self.env.contains_key(m.id.as_str()) {
                        match self.namespace(m.id.as_str(), m.range)? {
                            super::intrinsic::Namespace::Intrinsics(set) => {
                                return Err(self.error(range, DiagnosticKind::Type, format!(
                                    "'{}.{attr}' is an intrinsic of '{}': call it (`{}.{attr}(...)`)", m.id, set.namespace, m.id
                                )))
                            }
                            super::intrinsic::Namespace::Math if !super::intrinsic::MATH_CONSTANTS.contains(&attr) => {
                                return Err(self.error(range, DiagnosticKind::UnknownName, format!(
                                    "kernels use math's constants only ({}), not 'math.{attr}'", super::intrinsic::MATH_CONSTANTS.join(", ")
                                )))
                            }
                            _ => {}
                        }
                        return builtin_value(attr).ok_or_else(|| {
                            self.error(range, DiagnosticKind::UnknownName, format!("unknown name '{}.{attr}'", m.id))
                        });
                    }
                }
                let base = self.lower_expr(&a.value)?;
                match (&base, attr) {
                    (Val::Tensor(t), "shape") => Ok(Val::Tuple(
                        t.dims[t.dims.len() - t.user_rank..]
                            .iter()
                            .map(|d| match d {
                                DimV::Static(v) => Val::Int(*v),
                                DimV::Dynamic(v) => Val::Scalar(*v, ScalarTy::Index),
                            })
                            .collect(),
                    )),
                    (Val::Tensor(t), "dtype") => Ok(Val::DType(t.elem)),
                    (Val::Tile(_, t), "shape") => Ok(Val::Tuple(vec![Val::Int(t.shape[0]), Val::Int(t.shape[1])])),
                    (Val::Tile(_, t), "dtype") => Ok(Val::DType(t.elem)),
                    _ => Err(self.error(range, DiagnosticKind::UnknownName, format!("{} has no attribute '{attr}'", base.describe()))),
                }
            }
            Expr::Subscript(s) => {
                let base = self.lower_expr(&s.value)?;
                match base {
                    Val::Tensor(t) => self.load(&t, &s.slice, range),
                    Val::Tuple(items) => match self.const_eval(&s.slice) {
                        Some(Val::Int(i)) => {
                            let len = items.len() as i64;
                            let idx = if i < 0 { i + len } else { i };
                            items.get(idx as usize).filter(|_| idx >= 0).cloned().ok_or_else(|| {
                                self.error(s.slice.range(), DiagnosticKind::Invalid, format!("index {i} out of range for a tuple of {len}"))
                            })
                        }
                        _ => Err(self.error(s.slice.range(), DiagnosticKind::Invalid, "a tuple index must be a constant integer")),
                    },
                    Val::Tile(v, ty) => self.subscript_tile(v, ty, &s.slice, range),
                    other => Err(self.error(range, DiagnosticKind::Type, format!("{} cannot be subscripted", other.describe()))),
                }
            }
            Expr::BinOp(b) => {
                let l = self.lower_expr(&b.left)?;
                let r = self.lower_expr(&b.right)?;
                if b.op == Operator::MatMult {
                    return self.matmul(&l, &r, None, None, range);
                }
                if b.op == Operator::Pow {
                    // x ** 2 is common in norms: a product, exactly.
                    return match self.const_eval(&b.right) {
                        Some(Val::Int(2)) if !l.is_const() => self.binary(BinKind::Mul, &l, &l, range),
                        _ if l.is_const() && r.is_const() => match (&l, &r) {
                            (Val::Int(x), Val::Int(y)) if *y >= 0 => x.checked_pow(*y as u32).map(Val::Int).ok_or_else(|| {
                                self.error(range, DiagnosticKind::Invalid, "integer overflow in a compile-time constant")
                            }),
                            _ => Ok(Val::Float(as_float(&l).powf(as_float(&r)))),
                        },
                        _ => Err(self.unsupported(range, "'**' other than '** 2' on run-time values")),
                    };
                }
                let Some(kind) = bin_kind(b.op) else {
                    return Err(self.unsupported(range, &format!("the operator '{}'", b.op.as_str())));
                };
                self.binary(kind, &l, &r, range)
            }
            Expr::UnaryOp(u) => {
                let v = self.lower_expr(&u.operand)?;
                match u.op {
                    UnaryOp::UAdd => Ok(v),
                    UnaryOp::USub => match v {
                        Val::Int(i) => i.checked_neg().map(Val::Int).ok_or_else(|| self.error(range, DiagnosticKind::Invalid, "integer overflow")),
                        Val::Float(f) => Ok(Val::Float(-f)),
                        Val::Tile(..) => self.unary("neg", &v, range),
                        Val::Scalar(x, ty) if ty.is_float() => {
                            let t = self.scalar_ty(range, ty)?;
                            Ok(Val::Scalar(self.emit1(range, OpSpec::new("arith.negf", &[x], &[t]))?, ty))
                        }
                        Val::Scalar(..) => self.binary(BinKind::Sub, &Val::Int(0), &v, range),
                        other => Err(self.error(range, DiagnosticKind::Type, format!("cannot negate {}", other.describe()))),
                    },
                    UnaryOp::Not => match v {
                        Val::Bool(b) => Ok(Val::Bool(!b)),
                        Val::Scalar(x, ScalarTy::Elem(Elem::I1)) => {
                            let t = self.ty(range, "i1")?;
                            let one = self.scalar_const(range, 0.0, Some(1), ScalarTy::Elem(Elem::I1))?;
                            Ok(Val::Scalar(self.emit1(range, OpSpec::new("arith.xori", &[x, one], &[t]))?, ScalarTy::Elem(Elem::I1)))
                        }
                        other => Err(self.error(range, DiagnosticKind::Type, format!("'not' needs a bool, got {}", other.describe()))),
                    },
                    UnaryOp::Invert => Err(self.unsupported(range, "the operator '~'")),
                }
            }
            Expr::BoolOp(b) => {
                let mut acc = self.lower_expr(&b.values[0])?;
                for v in &b.values[1..] {
                    acc = match acc {
                        // Python's short circuit on constants.
                        Val::Bool(x) => {
                            if (b.op == BoolOp::And && !x) || (b.op == BoolOp::Or && x) {
                                Val::Bool(x)
                            } else {
                                self.lower_expr(v)?
                            }
                        }
                        Val::Scalar(x, ScalarTy::Elem(Elem::I1)) => {
                            let rhs = self.lower_expr(v)?;
                            let y = self.scalar_for(&rhs, ScalarTy::Elem(Elem::I1), v.range())?;
                            let t = self.ty(range, "i1")?;
                            let name = if b.op == BoolOp::And { "arith.andi" } else { "arith.ori" };
                            Val::Scalar(self.emit1(range, OpSpec::new(name, &[x, y], &[t]))?, ScalarTy::Elem(Elem::I1))
                        }
                        other => {
                            return Err(self.error(range, DiagnosticKind::Type, format!(
                                "'and'/'or' need bools, got {} (combine mask tiles with htp.where)", other.describe()
                            )))
                        }
                    };
                }
                Ok(acc)
            }
            Expr::Compare(c) => {
                if c.ops.len() != 1 {
                    return Err(self.unsupported(range, "chained comparisons (write them with 'and')"));
                }
                let Some(kind) = cmp_kind(c.ops[0]) else {
                    return Err(self.unsupported(range, &format!("the comparison '{}'", c.ops[0].as_str())));
                };
                let l = self.lower_expr(&c.left)?;
                let r = self.lower_expr(&c.comparators[0])?;
                self.compare(kind, &l, &r, range)
            }
            Expr::Call(call) => self.lower_call(call),
            Expr::If(i) => match self.lower_expr(&i.test)? {
                Val::Bool(true) => self.lower_expr(&i.body),
                Val::Bool(false) => self.lower_expr(&i.orelse),
                _ => Err(self.unsupported(range, "a conditional expression on a run-time value (use htp.where for tiles or an if statement)")),
            },
            Expr::Tuple(t) => Ok(Val::Tuple(t.elts.iter().map(|e| self.lower_expr(e)).collect::<LResult<_>>()?)),
            Expr::List(l) => Ok(Val::Tuple(l.elts.iter().map(|e| self.lower_expr(e)).collect::<LResult<_>>()?)),
            other => Err(self.unsupported(range, expr_kind_name(other))),
        }
    }
}

fn as_float(v: &Val) -> f64 {
    match v {
        Val::Int(i) => *i as f64,
        Val::Float(f) => *f,
        _ => f64::NAN,
    }
}
