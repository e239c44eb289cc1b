//! Kernel parameters: how annotations are read, what a kernel's signature
//! is, and the compile-time constants an import specialises with.

use std::collections::BTreeMap;
use std::fmt;

use ruff_python_ast::{Expr, Number, UnaryOp};

use crate::lower::types::Elem;

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

/// What an annotation says about a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Annotation {
    Tensor { elem: Elem, shape: Vec<AnnotatedDim>, is_output: bool, in_out: bool, layout: TensorLayout },
    Scalar(Elem),
    /// `htp.Const` / `htp.Const[int|float|bool]`.
    Const(Option<ConstType>),
    /// `htp.Tile` or no annotation (helpers only): any value.
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstType {
    Int,
    Float,
    Bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnnotatedDim {
    Static(i64),
    /// A string: a symbol, or the name of a constant parameter.
    Name(String),
}

/// The last component of a dotted name: `htp.f32` -> "f32", `float` -> "float".
pub fn type_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.id.as_str()),
        _ => None,
    }
}

/// Reads an annotation; `Err` carries a message for a diagnostic at it.
pub fn parse_annotation(expr: &Expr) -> Result<Annotation, String> {
    const FORMS: &str = "expected htp.Tensor[dtype, dims...], htp.Out[htp.Tensor[...]], a scalar type \
                         (htp.f32, float, int, bool, ...) or htp.Const[int|float|bool]";
    if let Expr::Subscript(sub) = expr {
        let head = type_name(&sub.value).ok_or_else(|| FORMS.to_string())?;
        let items: Vec<&Expr> = match &*sub.slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        return match head {
            "Tensor" => parse_tensor(&items, false, false),
            "Out" | "InOut" => match items.as_slice() {
                [Expr::Subscript(inner)] if type_name(&inner.value) == Some("Tensor") => {
                    match parse_annotation(items[0])? {
                        Annotation::Tensor { elem, shape, layout, .. } => {
                            Ok(Annotation::Tensor { elem, shape, is_output: true, in_out: head == "InOut", layout })
                        }
                        _ => Err(FORMS.into()),
                    }
                }
                // htp.Out[dtype, dims...] is short for htp.Out[htp.Tensor[dtype, dims...]].
                _ => parse_tensor(&items, true, head == "InOut"),
            },
            "Const" | "constexpr" => match items.as_slice() {
                [t] => match type_name(t) {
                    Some("int") => Ok(Annotation::Const(Some(ConstType::Int))),
                    Some("float") => Ok(Annotation::Const(Some(ConstType::Float))),
                    Some("bool") => Ok(Annotation::Const(Some(ConstType::Bool))),
                    _ => Err("htp.Const takes int, float or bool".into()),
                },
                _ => Err("htp.Const takes one type: int, float or bool".into()),
            },
            _ => Err(FORMS.into()),
        };
    }
    match type_name(expr) {
        Some("Const" | "constexpr") => Ok(Annotation::Const(None)),
        Some("Tile") => Ok(Annotation::Any),
        Some("float") => Ok(Annotation::Scalar(Elem::F32)),
        Some("int") => Ok(Annotation::Scalar(Elem::I64)),
        Some("bool") => Ok(Annotation::Scalar(Elem::I1)),
        Some(name) => Elem::from_name(name).map(Annotation::Scalar).ok_or_else(|| FORMS.to_string()),
        None => Err(FORMS.into()),
    }
}

