//! Lowering of kernels to `tile` + func/scf/arith/memref, straight from the
//! (mutated) Python AST. Every op carries the `FileLineColLoc` of the Python
//! node that produced it.

pub mod builder;
pub mod calls;
pub mod intrinsic;
mod expr;
mod model;
mod ops;
mod stmt;
mod tensor;
pub mod types;
pub mod value;

use std::collections::HashMap;

use melior::{
    ir::{
        attribute::{StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::OperationBuilder,
        r#type::FunctionType,
        Block, Identifier, Location, Module, Region, RegionLike, Type, ValueLike,
    },
    Context,
};
use mlir_sys::MlirBlock;
use ruff_python_ast::{Expr, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::parse::{diagnostic, KernelDef, KernelKind};
use crate::signature::{
    parse_annotation, AnnotatedDim, Annotation, ConstType, ConstValue, Constants, DimSig, KernelSignature, ParamKind,
    ParamSignature,
};
use crate::source::PreparedSource;
use builder::OpSpec;
use types::ScalarTy;
use value::{DimV, Val};

pub type LResult<T> = Result<T, Diagnostic>;

/// Everything parsed: the sources and their (mutated) kernels.
pub struct Program {
    pub sources: Vec<PreparedSource>,
    pub kernels: Vec<KernelDef>,
    /// Name -> the first kernel or helper of that name in `kernels`: calls
    /// look functions up by name, in constant time (a chain of n helpers
    /// made n linear searches).
    by_name: HashMap<String, usize>,
}

impl Program {
    pub fn new(sources: Vec<PreparedSource>, kernels: Vec<KernelDef>) -> Program {
        let mut by_name = HashMap::new();
        for (index, kernel) in kernels.iter().enumerate() {
            by_name.entry(kernel.def.name.id.to_string()).or_insert(index);
        }
        Program { sources, kernels, by_name }
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelDef> {
        self.by_name.get(name).map(|&index| &self.kernels[index])
    }
}

/// Names visible in a function body.
pub type Env = HashMap<String, Val>;

pub struct Lowerer<'c, 'p> {
    pub ctx: &'c Context,
    pub program: &'p Program,
    /// Index of the source of the function being lowered.
    pub src: usize,
    /// Where new ops go.
    pub block: MlirBlock,
    pub env: Env,
    /// Functions being inlined (for recursion errors).
    pub call_stack: Vec<String>,
    /// The names in `call_stack`, for a constant-time recursion check.
    pub inlining: std::collections::HashSet<String>,
    /// Iterations `static_range` loops unrolled so far in this kernel (nested
    /// loops and inlined helpers included), against [`UNROLL_BUDGET`].
    pub unrolled: u64,
    /// The module the program's functions are appended to (what a model
    /// construct searches for the kernels it names).
    pub module: mlir_sys::MlirOperation,
    /// The body block of the function being lowered.
    pub function_block: mlir_sys::MlirBlock,
    /// Model region ops built inside regions not attached yet (an `if`'s
    /// branches are built before the `scf.if`): verified, with the message
    /// to report at their construct, once the function's body is whole.
    pub deferred_checks: Vec<(mlir_sys::MlirOperation, Diagnostic)>,
}

/// Most `static_range` iterations one kernel may unroll in total (each loop
/// at most 1024): nested loops multiply, and 1000 x 1000 copies of a body
/// would take minutes and gigabytes to compile.
pub const UNROLL_BUDGET: u64 = 16384;

impl<'c, 'p> Lowerer<'c, 'p> {
    pub fn source(&self) -> &'p PreparedSource {
        &self.program.sources[self.src]
    }

    pub fn error(&self, range: TextRange, kind: DiagnosticKind, message: impl Into<String>) -> Diagnostic {
        diagnostic(self.source(), range, kind, message)
    }
}

/// A parameter of an entry kernel, annotation read and constant resolved.
struct EntryParam {
    name: String,
    range: TextRange,
    annotation: Annotation,
    constant: Option<ConstValue>,
}

/// Lowers every entry kernel of `program` into `module`; the first error
/// of each kernel is reported.
pub fn lower_program<'c>(
    ctx: &'c Context,
    program: &Program,
    constants: &Constants,
    module: &Module<'c>,
) -> Result<Vec<KernelSignature>, Vec<Diagnostic>> {
    let mut signatures = Vec::new();
    let mut errors = Vec::new();
    // Kernels first: a model function's constructs may look the kernels it
    // names up (`ConstructSite::function`) to check or convert arguments.
    let entries = program.kernels.iter().filter(|k| matches!(k.kind, KernelKind::Entry));
    let models = program.kernels.iter().filter(|k| matches!(k.kind, KernelKind::Model(_)));
    for kernel in entries.chain(models) {
        match lower_entry(ctx, program, kernel, constants, module) {
            Ok(s) => signatures.push(s),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(signatures)
    } else {
        Err(errors)
    }
}

fn lower_entry<'c>(
    ctx: &'c Context,
    program: &Program,
    kernel: &KernelDef,
    constants: &Constants,
    module: &Module<'c>,
) -> LResult<KernelSignature> {
    let def = &kernel.def;
    let src = &program.sources[kernel.source];
    let err = |range: TextRange, kind, msg: String| diagnostic(src, range, kind, msg);
    let params = read_entry_params(def, constants, &err)?;
    let mut lowerer = Lowerer { ctx, program, src: kernel.source, block: MlirBlock { ptr: std::ptr::null_mut() }, env: Env::new(), call_stack: vec![def.name.id.to_string()], inlining: [def.name.id.to_string()].into_iter().collect(), unrolled: 0, module: module.as_operation().to_raw(), function_block: MlirBlock { ptr: std::ptr::null_mut() }, deferred_checks: Vec::new() };

    // MLIR argument types, in Python order without constants.
    let mut arg_types: Vec<Type<'c>> = Vec::new();
    let mut arg_locs: Vec<Location<'c>> = Vec::new();
    let mut signature = KernelSignature { name: def.name.id.to_string(), params: Vec::new(), windows: Vec::new() };
    // Argument indices of the communication windows (`comm.Window[...]`).
    let mut windows: Vec<usize> = Vec::new();
    let const_ints: HashMap<&str, i64> = params
        .iter()
        .filter_map(|p| match p.constant {
            Some(ConstValue::Int(v)) => Some((p.name.as_str(), v)),
            _ => None,
        })
        .collect();
    for p in &params {
        let (kind, arg_ty) = match &p.annotation {
            Annotation::Tensor { elem, shape, is_output, in_out, layout, window } => {
                let dims: Vec<DimSig> = shape
                    .iter()
                    .map(|d| match d {
                        AnnotatedDim::Static(v) => DimSig::Static(*v),
                        AnnotatedDim::Name(n) => match const_ints.get(n.as_str()) {
                            Some(v) if *v > 0 => DimSig::Static(*v),
                            _ => DimSig::Symbol(n.clone()),
                        },
                    })
                    .collect();
                let text = dims
                    .iter()
                    .map(|d| match d {
                        DimSig::Static(v) => v.to_string(),
                        DimSig::Symbol(_) => "?".to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("x");
                let ty = lowerer.ty(p.range, &format!("memref<{text}x{}{}>", elem.mlir(), layout.memref_suffix(dims.len())))?;
                if *window {
                    // No caller passes it: it is neither an input nor an output of a call.
                    windows.push(arg_types.len());
                    (ParamKind::Tensor { elem: *elem, shape: dims, is_output: false, in_out: false, layout: *layout }, Some(ty))
                } else {
                    (ParamKind::Tensor { elem: *elem, shape: dims, is_output: *is_output, in_out: *in_out, layout: *layout }, Some(ty))
                }
            }
            Annotation::Scalar(elem) => (ParamKind::Scalar { elem: *elem }, Some(lowerer.ty(p.range, elem.mlir())?)),
            Annotation::Const(_) => match p.constant {
                Some(value) => (ParamKind::Constant { value }, None),
                None => return Err(lowerer.internal(p.range, "constant without a value")),
            },
            Annotation::Any => {
                return Err(err(p.range, DiagnosticKind::Invalid, format!(
                    "parameter '{}' of a kernel needs a tensor, scalar or htp.Const annotation (htp.Tile parameters are for @htp.func helpers)",
                    p.name
                )))
            }
            Annotation::Model { namespace, name } => {
                return Err(err(p.range, DiagnosticKind::Invalid, format!(
                    "parameter '{}' of an entry function is a {namespace}.{name}: entry functions take tensors, scalars and constants from their caller (a model's types are for the parameters of functions it calls)",
                    p.name
                )))
            }
        };
        let arg_index = arg_ty.map(|ty| {
            arg_types.push(ty);
            // The parameter's name travels with its location, so that
            // back ends can name what they emit after it.
            arg_locs.push(Location::name(lowerer.ctx, &p.name, lowerer.loc(p.range)));
            arg_types.len() - 1
        });
        signature.params.push(ParamSignature { name: p.name.clone(), kind, arg_index });
    }
    signature.windows = windows.clone();

    let region = Region::new();
    let block = region.append_block(Block::new(
        &arg_types.iter().copied().zip(arg_locs.iter().copied()).collect::<Vec<_>>(),
    ));
    lowerer.block = block.to_raw();
    lowerer.function_block = block.to_raw();

    // Bind parameters: tensors (with their symbolic sizes), scalars, constants.
    for (p, sig) in params.iter().zip(&signature.params) {
        let value = match (&sig.kind, sig.arg_index) {
            (ParamKind::Constant { value }, _) => const_val(*value),
            (ParamKind::Scalar { elem }, Some(i)) => Val::Scalar(block_arg(&block, i, &lowerer, p.range)?, ScalarTy::Elem(*elem)),
            (ParamKind::Tensor { elem, shape, is_output, .. }, Some(i)) => {
                let arg = block_arg(&block, i, &lowerer, p.range)?;
                let window = windows.contains(&i);
                // A window is written too (by the kernel and by its peers).
                let mut tensor = lowerer.bind_tensor(p.range, &p.name, arg, *elem, shape, *is_output || window)?;
                tensor.window = window;
                for (dim, sig_dim) in tensor.dims[tensor.dims.len() - shape.len()..].iter().zip(shape) {
                    if let (DimSig::Symbol(sym), DimV::Dynamic(v)) = (sig_dim, dim) {
                        lowerer.env.entry(sym.clone()).or_insert(Val::Scalar(*v, ScalarTy::Index));
                    }
                }
                Val::Tensor(tensor)
            }
            _ => return Err(lowerer.internal(p.range, "parameter without an argument")),
        };
        lowerer.env.insert(p.name.clone(), value);
    }

    let body = lowerer.lower_function_body(&def.body)?;
    lowerer.run_deferred_checks()?;
    if let Some(value) = body {
        let _ = value;
        return Err(lowerer.error(def.range, DiagnosticKind::Invalid, "a @htp.kernel returns nothing: it writes its results to output tensors (use @htp.func for a helper that returns values)"));
    }
    lowerer.emit(def.range, OpSpec::new("func.return", &[], &[]))?;

    let outputs = signature.outputs().iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let in_outs = signature.in_outs().iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
    let function_type = FunctionType::new(ctx, &arg_types, &[]);
    let unit = lowerer.parse_attr(def.range, "unit")?;
    let func = OperationBuilder::new("func.func", lowerer.loc(def.range))
        .add_attributes(&[
            (Identifier::new(ctx, "sym_name"), StringAttribute::new(ctx, def.name.id.as_str()).into()),
            (Identifier::new(ctx, "function_type"), TypeAttribute::new(function_type.into()).into()),
            (Identifier::new(ctx, "llvm.emit_c_interface"), unit),
            // A kernel (tile IR), or a function of a programming model.
            match kernel.kind {
                KernelKind::Model(model) => (Identifier::new(ctx, htp_api::models::MODEL_ATTRIBUTE), StringAttribute::new(ctx, model).into()),
                _ => (Identifier::new(ctx, "htp.kernel"), unit),
            },
            (Identifier::new(ctx, "htp.outputs"), lowerer.parse_attr(def.range, &format!("array<i64{}{outputs}>", if outputs.is_empty() { "" } else { ": " }))?),
        ])
        .add_attributes(&if in_outs.is_empty() {
            vec![]
        } else {
            // Which outputs keep what the kernel does not write (`htp.InOut`).
            vec![(Identifier::new(ctx, "htp.in_outs"), lowerer.parse_attr(def.range, &format!("array<i64: {in_outs}>"))?)]
        })
        .add_attributes(&if windows.is_empty() {
            vec![]
        } else {
            // Which arguments are communication windows (`comm.Window`).
            let list = windows.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
            vec![(Identifier::new(ctx, htp_api::signature::WINDOWS_ATTRIBUTE), lowerer.parse_attr(def.range, &format!("array<i64: {list}>"))?)]
        })
        .add_regions([region])
        .build()
        .map_err(|e| lowerer.internal(def.range, format!("cannot build func.func: {e}")))?;
    module.body().append_operation(func);
    Ok(signature)
}

fn block_arg(block: &melior::ir::BlockRef<'_, '_>, index: usize, lowerer: &Lowerer, range: TextRange) -> LResult<mlir_sys::MlirValue> {
    block.argument(index).map(|a| a.to_raw()).map_err(|e| lowerer.internal(range, e.to_string()))
}

pub fn const_val(value: ConstValue) -> Val {
    match value {
        ConstValue::Int(v) => Val::Int(v),
        ConstValue::Float(v) => Val::Float(v),
        ConstValue::Bool(v) => Val::Bool(v),
    }
}

fn read_entry_params(
    def: &StmtFunctionDef,
    constants: &Constants,
    err: &dyn Fn(TextRange, DiagnosticKind, String) -> Diagnostic,
) -> LResult<Vec<EntryParam>> {
    let parameters = &def.parameters;
    if let Some(v) = parameters.vararg.as_ref().or(parameters.kwarg.as_ref()) {
        return Err(err(v.range, DiagnosticKind::Unsupported, "kernels cannot take *args or **kwargs".into()));
    }
    let mut params = Vec::new();
    for p in parameters.posonlyargs.iter().chain(&parameters.args).chain(&parameters.kwonlyargs) {
        let name = p.parameter.name.id.to_string();
        let range = p.parameter.range;
        let annotation = match p.parameter.annotation() {
            Some(a) => parse_annotation(a).map_err(|m| err(a.range(), DiagnosticKind::Invalid, m))?,
            None => {
                return Err(err(range, DiagnosticKind::Invalid, format!(
                    "parameter '{name}' needs an annotation: htp.Tensor[...], htp.Out[...], a scalar type or htp.Const"
                )))
            }
        };
        let constant = match &annotation {
            Annotation::Const(ty) => {
                let value = match constants.get(&name) {
                    Some(v) => v,
                    None => match &p.default {
                        Some(d) => literal_const(d).ok_or_else(|| {
                            err(d.range(), DiagnosticKind::Invalid, format!("the default of constant '{name}' must be an int, float or bool literal"))
                        })?,
                        None => {
                            return Err(err(range, DiagnosticKind::Invalid, format!(
                                "compile-time constant '{name}' has no value: give it a default or pass it at compile time"
                            )))
                        }
                    },
                };
                Some(check_const_type(value, *ty).map_err(|m| err(range, DiagnosticKind::Type, format!("constant '{name}': {m}")))?)
            }
            _ => None,
        };
        params.push(EntryParam { name, range, annotation, constant });
    }
    Ok(params)
}

/// Checks a constant against `htp.Const[T]` (an int is accepted for float).
pub fn check_const_type(value: ConstValue, ty: Option<ConstType>) -> Result<ConstValue, String> {
    match (ty, value) {
        (None, v) => Ok(v),
        (Some(ConstType::Int), ConstValue::Int(_))
        | (Some(ConstType::Float), ConstValue::Float(_))
        | (Some(ConstType::Bool), ConstValue::Bool(_)) => Ok(value),
        (Some(ConstType::Float), ConstValue::Int(v)) => Ok(ConstValue::Float(v as f64)),
        (Some(t), v) => Err(format!("expected {}, got {v}", match t {
            ConstType::Int => "an int",
            ConstType::Float => "a float",
            ConstType::Bool => "a bool",
        })),
    }
}

/// A literal (possibly negated) number or bool.
pub fn literal_const(expr: &Expr) -> Option<ConstValue> {
    use ruff_python_ast::{Number, UnaryOp};
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64().map(ConstValue::Int),
            Number::Float(f) => Some(ConstValue::Float(*f)),
            Number::Complex { .. } => None,
        },
        Expr::BooleanLiteral(b) => Some(ConstValue::Bool(b.value)),
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => match literal_const(&u.operand)? {
            ConstValue::Int(v) => v.checked_neg().map(ConstValue::Int),
            ConstValue::Float(v) => Some(ConstValue::Float(-v)),
            ConstValue::Bool(_) => None,
        },
        _ => None,
    }
}

