//! Calls of intrinsics (`pto.add(a, b)`): namespace resolution and the
//! `tile.intrinsic` op each call becomes (see `htp_api::intrinsics`).

use ruff_text_size::TextRange;

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
