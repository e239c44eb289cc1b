//! Constructs of registered programming models (`toy.launch(k, x)`):
//! arguments lowered as in any call (a bare name of a program function is
//! that function), the model's hook builds its ops at the call's location.
//! Loop constructors (`for i, j in m.grid(...)`) and block constructs
//! (`with m.scope(...):`) build a region op the body is lowered into; the
//! variables of the enclosing function the body reassigns are carried
//! through the op (its hook receives their values and says which block
//! arguments and results stand for them).

use melior::ir::{block::BlockLike, BlockRef, Type, Value, ValueLike};
use mlir_sys::MlirValue;
use ruff_python_ast::{Expr, ExprCall, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::types::{Elem, ScalarTy, TileTy};
use super::value::Val;
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;
use htp_api::models::{ConstructSite, LoopBody, LoopConstructor, ModelIr, ModelValue, ProgrammingModel, TensorView, ViewExtent};

/// Which region construct is lowered: a loop (`for`) or a block (`with`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RegionKind {
    Loop,
    Block,
}

impl RegionKind {
    fn word(self) -> &'static str {
        match self {
            RegionKind::Loop => "loop",
            RegionKind::Block => "block",
        }
    }
}

/// A value of the program from the front end's raw handle.
fn ir<'c>(raw: MlirValue) -> ModelIr<'c> {
    unsafe { Value::from_raw(raw) }
}

