//! A large kernel body as outlined parts, so that the C++ compiler's time
//! grows linearly with the kernel.
//!
//! Every PTO-ISA instruction is an always-inline template: a kernel body of
//! thousands of instructions (an unrolled `htp.static_range`, a top-37
//! selection) becomes one function of tens of thousands of allocas and
//! blocks, and clang's SROA/mem2reg walks the dominator subtree below each
//! alloca: quadratic. Measured on the simulator's compiler (issue 26):
//! top-K selection kernels compiled in 27 s (K=8), 122 s (K=16), not within
//! 9 minutes (K=37); split into parts of about 150 ops, 12 s, 23 s and 50 s.
//!
//! The kernel entry keeps the parameters, the pure scalar arithmetic (in
//! program order: hoisting it is safe, it reads no memory) and one call per
//! part; each part is a `static __aicore__ noinline` function taking by value
//! the scalars and tensor pointers it reads. Tiles are not passed: a tile is a
//! handle on a fixed on-chip address, so a part re-declares the tiles it uses
//! (`Tile<...> t; TASSIGN<addr>(t);`, its run-time valid sizes passed as
//! scalars), and the same for GM views. Flags and barriers stay in program
//! order (calls keep it). A part never cuts a loop or condition in two; a
//! loop too large for one part stays where it is and its body is split the
//! same way (the parts take its index and carried values).
//!
//! Kernel-local arrays (`crate::arrays`) are declared in the function that
//! holds their block and passed to parts as pointers. Their loads and
//! stores, and `scf.while` searches (scalar code that reads them), stay in
//! that function in program order: the part gathered so far is written
//! first, since a part may read or write the same array.

use std::collections::HashSet;

use htp_ir::query::{key, op_key};
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    BlockRef, OperationRef, Value, ValueLike,
};

use crate::emit::writer::{c_type, op_name, Ops, Writer};
use crate::ops::PtoOp;

/// Ops per part (about 300 lines of C++: where the compile time per op is lowest).
pub const PART_OPS: usize = 150;

/// How the parts reach the kernel's own values.
pub struct Entry<'a> {
    /// `(C++ parameter declaration, argument)` every part takes (`args`, the cross-core pipes).
    pub always: Vec<(String, String)>,
    /// Lines every part starts with (the entry's type aliases its instructions name).
    pub prelude: Vec<String>,
    /// Replays a tile or GM view in a part (the op that made it, under its bound name).
    pub replay: &'a dyn Fn(&mut Writer, OperationRef) -> Result<(), String>,
}

/// The parts' names: `kernel_part_0`, ... (`htp.pto.isa_check` renames them by this prefix).
const PART_PREFIX: &str = "kernel_part_";

/// Emits `body` into `w`: as it is when it is small, else as parts whose
/// functions are returned (to be written before the entry).
pub fn emit_body(w: &mut Writer, body: BlockRef, ops: &mut dyn Ops, entry: &Entry) -> Result<String, String> {
    let mut functions = String::new();
    let mut count = 0;
    emit_block(w, body, ops, entry, &mut functions, &mut count)?;
    Ok(functions)
}

