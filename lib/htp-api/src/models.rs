//! Programming models: a dialect plus the front-end constructs that produce
//! it, registered the way intrinsic sets are (WSP and CSP are built as
//! this). A model has a Python namespace (`wsp`), an entry decorator
//! (`@wsp.workload`) marking the functions written in it, and constructs
//! (`wsp.launch(k, x)`) whose hooks build its ops from the arguments the
//! front end has already lowered. Its entry functions become `func.func`s
//! marked `htp.model = "<name>"`, so a program needs the capability
//! `model:<name>` and a target without it says so at the function's line.
//!
//! The bodies of model functions are the kernel language (loops, `if`,
//! scalars, tensors, calls of helpers); the model adds its constructs and
//! loop constructors (`for t in wsp.tiles(n)`: the hook builds a region op,
//! the front end lowers the loop's body into it).

use std::collections::BTreeMap;
use std::sync::RwLock;

use melior::{
    ir::{operation::OperationBuilder, Attribute, Identifier, Location, Type, Value, ValueLike},
    Context,
};
use mlir_sys::{MlirBlock, MlirValue};

use crate::intrinsics::HTP_NAMESPACE;

/// A value a construct receives or returns.
#[derive(Clone, Debug)]
pub enum ModelValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A run-time value: a tile, a tensor (memref) or a scalar.
    Value(MlirValue),
    /// A function of the program named by the argument (`wsp.launch(k, ...)`):
    /// an `@htp.kernel` is also a symbol of the module.
    Function(String),
    None,
}

/// Where a construct is being lowered: its arguments, and a builder that
/// inserts ops where the construct stands, located at it.
pub struct ConstructSite<'c, 'a> {
    pub context: &'c Context,
    pub location: Location<'c>,
    pub positional: &'a [ModelValue],
    pub keywords: &'a [(String, ModelValue)],
    /// Where the construct's ops go (set by the front end).
    pub block: MlirBlock,
}

impl<'c> ConstructSite<'c, '_> {
    /// An op `name` at the construct with these operands, results, attributes.
    fn builder(&self, name: &str, operands: &[MlirValue], results: &[Type<'c>], attributes: &[(&str, Attribute<'c>)]) -> OperationBuilder<'c> {
        let operands: Vec<Value<'c, '_>> = operands.iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
        let attributes: Vec<(Identifier<'c>, Attribute<'c>)> = attributes.iter().map(|(n, a)| (Identifier::new(self.context, n), *a)).collect();
        OperationBuilder::new(name, self.location).add_operands(&operands).add_results(results).add_attributes(&attributes)
    }

    /// Builds `name` with these operands, result types and attributes at the
    /// construct; its results. An op MLIR cannot build, or one that does
    /// not verify, is an error (a diagnostic at the construct).
    pub fn emit(&self, name: &str, operands: &[MlirValue], results: &[Type<'c>], attributes: &[(&str, Attribute<'c>)]) -> Result<Vec<MlirValue>, String> {
        let op = self.builder(name, operands, results, attributes).build().map_err(|e| format!("cannot build {name}: {e}"))?;
        // A hook that builds an op its dialect rejects hears it here, at
        // the construct, not as an unverifiable module later.
        htp_dialects::diagnostics::verify(self.context, &op).map_err(|why| format!("it built an invalid {name}: {why}"))?;
        let block = unsafe { melior::ir::BlockRef::from_raw(self.block) };
        let op = melior::ir::block::BlockLike::append_operation(&block, op);
        Ok(melior::ir::operation::OperationLike::results(&op).map(|r| r.to_raw()).collect())
    }

    /// Builds `name` with one region of one block whose arguments have
    /// `block_arguments` types (a loop op); its results and that block, where
    /// the front end lowers the loop's body. The op is verified once the body
    /// is in (by the front end), not here.
    pub fn emit_loop(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        block_arguments: &[Type<'c>],
    ) -> Result<(Vec<MlirValue>, MlirBlock), String> {
        use melior::ir::{block::BlockLike, operation::OperationLike, Block, Region, RegionLike};
        let region = Region::new();
        let body = region.append_block(Block::new(&block_arguments.iter().map(|t| (*t, self.location)).collect::<Vec<_>>()));
        let body = body.to_raw();
        let op = self
            .builder(name, operands, results, attributes)
            .add_regions([region])
            .build()
            .map_err(|e| format!("cannot build {name}: {e}"))?;
        let block = unsafe { melior::ir::BlockRef::from_raw(self.block) };
        let op = block.append_operation(op);
        Ok((op.results().map(|r| r.to_raw()).collect(), body))
    }

    /// The keyword argument `name`, if given.
    pub fn keyword(&self, name: &str) -> Option<&ModelValue> {
        self.keywords.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// Lowers one construct: builds its ops at the site; what it returns (a
/// run-time value, a constant, or nothing). An `Err` is a diagnostic at
/// the construct's line.
pub type ConstructLowering = fn(&ConstructSite) -> Result<ModelValue, String>;

/// `<namespace>.<name>(...)` in a model function.
#[derive(Clone, Copy)]
pub struct Construct {
    pub name: &'static str,
    /// One line for the docs.
    pub summary: &'static str,
    pub lower: ConstructLowering,
}

impl std::fmt::Debug for Construct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Construct").field("name", &self.name).finish_non_exhaustive()
    }
}