fn parse_tensor(items: &[&Expr], is_output: bool, in_out: bool) -> Result<Annotation, String> {
    let (dtype, dims) = items.split_first().ok_or("htp.Tensor needs an element type and at least one dimension")?;
    let elem = type_name(dtype)
        .and_then(|n| if n == "bool" { Some(Elem::I1) } else { Elem::from_name(n) })
        .ok_or("the first item of htp.Tensor[...] must be an element type (htp.f32, htp.f16, htp.bf16, htp.i32, htp.i8, ...)")?;
    // An optional last item: htp.layout("row_major" | "col_major").
    let (layout, dims) = match dims.split_last() {
        Some((Expr::Call(call), rest)) if type_name(&call.func) == Some("layout") => (tensor_layout(call)?, rest),
        _ => (TensorLayout::RowMajor, dims),
    };
    if dims.is_empty() {
        return Err("htp.Tensor needs at least one dimension".into());
    }
    // One dimension is contiguous either way.
    let layout = if dims.len() == 1 { TensorLayout::RowMajor } else { layout };
    let shape = dims
        .iter()
        .map(|d| match d {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64().filter(|v| *v > 0).map(AnnotatedDim::Static).ok_or("a static dimension must be a positive integer".to_string()),
                _ => Err("a dimension must be a positive integer or a name in quotes (\"N\")".to_string()),
            },
            Expr::StringLiteral(s) if is_identifier(s.value.to_str()) => Ok(AnnotatedDim::Name(s.value.to_str().to_string())),
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => Err("a static dimension must be a positive integer".into()),
            _ => Err("a dimension must be a positive integer or a name in quotes (\"N\")".into()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Annotation::Tensor { elem, shape, is_output, in_out, layout })
}

/// `htp.layout("row_major" | "col_major")` in a tensor annotation.
fn tensor_layout(call: &ruff_python_ast::ExprCall) -> Result<TensorLayout, String> {
    const USAGE: &str = "a tensor's layout is htp.layout(\"row_major\") or htp.layout(\"col_major\") (Fortran order), the last item of htp.Tensor[...]";
    match (call.arguments.args.as_ref(), call.arguments.keywords.is_empty()) {
        ([Expr::StringLiteral(name)], true) => match name.value.to_str() {
            "row_major" => Ok(TensorLayout::RowMajor),
            "col_major" => Ok(TensorLayout::ColMajor),
            other => Err(format!("unknown tensor layout {other:?}: {USAGE}")),
        },
        _ => Err(USAGE.into()),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotation(text: &str) -> Result<Annotation, String> {
        let parsed = ruff_python_parser::parse_expression(text).unwrap();
        parse_annotation(&parsed.into_syntax().body)
    }

    #[test]
    fn reads_every_parameter_form() {
        assert_eq!(
            annotation("htp.Tensor[htp.f16, \"N\", 64]").unwrap(),
            Annotation::Tensor {
                elem: Elem::F16,
                shape: vec![AnnotatedDim::Name("N".into()), AnnotatedDim::Static(64)],
                is_output: false,
                in_out: false,
                layout: TensorLayout::RowMajor
            }
        );
        assert!(matches!(annotation("htp.Out[htp.Tensor[htp.f32, 8]]").unwrap(), Annotation::Tensor { is_output: true, .. }));
        assert!(matches!(annotation("htp.Out[htp.f32, 8]").unwrap(), Annotation::Tensor { is_output: true, in_out: false, .. }));
        assert!(matches!(annotation("htp.InOut[htp.f32, 8]").unwrap(), Annotation::Tensor { is_output: true, in_out: true, .. }));
        assert!(matches!(annotation("htp.InOut[htp.Tensor[htp.f32, 8]]").unwrap(), Annotation::Tensor { is_output: true, in_out: true, .. }));
        assert!(matches!(
            annotation("htp.Tensor[htp.f32, \"M\", 8, htp.layout(\"col_major\")]").unwrap(),
            Annotation::Tensor { layout: TensorLayout::ColMajor, ref shape, .. } if shape.len() == 2
        ));
        // One dimension is contiguous either way.
        assert!(matches!(annotation("htp.Out[htp.f32, 8, htp.layout(\"col_major\")]").unwrap(), Annotation::Tensor { layout: TensorLayout::RowMajor, .. }));
        assert!(annotation("htp.Tensor[htp.f32, 8, 8, htp.layout(\"nz\")]").unwrap_err().contains("unknown tensor layout"));
        assert_eq!(TensorLayout::ColMajor.memref_suffix(3), ", strided<[1, ?, ?]>");
        assert_eq!(TensorLayout::ColMajor.memref_suffix(1), "");
        assert_eq!(annotation("float").unwrap(), Annotation::Scalar(Elem::F32));
        assert_eq!(annotation("htp.i32").unwrap(), Annotation::Scalar(Elem::I32));
        assert_eq!(annotation("htp.Const[int]").unwrap(), Annotation::Const(Some(ConstType::Int)));
        assert_eq!(annotation("htp.Const").unwrap(), Annotation::Const(None));
    }

    #[test]
    fn rejects_bad_annotations_with_a_message() {
        assert!(annotation("htp.Tensor[htp.f32]").is_err());
        assert!(annotation("htp.Tensor[htp.f64, 4]").is_err());
        assert!(annotation("htp.Tensor[htp.f32, 0]").is_err());
        assert!(annotation("htp.Tensor[htp.f32, \"a b\"]").is_err());
        assert!(annotation("list[int]").is_err());
        assert!(annotation("3").is_err());
    }

    #[test]
    fn parses_constant_assignments() {
        let mut c = Constants::new();
        c.insert_assignment("BLOCK=64").unwrap();
        c.insert_assignment("EPS=1e-6").unwrap();
        c.insert_assignment("CAUSAL=True").unwrap();
        assert_eq!(c.get("BLOCK"), Some(ConstValue::Int(64)));
        assert_eq!(c.get("EPS"), Some(ConstValue::Float(1e-6)));
        assert_eq!(c.get("CAUSAL"), Some(ConstValue::Bool(true)));
        assert!(c.insert_assignment("X").is_err());
        assert!(c.insert_assignment("X=abc").is_err());
    }
}
