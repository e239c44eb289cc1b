//! Intrinsic sets: namespaced functions a kernel calls as `<set>.<name>(...)`
//! (`pto.add(a, b)` after `from htp import pto`), each becoming one
//! `tile.intrinsic "<op>"` that only the backends providing it lower. A
//! backend (or any crate) registers its sets here; the front end resolves
//! `<alias>.<name>` through the namespaces the Python side reports for the
//! kernel's module (`SourceText::namespaces`), or, without them, through the
//! sets' own names.

use std::collections::BTreeMap;
use std::sync::RwLock;

/// How an intrinsic's operands and result are typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicShape {
    /// `arity` tiles of one type (shape, element type, valid region); the
    /// result has that type.
    Elementwise { arity: usize },
    /// A tile and a run-time or constant scalar of its element type; the
    /// result has the tile's type.
    TileScalar,
    /// An operation with effects beyond its result (a put to another
    /// chip's memory, a signal, a wait) or a question to the target (its
    /// rank): `params` in order, `keywords` by name; no result or one
    /// `index` scalar. It becomes one `tile.intrinsic_effect "<op>"` whose
    /// operands are the parameters in order, a tensor block or element as
    /// its memref followed by one index per dimension.
    Effect { params: &'static [EffectParam], keywords: &'static [EffectKeyword], returns_index: bool },
}

/// One positional parameter of an [`IntrinsicShape::Effect`] intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EffectParam {
    /// An integer (a run-time scalar or a constant), passed as `index`.
    Index(&'static str),
    /// An integer passed as `i32` (a signal's value).
    I32(&'static str),
    /// A tile. With a [`EffectParam::Block`] in the same intrinsic, it is
    /// the tile written to that block: the same shape and element type,
    /// its valid region narrowed to the block's at a ragged edge.
    Tile(&'static str),
    /// A block of a tensor, written as a subscript (`w[me, i:i + 16, :]`):
    /// its memref and one index per dimension, as `tile.store` addresses
    /// it. `window`: the tensor must be a communication window parameter.
    Block { name: &'static str, window: bool },
    /// One `i32` element of a tensor (`signals[p]`): its memref and one
    /// index per dimension. `window` as for a block.
    Element { name: &'static str, window: bool },
}

/// A keyword parameter of an [`IntrinsicShape::Effect`] intrinsic: a
/// compile-time string, one of `choices` (the Python spelling and the
/// attribute value it becomes), `default` when not given. It becomes the
/// op's string attribute `name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EffectKeyword {
    pub name: &'static str,
    pub choices: &'static [(&'static str, &'static str)],
    pub default: &'static str,
}

/// One intrinsic: the Python name in its set, the op it becomes, its typing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Intrinsic {
    pub name: &'static str,
    /// The `tile.intrinsic` callee, `<set>.<instruction>` (e.g. `pto.tadd`).
    pub op: &'static str,
    pub shape: IntrinsicShape,
    /// Element types it accepts (MLIR spelling); empty: every numeric type.
    pub elements: &'static [&'static str],
    /// One line for the docs.
    pub summary: &'static str,
}

/// A namespace of intrinsics (`pto`).
#[derive(Debug)]
pub struct IntrinsicSet {
    pub namespace: &'static str,
    pub description: &'static str,
    pub intrinsics: &'static [Intrinsic],
}

impl IntrinsicSet {
    pub fn get(&self, name: &str) -> Option<&'static Intrinsic> {
        self.intrinsics.iter().find(|i| i.name == name)
    }
}

/// The namespace every kernel source sees: HTP's own functions.
pub const HTP_NAMESPACE: &str = "htp";

static SETS: RwLock<BTreeMap<&'static str, &'static IntrinsicSet>> = RwLock::new(BTreeMap::new());

/// Registers `set`. The same set again is a no-op; another set under a taken
/// namespace (or `htp`'s) is an error.
pub fn register_intrinsic_set(set: &'static IntrinsicSet) -> Result<(), String> {
    if set.namespace == HTP_NAMESPACE {
        return Err(format!("an intrinsic set cannot be named '{HTP_NAMESPACE}' (HTP's own functions)"));
    }
    if let Some(model) = crate::models::model_in(set.namespace) {
        return Err(format!("the namespace '{}' is the programming model '{}''s", set.namespace, model.name));
    }
    let mut sets = SETS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    match sets.get(set.namespace) {
        Some(existing) if std::ptr::eq(*existing, set) => Ok(()),
        Some(existing) => Err(format!(
            "two intrinsic sets claim the namespace '{}': \"{}\" and \"{}\"",
            set.namespace, existing.description, set.description
        )),
        None => {
            sets.insert(set.namespace, set);
            Ok(())
        }
    }
}

pub fn intrinsic_set(namespace: &str) -> Option<&'static IntrinsicSet> {
    SETS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).get(namespace).copied()
}

/// Every registered set, by namespace.
pub fn intrinsic_sets() -> Vec<&'static IntrinsicSet> {
    SETS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).values().copied().collect()
}
