//! Programming models: a dialect plus the front-end constructs that produce
//! it, registered the way intrinsic sets are (a model crate registers
//! one). A model has a Python namespace (`toy`), an entry decorator
//! (`@toy.program`) marking the functions written in it, and constructs
//! (`toy.launch(k, x)`) whose hooks build its ops from the arguments the
//! front end has already lowered. Its entry functions become `func.func`s
//! marked `htp.model = "<name>"`, so a program needs the capability
//! `model:<name>` and a target without it says so at the function's line.
//!
//! The bodies of model functions are the kernel language (loops, `if`,
//! scalars, tensors, calls of helpers); the model adds its constructs and
//! loop constructors (`for t in toy.tiles(n)`: the hook builds a region op,
//! the front end lowers the loop's body into it).

use std::collections::BTreeMap;
use std::sync::RwLock;

use melior::{
    ir::{
        block::BlockLike, operation::OperationBuilder, operation::OperationLike, Attribute, Block, BlockRef, Identifier, Location,
        OperationRef, Region, RegionLike, Type, Value,
    },
    Context,
};

use crate::intrinsics::HTP_NAMESPACE;

/// A run-time value of the program being lowered. Values live in the
/// module's blocks, which outlive every hook, so they carry the context's
/// lifetime only.
pub type ModelIr<'c> = Value<'c, 'c>;

/// A value a construct receives or returns.
#[derive(Clone, Debug)]
pub enum ModelValue<'c> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A run-time value: a tile, a tensor (memref), a scalar, or a value of
    /// a type the model's dialect defines (a channel, a task handle, ...).
    Value(ModelIr<'c>),
    /// A function of the program named by the argument (`toy.launch(k, ...)`):
    /// an `@htp.kernel` is also a symbol of the module.
    Function(String),
    /// A Python tuple of values (`(a, b)` as an argument).
    Tuple(Vec<ModelValue<'c>>),
    /// An element type named as a value (`f32` as an argument).
    Type(Type<'c>),
    /// A block of a tensor, as `x[i:i + 16, :]` names it (an argument only):
    /// the tensor, not a tile loaded from it.
    View(TensorView<'c>),
    None,
}

impl ModelValue<'_> {
    /// A Python int of at least 1 (a depth, a count, a size); `what` names it in the error.
    pub fn positive(&self, what: &str) -> Result<i64, String> {
        match self {
            ModelValue::Int(n) if *n >= 1 => Ok(*n),
            ModelValue::Int(n) => Err(format!("{what} must be at least 1, got {n}")),
            _ => Err(format!("{what} must be a compile-time integer (a Python int)")),
        }
    }
}

/// One extent of a tensor view: known now, or an `index` value.
#[derive(Clone, Copy, Debug)]
pub enum ViewExtent<'c> {
    Static(i64),
    Dynamic(ModelIr<'c>),
}

/// `tensor[...]` as a construct receives it: where the block starts in
/// each of the tensor's dimensions (`index` values), the block's rows and
/// columns (its last two dimensions), and how many of them are inside the
/// tensor (fewer at a ragged edge).
#[derive(Clone, Debug)]
pub struct TensorView<'c> {
    /// The tensor (a memref argument of the function).
    pub tensor: ModelIr<'c>,
    pub offsets: Vec<ModelIr<'c>>,
    pub shape: [i64; 2],
    pub valid: [ViewExtent<'c>; 2],
}

/// Where a construct is being lowered: its arguments, and a builder that
/// inserts ops where the construct stands, located at it.
#[derive(Clone, Copy)]
pub struct ConstructSite<'c, 'a> {
    pub context: &'c Context,
    pub location: Location<'c>,
    pub positional: &'a [ModelValue<'c>],
    pub keywords: &'a [(String, ModelValue<'c>)],
    /// For a loop or block construct: the values, on entry, of the
    /// variables of the enclosing function its body reassigns. The loop op
    /// carries them (as `scf.for`'s iter_args do): see [`LoopBody`].
    pub carried: &'a [ModelIr<'c>],
    block: BlockRef<'c, 'c>,
    /// The module the program's functions go into (the function being
    /// lowered is not in it yet).
    program: Option<OperationRef<'c, 'c>>,
}

