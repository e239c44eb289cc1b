//! Calls of intrinsics (`pto.add(a, b)`): namespace resolution and the
//! `tile.intrinsic` op each call becomes (see `htp_api::intrinsics`).

use ruff_text_size::{Ranged, TextRange};

use htp_dialects::ods::tile;
use super::types::ScalarTy;
use super::value::Val;
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;
use htp_api::intrinsics::{intrinsic_set, intrinsic_sets, IntrinsicSet, IntrinsicShape, HTP_NAMESPACE};

/// What a module-level name used as `<name>.f(...)` refers to.
pub enum Namespace {
    Htp,
    /// Python's `math` module: its constants (`math.pi`) only.
    Math,
    Intrinsics(&'static IntrinsicSet),
    /// A Python module of `@htp.func` helpers registered as an intrinsic set
    /// (`htp.extensions`): `<name>.f(...)` calls its helper `f`, whose
    /// source comes with the kernel's.
    Helpers(String),
    /// A registered programming model's namespace: `<name>.f(...)` is one of
    /// its constructs (`htp_api::models`).
    Model(&'static htp_api::models::ProgrammingModel),
}

/// How the Python side names a module of helper intrinsics: `python:<set>`.
pub const HELPERS_PREFIX: &str = "python:";

/// How the Python side names a kernel or helper bound to another name (`h2 = helper`,
/// `from m import f as g`): `callee:<its own name>`.
pub const CALLEE_PREFIX: &str = "callee:";

/// The names of Python's `math` module a kernel may use.
pub const MATH_CONSTANTS: &[&str] = &["pi", "e", "inf", "nan"];

impl<'c> Lowerer<'c, '_> {
    /// Resolves `name` (not a local) through the source's namespaces.
    pub fn namespace(&self, name: &str, range: TextRange) -> LResult<Namespace> {
        let resolved = self.source().namespace_of(name);
        match resolved {
            Some(HTP_NAMESPACE) => return Ok(Namespace::Htp),
            // `math` is not an HTP namespace; the Python side does not map it.
            _ if name == "math" => return Ok(Namespace::Math),
            Some(namespace) => {
                if let Some(set) = intrinsic_set(namespace) {
                    return Ok(Namespace::Intrinsics(set));
                }
                if let Some(model) = htp_api::models::model_in(namespace) {
                    return Ok(Namespace::Model(model));
                }
                if let Some(set) = namespace.strip_prefix(HELPERS_PREFIX) {
                    return Ok(Namespace::Helpers(set.to_string()));
                }
            }
            None => {}
        }
        let mut known = vec![HTP_NAMESPACE.to_string()];
        known.extend(intrinsic_sets().iter().map(|s| s.namespace.to_string()));
        let models: Vec<String> = htp_api::models::models().iter().map(|m| m.namespace.to_string()).collect();
        let models = if models.is_empty() { String::new() } else { format!("; programming models: {}", models.join(", ")) };
        Err(self.error(range, DiagnosticKind::UnknownName, format!(
            "'{name}' is not htp or an intrinsic module HTP knows (known: {}{models}); kernels call htp's functions, intrinsics and their model's constructs only",
            known.join(", ")
        )))
    }

    /// The own name of the kernel or helper a module-level `name` is bound to under another name.
    pub fn callee_alias(&self, name: &str) -> Option<String> {
        self.source().namespace_of(name)?.strip_prefix(CALLEE_PREFIX).map(str::to_string)
    }

    /// `<set>.<name>(args)`: one `tile.intrinsic`, typed by the intrinsic's shape.
    pub fn intrinsic(&mut self, set: &'static IntrinsicSet, name: &str, positional: Vec<(Val, TextRange)>, keywords: usize, name_range: TextRange, range: TextRange) -> LResult<Val> {
        let Some(intrinsic) = set.get(name) else {
            let names: Vec<&str> = set.intrinsics.iter().map(|i| i.name).collect();
            return Err(self.error(name_range, DiagnosticKind::UnknownName, format!(
                "{} has no intrinsic '{name}' (it has: {})", set.namespace, names.join(", ")
            )));
        };
        let call = format!("{}.{}", set.namespace, intrinsic.name);
        if keywords > 0 {
            return Err(self.error(range, DiagnosticKind::Invalid, format!("{call}() takes positional arguments only")));
        }
        let arity = match intrinsic.shape {
            IntrinsicShape::Elementwise { arity } => arity,
            IntrinsicShape::TileScalar => 2,
            IntrinsicShape::Effect { params, .. } => params.len(),
        };
        if positional.len() != arity {
            return Err(self.error(range, DiagnosticKind::Invalid, format!("{call}() takes {arity} arguments, got {}", positional.len())));
        }
        let (Val::Tile(_, tile), _) = &positional[0] else {
            return Err(self.error(positional[0].1, DiagnosticKind::Type, format!("{call}() needs a tile first, got {}", positional[0].0.describe())));
        };
        let tile = *tile;
        if !intrinsic.elements.is_empty() && !intrinsic.elements.contains(&tile.elem.mlir()) {
            return Err(self.error(positional[0].1, DiagnosticKind::Type, format!(
                "{call}() takes tiles of {}, got a {tile}", intrinsic.elements.join(", ")
            )));
        }
        let mut operands = Vec::new();
        for (index, (value, value_range)) in positional.iter().enumerate() {
            let operand = match (intrinsic.shape, value) {
                (IntrinsicShape::Elementwise { .. }, Val::Tile(v, t)) if *t == tile => *v,
                (IntrinsicShape::Elementwise { .. }, other) => {
                    return Err(self.error(*value_range, DiagnosticKind::Type, format!(
                        "{call}() needs tiles of one type ({tile}), argument {} is {}", index + 1, other.describe()
                    )))
                }
                (IntrinsicShape::TileScalar, Val::Tile(v, _)) if index == 0 => *v,
                (IntrinsicShape::TileScalar, scalar) => self.scalar_for(scalar, ScalarTy::Elem(tile.elem), *value_range)?,
                (IntrinsicShape::Effect { .. }, _) => return Err(self.internal(*value_range, "an intrinsic with effects lowered as a tile intrinsic")),
            };
            operands.push(operand);
        }
        let result = self.tile_ty(range, &tile)?;
        let op = tile::IntrinsicOperationBuilder::new(self.ctx, self.loc(range))
            .callee(melior::ir::attribute::StringAttribute::new(self.ctx, intrinsic.op))
            .operands(&self.values(&operands))
            .result(result)
            .build();
        Ok(Val::Tile(self.place1(range, op)?, tile))
    }
}

impl<'c> Lowerer<'c, '_> {
    /// `<set>.<name>(args)` of an intrinsic with effects
    /// ([`IntrinsicShape::Effect`]): one `tile.intrinsic_effect`, its
    /// operands the parameters in order (a tensor block or element as its
    /// memref and one index per dimension, not a tile loaded from it), its
    /// keywords string attributes.
    pub fn effect_intrinsic(
        &mut self,
        set: &'static IntrinsicSet,
        intrinsic: &'static htp_api::intrinsics::Intrinsic,
        call: &ruff_python_ast::ExprCall,
        range: TextRange,
    ) -> LResult<Val> {
        use htp_api::intrinsics::EffectParam;
        use ruff_python_ast::Expr;
        let IntrinsicShape::Effect { params, keywords, returns_index } = intrinsic.shape else {
            return Err(self.internal(range, "not an intrinsic with effects"));
        };
        let name = format!("{}.{}", set.namespace, intrinsic.name);
        let param_name = |p: &EffectParam| match p {
            EffectParam::Index(n) | EffectParam::I32(n) | EffectParam::Tile(n) => *n,
            EffectParam::Block { name, .. } | EffectParam::Element { name, .. } => *name,
        };
        let arguments = &call.arguments.args;
        if arguments.len() != params.len() {
            let names: Vec<&str> = params.iter().map(param_name).collect();
            return Err(self.error(range, DiagnosticKind::Invalid, format!(
                "{name}() takes {} argument(s) ({}), got {}", params.len(), names.join(", "), arguments.len()
            )));
        }
        // Keywords first: compile-time strings, checked before anything is built.
        let mut attributes: Vec<(&'static str, String)> = keywords.iter().map(|k| (k.name, k.default.to_string())).collect();
        for keyword in call.arguments.keywords.iter() {
            let Some(key) = &keyword.arg else {
                return Err(self.unsupported(keyword.range, "**kwargs in a call"));
            };
            let Some(index) = keywords.iter().position(|k| k.name == key.id.as_str()) else {
                let known: Vec<&str> = keywords.iter().map(|k| k.name).collect();
                return Err(self.error(keyword.range, DiagnosticKind::Invalid, format!(
                    "{name}() has no keyword '{}' (it takes: {})", key.id, if known.is_empty() { "none".to_string() } else { known.join(", ") }
                )));
            };
            let choices = keywords[index].choices;
            let spelled = match &keyword.value {
                Expr::StringLiteral(s) => s.value.to_str().to_string(),
                other => {
                    return Err(self.error(other.range(), DiagnosticKind::Type, format!(
                        "{name}()'s {}= is a string literal, one of {}", key.id, choices.iter().map(|(p, _)| format!("{p:?}")).collect::<Vec<_>>().join(", ")
                    )))
                }
            };
            let Some((_, value)) = choices.iter().find(|(python, _)| *python == spelled) else {
                return Err(self.error(keyword.value.range(), DiagnosticKind::Invalid, format!(
                    "{name}()'s {}= is one of {}, got {spelled:?}", key.id, choices.iter().map(|(p, _)| format!("{p:?}")).collect::<Vec<_>>().join(", ")
                )));
            };
            attributes[index].1 = value.to_string();
        }

        let mut operands: Vec<mlir_sys::MlirValue> = Vec::new();
        // The tile (operand position, value, type, range) and the block it is written to.
        let mut tile: Option<(usize, mlir_sys::MlirValue, super::types::TileTy, TextRange)> = None;
        let mut block: Option<(super::tensor::Access, super::value::TensorV)> = None;
        for (param, argument) in params.iter().zip(arguments.iter()) {
            let argument_range = argument.range();
            match param {
                EffectParam::Index(_) => {
                    let value = self.lower_expr(argument)?;
                    operands.push(self.to_index(&value, argument_range)?);
                }
                EffectParam::I32(_) => {
                    let value = self.lower_expr(argument)?;
                    operands.push(self.scalar_for(&value, ScalarTy::Elem(super::types::Elem::I32), argument_range)?);
                }
                EffectParam::Tile(what) => match self.lower_expr(argument)? {
                    Val::Tile(value, ty) => {
                        tile = Some((operands.len(), value, ty, argument_range));
                        operands.push(value);
                    }
                    other => {
                        return Err(self.error(argument_range, DiagnosticKind::Type, format!("{name}()'s {what} is a tile, got {}", other.describe())))
                    }
                },
                EffectParam::Block { name: what, window } | EffectParam::Element { name: what, window } => {
                    let element = matches!(param, EffectParam::Element { .. });
                    let form = if element { "an element of a tensor (signals[i])" } else { "a block of a tensor (w[r:r + 16, :])" };
                    let (tensor, slice) = match argument {
                        Expr::Subscript(subscript) => match self.lower_expr(&subscript.value)? {
                            Val::Tensor(tensor) => (tensor, &subscript.slice),
                            other => {
                                return Err(self.error(argument_range, DiagnosticKind::Type, format!(
                                    "{name}()'s {what} is {form}, got a subscript of {}", other.describe()
                                )))
                            }
                        },
                        _ => return Err(self.error(argument_range, DiagnosticKind::Type, format!("{name}()'s {what} is {form}"))),
                    };
                    if *window && !tensor.window {
                        return Err(self.error(argument_range, DiagnosticKind::Invalid, format!(
                            "{name}()'s {what} must be in a communication window (a comm.Window[...] parameter), and '{}' is not one", tensor.name
                        )));
                    }
                    let access = self.access(&tensor, slice)?;
                    if access.strides != [1, 1] {
                        return Err(self.error(argument_range, DiagnosticKind::Shape, format!("{name}()'s {what} is a block without a step")));
                    }
                    if element {
                        if !access.element {
                            return Err(self.error(argument_range, DiagnosticKind::Shape, format!(
                                "{name}()'s {what} is one element: index every dimension of '{}' with a single value", tensor.name
                            )));
                        }
                        if tensor.elem != super::types::Elem::I32 {
                            return Err(self.error(argument_range, DiagnosticKind::Type, format!(
                                "{name}()'s {what} is an i32 element (a signal), and '{}' holds {}", tensor.name, tensor.elem
                            )));
                        }
                        // A 1-D tensor's element is addressed through the parameter, not its 1xN view.
                        match unit_view_source(tensor.value).filter(|_| tensor.user_rank == 1) {
                            Some(base) => {
                                operands.push(base);
                                operands.extend(&access.indices[1..]);
                            }
                            None => {
                                operands.push(tensor.value);
                                operands.extend(&access.indices);
                            }
                        }
                    } else {
                        operands.push(tensor.value);
                        operands.extend(&access.indices);
                        block = Some((access, tensor));
                    }
                }
            }
        }
        // The tile written to the block: its shape and type, narrowed to a ragged block's valid region.
        if let (Some((position, value, ty, tile_range)), Some((access, tensor))) = (tile.clone(), block.as_ref()) {
            let target = access.tile_ty(tensor.elem);
            if ty.shape != target.shape {
                return Err(self.error(tile_range, DiagnosticKind::Shape, format!(
                    "shape mismatch: {name}() of a {ty} into a {}x{} block of '{}'", target.shape[0], target.shape[1], tensor.name
                )));
            }
            if ty.elem != tensor.elem {
                return Err(self.error(tile_range, DiagnosticKind::Type, format!(
                    "element type mismatch: {name}() of a {ty} into the {} tensor '{}'", tensor.elem, tensor.name
                )));
            }
            let (narrowed, _) = self.narrow_to_slice(value, ty, &target, &access.valid_values, tile_range)?;
            operands[position] = narrowed;
        }
        let results = if returns_index { vec![self.ty(range, "index")?] } else { vec![] };
        let callee = melior::ir::attribute::StringAttribute::new(self.ctx, intrinsic.op).into();
        let mut spec = super::builder::OpSpec::new("tile.intrinsic_effect", &operands, &results).attr("callee", callee);
        for (key, value) in &attributes {
            spec = spec.attr(key, melior::ir::attribute::StringAttribute::new(self.ctx, value).into());
        }
        let values = self.emit(range, spec)?;
        Ok(match values.first() {
            Some(value) => Val::Scalar(*value, ScalarTy::Index),
            None => Val::NoneV,
        })
    }
}

/// The 1-D tensor a `1 x N` view (`memref.expand_shape`) is of, if it is one.
fn unit_view_source(view: mlir_sys::MlirValue) -> Option<mlir_sys::MlirValue> {
    use melior::ir::{operation::OperationLike, ValueLike};
    let value = unsafe { melior::ir::Value::from_raw(view) };
    melior::ir::operation::OperationResult::try_from(value)
        .ok()
        .map(|result| result.owner())
        .filter(|owner| owner.name().as_string_ref().as_str() == Ok("memref.expand_shape"))
        .and_then(|owner| owner.operand(0).ok().map(|base| base.to_raw()))
}
