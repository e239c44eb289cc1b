//! A kernel's signature as callers and targets see it: its parameters
//! (tensors, scalars, compile-time constants), and the constants an import
//! specialises with. The front end reads them off annotations; targets and
//! the binding read them here, without depending on the front end.

use std::collections::BTreeMap;
use std::fmt;

use crate::Elem;

/// A compile-time constant's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl ConstValue {
    /// Parses `16`, `-3`, `0.5`, `1e-6`, `True`/`False` (also `true`/`false`).
    pub fn parse(text: &str) -> Option<ConstValue> {
        let t = text.trim();
        match t {
            "True" | "true" => return Some(ConstValue::Bool(true)),
            "False" | "false" => return Some(ConstValue::Bool(false)),
            _ => {}
        }
        if let Ok(i) = t.parse::<i64>() {
            return Some(ConstValue::Int(i));
        }
        t.parse::<f64>().ok().map(ConstValue::Float)
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::Int(v) => write!(f, "{v}"),
            ConstValue::Float(v) => write!(f, "{v:?}"),
            ConstValue::Bool(v) => f.write_str(if *v { "True" } else { "False" }),
        }
    }
}

/// Values for the compile-time constant parameters (`htp.Const`) of the
/// kernels being imported, by parameter name. A constant missing here takes
/// its Python default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constants(pub BTreeMap<String, ConstValue>);

impl Constants {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, name: &str, value: ConstValue) {
        self.0.insert(name.to_string(), value);
    }
    pub fn get(&self, name: &str) -> Option<ConstValue> {
        self.0.get(name).copied()
    }
    /// Parses `NAME=VALUE` (the `--htp-const` flag of htp-translate).
    pub fn insert_assignment(&mut self, assignment: &str) -> Result<(), String> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| format!("expected NAME=VALUE, got '{assignment}'"))?;
        let text = value.trim();
        // An integer literal past i64 would parse as a float ("expected an int, got 1.18e21").
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && text.parse::<i64>().is_err() {
            return Err(format!("'{text}' is out of range: an int constant is a signed 64-bit integer, in [-2**63, 2**63 - 1]"));
        }
        let value = ConstValue::parse(value).ok_or_else(|| format!("'{value}' is not an int, float or bool"))?;
        self.insert(name.trim(), value);
        Ok(())
    }
}

/// One dimension of an annotated tensor shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimSig {
    Static(i64),
    /// A size bound from the argument at call time.
    Symbol(String),
}

/// How a tensor's elements lie in memory (`htp.layout(...)` in its
/// annotation): the facet names tile layouts use, for whole tensors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TensorLayout {
    /// C order (numpy's default): the last dimension is contiguous.
    #[default]
    RowMajor,
    /// Fortran order (`np.asfortranarray`): the first dimension is
    /// contiguous; `memref<..., strided<[1, ?, ...]>>`.
    ColMajor,
}

impl TensorLayout {
    /// The layout facet's name.
    pub fn name(self) -> &'static str {
        match self {
            TensorLayout::RowMajor => "row_major",
            TensorLayout::ColMajor => "col_major",
        }
    }

    /// The memref layout of a rank-`rank` tensor (`""` for the identity).
    pub fn memref_suffix(self, rank: usize) -> String {
        match self {
            TensorLayout::ColMajor if rank > 1 => {
                let strides: Vec<&str> = std::iter::once("1").chain(std::iter::repeat_n("?", rank - 1)).collect();
                format!(", strided<[{}]>", strides.join(", "))
            }
            _ => String::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A global tensor, passed as a memref. `in_out`: declared `htp.InOut`
    /// (an output whose elements the kernel does not write keep their values).
    Tensor { elem: Elem, shape: Vec<DimSig>, is_output: bool, in_out: bool, layout: TensorLayout },
    /// A run-time scalar.
    Scalar { elem: Elem },
    /// A compile-time constant, substituted at import (not a parameter of
    /// the MLIR function).
    Constant { value: ConstValue },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamSignature {
    pub name: String,
    pub kind: ParamKind,
    /// Position among the MLIR function's arguments (None for constants).
    pub arg_index: Option<usize>,
}

/// An entry kernel as the caller sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSignature {
    pub name: String,
    /// Every Python parameter, in order.
    pub params: Vec<ParamSignature>,
    /// MLIR argument indices of its communication windows ([`WINDOWS_ATTRIBUTE`]):
    /// tensors no caller passes (the target allocates them for each run).
    pub windows: Vec<usize>,
}

impl KernelSignature {
    /// MLIR argument indices of the output tensors.
    pub fn outputs(&self) -> Vec<usize> {
        self.tensor_arguments(|is_output, _| is_output)
    }

    /// MLIR argument indices of the `htp.InOut` tensors.
    pub fn in_outs(&self) -> Vec<usize> {
        self.tensor_arguments(|_, in_out| in_out)
    }

    /// MLIR argument indices of the tensors `wanted(is_output, in_out)` picks.
    fn tensor_arguments(&self, wanted: impl Fn(bool, bool) -> bool) -> Vec<usize> {
        self.params
            .iter()
            .filter_map(|p| match (&p.kind, p.arg_index) {
                (ParamKind::Tensor { is_output, in_out, .. }, Some(i)) if wanted(*is_output, *in_out) => Some(i),
                _ => None,
            })
            .collect()
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_int_constant_past_i64_says_out_of_range_not_float() {
        let mut constants = Constants::new();
        let error = constants.insert_assignment("N=1180591620717411303424").unwrap_err();
        assert!(error.contains("out of range"), "{error}");
        assert!(constants.insert_assignment("N=-9223372036854775808").is_ok());
        assert_eq!(constants.get("N"), Some(ConstValue::Int(i64::MIN)));
        assert!(constants.insert_assignment("S=1e21").is_ok());
        assert_eq!(constants.get("S"), Some(ConstValue::Float(1e21)));
    }
}

/// The attribute the front end puts on a kernel (or a model's function):
/// the argument indices of its outputs (`htp.Out` / `htp.InOut`).
pub const OUTPUTS_ATTRIBUTE: &str = "htp.outputs";
/// The argument indices of its in-out outputs (`htp.InOut`: what it does
/// not write keeps its value).
pub const IN_OUTS_ATTRIBUTE: &str = "htp.in_outs";

/// The argument indices of its communication windows (`comm.Window[...]`):
/// tensors no caller passes, which the target allocates on every chip of a
/// group for each run (zeroed), readable and writable by the kernel and
/// addressed on a peer by the `comm` set's puts and signals.
pub const WINDOWS_ATTRIBUTE: &str = "htp.windows";

/// An argument attribute (unit): the target supplies this argument of a
/// lowered function (a chip's communication context), so a caller — a
/// model's task of the function — passes the others. Trailing arguments
/// only.
pub const IMPLICIT_ATTRIBUTE: &str = "htp.implicit";

/// The argument indices a function declares under `attribute`
/// ([`OUTPUTS_ATTRIBUTE`], [`IN_OUTS_ATTRIBUTE`]); empty when it has none.
pub fn declared_arguments<'c: 'a, 'a>(function: impl melior::ir::operation::OperationLike<'c, 'a>, attribute: &str) -> Vec<i64> {
    function
        .attribute(attribute)
        .ok()
        .and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect())
        .unwrap_or_default()
}
