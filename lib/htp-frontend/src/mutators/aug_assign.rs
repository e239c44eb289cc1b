//! `x op= v` becomes `x = x op v` (also for subscripted tensor targets,
//! which become a load, the op and a store).

use ruff_python_ast::{Expr, ExprBinOp, Stmt, StmtAssign};
use ruff_text_size::Ranged;

use super::AstMutator;

pub struct AugAssignToAssign;

impl AstMutator for AugAssignToAssign {
    fn name(&self) -> &'static str {
        "aug-assign-to-assign"
    }

    fn match_stmt(&self, stmt: &Stmt) -> bool {
        matches!(stmt, Stmt::AugAssign(a) if matches!(*a.target, Expr::Name(_) | Expr::Subscript(_)))
    }

    fn apply_stmt(&self, stmt: Stmt) -> Stmt {
        let Stmt::AugAssign(aug) = stmt else { return stmt };
        let value = Expr::BinOp(ExprBinOp {
            node_index: Default::default(),
            range: aug.range(),
            left: aug.target.clone(),
            op: aug.op,
            right: aug.value,
        });
        Stmt::Assign(StmtAssign {
            node_index: Default::default(),
            range: aug.range,
            targets: vec![*aug.target],
            value: Box::new(value),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutators::test_util::mutate;

    #[test]
    fn rewrites_augmented_assignment() {
        let def = mutate("x += y * 2", &[Box::new(AugAssignToAssign)]);
        let Stmt::Assign(assign) = &def.body[0] else { panic!("not rewritten: {:?}", def.body[0]) };
        let Expr::BinOp(bin) = &*assign.value else { panic!() };
        assert!(matches!(&*bin.left, Expr::Name(n) if n.id.as_str() == "x"));
        assert!(matches!(&*bin.right, Expr::BinOp(_)));
    }

    #[test]
    fn leaves_attribute_targets_alone() {
        let def = mutate("a.b += 1", &[Box::new(AugAssignToAssign)]);
        assert!(matches!(def.body[0], Stmt::AugAssign(_)));
    }
}
