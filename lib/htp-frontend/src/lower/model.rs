//! Constructs of registered programming models (`wsp.launch(k, x)`):
//! arguments lowered as in any call (a bare name of a program function is
//! that function), the model's hook builds its ops at the call's location.

use melior::ir::{Type, Value, ValueLike};
use ruff_python_ast::{Expr, ExprCall, StmtFor};
use ruff_text_size::{Ranged, TextRange};

use super::types::{Elem, ScalarTy};
use super::value::Val;
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;
use htp_api::models::{ConstructSite, ModelValue, ProgrammingModel};

impl<'c> Lowerer<'c, '_> {
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
        let site = ConstructSite {
            context: self.ctx,
            location: self.loc(range),
            positional: &positional,
            keywords: &keywords,
            block: self.block,
        };
        let result = (construct.lower)(&site).map_err(|message| self.error(range, DiagnosticKind::Invalid, format!("{}.{name}(): {message}", model.namespace)))?;
        self.model_result(result, range)
    }

    /// `for <target> in <model>.<name>(args): body`: the model's loop
    /// constructor builds the loop op; the body is lowered into its block
    /// with `target` bound to the loop's value. Variables of the enclosing
    /// function cannot be reassigned inside (nothing is carried out).
    pub fn model_loop(&mut self, model: &'static ProgrammingModel, name: &str, call: &ExprCall, target: &str, f: &StmtFor) -> LResult<()> {
        let range = f.iter.range();
        let Some(constructor) = model.loop_constructor(name) else {
            let names: Vec<&str> = model.loops.iter().map(|l| l.name).collect();
            return Err(self.error(call.func.range(), DiagnosticKind::UnknownName, format!(
                "the programming model '{}' has no loop '{name}' (it has: {})", model.name, if names.is_empty() { "none".into() } else { names.join(", ") }
            )));
        };
        self.require_model(model, name, range)?;
        let mut assigned = Vec::new();
        super::stmt::assigned_names(&f.body, &mut assigned);
        if let Some(outer) = assigned.iter().find(|n| n.as_str() != target && self.env.contains_key(n.as_str())) {
            return Err(self.error(f.range, DiagnosticKind::Unsupported, format!(
                "'{outer}' is assigned inside a {}.{name} loop but defined before it: a model's loop carries no values out", model.namespace
            )));
        }
        let (positional, keywords) = self.model_arguments(call)?;
        let site = ConstructSite { context: self.ctx, location: self.loc(range), positional: &positional, keywords: &keywords, block: self.block };
        let body = (constructor.lower)(&site).map_err(|message| self.error(range, DiagnosticKind::Invalid, format!("{}.{name}(): {message}", model.namespace)))?;
        let saved_block = std::mem::replace(&mut self.block, body.block);
        let saved_env = self.env.clone();
        if let Some(value) = body.target.first() {
            let bound = self.model_result(ModelValue::Value(*value), range);
            match bound {
                Ok(bound) => {
                    self.env.insert(target.to_string(), bound);
                }
                Err(e) => {
                    self.block = saved_block;
                    self.env = saved_env;
                    return Err(e);
                }
            }
        }
        let lowered = self.lower_stmts(&f.body).and_then(|_| match body.terminator {
            Some(terminator) => self.emit(f.range, super::builder::OpSpec::new(terminator, &[], &[])).map(|_| ()),
            None => Ok(()),
        });
        self.block = saved_block;
        self.env = saved_env;
        lowered?;
        // Verify the loop op (the body block's parent) now that its body is
        // in, so a constructor's mistake is located at the loop.
        let raw = unsafe { mlir_sys::mlirBlockGetParentOperation(body.block) };
        if raw.ptr.is_null() {
            return Err(self.internal(range, format!("{}.{name}(): its body block belongs to no op", model.namespace)));
        }
        let op = unsafe { melior::ir::OperationRef::from_raw(raw) };
        htp_dialects::diagnostics::verify(self.ctx, &op).map_err(|why| {
            self.error(range, DiagnosticKind::Invalid, format!("{}.{name}(): the loop it built is invalid: {why}", model.namespace))
        })
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
    fn model_arguments(&mut self, call: &ExprCall) -> LResult<(Vec<ModelValue>, Vec<(String, ModelValue)>)> {
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
    fn model_argument(&mut self, argument: &Expr) -> LResult<ModelValue> {
        if let Expr::Name(name) = argument {
            if !self.env.contains_key(name.id.as_str()) && self.program.kernel(name.id.as_str()).is_some() {
                return Ok(ModelValue::Function(name.id.to_string()));
            }
        }
        Ok(match self.lower_expr(argument)? {
            Val::Int(v) => ModelValue::Int(v),
            Val::Float(v) => ModelValue::Float(v),
            Val::Bool(v) => ModelValue::Bool(v),
            Val::Str(v) => ModelValue::Str(v),
            Val::NoneV => ModelValue::None,
            Val::Scalar(v, _) | Val::Tile(v, _) => ModelValue::Value(v),
            Val::Tensor(tensor) => ModelValue::Value(tensor.value),
            other => {
                return Err(self.error(argument.range(), DiagnosticKind::Type, format!(
                    "a programming model's construct cannot take {}", other.describe()
                )))
            }
        })
    }

    /// What a construct returned, as a value of the kernel language.
    fn model_result(&self, result: ModelValue, range: TextRange) -> LResult<Val> {
        Ok(match result {
            ModelValue::Int(v) => Val::Int(v),
            ModelValue::Float(v) => Val::Float(v),
            ModelValue::Bool(v) => Val::Bool(v),
            ModelValue::Str(v) => Val::Str(v),
            ModelValue::None => Val::NoneV,
            ModelValue::Value(value) => {
                let ty: Type = unsafe { Value::from_raw(value) }.r#type();
                let text = ty.to_string();
                let scalar = if text == "index" {
                    Some(ScalarTy::Index)
                } else {
                    ["f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1"]
                        .iter()
                        .filter_map(|name| Elem::from_name(name))
                        .find(|elem| elem.mlir() == text)
                        .map(ScalarTy::Elem)
                };
                match scalar {
                    Some(scalar) => Val::Scalar(value, scalar),
                    None => return Err(self.internal(range, format!("a construct returned a value of type {text}: constructs return scalars or nothing"))),
                }
            }
            ModelValue::Function(name) => return Err(self.internal(range, format!("a construct returned the function {name}"))),
        })
    }

}
