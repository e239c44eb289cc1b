//! `acc + a @ b` and `a @ b + acc` become `htp.dot(a, b, acc)`: one
//! `tile.matmul` with an accumulator instead of a matmul and an add. (When
//! the accumulator's type does not fit the fused form, `htp.dot` lowers to
//! the product plus an add, so the rewrite never changes meaning.)

use ruff_python_ast::{Expr, ExprBinOp, Operator};

use super::{htp_call, AstMutator};

pub struct FuseMatmulAccumulate;

fn is_matmul(expr: &Expr) -> bool {
    matches!(expr, Expr::BinOp(b) if b.op == Operator::MatMult)
}

impl AstMutator for FuseMatmulAccumulate {
    fn name(&self) -> &'static str {
        "fuse-matmul-accumulate"
    }

    fn match_expr(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::BinOp(b) if b.op == Operator::Add && (is_matmul(&b.left) || is_matmul(&b.right)))
    }

    fn apply_expr(&self, expr: Expr) -> Expr {
        let Expr::BinOp(ExprBinOp { range, left, right, .. }) = expr else { return expr };
        // Prefer the right operand as the product: `acc + a @ b`.
        let (product, acc) = if is_matmul(&right) { (right, left) } else { (left, right) };
        let Expr::BinOp(ExprBinOp { left: a, right: b, .. }) = *product else { unreachable!("checked by is_matmul") };
        htp_call("dot", vec![*a, *b, *acc], range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutators::{test_util::mutate, AugAssignToAssign};
    use ruff_python_ast::Stmt;

    fn call_name(expr: &Expr) -> Option<String> {
        match expr {
            Expr::Call(c) => match &*c.func {
                Expr::Attribute(a) => Some(a.attr.id.to_string()),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn fuses_both_operand_orders_and_augmented_form() {
        for body in ["c = c + a @ b", "c = a @ b + c", "c += a @ b"] {
            let def = mutate(body, &[Box::new(AugAssignToAssign), Box::new(FuseMatmulAccumulate)]);
            let Stmt::Assign(assign) = &def.body[0] else { panic!() };
            assert_eq!(call_name(&assign.value).as_deref(), Some("dot"), "{body}");
            let Expr::Call(call) = &*assign.value else { panic!() };
            assert!(matches!(&call.arguments.args[2], Expr::Name(n) if n.id.as_str() == "c"), "{body}");
        }
    }

    #[test]
    fn leaves_other_sums_alone() {
        let def = mutate("c = a * b + c", &[Box::new(FuseMatmulAccumulate)]);
        let Stmt::Assign(assign) = &def.body[0] else { panic!() };
        assert!(call_name(&assign.value).is_none());
    }
}