/// One block (the kernel's body, or the body of a large loop, which stays in
/// the function that holds it while its own body is split): its yielded names.
fn emit_block(w: &mut Writer, body: BlockRef, ops: &mut dyn Ops, entry: &Entry, functions: &mut String, count: &mut usize) -> Result<Vec<String>, String> {
    let top: Vec<(OperationRef, usize)> = top_level(body).into_iter().filter(|op| op_name(*op) != "scf.yield").map(|op| (op, weight(op))).collect();
    if top.iter().map(|(_, weight)| weight).sum::<usize>() <= 2 * PART_OPS || !outlinable(&top) {
        return w.block(body, ops);
    }
    // The ops gathered for the next part, and their weight; `flush` writes them as one.
    let mut part: Vec<OperationRef> = Vec::new();
    let mut part_weight = 0;
    let flush = |w: &mut Writer, ops: &mut dyn Ops, part: &mut Vec<OperationRef>, functions: &mut String, count: &mut usize| -> Result<(), String> {
        if !part.is_empty() {
            functions.push_str(&emit_part(w, part, ops, entry, *count)?);
            *count += 1;
            part.clear();
        }
        Ok(())
    };
    for &(op, weight) in &top {
        if large_loop(op, weight) {
            // Program order: what the part so far holds runs first.
            flush(w, ops, &mut part, functions, count)?;
            part_weight = 0;
            w.for_loop_with(op, ops, &mut |w, inner, ops| emit_block(w, inner, ops, entry, functions, count))?;
        } else if stays_in_place(op) {
            w.op(op, ops)?;
        } else if ordered_in_place(op) {
            flush(w, ops, &mut part, functions, count)?;
            part_weight = 0;
            w.op(op, ops)?;
        } else {
            part.push(op);
            part_weight += weight;
            if part_weight >= PART_OPS {
                flush(w, ops, &mut part, functions, count)?;
                part_weight = 0;
            }
        }
    }
    flush(w, ops, &mut part, functions, count)?;
    // The yield's names (the loop's carried values), after the parts.
    match body.terminator().filter(|t| op_name(*t) == "scf.yield") {
        Some(terminator) => terminator.operands().map(|v| w.name(v)).collect(),
        None => Ok(vec![]),
    }
}

fn top_level<'c>(body: BlockRef<'c, '_>) -> Vec<OperationRef<'c, 'c>> {
    let mut found = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        found.push(unsafe { OperationRef::from_raw(current.to_raw()) });
        op = current.next_in_block();
    }
    found
}

fn weight(op: OperationRef) -> usize {
    let mut n = 0;
    op.walk(WalkOrder::PreOrder, |_| {
        n += 1;
        WalkResult::Advance
    });
    n
}

