//! Statements: assignments, stores, `for ... in range(...)` (scf.for with
//! loop-carried variables), `if` (scf.if with merged variables, or a
//! compile-time choice), `return` in helpers.
//!
//! Scoping follows Python where it can and MLIR where it must: a variable
//! assigned in a loop body or branch that existed before it is carried
//! through (iter_args / scf.if results) and keeps one type; a variable
//! first assigned inside a loop body is local to it.

use melior::ir::{block::BlockLike, Block, Region, RegionLike, Type, ValueLike};
use mlir_sys::MlirValue;
use ruff_python_ast::{ElifElseClause, Expr, ExprCall, Stmt, StmtFor, StmtIf};
use ruff_text_size::{Ranged, TextRange};

use super::builder::OpSpec;
use super::model::RegionKind;
use super::types::{Elem, ScalarTy, TileTy};
use super::value::Val;
use super::{Env, LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

/// How the user asked a `for` loop to be spread over cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopDistribution {
    /// As the target decides (plain `range`).
    Target,
    /// Tasks of this many iterations (`grain=`).
    Grain(i64),
    /// On one core (`parallel=False`).
    Serial,
}

/// The MLIR type of a carried variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Carried {
    Scalar(ScalarTy),
    Tile(TileTy),
    /// A value of a programming model's own type (the uniqued type's
    /// pointer: equal pointers, equal types).
    Model(*const std::ffi::c_void),
}

impl Carried {
    fn of(v: &Val) -> Option<Carried> {
        match v {
            Val::Scalar(_, t) => Some(Carried::Scalar(*t)),
            Val::Tile(_, t) => Some(Carried::Tile(*t)),
            Val::Model(raw) => Some(Carried::Model(model_type(*raw))),
            _ => None,
        }
    }
    pub(super) fn val(self, raw: MlirValue) -> Val {
        match self {
            Carried::Scalar(t) => Val::Scalar(raw, t),
            Carried::Tile(t) => Val::Tile(raw, t),
            Carried::Model(_) => Val::Model(raw),
        }
    }
    fn describe(self) -> String {
        match self {
            Carried::Scalar(t) => format!("a {t} scalar"),
            Carried::Tile(t) => format!("a {t}"),
            Carried::Model(ty) => format!("a value of type {}", unsafe { Type::from_raw(mlir_sys::MlirType { ptr: ty }) }),
        }
    }
}

/// The MLIR type of a model value.
fn model_type(raw: MlirValue) -> *const std::ffi::c_void {
    use melior::ir::TypeLike;
    unsafe { melior::ir::Value::from_raw(raw) }.r#type().to_raw().ptr
}

/// Where the statement kinds a kernel cannot contain are named.
fn unsupported_stmt(stmt: &Stmt) -> &'static str {
    match stmt {
        Stmt::While(_) => "a while loop (use `for i in range(...)`)",
        Stmt::Try(_) => "try/except",
        Stmt::With(_) => "a with statement",
        Stmt::Raise(_) => "raise",
        Stmt::Assert(_) => "assert",
        Stmt::Import(_) | Stmt::ImportFrom(_) => "an import inside a kernel (import at module level)",
        Stmt::Global(_) | Stmt::Nonlocal(_) => "global/nonlocal",
        Stmt::Delete(_) => "del",
        Stmt::Match(_) => "a match statement",
        Stmt::ClassDef(_) => "a class definition",
        Stmt::FunctionDef(_) => "a nested function (define helpers at module level with @htp.func)",
        Stmt::Break(_) => "break",
        Stmt::Continue(_) => "continue",
        Stmt::TypeAlias(_) => "a type alias",
        _ => "this statement",
    }
}