/// What a loop constructor built: the block the loop's body goes in, the
/// values the loop's target names (one name: the first), and the op (with
/// no operands) that ends the block, if its dialect wants one.
pub struct LoopBody {
    pub block: MlirBlock,
    pub target: Vec<MlirValue>,
    pub terminator: Option<&'static str>,
}

/// `for <name> in <namespace>.<constructor>(...)`: builds the loop op (with
/// `ConstructSite::emit_loop`) and says where its body goes.
pub type LoopLowering = fn(&ConstructSite) -> Result<LoopBody, String>;

/// A loop constructor of a model (`for t in wsp.tiles(n)`).
#[derive(Clone, Copy)]
pub struct LoopConstructor {
    pub name: &'static str,
    pub summary: &'static str,
    pub lower: LoopLowering,
}

impl std::fmt::Debug for LoopConstructor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopConstructor").field("name", &self.name).finish_non_exhaustive()
    }
}

/// A programming model (`kernel` is HTP's own, built in).
#[derive(Debug)]
pub struct ProgrammingModel {
    /// The capability `model:<name>` its programs need.
    pub name: &'static str,
    /// The Python namespace of its decorator and constructs.
    pub namespace: &'static str,
    pub description: &'static str,
    /// `@<namespace>.<entry_decorator>` marks a function written in it.
    pub entry_decorator: &'static str,
    /// Dialects its constructs create ops of (loaded before lowering).
    pub dialects: &'static [&'static str],
    pub constructs: &'static [Construct],
    /// `for x in <namespace>.<name>(...)` loops.
    pub loops: &'static [LoopConstructor],
}

impl ProgrammingModel {
    pub fn construct(&self, name: &str) -> Option<&'static Construct> {
        self.constructs.iter().find(|c| c.name == name)
    }

    pub fn loop_constructor(&self, name: &str) -> Option<&'static LoopConstructor> {
        self.loops.iter().find(|l| l.name == name)
    }
}

/// The attribute marking a model's entry function with the model's name.
pub const MODEL_ATTRIBUTE: &str = "htp.model";

static MODELS: RwLock<BTreeMap<&'static str, &'static ProgrammingModel>> = RwLock::new(BTreeMap::new());

/// Registers `model`. The same model again is a no-op; another under a
/// taken name or namespace (or `htp`'s) is an error.
pub fn register_model(model: &'static ProgrammingModel) -> Result<(), String> {
    if model.namespace == HTP_NAMESPACE || model.name == "kernel" {
        return Err(format!("a programming model cannot be named '{}' or live in '{HTP_NAMESPACE}' (HTP's kernel model)", model.name));
    }
    if crate::intrinsics::intrinsic_set(model.namespace).is_some() {
        return Err(format!("the namespace '{}' of the programming model '{}' is an intrinsic set's", model.namespace, model.name));
    }
    let mut models = MODELS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(existing) = models.values().find(|m| m.name == model.name || m.namespace == model.namespace) {
        if std::ptr::eq(*existing, model) {
            return Ok(());
        }
        return Err(format!(
            "two programming models claim the name '{}' or the namespace '{}': \"{}\" and \"{}\"",
            model.name, model.namespace, existing.description, model.description
        ));
    }
    models.insert(model.name, model);
    Ok(())
}

/// The model whose Python namespace is `namespace`.
pub fn model_in(namespace: &str) -> Option<&'static ProgrammingModel> {
    MODELS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).values().find(|m| m.namespace == namespace).copied()
}

/// Every registered model, by name.
pub fn models() -> Vec<&'static ProgrammingModel> {
    MODELS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).values().copied().collect()
}