/// Pure scalar arithmetic (the writer's `scalar`: arith, memref.dim), the
/// declaration of a kernel-local array and the return: emitted in the
/// function that holds the block, in order. (They read no memory, so
/// emitting them before the ops of a part still gathering is safe.)
fn stays_in_place(op: OperationRef) -> bool {
    let name = op_name(op);
    name == "func.return"
        || name == crate::arrays::ALLOCA
        || (op.region_count() == 0 && !ordered_in_place(op) && PtoOp::of(op).is_none() && op.results().all(|r| c_type(r.r#type()).is_ok()))
}

/// Scalar code that reads or writes kernel-local arrays: emitted in the
/// function that holds the block, after the parts before it.
fn ordered_in_place(op: OperationRef) -> bool {
    matches!(op_name(op).as_str(), crate::arrays::LOAD | crate::arrays::STORE | "scf.while")
}

/// Whether every value a part could need from outside it is one a part can
/// take (a scalar) or make again (a tile or GM view): no loop or condition
/// whose results are used after it (it would have to return them).
fn outlinable(top: &[(OperationRef, usize)]) -> bool {
    top.iter().all(|&(op, weight)| {
        stays_in_place(op)
            || ordered_in_place(op)
            || replayable(op)
            || large_loop(op, weight)
            || op.results().all(|r| unsafe { mlir_sys::mlirValueGetFirstUse(r.to_raw()) }.ptr.is_null())
    })
}

/// A loop too large for one part (`weight`: its ops): it stays where it is and its body is split.
fn large_loop(op: OperationRef, weight: usize) -> bool {
    op_name(op) == "scf.for" && weight > 2 * PART_OPS
}

fn replayable(op: OperationRef) -> bool {
    matches!(PtoOp::of(op), Some(PtoOp::AllocTile | PtoOp::TileView | PtoOp::GlobalView))
}

/// The values `part` uses that are made outside it, in order of first use.
fn live_ins<'c>(part: &[OperationRef<'c, 'c>]) -> Vec<Value<'c, 'c>> {
    let inside: HashSet<usize> = part
        .iter()
        .flat_map(|op| {
            let mut keys = Vec::new();
            op.walk(WalkOrder::PreOrder, |inner| {
                keys.push(op_key(inner));
                WalkResult::Advance
            });
            keys
        })
        .collect();
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for op in part {
        op.walk(WalkOrder::PreOrder, |inner| {
            for operand in inner.operands() {
                let value: Value<'c, 'c> = unsafe { Value::from_raw(operand.to_raw()) };
                if made_inside(value, &inside) || !seen.insert(key(value)) {
                    continue;
                }
                found.push(value);
            }
            WalkResult::Advance
        });
    }
    found
}

fn made_inside(value: Value, inside: &HashSet<usize>) -> bool {
    if let Some(op) = htp_ir::query::defining_op(value) {
        return inside.contains(&op_key(op));
    }
    // A block argument: of a loop or condition inside the part, or of the kernel.
    let block = unsafe { BlockRef::from_raw(mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())) };
    block.parent_operation().is_some_and(|owner| inside.contains(&op_key(owner)))
}

fn emit_part(w: &mut Writer, part: &[OperationRef], ops: &mut dyn Ops, entry: &Entry, index: usize) -> Result<String, String> {
    // The tiles and views to re-declare, and (through them too) the scalars to pass: a stack,
    // taken in order of first use, a replayed op's own operands first.
    let mut replays: Vec<OperationRef> = Vec::new();
    let mut parameters: Vec<(String, String)> = entry.always.clone();
    let mut pending: Vec<Value> = live_ins(part).into_iter().rev().collect();
    let mut done = HashSet::new();
    while let Some(value) = pending.pop() {
        if !done.insert(key(value)) {
            continue;
        }
        let name = w.name(value)?;
        match htp_ir::query::defining_op(value) {
            Some(op) if op_name(op) == "arith.constant" => {} // a literal
            // A kernel-local array: the part reads and writes the caller's.
            Some(op) if op_name(op) == crate::arrays::ALLOCA => {
                let (element, _) = crate::arrays::element_and_length(value.r#type())?;
                parameters.push((format!("{} *{name}", c_type(element)?), name.clone()));
            }
            Some(op) if replayable(op) => {
                // Its own operands first (valid sizes, offsets, the tensor): a view's source tile is not one.
                let skip = usize::from(PtoOp::of(op) == Some(PtoOp::TileView));
                pending.extend(op.operands().skip(skip).map(|v| unsafe { Value::from_raw(v.to_raw()) }).collect::<Vec<_>>().into_iter().rev());
                replays.push(op);
            }
            _ if htp_ir::builder::is_memref(value.r#type()) => {
                let element = c_type(htp_ir::builder::element_of(value.r#type()))?;
                parameters.push((format!("__gm__ {element} *{name}"), name.clone()));
                parameters.push((format!("__gm__ ChipTensor *{name}_desc"), format!("{name}_desc")));
            }
            _ => parameters.push((format!("const {} {name}", c_type(value.r#type())?), name.clone())),
        }
    }
    let function = format!("{PART_PREFIX}{index}");
    let declarations: Vec<&str> = parameters.iter().map(|(d, _)| d.as_str()).collect();
    let arguments: Vec<&str> = parameters.iter().map(|(_, a)| a.as_str()).collect();
    w.line(&format!("{function}({});", arguments.join(", ")));

    let entry_text = std::mem::take(&mut w.out);
    let indent = w.take_indent();
    w.open(&format!("static __aicore__ __attribute__((noinline)) void {function}({}) {{", declarations.join(", ")));
    for line in &entry.prelude {
        w.line(line);
    }
    // Each replay names only scalars (a view's C++ names its address, not its tile), so their
    // order does not matter; replayed ops may come from different blocks (a loop's, the kernel's).
    for op in replays {
        (entry.replay)(w, op)?;
    }
    for op in part {
        w.op(*op, ops)?;
    }
    w.close("}");
    w.line("");
    let text = std::mem::replace(&mut w.out, entry_text);
    w.restore_indent(indent);
    Ok(text)
}