/// Names a statement list assigns (in first-assignment order), looking
/// into nested loops and branches.
/// Where `name` is last assigned in `stmts` (nested blocks included): the
/// assigned value, or the whole statement of an augmented assignment.
fn last_assignment(stmts: &[Stmt], name: &str) -> Option<TextRange> {
    fn binds(e: &Expr, name: &str) -> bool {
        match e {
            Expr::Name(n) => n.id.as_str() == name,
            Expr::Tuple(t) => t.elts.iter().any(|e| binds(e, name)),
            Expr::List(l) => l.elts.iter().any(|e| binds(e, name)),
            _ => false,
        }
    }
    let mut last = None;
    for s in stmts {
        let found = match s {
            Stmt::Assign(a) if a.targets.iter().any(|t| binds(t, name)) => Some(a.value.range()),
            Stmt::AugAssign(a) if binds(&a.target, name) => Some(a.range),
            Stmt::AnnAssign(a) if binds(&a.target, name) => a.value.as_ref().map(|v| v.range()),
            Stmt::For(f) => last_assignment(&f.body, name),
            Stmt::If(i) => std::iter::once(&i.body).chain(i.elif_else_clauses.iter().map(|c| &c.body)).filter_map(|b| last_assignment(b, name)).last(),
            Stmt::With(w) => last_assignment(&w.body, name),
            _ => None,
        };
        last = found.or(last);
    }
    last
}

/// `file:line:col` of an MLIR location printed as `loc("file":line:col)`
/// (the first such position in it), for notes in diagnostics.
fn position_of(location: melior::ir::Location) -> Option<String> {
    let text = location.to_string();
    let start = text.find("loc(\"")? + 5;
    let rest = &text[start..];
    let quote = rest.find('"')?;
    let (file, tail) = (&rest[..quote], &rest[quote + 1..]);
    let digits: String = tail.trim_start_matches(':').chars().take_while(|c| c.is_ascii_digit() || *c == ':').collect();
    (!digits.is_empty()).then(|| format!("{file}:{}", digits.trim_end_matches(':')))
}

pub(super) fn assigned_names(stmts: &[Stmt], out: &mut Vec<String>) {
    crate::deep(|| assigned_names_here(stmts, out))
}

fn assigned_names_here(stmts: &[Stmt], out: &mut Vec<String>) {
    fn targets(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Name(n) => {
                if !out.iter().any(|x| x == n.id.as_str()) {
                    out.push(n.id.to_string());
                }
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| targets(e, out)),
            Expr::List(l) => l.elts.iter().for_each(|e| targets(e, out)),
            _ => {}
        }
    }
    for s in stmts {
        match s {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| targets(t, out)),
            Stmt::AugAssign(a) => targets(&a.target, out),
            Stmt::AnnAssign(a) if a.value.is_some() => targets(&a.target, out),
            Stmt::For(f) => {
                targets(&f.target, out);
                assigned_names(&f.body, out);
            }
            Stmt::If(i) => {
                assigned_names(&i.body, out);
                for c in &i.elif_else_clauses {
                    assigned_names(&c.body, out);
                }
            }
            Stmt::With(w) => assigned_names(&w.body, out),
            _ => {}
        }
    }
}