impl<'c> Lowerer<'c, '_> {
    fn site_block(&self) -> BlockRef<'c, 'c> {
        unsafe { BlockRef::from_raw(self.block) }
    }

    /// Whether `op` reaches the function's body block through attached
    /// regions only.
    fn attached_to_function(&self, op: melior::ir::OperationRef<'c, 'c>) -> bool {
        use melior::ir::{block::BlockLike, operation::OperationLike};
        let mut current = op;
        loop {
            let Some(block) = current.block() else { return false };
            match block.parent_operation() {
                Some(parent) => current = unsafe { melior::ir::OperationRef::from_raw(parent.to_raw()) },
                None => return block.to_raw().ptr == self.function_block.ptr,
            }
        }
    }

    /// Verifies the model region ops built inside unattached regions, now
    /// that the function's body is whole; the first invalid one is an error
    /// at its construct.
    pub fn run_deferred_checks(&mut self) -> Result<(), crate::diagnostics::Diagnostic> {
        for (op, mut failure) in std::mem::take(&mut self.deferred_checks) {
            let op = unsafe { melior::ir::OperationRef::from_raw(op) };
            if let Err(why) = htp_dialects::diagnostics::verify(self.ctx, &op) {
                failure.message = format!("{}: {why}", failure.message);
                return Err(failure);
            }
        }
        Ok(())
    }

    /// The module the program's functions are in.
    fn program_module(&self) -> melior::ir::OperationRef<'c, 'c> {
        unsafe { melior::ir::OperationRef::from_raw(self.module) }
    }

    /// `<model>.<name>(args)` inside a function of `model`.
    pub fn construct(&mut self, model: &'static ProgrammingModel, name: &str, call: &ExprCall, name_range: TextRange, range: TextRange) -> LResult<Val> {
        let Some(construct) = model.construct(name) else {
            let names: Vec<&str> = model.constructs.iter().map(|c| c.name).collect();
            return Err(self.error(name_range, DiagnosticKind::UnknownName, format!(
                "the programming model '{}' has no construct '{name}' (it has: {})", model.name, names.join(", ")
            )));
        };
        self.require_model(model, name, range)?;
        let (positional, keywords) = self.model_arguments(call)?;
        let site = ConstructSite::new(self.ctx, self.loc(range), &positional, &keywords, &[], self.site_block()).in_program(self.program_module());
        let result = (construct.lower)(&site).map_err(|message| self.error(range, DiagnosticKind::Invalid, format!("{}.{name}(): {message}", model.namespace)))?;
        self.model_result(result, range)
    }

    /// The constructor `name` of `model` for a `for` (loops) or `with` (blocks).
    fn region_constructor(&self, model: &'static ProgrammingModel, name: &str, kind: RegionKind, range: TextRange) -> LResult<&'static LoopConstructor> {
        let (found, all) = match kind {
            RegionKind::Loop => (model.loop_constructor(name), model.loops),
            RegionKind::Block => (model.block_construct(name), model.blocks),
        };
        found.ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|l| l.name).collect();
            self.error(range, DiagnosticKind::UnknownName, format!(
                "the programming model '{}' has no {} '{name}' (it has: {})",
                model.name,
                kind.word(),
                if names.is_empty() { "none".into() } else { names.join(", ") }
            ))
        })
    }

    /// `for <targets> in <model>.<name>(args): body` (`kind` Loop) or
    /// `with <model>.<name>(args): body` (Block): the model's constructor
    /// builds the region op; the body is lowered into its block with the
    /// targets bound to the values it names, and the enclosing function's
    /// variables the body reassigns carried through the op.
    pub fn model_region(
        &mut self,
        model: &'static ProgrammingModel,
        name: &str,
        call: &ExprCall,
        targets: &[String],
        body: &[Stmt],
        kind: RegionKind,
        range: TextRange,
    ) -> LResult<()> {
        let iter_range = call.range();
        let constructor = self.region_constructor(model, name, kind, call.func.range())?;
        self.require_model(model, name, iter_range)?;
        let mut assigned = Vec::new();
        super::stmt::assigned_names(body, &mut assigned);
        let mut carried = Vec::new();
        for variable in assigned.iter().filter(|n| !targets.contains(n)) {
            if let Some(value) = self.env.get(variable).cloned() {
                let (raw, ty) = self.materialize(variable, &value, range)?;
                carried.push((variable.clone(), ty, raw));
            }
        }
        let (positional, keywords) = self.model_arguments(call)?;
        let initial: Vec<ModelIr<'c>> = carried.iter().map(|(_, _, raw)| ir(*raw)).collect();
        let site = ConstructSite::new(self.ctx, self.loc(iter_range), &positional, &keywords, &initial, self.site_block()).in_program(self.program_module());
        let located = |this: &Self, message: String| this.error(iter_range, DiagnosticKind::Invalid, format!("{}.{name}(): {message}", model.namespace));
        let built: LoopBody<'c> = (constructor.lower)(&site).map_err(|message| located(self, message))?;
        if built.carried.len() != carried.len() || built.results.len() != carried.len() {
            return Err(located(self, format!(
                "it carries {} of the {} variables its body reassigns ({}): a model's {} must carry every one",
                built.carried.len().min(built.results.len()),
                carried.len(),
                carried.iter().map(|(n, _, _)| format!("'{n}'")).collect::<Vec<_>>().join(", "),
                kind.word()
            )));
        }
        // One name binds the first value; several must name every value (a
        // dropped index is a mistake, not a choice).
        if built.target.len() < targets.len() || (targets.len() > 1 && built.target.len() != targets.len()) {
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "{}.{name}() gives {} value(s) per iteration, but the loop names {}", model.namespace, built.target.len(), targets.len()
            )));
        }
        let saved_block = std::mem::replace(&mut self.block, built.block.to_raw());
        let saved_env = self.env.clone();
        let lowered = self.lower_region_body(&built, targets, &carried, body, range, iter_range);
        self.block = saved_block;
        self.env = saved_env;
        lowered?;
        // Verify the region op (the body block's parent) now that its body
        // is in, so a constructor's mistake is located at the construct.
        let Some(op) = built.block.parent_operation() else {
            return Err(self.internal(iter_range, format!("{}.{name}(): its body block belongs to no op", model.namespace)));
        };
        // MLIR's verifier walks up the regions between a use and its
        // definition; one not attached yet (an `if` branch being built)
        // cannot be walked, so such an op is verified once the body is whole.
        let failure = located(self, format!("the {} it built is invalid", kind.word()));
        if self.attached_to_function(op) {
            htp_dialects::diagnostics::verify(self.ctx, &op).map_err(|why| located(self, format!("the {} it built is invalid: {why}", kind.word())))?;
        } else {
            self.deferred_checks.push((op.to_raw(), failure));
        }
        for ((variable, ty, _), result) in carried.iter().zip(&built.results) {
            self.env.insert(variable.clone(), ty.val(result.to_raw()));
        }
        Ok(())
    }

    /// The body of a model's region op: targets bound, carried variables
    /// bound to their block arguments, the terminator yielding them.
    fn lower_region_body(
        &mut self,
        built: &LoopBody<'c>,
        targets: &[String],
        carried: &[(String, super::stmt::Carried, MlirValue)],
        body: &[Stmt],
        range: TextRange,
        iter_range: TextRange,
    ) -> LResult<()> {
        for (target, value) in targets.iter().zip(&built.target) {
            let bound = self.model_result(ModelValue::Value(*value), iter_range)?;
            self.env.insert(target.clone(), bound);
        }
        for ((variable, ty, _), argument) in carried.iter().zip(&built.carried) {
            self.env.insert(variable.clone(), ty.val(argument.to_raw()));
        }
        self.lower_stmts(body)?;
        let mut yields = Vec::new();
        for (variable, ty, _) in carried {
            let value = self.env.get(variable).cloned().unwrap_or(Val::NoneV);
            yields.push(self.coerce(variable, &value, *ty, range, "before the construct")?);
        }
        match built.terminator {
            Some(terminator) => self.emit(range, super::builder::OpSpec::new(terminator, &yields, &[])).map(|_| ()),
            None if yields.is_empty() => Ok(()),
            None => Err(self.internal(iter_range, "a region op that carries variables needs a terminator")),
        }
    }

    /// A construct's or loop's use must be inside a function of its model.
    fn require_model(&self, model: &ProgrammingModel, name: &str, range: TextRange) -> LResult<()> {
        let entry_model = self.program.kernel(&self.call_stack[0]).map(|k| k.kind);
        if entry_model != Some(crate::parse::KernelKind::Model(model.name)) {
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "{}.{name}() belongs in a function of the programming model '{}' (@{}.{})",
                model.namespace, model.name, model.namespace, model.entry_decorator
            )));
        }
        Ok(())
    }

    /// A call's arguments as a model's hooks take them.
    fn model_arguments(&mut self, call: &ExprCall) -> LResult<(Vec<ModelValue<'c>>, Vec<(String, ModelValue<'c>)>)> {
        let mut positional = Vec::new();
        for argument in call.arguments.args.iter() {
            positional.push(self.model_argument(argument)?);
        }
        let mut keywords = Vec::new();
        for keyword in call.arguments.keywords.iter() {
            let Some(key) = &keyword.arg else {
                return Err(self.unsupported(keyword.range, "**kwargs in a call"));
            };
            keywords.push((key.id.to_string(), self.model_argument(&keyword.value)?));
        }
        Ok((positional, keywords))
    }

    /// A construct's argument: a program function by name, or a lowered value.
    fn model_argument(&mut self, argument: &Expr) -> LResult<ModelValue<'c>> {
        if let Expr::Name(name) = argument {
            if !self.env.contains_key(name.id.as_str()) && self.program.kernel(name.id.as_str()).is_some() {
                return Ok(ModelValue::Function(name.id.to_string()));
            }
        }
        // `x[i:i + 16, :]` of a tensor: the view, not a tile loaded from it.
        if let Expr::Subscript(subscript) = argument {
            if let Val::Tensor(tensor) = self.lower_expr(&subscript.value)? {
                return self.model_view(&tensor, &subscript.slice);
            }
        }
        let value = self.lower_expr(argument)?;
        self.model_value(value, argument.range())
    }

    /// A tensor's block as a construct's argument.
    fn model_view(&mut self, tensor: &super::value::TensorV, slice: &Expr) -> LResult<ModelValue<'c>> {
        let access = self.access_view(tensor, slice)?;
        // The leading dimensions of the front end's view that the tensor
        // does not have (a 1-D tensor is viewed as 1xN).
        let added = access.indices.len() - tensor.user_rank;
        let offsets = access.indices[added..].iter().map(|raw| ir(*raw)).collect();
        let mut dynamic = access.valid_values.iter();
        let mut extent = |valid: super::types::Valid| match valid {
            super::types::Valid::Static(n) => Some(ViewExtent::Static(n)),
            super::types::Valid::Dynamic => dynamic.next().map(|raw| ViewExtent::Dynamic(ir(*raw))),
        };
        let (Some(rows), Some(cols)) = (extent(access.valid[0]), extent(access.valid[1])) else {
            return Err(self.internal(slice.range(), "a view whose run-time valid sizes are missing"));
        };
        Ok(ModelValue::View(TensorView { tensor: ir(tensor.value), offsets, shape: access.shape, valid: [rows, cols] }))
    }

    fn model_value(&self, value: Val, range: TextRange) -> LResult<ModelValue<'c>> {
        Ok(match value {
            Val::Int(v) => ModelValue::Int(v),
            Val::Float(v) => ModelValue::Float(v),
            Val::Bool(v) => ModelValue::Bool(v),
            Val::Str(v) => ModelValue::Str(v),
            Val::NoneV => ModelValue::None,
            Val::Scalar(v, _) | Val::Tile(v, _) | Val::Model(v) => ModelValue::Value(ir(v)),
            Val::Tensor(tensor) => ModelValue::Value(ir(tensor.value)),
            Val::Tuple(items) => ModelValue::Tuple(items.into_iter().map(|item| self.model_value(item, range)).collect::<LResult<_>>()?),
            Val::DType(elem) => ModelValue::Type(super::types::parse_type(self.ctx, elem.mlir()).map_err(|why| self.internal(range, why))?),
        })
    }

    /// What a construct returned, as a value of the kernel language: a
    /// constant, a scalar, a tile, a value of the model's own type, a tuple.
    fn model_result(&self, result: ModelValue<'c>, range: TextRange) -> LResult<Val> {
        Ok(match result {
            ModelValue::Int(v) => Val::Int(v),
            ModelValue::Float(v) => Val::Float(v),
            ModelValue::Bool(v) => Val::Bool(v),
            ModelValue::Str(v) => Val::Str(v),
            ModelValue::None => Val::NoneV,
            ModelValue::Tuple(items) => Val::Tuple(items.into_iter().map(|item| self.model_result(item, range)).collect::<LResult<_>>()?),
            ModelValue::Value(value) => {
                let ty: Type = value.r#type();
                let text = ty.to_string();
                if text == "index" {
                    return Ok(Val::Scalar(value.to_raw(), ScalarTy::Index));
                }
                if let Some(elem) = Elem::from_name(&text) {
                    return Ok(Val::Scalar(value.to_raw(), ScalarTy::Elem(elem)));
                }
                match TileTy::of(ty) {
                    Some(Ok(tile)) => Val::Tile(value.to_raw(), tile),
                    Some(Err(what)) => return Err(self.error(range, DiagnosticKind::Unsupported, format!("a construct returned {what}"))),
                    // Anything else — a tensor a construct made (a pipe
                    // channel's ring, a slot) included — is the model's
                    // own: it goes back to the model's constructs only.
                    None => Val::Model(value.to_raw()),
                }
            }
            ModelValue::Function(name) => return Err(self.internal(range, format!("a construct returned the function {name}"))),
            ModelValue::Type(ty) => return Err(self.internal(range, format!("a construct returned the type {ty}"))),
            ModelValue::View(_) => return Err(self.internal(range, "a construct returned a tensor view (views are arguments only)")),
        })
    }
}
