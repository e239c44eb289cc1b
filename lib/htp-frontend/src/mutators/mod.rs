//! AST mutators: rewrites of the Python AST that run before lowering, each
//! written as a *match* (does this node have my shape?) and an *apply*
//! (build the replacement). Sugar lives here so that the lowering only
//! knows the core language.
//!
//! Mutators run in list order, each over the whole function, bottom-up
//! (children first), so an *apply* sees already-rewritten children.
//! Rewritten nodes keep the source range of the node they replace, so
//! locations and diagnostics still point at what the user wrote.
//!
//! User mutators written in Python (`ast.NodeTransformer`) run earlier, in
//! Python, on the source the decorator hands to Rust (see `docs/language.md`).

mod aug_assign;
mod matmul_acc;
mod transpose_attr;

use ruff_python_ast::visitor::transformer::{walk_expr, walk_stmt, Transformer};
use ruff_python_ast::{Expr, ExprNoneLiteral, Stmt, StmtFunctionDef, StmtPass};
use ruff_text_size::{Ranged, TextRange};

pub use aug_assign::AugAssignToAssign;
pub use matmul_acc::FuseMatmulAccumulate;
pub use transpose_attr::TransposeAttribute;

/// One rewrite of the AST, in match + apply style.
pub trait AstMutator {
    /// A short name for listings and tests.
    fn name(&self) -> &'static str;
    fn match_stmt(&self, _stmt: &Stmt) -> bool {
        false
    }
    /// Called only on a statement `match_stmt` accepted.
    fn apply_stmt(&self, stmt: Stmt) -> Stmt {
        stmt
    }
    fn match_expr(&self, _expr: &Expr) -> bool {
        false
    }
    /// Called only on an expression `match_expr` accepted.
    fn apply_expr(&self, expr: Expr) -> Expr {
        expr
    }
}

/// The built-in sugar, in the order it runs (augmented assignments first so
/// that `acc += a @ b` reaches the matmul fusion as `acc = acc + a @ b`).
pub fn builtin_mutators() -> Vec<Box<dyn AstMutator>> {
    vec![Box::new(AugAssignToAssign), Box::new(FuseMatmulAccumulate), Box::new(TransposeAttribute)]
}

/// Runs `mutators` in order over the body of `def`.
pub fn apply_mutators(def: &mut StmtFunctionDef, mutators: &[Box<dyn AstMutator>]) {
    for mutator in mutators {
        let driver = Driver { mutator: mutator.as_ref() };
        for stmt in def.body.iter_mut() {
            driver.visit_stmt(stmt);
        }
    }
}

struct Driver<'m> {
    mutator: &'m dyn AstMutator,
}

impl Transformer for Driver<'_> {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        crate::deep(|| walk_stmt(self, stmt));
        if self.mutator.match_stmt(stmt) {
            let taken = std::mem::replace(stmt, placeholder_stmt(stmt.range()));
            *stmt = self.mutator.apply_stmt(taken);
        }
    }

    fn visit_expr(&self, expr: &mut Expr) {
        crate::deep(|| walk_expr(self, expr));
        if self.mutator.match_expr(expr) {
            let taken = std::mem::replace(expr, placeholder_expr(expr.range()));
            *expr = self.mutator.apply_expr(taken);
        }
    }
}

fn placeholder_stmt(range: TextRange) -> Stmt {
    Stmt::Pass(StmtPass { range, node_index: Default::default() })
}

fn placeholder_expr(range: TextRange) -> Expr {
    Expr::NoneLiteral(ExprNoneLiteral { range, node_index: Default::default() })
}

/// `htp.<name>(args...)` at `range`, for mutators that rewrite sugar into a
/// call of an `htp` function.
pub(crate) fn htp_call(name: &str, args: Vec<Expr>, range: TextRange) -> Expr {
    use ruff_python_ast::{Arguments, ExprAttribute, ExprCall, ExprContext, ExprName, Identifier};
    let func = Expr::Attribute(ExprAttribute {
        node_index: Default::default(),
        range,
        value: Box::new(Expr::Name(ExprName {
            node_index: Default::default(),
            range,
            id: "htp".into(),
            ctx: ExprContext::Load,
        })),
        attr: Identifier::new(name, range),
        ctx: ExprContext::Load,
    });
    Expr::Call(ExprCall {
        node_index: Default::default(),
        range_start: range.start(),
        func: Box::new(func),
        arguments: Arguments {
            range,
            node_index: Default::default(),
            args: args.into_boxed_slice(),
            keywords: Default::default(),
        },
    })
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;

    /// Parses `def f(): <body>`, applies `mutators` and returns the body as
    /// Ruff's debug-free source-like rendering of each statement's shape.
    pub fn mutate(body: &str, mutators: &[Box<dyn AstMutator>]) -> StmtFunctionDef {
        let src = format!("def f():\n{}\n", body.lines().map(|l| format!("    {l}\n")).collect::<String>());
        let parsed = ruff_python_parser::parse_module(&src).unwrap();
        let Stmt::FunctionDef(mut def) = parsed.into_syntax().body.remove(0) else { panic!() };
        apply_mutators(&mut def, mutators);
        def
    }
}