impl<'c> Lowerer<'c, '_> {
    /// Lowers a function body; a final top-level `return v` gives its value.
    pub fn lower_function_body(&mut self, body: &[Stmt]) -> LResult<Option<Val>> {
        for (i, stmt) in body.iter().enumerate() {
            if let Stmt::Return(r) = stmt {
                if i + 1 != body.len() {
                    return Err(self.unsupported(r.range, "statements after return"));
                }
                return match &r.value {
                    Some(v) => Ok(Some(self.lower_expr(v)?)),
                    None => Ok(None),
                };
            }
            self.lower_stmt(stmt)?;
        }
        Ok(None)
    }

    pub(super) fn lower_stmts(&mut self, stmts: &[Stmt]) -> LResult<()> {
        stmts.iter().try_for_each(|s| self.lower_stmt(s))
    }

    fn lower_stmt(&mut self, stmt: &Stmt) -> LResult<()> {
        crate::deep(|| self.lower_stmt_here(stmt))
    }

    fn lower_stmt_here(&mut self, stmt: &Stmt) -> LResult<()> {
        match stmt {
            Stmt::Assign(a) => {
                let value = self.lower_expr(&a.value)?;
                for t in &a.targets {
                    self.assign(t, value.clone(), a.value.range())?;
                }
                Ok(())
            }
            Stmt::AnnAssign(a) => match &a.value {
                Some(v) => {
                    let value = self.lower_expr(v)?;
                    self.assign(&a.target, value, v.range())
                }
                None => Ok(()),
            },
            Stmt::AugAssign(a) => Err(self.unsupported(a.range, "augmented assignment to this target")),
            Stmt::Expr(e) => {
                if matches!(&*e.value, Expr::StringLiteral(_)) {
                    return Ok(()); // a docstring
                }
                self.lower_expr(&e.value).map(|_| ())
            }
            Stmt::Pass(_) => Ok(()),
            Stmt::For(f) => self.lower_for(f),
            Stmt::With(w) => self.lower_with(w),
            Stmt::If(i) => self.lower_if(i),
            Stmt::Return(r) => Err(self.unsupported(r.range, "return inside a loop or branch (return once, at the end of a helper)")),
            other => Err(self.unsupported(other.range(), unsupported_stmt(other))),
        }
    }

    fn assign(&mut self, target: &Expr, value: Val, value_range: TextRange) -> LResult<()> {
        match target {
            Expr::Name(n) => {
                self.env.insert(n.id.to_string(), value);
                Ok(())
            }
            Expr::Tuple(_) | Expr::List(_) => {
                let elts = match target {
                    Expr::Tuple(t) => &t.elts,
                    Expr::List(l) => &l.elts,
                    _ => return Err(self.internal(target.range(), "tuple target")),
                };
                match value {
                    Val::Tuple(items) if items.len() == elts.len() => {
                        for (t, v) in elts.iter().zip(items) {
                            self.assign(t, v, value_range)?;
                        }
                        Ok(())
                    }
                    other => Err(self.error(value_range, DiagnosticKind::Invalid, format!(
                        "cannot unpack {} into {} names", other.describe(), elts.len()
                    ))),
                }
            }
            Expr::Subscript(s) => match self.lower_expr(&s.value)? {
                Val::Tensor(t) => self.store(&t, &s.slice, value, value_range, target.range()),
                other => Err(self.error(s.value.range(), DiagnosticKind::Type, format!(
                    "only tensors can be assigned through a subscript, not {}", other.describe()
                ))),
            },
            other => Err(self.unsupported(other.range(), "assignment to this target")),
        }
    }

    /// A carried variable's value as an MLIR value: Python numbers become
    /// index (int), f32 (float) or i1 (bool).
    pub(super) fn materialize(&self, name: &str, v: &Val, range: TextRange) -> LResult<(MlirValue, Carried)> {
        match v {
            Val::Scalar(x, t) => Ok((*x, Carried::Scalar(*t))),
            Val::Tile(x, t) => Ok((*x, Carried::Tile(*t))),
            Val::Model(x) => Ok((*x, Carried::Model(model_type(*x)))),
            Val::Int(_) => Ok((self.scalar_for(v, ScalarTy::Index, range)?, Carried::Scalar(ScalarTy::Index))),
            Val::Float(_) => Ok((self.scalar_for(v, ScalarTy::Elem(Elem::F32), range)?, Carried::Scalar(ScalarTy::Elem(Elem::F32)))),
            Val::Bool(_) => Ok((self.scalar_for(v, ScalarTy::Elem(Elem::I1), range)?, Carried::Scalar(ScalarTy::Elem(Elem::I1)))),
            other => Err(self.error(range, DiagnosticKind::Unsupported, format!(
                "'{name}' holds {} and cannot be reassigned inside a loop or a run-time branch", other.describe()
            ))),
        }
    }

    /// `v` converted to the carried type `ty` (Python numbers take it).
    pub(super) fn coerce(&self, name: &str, v: &Val, ty: Carried, range: TextRange, place: &str) -> LResult<MlirValue> {
        match (v, ty) {
            (Val::Scalar(x, t), Carried::Scalar(want)) if *t == want => Ok(*x),
            (Val::Tile(x, t), Carried::Tile(want)) if *t == want => Ok(*x),
            (Val::Model(x), Carried::Model(want)) if model_type(*x) == want => Ok(*x),
            (c, Carried::Scalar(want)) if c.is_const() => self.scalar_for(c, want, range),
            (c, Carried::Tile(want)) if c.is_const() => self.splat(c, &want, range),
            (c, Carried::Model(_)) if c.is_const() => Err(self.error(range, DiagnosticKind::Type, format!(
                "'{name}' is {} {place} but {} elsewhere: a variable keeps one type", ty.describe(), c.describe()
            ))),
            (other, _) => Err(self.error(range, DiagnosticKind::Type, format!(
                "'{name}' is {} {place} but {} elsewhere: a variable keeps one type (shape, element type, valid region and layout) across loop iterations and branches",
                ty.describe(), other.describe()
            ))),
        }
    }

    /// A new block in a new region, with arguments of `types`.
    fn new_region(&self, types: &[Type<'c>], range: TextRange) -> (Region<'c>, mlir_sys::MlirBlock) {
        let loc = self.loc(range);
        let region = Region::new();
        let block = region.append_block(Block::new(&types.iter().map(|t| (*t, loc)).collect::<Vec<_>>()));
        let raw = block.to_raw();
        (region, raw)
    }

    fn carried_type(&self, c: Carried, range: TextRange) -> LResult<Type<'c>> {
        match c {
            Carried::Scalar(t) => self.scalar_ty(range, t),
            Carried::Tile(t) => self.tile_ty(range, &t),
            Carried::Model(ty) => Ok(unsafe { Type::from_raw(mlir_sys::MlirType { ptr: ty }) }),
        }
    }

    fn lower_for(&mut self, f: &StmtFor) -> LResult<()> {
        if !f.orelse.is_empty() {
            return Err(self.unsupported(f.range, "for ... else"));
        }
        let Expr::Call(call) = &*f.iter else {
            return Err(self.unsupported(f.iter.range(), "iterating over anything but range(...)"));
        };
        // `for t in <model>.<loop>(...)` (or `for i, j in ...`): a
        // programming model's loop constructor.
        if let Some((model, name)) = self.model_call(call) {
            let targets = self.loop_targets(&f.target)?;
            return self.model_region(model, name, call, &targets, &f.body, RegionKind::Loop, f.range);
        }
        let Expr::Name(target) = &*f.target else {
            return Err(self.unsupported(f.target.range(), "a loop target other than a single name"));
        };
        let fname = match &*call.func {
            Expr::Name(n) => n.id.as_str(),
            Expr::Attribute(a) => a.attr.id.as_str(),
            _ => "",
        };
        if !matches!(fname, "range" | "static_range") {
            return Err(self.unsupported(f.iter.range(), "iterating over anything but range(...) or htp.static_range(...)"));
        }
        let distribution = self.loop_distribution(call, fname)?;
        let args: Vec<Val> = call.arguments.args.iter().map(|a| self.lower_expr(a)).collect::<LResult<_>>()?;
        let (start, stop, step) = match args.as_slice() {
            [stop] => (Val::Int(0), stop.clone(), Val::Int(1)),
            [start, stop] => (start.clone(), stop.clone(), Val::Int(1)),
            [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
            _ => return Err(self.error(f.iter.range(), DiagnosticKind::Invalid, "range() takes 1 to 3 arguments")),
        };
        if let Val::Int(s) = step {
            if s <= 0 {
                return Err(self.error(f.iter.range(), DiagnosticKind::Unsupported, format!(
                    "range() step must be positive, got {s}"
                )));
            }
        }
        // The loop variable steps past the stop value before the loop ends:
        // a stop within one step of the largest i64 would wrap around.
        if let (Val::Int(stop), Val::Int(step)) = (&stop, &step) {
            if stop.checked_add(*step).is_none() {
                return Err(self.error(f.iter.range(), DiagnosticKind::Unsupported, format!(
                    "range() stop {stop} is within one step ({step}) of the largest i64: the loop variable would overflow"
                )));
            }
        }
        let name = target.id.to_string();
        if fname == "static_range" {
            return self.unroll(&name, &start, &stop, &step, f);
        }
        let range = f.range;
        let lb = self.to_index(&start, f.iter.range())?;
        let ub = self.to_index(&stop, f.iter.range())?;
        let st = self.to_index(&step, f.iter.range())?;

        let mut assigned = Vec::new();
        assigned_names(&f.body, &mut assigned);
        let mut carried: Vec<(String, Carried)> = Vec::new();
        let mut inits = Vec::new();
        for n in assigned.iter().filter(|n| **n != name) {
            if let Some(v) = self.env.get(n).cloned() {
                let (raw, ty) = self.materialize(n, &v, range)?;
                carried.push((n.clone(), ty));
                inits.push(raw);
            }
        }
        let index = self.ty(range, "index")?;
        let mut types = vec![index];
        for (_, c) in &carried {
            types.push(self.carried_type(*c, range)?);
        }
        let (region, body_block) = self.new_region(&types, range);
        let saved_block = std::mem::replace(&mut self.block, body_block);
        let saved_env = self.env.clone();
        let block_ref = unsafe { melior::ir::BlockRef::from_raw(body_block) };
        let arg = |i: usize| block_ref.argument(i).map(|a| a.to_raw());
        let iv = arg(0).map_err(|e| self.internal(range, e.to_string()))?;
        self.env.insert(name, Val::Scalar(iv, ScalarTy::Index));
        for (i, (n, c)) in carried.iter().enumerate() {
            let raw = arg(i + 1).map_err(|e| self.internal(range, e.to_string()))?;
            self.env.insert(n.clone(), c.val(raw));
        }
        let body = self.lower_stmts(&f.body).and_then(|_| {
            let mut yields = Vec::new();
            for (i, (n, c)) in carried.iter().enumerate() {
                let v = self.env.get(n).cloned().unwrap_or(Val::NoneV);
                // At the assignment that changes the type, noting where the
                // variable got the type it has before the loop.
                let at = last_assignment(&f.body, n).unwrap_or(range);
                let made = inits.get(i).and_then(|raw| position_of(unsafe { melior::ir::Location::from_raw(mlir_sys::mlirValueGetLocation(*raw)) }));
                yields.push(self.coerce(n, &v, *c, at, "before the loop").map_err(|mut d| {
                    if d.kind == DiagnosticKind::Type && at != range {
                        d.message = d.message.replacen(" elsewhere:", " here:", 1);
                    }
                    if let (DiagnosticKind::Type, Some(made)) = (d.kind, made) {
                        d.message = format!("{}\n  note: '{n}' is made before the loop at {made}", d.message);
                    }
                    d
                })?);
            }
            self.emit(range, OpSpec::new("scf.yield", &yields, &[]))
        });
        self.block = saved_block;
        self.env = saved_env;
        body?;
        let mut operands = vec![lb, ub, st];
        operands.extend(inits);
        let mut spec = OpSpec::new("scf.for", &operands, &types[1..]).region(region);
        match distribution {
            LoopDistribution::Target => {}
            LoopDistribution::Grain(grain) => spec = spec.attr("htp.grain", self.i64_attr(grain)),
            LoopDistribution::Serial => spec = spec.attr("htp.serial", self.parse_attr(range, "unit")?),
        }
        let results = self.emit(range, spec)?;
        for ((n, c), r) in carried.iter().zip(results) {
            self.env.insert(n.clone(), c.val(r));
        }
        Ok(())
    }

    /// `<model>.<name>(...)` when `call` is a construct of a registered
    /// programming model (its namespace not shadowed by a variable).
    fn model_call<'e>(&self, call: &'e ExprCall) -> Option<(&'static htp_api::models::ProgrammingModel, &'e str)> {
        let Expr::Attribute(a) = &*call.func else { return None };
        let Expr::Name(m) = &*a.value else { return None };
        if self.env.contains_key(m.id.as_str()) {
            return None;
        }
        match self.namespace(m.id.as_str(), m.range) {
            Ok(super::intrinsic::Namespace::Model(model)) => Some((model, a.attr.id.as_str())),
            _ => None,
        }
    }

    /// The names a model loop binds: `i` or `i, j` (a tuple of names).
    fn loop_targets(&self, target: &Expr) -> LResult<Vec<String>> {
        match target {
            Expr::Name(name) => Ok(vec![name.id.to_string()]),
            Expr::Tuple(tuple) => tuple
                .elts
                .iter()
                .map(|element| match element {
                    Expr::Name(name) => Ok(name.id.to_string()),
                    other => Err(self.unsupported(other.range(), "a loop target other than names")),
                })
                .collect(),
            other => Err(self.unsupported(other.range(), "a loop target other than a name or a tuple of names")),
        }
    }

    /// `with <model>.<name>(...):` — a programming model's block construct.
    fn lower_with(&mut self, with: &ruff_python_ast::StmtWith) -> LResult<()> {
        let [item] = with.items.as_slice() else {
            return Err(self.unsupported(with.range, "a with statement of several items"));
        };
        let construct = match &item.context_expr {
            Expr::Call(call) => self.model_call(call).map(|found| (call, found)),
            _ => None,
        };
        let Some((call, (model, name))) = construct else {
            return Err(self.unsupported(with.range, "a with statement (only a programming model's block constructs, `with <model>.<block>(...):`)"));
        };
        // `with m.consume(c) as t:` binds the first value the block gives.
        let targets = match item.optional_vars.as_deref() {
            None => vec![],
            Some(Expr::Name(target)) => vec![target.id.to_string()],
            Some(other) => return Err(self.unsupported(other.range(), "`as` with anything but one name in a model's block construct")),
        };
        self.model_region(model, name, call, &targets, &with.body, RegionKind::Block, with.range)
    }

    /// The keywords of `htp.range(start, stop, step, grain=G, parallel=B)`:
    /// how the user wants the loop spread over cores (read by
    /// `htp_transforms::distribution`). Python's own `range` takes none.
    fn loop_distribution(&mut self, call: &ExprCall, fname: &str) -> LResult<LoopDistribution> {
        let keywords = &call.arguments.keywords;
        if keywords.is_empty() {
            return Ok(LoopDistribution::Target);
        }
        if fname != "range" || !matches!(&*call.func, Expr::Attribute(_)) {
            return Err(self.error(keywords[0].range, DiagnosticKind::Invalid, format!(
                "{fname}() takes no keyword arguments (htp.range(start, stop, step, grain=G, parallel=False) does)"
            )));
        }
        let (mut grain, mut parallel) = (None, None);
        for keyword in keywords {
            let name = keyword.arg.as_ref().map(|a| a.id.as_str()).unwrap_or("**");
            let value = self.lower_expr(&keyword.value)?;
            match (name, value) {
                ("grain", Val::Int(g)) if g > 0 => grain = Some(g),
                ("grain", v) => {
                    return Err(self.error(keyword.value.range(), DiagnosticKind::Invalid, format!(
                        "grain= is the number of iterations per task, a positive compile-time integer; got {}",
                        v.describe()
                    )))
                }
                ("parallel", Val::Bool(b)) => parallel = Some(b),
                ("parallel", v) => {
                    return Err(self.error(keyword.value.range(), DiagnosticKind::Invalid, format!(
                        "parallel= takes a compile-time bool; got {}",
                        v.describe()
                    )))
                }
                (other, _) => {
                    return Err(self.error(keyword.range, DiagnosticKind::Invalid, format!(
                        "htp.range() has no keyword argument '{other}' (it takes grain= and parallel=)"
                    )))
                }
            }
        }
        match (grain, parallel) {
            (Some(_), Some(false)) => Err(self.error(call.arguments.range, DiagnosticKind::Invalid,
                "grain= distributes the loop and parallel=False keeps it on one core: give one of them")),
            (Some(g), _) => Ok(LoopDistribution::Grain(g)),
            (None, Some(false)) => Ok(LoopDistribution::Serial),
            (None, _) => Ok(LoopDistribution::Target),
        }
    }

    /// `for k in htp.static_range(...)`: the body repeated with `k` a
    /// compile-time constant.
    fn unroll(&mut self, name: &str, start: &Val, stop: &Val, step: &Val, f: &StmtFor) -> LResult<()> {
        let (Val::Int(a), Val::Int(b), Val::Int(s)) = (start, stop, step) else {
            return Err(self.error(f.iter.range(), DiagnosticKind::Invalid, "static_range() needs compile-time integer bounds"));
        };
        // In i128: the bounds may be any i64s.
        let count = if b > a { (*b as i128 - *a as i128 + *s as i128 - 1) / *s as i128 } else { 0 };
        if count > 1024 {
            return Err(self.error(f.iter.range(), DiagnosticKind::Invalid, format!("static_range() would unroll {count} iterations (at most 1024)")));
        }
        let total = self.unrolled.saturating_add(count as u64);
        if total > super::UNROLL_BUDGET {
            return Err(self.error(f.iter.range(), DiagnosticKind::Invalid, format!(
                "static_range() loops would unroll more than {} iterations in this kernel (nested loops multiply: {count} more here, {} so far); use range() for the outer loops",
                super::UNROLL_BUDGET,
                self.unrolled
            )));
        }
        self.unrolled = total;
        let mut k = *a;
        while k < *b {
            self.env.insert(name.to_string(), Val::Int(k));
            self.lower_stmts(&f.body)?;
            k += s;
        }
        Ok(())
    }

    fn lower_if(&mut self, i: &StmtIf) -> LResult<()> {
        let mut clauses: Vec<(Option<&Expr>, &[Stmt], TextRange)> = vec![(Some(&*i.test), &i.body[..], i.range)];
        for ElifElseClause { test, body, range, .. } in &i.elif_else_clauses {
            clauses.push((test.as_ref(), &body[..], *range));
        }
        self.lower_if_chain(&clauses)
    }

    fn lower_if_chain(&mut self, clauses: &[(Option<&Expr>, &[Stmt], TextRange)]) -> LResult<()> {
        let Some(((test, body, range), rest)) = clauses.split_first() else { return Ok(()) };
        let Some(test) = test else {
            return self.lower_stmts(body); // else:
        };
        let cond = self.lower_expr(test)?;
        let cond = match cond {
            Val::Bool(true) => return self.lower_stmts(body),
            Val::Bool(false) => return self.lower_if_chain(rest),
            Val::Scalar(v, ScalarTy::Elem(Elem::I1)) => v,
            other => {
                return Err(self.error(test.range(), DiagnosticKind::Type, format!(
                    "an if condition must be a bool (a comparison or a bool constant), got {} (use htp.where to choose between tiles elementwise)",
                    other.describe()
                )))
            }
        };
        let range = *range;
        let mut then_names = Vec::new();
        assigned_names(body, &mut then_names);
        let mut else_names = Vec::new();
        for (_, b, _) in rest {
            assigned_names(b, &mut else_names);
        }
        let before = self.env.clone();
        let candidates: Vec<String> = then_names
            .iter()
            .chain(else_names.iter())
            .filter(|n| before.contains_key(*n) || (then_names.contains(n) && else_names.contains(n)))
            .fold(Vec::new(), |mut acc, n| {
                if !acc.contains(n) {
                    acc.push(n.clone());
                }
                acc
            });

        // Lower each branch into its own block, keeping its final scope.
        let (then_region, then_block) = self.new_region(&[], range);
        let (else_region, else_block) = self.new_region(&[], range);
        let saved_block = self.block;
        let branch = |this: &mut Self, block, f: &dyn Fn(&mut Self) -> LResult<()>| -> LResult<Env> {
            this.block = block;
            this.env = before.clone();
            let r = f(this);
            let env = std::mem::replace(&mut this.env, before.clone());
            this.block = saved_block;
            r.map(|_| env)
        };
        let then_env = branch(self, then_block, &|this| this.lower_stmts(body))?;
        let else_env = branch(self, else_block, &|this| this.lower_if_chain(rest))?;

        // Decide each merged variable's type and yield it from both blocks.
        let mut merged: Vec<(String, Carried)> = Vec::new();
        let mut merged_consts: Vec<(String, Val)> = Vec::new();
        let mut then_yields = Vec::new();
        let mut else_yields = Vec::new();
        for n in &candidates {
            let (Some(t), Some(e)) = (then_env.get(n), else_env.get(n)) else { continue };
            let ty = match (Carried::of(t), Carried::of(e)) {
                (Some(a), _) => a,
                (None, Some(b)) => b,
                (None, None) => {
                    if format!("{t:?}") == format!("{e:?}") {
                        merged_consts.push((n.clone(), t.clone()));
                        continue;
                    }
                    let v = if matches!((t, e), (Val::Int(_), Val::Int(_))) { Val::Int(0) } else { t.clone() };
                    self.materialize(n, &v, range)?.1
                }
            };
            self.block = then_block;
            let tv = self.coerce(n, t, ty, range, "in one branch");
            self.block = else_block;
            let ev = self.coerce(n, e, ty, range, "in one branch");
            self.block = saved_block;
            then_yields.push(tv?);
            else_yields.push(ev?);
            merged.push((n.clone(), ty));
        }
        self.block = then_block;
        let y1 = self.emit(range, OpSpec::new("scf.yield", &then_yields, &[]));
        self.block = else_block;
        let y2 = self.emit(range, OpSpec::new("scf.yield", &else_yields, &[]));
        self.block = saved_block;
        y1?;
        y2?;
        let types: Vec<Type<'c>> = merged.iter().map(|(_, c)| self.carried_type(*c, range)).collect::<LResult<_>>()?;
        let results = self.emit(range, OpSpec::new("scf.if", &[cond], &types).region(then_region).region(else_region))?;
        self.env = before;
        for ((n, c), r) in merged.iter().zip(results) {
            self.env.insert(n.clone(), c.val(r));
        }
        for (n, v) in merged_consts {
            self.env.insert(n, v);
        }
        Ok(())
    }
}
