//! What a Python name or expression denotes while a kernel is lowered:
//! compile-time Python values (folded as Python would) or MLIR values
//! (kept as raw handles so that they can live in the environment across
//! the blocks of nested loops and branches).

use melior::ir::ValueLike;
use mlir_sys::MlirValue;

use super::types::{Elem, ScalarTy, TileTy};

/// A size of a tensor dimension: static, or an `index` value read from the
/// memref at function entry.
#[derive(Clone, Copy, Debug)]
pub enum DimV {
    Static(i64),
    Dynamic(MlirValue),
}

/// A global tensor (a memref parameter), seen as a view of rank >= 2: a
/// 1-D tensor of N elements is viewed as 1xN.
#[derive(Clone, Debug)]
pub struct TensorV {
    pub name: String,
    pub value: MlirValue,
    pub elem: Elem,
    /// Sizes of the view (rank >= 2).
    pub dims: Vec<DimV>,
    /// The rank the user annotated (1 for a viewed 1-D tensor).
    pub user_rank: usize,
    /// The shape as annotated (for messages): numbers and symbol names.
    pub shape_text: Vec<String>,
    /// `Some(parameter)` when the kernel may only read this tensor: it is
    /// (or was passed in for) the `htp.Tensor` parameter `parameter`, an
    /// input. A store into it is an error at the store.
    pub input_of: Option<String>,
    /// A communication window parameter (`comm.Window[...]`): what the
    /// `comm` set's puts and signals address on a peer.
    pub window: bool,
}

impl TensorV {
    /// The view dimension a user index addresses.
    pub fn view_dim(&self, user_dim: usize) -> usize {
        user_dim + self.dims.len() - self.user_rank
    }
}

#[derive(Clone, Debug)]
pub enum Val {
    /// Python compile-time values.
    Int(i64),
    Float(f64),
    Bool(bool),
    NoneV,
    Str(String),
    DType(Elem),
    Tuple(Vec<Val>),
    /// Run-time values.
    Scalar(MlirValue, ScalarTy),
    Tile(MlirValue, TileTy),
    Tensor(TensorV),
    /// A value of a type a programming model defines (a channel, a task
    /// handle): made and consumed by its constructs only.
    Model(MlirValue),
}

impl Val {
    /// How diagnostics name the kind of a value.
    pub fn describe(&self) -> String {
        match self {
            Val::Int(v) => format!("the integer constant {v}"),
            Val::Float(v) => format!("the float constant {v}"),
            Val::Bool(v) => format!("the constant {}", if *v { "True" } else { "False" }),
            Val::NoneV => "None".into(),
            Val::Str(s) => format!("the string {s:?}"),
            Val::DType(e) => format!("the type {e}"),
            Val::Tuple(v) => format!("a tuple of {} values", v.len()),
            Val::Scalar(_, ty) => format!("a {ty} scalar"),
            Val::Tile(_, ty) => format!("a {ty}"),
            Val::Tensor(t) => format!("the tensor '{}' [{}, {}]", t.name, t.elem, t.shape_text.join(", ")),
            Val::Model(v) => format!("a value of type {}", unsafe { melior::ir::Value::from_raw(*v) }.r#type()),
        }
    }

    pub fn is_const(&self) -> bool {
        matches!(self, Val::Int(_) | Val::Float(_) | Val::Bool(_))
    }
}