impl<'c, 'a> ConstructSite<'c, 'a> {
    /// A site whose ops go at the end of `block` (the front end makes it).
    pub fn new(
        context: &'c Context,
        location: Location<'c>,
        positional: &'a [ModelValue<'c>],
        keywords: &'a [(String, ModelValue<'c>)],
        carried: &'a [ModelIr<'c>],
        block: BlockRef<'c, 'c>,
    ) -> Self {
        Self { context, location, positional, keywords, carried, block, program: None }
    }

    /// The same site, told the module the program's functions are in
    /// (what [`ConstructSite::function`] searches).
    pub fn in_program(self, module: OperationRef<'c, 'c>) -> Self {
        ConstructSite { program: Some(module), ..self }
    }

    /// An op `name` at the construct with these operands, results, attributes.
    fn builder(&self, name: &str, operands: &[ModelIr<'c>], results: &[Type<'c>], attributes: &[(&str, Attribute<'c>)]) -> OperationBuilder<'c> {
        let attributes: Vec<(Identifier<'c>, Attribute<'c>)> = attributes.iter().map(|(n, a)| (Identifier::new(self.context, n), *a)).collect();
        OperationBuilder::new(name, self.location).add_operands(operands).add_results(results).add_attributes(&attributes)
    }

    /// Builds `name` with these operands, result types and attributes at the
    /// construct; its results. An op MLIR cannot build, or one that does
    /// not verify, is an error (a diagnostic at the construct).
    pub fn emit(&self, name: &str, operands: &[ModelIr<'c>], results: &[Type<'c>], attributes: &[(&str, Attribute<'c>)]) -> Result<Vec<ModelIr<'c>>, String> {
        let op = self.builder(name, operands, results, attributes).build().map_err(|e| format!("cannot build {name}: {e}"))?;
        // Verified in place (a terminator's verifier looks at its parent),
        // so a hook that builds an op its dialect rejects hears it here, at
        // the construct, not as an unverifiable module later.
        let op = self.block.append_operation(op);
        if let Err(why) = htp_dialects::diagnostics::verify(self.context, &op) {
            unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
            return Err(format!("it built an invalid {name}: {why}"));
        }
        Ok(results_of(op))
    }

    /// The same site with other arguments (a construct lowered through
    /// another's hook: `send(ch, k, ...)` as a task on the slot).
    pub fn with_arguments<'b>(&self, positional: &'b [ModelValue<'c>], keywords: &'b [(String, ModelValue<'c>)]) -> ConstructSite<'c, 'b>
    where
        'a: 'b,
    {
        ConstructSite { context: self.context, location: self.location, positional, keywords, carried: self.carried, block: self.block, program: self.program }
    }

    /// The same site, building at the end of `block` instead (the body of
    /// a region op the hook built: a nested loop, a terminator).
    pub fn within(&self, block: BlockRef<'c, 'c>) -> ConstructSite<'c, 'a> {
        ConstructSite { block, ..*self }
    }

    /// Builds `name` with one region of one block whose arguments have
    /// `block_arguments` types (a loop op); the op and that block, where
    /// the front end lowers the loop's body. The op is verified once the
    /// body is in (by the front end), not here.
    pub fn emit_loop(
        &self,
        name: &str,
        operands: &[ModelIr<'c>],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        block_arguments: &[Type<'c>],
    ) -> Result<(OperationRef<'c, 'c>, BlockRef<'c, 'c>), String> {
        let region = Region::new();
        let body = region.append_block(Block::new(&block_arguments.iter().map(|t| (*t, self.location)).collect::<Vec<_>>()));
        // The block lives in the region, which the op takes over below.
        let body = unsafe { BlockRef::from_raw(body.to_raw()) };
        let op = self.builder(name, operands, results, attributes).add_regions([region]).build().map_err(|e| format!("cannot build {name}: {e}"))?;
        let op = self.block.append_operation(op);
        Ok((unsafe { OperationRef::from_raw(op.to_raw()) }, body))
    }

    /// The function `name` of the program being lowered, if it is lowered
    /// already: every `@htp.kernel` is, before any model function (so a
    /// construct naming a kernel can check or convert its arguments
    /// against the kernel's signature).
    pub fn function(&self, name: &str) -> Option<OperationRef<'c, 'c>> {
        use melior::ir::attribute::StringAttribute;
        let op = match self.program {
            Some(module) => module,
            None => {
                let mut op = self.block.parent_operation()?;
                while let Some(parent) = op.parent_operation() {
                    op = parent;
                }
                op
            }
        };
        let body = op.region(0).ok()?.first_block()?;
        let mut current = body.first_operation();
        while let Some(candidate) = current {
            let symbol = candidate.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok());
            if symbol.is_some_and(|s| s.value() == name) {
                return Some(unsafe { OperationRef::from_raw(candidate.to_raw()) });
            }
            current = candidate.next_in_block();
        }
        None
    }

    /// `value` as an `index` at the construct: a Python int as a constant,
    /// an `index` as it is, another integer cast; `None` for anything else
    /// (the construct says what it wanted).
    pub fn index(&self, value: &ModelValue<'c>) -> Result<Option<ModelIr<'c>>, String> {
        use melior::ir::{attribute::IntegerAttribute, TypeLike, ValueLike};
        let index = Type::index(self.context);
        Ok(Some(match value {
            ModelValue::Int(n) => self.emit("arith.constant", &[], &[index], &[("value", IntegerAttribute::new(index, *n).into())])?[0],
            ModelValue::Value(v) if v.r#type() == index => *v,
            ModelValue::Value(v) if v.r#type().is_integer() => self.emit("arith.index_cast", &[*v], &[index], &[])?[0],
            _ => return Ok(None),
        }))
    }

    /// The keyword argument `name`, if given.
    pub fn keyword(&self, name: &str) -> Option<&ModelValue<'c>> {
        self.keywords.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// An error naming the first keyword not in `allowed` (and the ones that are).
    pub fn only_keywords(&self, allowed: &[&str]) -> Result<(), String> {
        match self.keywords.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((other, _)) => Err(format!("takes no keyword '{other}' ({})", allowed.iter().map(|k| format!("{k}=")).collect::<Vec<_>>().join(", "))),
            None => Ok(()),
        }
    }

    /// The `name=` keyword, or `<default>@<line>` of the construct.
    pub fn name_or_line(&self, default: &str) -> Result<String, String> {
        match self.keyword("name") {
            Some(ModelValue::Str(name)) if !name.is_empty() => Ok(name.clone()),
            Some(_) => Err("name= must be a non-empty string".into()),
            None => Ok(match htp_dialects::diagnostics::source_position(self.location) {
                Some(p) => format!("{default}@{}", p.line),
                None => default.to_string(),
            }),
        }
    }

    /// The types of the carried values, in order (what a loop op's extra
    /// results and block arguments are).
    pub fn carried_types(&self) -> Vec<Type<'c>> {
        use melior::ir::ValueLike;
        self.carried.iter().map(|value| value.r#type()).collect()
    }
}

/// The results of `op`, as values of the program.
pub fn results_of<'c>(op: OperationRef<'c, '_>) -> Vec<ModelIr<'c>> {
    op.results().map(|result| unsafe { Value::from_raw(melior::ir::ValueLike::to_raw(&result)) }).collect()
}

/// The arguments of `block`, as values of the program.
pub fn arguments_of<'c>(block: BlockRef<'c, 'c>) -> Vec<ModelIr<'c>> {
    (0..block.argument_count()).filter_map(|i| block.argument(i).ok()).map(|a| unsafe { Value::from_raw(melior::ir::ValueLike::to_raw(&a)) }).collect()
}

/// Lowers one construct: builds its ops at the site; what it returns (a
/// run-time value, a constant, a tuple, or nothing). An `Err` is a
/// diagnostic at the construct's line.
pub type ConstructLowering = for<'c, 'a> fn(&ConstructSite<'c, 'a>) -> Result<ModelValue<'c>, String>;

/// A named part of a model and the hook that lowers it.
#[derive(Clone, Copy)]
pub struct Hook<L> {
    pub name: &'static str,
    /// One line for the docs.
    pub summary: &'static str,
    pub lower: L,
}

impl<L> std::fmt::Debug for Hook<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hook").field("name", &self.name).finish_non_exhaustive()
    }
}

/// `<namespace>.<name>(...)` in a model function.
pub type Construct = Hook<ConstructLowering>;

/// What a loop (or block) constructor built.
pub struct LoopBody<'c> {
    /// Where the loop's body goes.
    pub block: BlockRef<'c, 'c>,
    /// The values the loop's target names: one per name of
    /// `for i, j in ...` (one name binds the first); a block construct's
    /// first value is what `with ... as t:` binds.
    pub target: Vec<ModelIr<'c>>,
    /// The block arguments standing for `site.carried`, in order: the
    /// variables' values inside the body.
    pub carried: Vec<ModelIr<'c>>,
    /// The op results standing for `site.carried` after the loop.
    pub results: Vec<ModelIr<'c>>,
    /// The op that ends the block, if its dialect wants one; it gets the
    /// carried variables' values at the end of the body as operands.
    pub terminator: Option<&'static str>,
}

/// `for <names> in <namespace>.<constructor>(...)` or
/// `with <namespace>.<constructor>(...)`: builds the region op (with
/// `ConstructSite::emit_loop`) and says where its body goes.
pub type LoopLowering = for<'c, 'a> fn(&ConstructSite<'c, 'a>) -> Result<LoopBody<'c>, String>;

/// A loop constructor of a model (`for t in toy.tiles(n)`), or a block
/// construct (`with toy.process(...):`, `with toy.when(c):`).
pub type LoopConstructor = Hook<LoopLowering>;

/// A type a model defines, usable as a parameter annotation of its
/// functions' helpers (`ch: toy.Channel`): a value passed there must have
/// the MLIR type `matches` accepts.
#[derive(Clone, Copy)]
pub struct ModelType {
    /// `<namespace>.<name>` in an annotation.
    pub name: &'static str,
    pub summary: &'static str,
    /// Whether a value of MLIR type `ty` is one of these.
    pub matches: for<'c> fn(Type<'c>) -> bool,
}

impl std::fmt::Debug for ModelType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelType").field("name", &self.name).finish_non_exhaustive()
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
    /// Dialects whose verifiers state this model's rules (one producer
    /// per channel, ...): a program that breaks one is the user's error,
    /// reported at the op's line, not an internal one.
    pub rules: &'static [&'static str],
    pub constructs: &'static [Construct],
    /// `for x in <namespace>.<name>(...)` loops.
    pub loops: &'static [LoopConstructor],
    /// `with <namespace>.<name>(...):` blocks.
    pub blocks: &'static [LoopConstructor],
    /// Types its helpers' parameters may be annotated with.
    pub types: &'static [ModelType],
    /// Passes (MLIR pipeline text, inside `builtin.module(...)`) the driver
    /// runs on every target before the capability check when a program
    /// uses the model: where a model lowers its constructs into what
    /// targets know (or marks what they must provide).
    pub pipeline: Option<&'static str>,
    /// Python source run in the model's namespace module when Python first
    /// asks for it (`htp.model("<name>")`): the model's surface that is not
    /// compiled — a schedule object, helpers that build pipelines. It may
    /// `import htp`; what it defines is an attribute of the namespace.
    pub python: Option<&'static str>,
}

impl ProgrammingModel {
    pub fn construct(&self, name: &str) -> Option<&'static Construct> {
        self.constructs.iter().find(|c| c.name == name)
    }

    pub fn loop_constructor(&self, name: &str) -> Option<&'static LoopConstructor> {
        self.loops.iter().find(|l| l.name == name)
    }

    pub fn block_construct(&self, name: &str) -> Option<&'static LoopConstructor> {
        self.blocks.iter().find(|b| b.name == name)
    }

    pub fn model_type(&self, name: &str) -> Option<&'static ModelType> {
        self.types.iter().find(|t| t.name == name)
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

/// The model named `name` (the capability `model:<name>`).
pub fn model_named(name: &str) -> Option<&'static ProgrammingModel> {
    MODELS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).get(name).copied()
}

/// Every registered model, by name.
pub fn models() -> Vec<&'static ProgrammingModel> {
    MODELS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).values().copied().collect()
}
