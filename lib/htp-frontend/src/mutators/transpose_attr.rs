//! `t.T` becomes `htp.transpose(t)` (numpy's spelling of a transpose).

use ruff_python_ast::{Expr, ExprAttribute};

use super::{htp_call, AstMutator};

pub struct TransposeAttribute;

impl AstMutator for TransposeAttribute {
    fn name(&self) -> &'static str {
        "transpose-attribute"
    }

    fn match_expr(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::Attribute(a) if a.attr.id.as_str() == "T")
    }

    fn apply_expr(&self, expr: Expr) -> Expr {
        let Expr::Attribute(ExprAttribute { range, value, .. }) = expr else { return expr };
        htp_call("transpose", vec![*value], range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutators::test_util::mutate;
    use ruff_python_ast::Stmt;

    #[test]
    fn rewrites_dot_t() {
        let def = mutate("y = k.T", &[Box::new(TransposeAttribute)]);
        let Stmt::Assign(assign) = &def.body[0] else { panic!() };
        assert!(matches!(&*assign.value, Expr::Call(_)));
    }
}
