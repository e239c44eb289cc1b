//! How parameter annotations are read. What a kernel's signature is (and
//! the constants an import specialises with) is `htp_api::signature`,
//! shared with the targets and the binding.

use ruff_python_ast::{Expr, Number, UnaryOp};

use crate::lower::types::Elem;

pub use htp_api::signature::*;

/// What an annotation says about a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Annotation {
    /// `window`: a communication window (`comm.Window[dtype, dims...]`),
    /// which no caller passes (the target allocates it on every chip of a
    /// group, `htp_api::signature::WINDOWS_ATTRIBUTE`); read and written.
    Tensor { elem: Elem, shape: Vec<AnnotatedDim>, is_output: bool, in_out: bool, layout: TensorLayout, window: bool },
    Scalar(Elem),
    /// `htp.Const` / `htp.Const[int|float|bool]`.
    Const(Option<ConstType>),
    /// `htp.Tile` or no annotation (helpers only): any value.
    Any,
    /// `<namespace>.<Name>`, not one of HTP's: a type a programming model
    /// defines (helpers of its functions only), resolved when lowered.
    Model { namespace: String, name: String },
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
            // A window is written by peers and by the kernel: in and out.
            "Window" => match parse_tensor(&items, true, true)? {
                Annotation::Tensor { layout: TensorLayout::ColMajor, .. } => Err("a communication window is row-major (comm.Window[dtype, dims...])".into()),
                Annotation::Tensor { elem, shape, .. } => Ok(Annotation::Tensor { elem, shape, is_output: true, in_out: true, layout: TensorLayout::RowMajor, window: true }),
                other => Ok(other),
            },
            "Out" | "InOut" => match items.as_slice() {
                [Expr::Subscript(inner)] if type_name(&inner.value) == Some("Tensor") => {
                    match parse_annotation(items[0])? {
                        Annotation::Tensor { elem, shape, layout, .. } => {
                            Ok(Annotation::Tensor { elem, shape, is_output: true, in_out: head == "InOut", layout, window: false })
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
        Some(name) => match (Elem::from_name(name), expr) {
            (Some(elem), _) => Ok(Annotation::Scalar(elem)),
            (None, Expr::Attribute(a)) => match &*a.value {
                Expr::Name(namespace) => Ok(Annotation::Model { namespace: namespace.id.to_string(), name: a.attr.id.to_string() }),
                _ => Err(FORMS.to_string()),
            },
            (None, _) => Err(FORMS.to_string()),
        },
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
    Ok(Annotation::Tensor { elem, shape, is_output, in_out, layout, window: false })
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
                layout: TensorLayout::RowMajor,
                window: false
            }
        );
        assert!(matches!(annotation("htp.Out[htp.Tensor[htp.f32, 8]]").unwrap(), Annotation::Tensor { is_output: true, .. }));
        assert!(matches!(annotation("comm.Window[htp.i32, 16]").unwrap(), Annotation::Tensor { window: true, in_out: true, ref shape, .. } if shape.len() == 1));
        assert!(annotation("comm.Window[htp.f32, 8, 8, htp.layout(\"col_major\")]").is_err());
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
