//! Integer values of a program known before it runs: an AIE design is
//! static, so its loops' bounds, the rows each transfer moves and the
//! channel each operation names are computed here, for one replica and one
//! iteration at a time, from constants, static shapes and the bound block
//! arguments (a loop's induction variable, a replica's index).

use std::collections::HashMap;

use htp_ir::arith::IntBinary;
use htp_ir::builder::{detach, V};
use htp_ir::query::{defining_op, key};
use melior::ir::{attribute::IntegerAttribute, block::BlockLike, operation::OperationLike, ValueLike};

/// Values bound by the caller (block arguments), by key.
#[derive(Clone, Default)]
pub struct Env {
    bound: HashMap<usize, i64>,
}

impl Env {
    pub fn bind(&mut self, value: V, to: i64) {
        self.bound.insert(key(value), to);
    }

    pub fn with(&self, value: V, to: i64) -> Env {
        let mut env = self.clone();
        env.bind(value, to);
        env
    }
}

/// The value of `value` under `env`, if it is known before the program runs.
pub fn eval(value: V, env: &Env) -> Option<i64> {
    eval_at(value, env, 0)
}

fn eval_at(value: V, env: &Env, depth: usize) -> Option<i64> {
    if let Some(bound) = env.bound.get(&key(value)) {
        return Some(*bound);
    }
    if depth > 64 {
        return None;
    }
    let op = defining_op(value)?;
    let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
    let operand = |i: usize| op.operand(i).ok().and_then(|v| eval_at(detach(v), env, depth + 1));
    match name.as_str() {
        "arith.constant" => IntegerAttribute::try_from(op.attribute("value").ok()?).ok().map(|a| a.value()),
        "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui" | "arith.trunci" => operand(0),
        // A static extent of a tensor.
        "memref.dim" => {
            let shape = htp_ir::builder::shape_of(op.operand(0).ok()?.r#type());
            let dim = operand(1)?;
            shape.get(usize::try_from(dim).ok()?).copied().filter(|d| *d >= 0)
        }
        "arith.select" => {
            if operand(0)? != 0 {
                operand(1)
            } else {
                operand(2)
            }
        }
        "arith.cmpi" => {
            let predicate = IntegerAttribute::try_from(op.attribute("predicate").ok()?).ok()?.value();
            Some(htp_ir::arith::IntPredicate::of(predicate)?.eval(operand(0)?, operand(1)?) as i64)
        }
        other => IntBinary::of(other)?.eval(operand(0)?, operand(1)?),
    }
}

/// Whether `value` depends on `on` (through the ops that compute it).
pub fn depends_on(value: V, on: V) -> bool {
    depends_at(value, on, 0)
}

fn depends_at(value: V, on: V, depth: usize) -> bool {
    if key(value) == key(on) {
        return true;
    }
    if depth > 64 {
        return true;
    }
    if let Some(op) = defining_op(value) {
        return (0..op.operand_count()).any(|i| op.operand(i).is_ok_and(|v| depends_at(detach(v), on, depth + 1)));
    }
    // An inner loop's induction variable depends on what its bounds do.
    let Ok(argument) = melior::ir::block::BlockArgument::try_from(value) else { return false };
    let Some(parent) = argument.owner().parent_operation() else { return false };
    let is_loop = parent.name().as_string_ref().as_str() == Ok("scf.for");
    is_loop && (0..parent.operand_count().min(3)).any(|i| parent.operand(i).is_ok_and(|v| depends_at(detach(v), on, depth + 1)))
}
