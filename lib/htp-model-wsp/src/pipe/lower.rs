//! `wsp-lower-pipes`: each `wsp.pipe` becomes ordinary workload IR that
//! every target already runs. The processes iterate together (the same
//! `for` loop, or none), so their loops fuse into one `wsp.parallel` loop
//! whose iteration issues each process's tasks, producers before consumers;
//! a `wsp.produce` / `wsp.consume` becomes the view of its slot in the
//! channel's ring, `(k * m + j) mod depth` for the j-th of the m transfers
//! an iteration k makes on that channel. Dependency inference then orders
//! the tasks as the channel would: a consumer after the producer of its
//! slot (read after write), a producer after the consumer that last read
//! the slot it reuses (write after read), so a producer runs up to `depth`
//! items ahead while later stages work on earlier ones.
//!
//! What would make that order wrong is an error at the user's line: a
//! channel filled and read a different number of times per iteration
//! (unbalanced), more transfers per iteration than the channel's depth,
//! processes that feed each other in a cycle, loops that differ, and
//! channel operations under an `if` or an inner loop.

use std::collections::HashMap;

use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_ir::query::{constant_int, defining_op, key, ops_named};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{DenseI32ArrayAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        r#type::{MemRefType, ShapedTypeLike},
        BlockRef, Location, OperationRef, RegionLike, Type, ValueLike,
    },
    Context,
};

use crate::ir::{is_workload, name_of, position};

htp_pass::pass! {
    pub DEFINITION = Pass<"wsp-lower-pipes", "builtin.module"> {
        summary: "Fuse each wsp.pipe's processes into one wsp.parallel loop, its channels' transfers into views of their rings",
        dialects: [crate::handles::wsp, arith],
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let functions = module.region(0).ok().and_then(|r| r.first_block()).map(crate::ir::functions).unwrap_or_default();
    for workload in functions.values().filter(|f| is_workload(**f)) {
        for pipe in ops_named(*workload, "wsp.pipe") {
            lower(context, pipe, &functions)?;
        }
    }
    Ok(())
}

/// One process of the pipe: its name, its loop (when the processes loop),
/// and the ops of one iteration.
struct Process<'c> {
    op: OperationRef<'c, 'c>,
    name: String,
    r#loop: Option<OperationRef<'c, 'c>>,
    /// The block one iteration's ops are in (the loop's body or the process's).
    body: BlockRef<'c, 'c>,
    /// Its channel operations in issue order: (op, produces, channel key).
    transfers: Vec<(OperationRef<'c, 'c>, bool, usize)>,
}

fn string_attribute(op: OperationRef, name: &str) -> String {
    op.attribute(name).ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).unwrap_or_default()
}

fn first_block<'c>(op: OperationRef<'c, 'c>) -> Result<BlockRef<'c, 'c>, Failure<'c>> {
    op.region(0).ok().and_then(|r| r.first_block()).map(|b| unsafe { BlockRef::from_raw(b.to_raw()) }).ok_or((op.location(), "an op without its body".into()))
}

/// The ops of `block` but its terminator, in order.
fn body_ops<'c>(block: BlockRef<'c, 'c>) -> Vec<OperationRef<'c, 'c>> {
    let mut ops = Vec::new();
    let mut current = block.first_operation();
    while let Some(op) = current {
        current = op.next_in_block();
        if current.is_some() {
            ops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
    }
    ops
}

/// Scalar code a process computes before its loop (bounds, sizes): it
/// moves before the fused loop.
fn hoistable(op: OperationRef) -> bool {
    let name = name_of(op);
    op.region_count() == 0 && (name.starts_with("arith.") || matches!(name.as_str(), "memref.dim" | "memref.expand_shape" | "wsp.dense" | "wsp.cores"))
}

fn lower<'c>(context: &'c Context, pipe: OperationRef<'c, 'c>, functions: &HashMap<String, OperationRef<'c, '_>>) -> Result<(), Failure<'c>> {
    let pipe_block = pipe.block().ok_or((pipe.location(), "a pipe outside a block".into()))?;
    let mut processes = Vec::new();
    // Scalar code of the pipe and of its processes goes before the pipe, in order.
    for op in body_ops(first_block(pipe)?) {
        if name_of(op) != "wsp.process" {
            if !hoistable(op) {
                return Err((op.location(), "is in a wsp.pipe outside its processes: a pipe holds wsp.process blocks (and the scalar code they use)".into()));
            }
            unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), pipe.to_raw()) };
            continue;
        }
        let mut r#loop = None;
        for inner in body_ops(first_block(op)?) {
            if hoistable(inner) && r#loop.is_none() {
                unsafe { mlir_sys::mlirOperationMoveBefore(inner.to_raw(), pipe.to_raw()) };
            } else if name_of(inner) == "scf.for" && r#loop.is_none() {
                r#loop = Some(inner);
            } else if r#loop.is_some() {
                return Err((inner.location(), "a process of a pipe is one loop over its tasks (or tasks without a loop): this comes after its loop".into()));
            }
        }
        let name = string_attribute(op, "name");
        // verifier: an scf.for takes lower, upper, step, then one init per carried variable
        if let Some(l) = r#loop.filter(|l| l.operand_count() != 3) {
            return Err((l.location(), format!("the loop of the process '{name}' carries variables: a pipe's processes communicate through channels")));
        }
        let body = match r#loop {
            Some(l) => first_block(l)?,
            None => first_block(op)?,
        };
        processes.push(Process { op, name, r#loop, body, transfers: transfers(body)? });
    }
    let looping: Vec<(&Process, OperationRef<'c, 'c>)> = processes.iter().filter_map(|p| Some((p, p.r#loop?))).collect();
    if let (Some((first, _)), Some(straight)) = (looping.first(), processes.iter().find(|p| p.r#loop.is_none())) {
        return Err((
            straight.op.location(),
            format!(
                "the processes of a pipe iterate together: the process '{}' has no loop, the process '{}' loops (at {})",
                straight.name,
                first.name,
                position(first.op.location())
            ),
        ));
    }
    if let Some(first) = looping.first() {
        for other in &looping[1..] {
            check_same_loop(*first, *other)?;
        }
    }
    let order = order(pipe, &processes)?;
    for process in &processes {
        for (op, produces, _) in &process.transfers {
            if *produces {
                writes_its_slot(*op, functions)?;
            }
        }
    }
    let rates = rates(&processes)?;

    // The fused iteration: inside a wsp.parallel over the trip count, or
    // right before the pipe when the processes do not loop.
    let at = Emitter { context, block: pipe_block, anchor: pipe, location: pipe.location() };
    let (anchor, iteration) = match looping.first() {
        Some((_, first)) => {
            let (terminator, k, i) = fused_loop(context, &at, *first)?;
            for (process, _) in &looping {
                // verifier: scf.for's body's first argument is its induction variable
                let iv = detach(process.body.argument(0).map_err(|e| (process.op.location(), e.to_string()))?.into());
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(iv.to_raw(), i.to_raw()) };
            }
            (terminator, Some(k))
        }
        None => (pipe, None),
    };
    for &index in &order {
        let process = &processes[index];
        for op in body_ops(process.body) {
            unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), anchor.to_raw()) };
        }
    }
    for &index in &order {
        let process = &processes[index];
        let mut ordinal: HashMap<(usize, bool), i64> = HashMap::new();
        for (op, produces, channel) in &process.transfers {
            let j = ordinal.entry((*channel, *produces)).or_insert(0);
            let rate = *rates.get(channel).ok_or((op.location(), "a transfer on a channel the pipe did not count".to_string()))?;
            to_view(context, *op, iteration, rate, *j)?;
            *j += 1;
        }
    }
    unsafe { mlir_sys::mlirOperationDestroy(pipe.to_raw()) };
    Ok(())
}

/// The produce and consume ops of one iteration, in issue order. They may
/// nest in each other (a consumed slot's task sending on), not in `if`s or
/// loops: they run once per iteration.
fn transfers<'c>(body: BlockRef<'c, 'c>) -> Result<Vec<(OperationRef<'c, 'c>, bool, usize)>, Failure<'c>> {
    let mut found = Vec::new();
    for op in body_ops(body) {
        let name = name_of(op);
        if name == "wsp.produce" || name == "wsp.consume" {
            // verifier: produce and consume take their channel first
            found.push((op, name == "wsp.produce", key(op.operand(0).map_err(|e| (op.location(), e.to_string()))?)));
            found.extend(transfers(first_block(op)?)?);
        } else if let Some(location) = nested_transfer(op) {
            return Err((location, "a pipe's channel operations run once per iteration of its processes: not under an if or an inner loop".into()));
        }
    }
    Ok(found)
}

/// Where a produce or consume is inside `op`, if one is.
fn nested_transfer<'c>(op: OperationRef<'c, 'c>) -> Option<Location<'c>> {
    let mut found = None;
    op.walk(WalkOrder::PreOrder, |inner| {
        if matches!(inner.name().as_string_ref().as_str(), Ok("wsp.produce" | "wsp.consume")) {
            found = Some(inner.location().to_raw());
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found.map(|l| unsafe { Location::from_raw(l) })
}

/// A produce's tasks write its slot: one passes it for an `htp.Out` or
/// `htp.InOut` parameter of its kernel (else the consumer would read
/// whatever the slot held).
fn writes_its_slot<'c>(produce: OperationRef<'c, 'c>, functions: &HashMap<String, OperationRef<'c, '_>>) -> Result<(), Failure<'c>> {
    let body = first_block(produce)?;
    // verifier: a produce's body takes the slot
    let slot = detach(body.argument(0).map_err(|e| (produce.location(), e.to_string()))?.into());
    let written = htp_ir::query::uses(slot).into_iter().filter(|user| name_of(*user) == "wsp.task").any(|task| {
        let callee = task.attribute("callee").map(|a| a.to_string().trim_start_matches('@').to_string()).unwrap_or_default();
        let outputs = functions.get(&callee).map(|f| htp_api::signature::declared_arguments(*f, htp_api::signature::OUTPUTS_ATTRIBUTE)).unwrap_or_default();
        let segments = crate::ir::segments(task);
        let first = segments.first().copied().unwrap_or(0);
        (0..task.operand_count()).filter(|i| task.operand(*i).is_ok_and(|v| key(v) == key(slot))).any(|i| i.checked_sub(first).is_some_and(|argument| outputs.contains(&(argument as i64))))
    });
    if written {
        Ok(())
    } else {
        Err((produce.location(), "no task here writes the slot: pass it for an htp.Out (or htp.InOut) parameter of a kernel".into()))
    }
}

/// Two values the same: one value, equal constants, or the same pure op
/// of the same operands (each process computes `x.shape[0] // 16` itself).
fn same(a: V, b: V) -> bool {
    if key(a) == key(b) {
        return true;
    }
    if let (Some(x), Some(y)) = (constant_int(a), constant_int(b)) {
        return x == y;
    }
    let (Some(x), Some(y)) = (defining_op(a), defining_op(b)) else { return false };
    let pure = |op: OperationRef| name_of(op).starts_with("arith.") || name_of(op) == "memref.dim";
    pure(x)
        && name_of(x) == name_of(y)
        && x.operand_count() == y.operand_count()
        && x.attribute("predicate").ok().map(|a| a.to_string()) == y.attribute("predicate").ok().map(|a| a.to_string())
        && (0..x.operand_count()).all(|i| match (x.operand(i), y.operand(i)) {
            (Ok(p), Ok(q)) => same(detach(p), detach(q)),
            _ => false,
        })
}

fn check_same_loop<'c>((first, a): (&Process<'c>, OperationRef<'c, 'c>), (other, b): (&Process<'c>, OperationRef<'c, 'c>)) -> Result<(), Failure<'c>> {
    for (index, what) in ["start", "end", "step"].iter().enumerate() {
        let (Ok(x), Ok(y)) = (a.operand(index), b.operand(index)) else { continue };
        if !same(detach(x), detach(y)) {
            return Err((
                b.location(),
                format!(
                    "the processes of a pipe iterate together: the {what} of this loop (process '{}') is not the {what} of the loop of the process '{}' at {}",
                    other.name,
                    first.name,
                    position(a.location())
                ),
            ));
        }
    }
    Ok(())
}

/// Each channel's transfers per iteration, checked equal at both ends and
/// within the channel's depth.
fn rates<'c>(processes: &[Process<'c>]) -> Result<HashMap<usize, i64>, Failure<'c>> {
    let mut ends: HashMap<usize, [Option<(usize, i64, OperationRef<'c, 'c>)>; 2]> = HashMap::new();
    for (index, process) in processes.iter().enumerate() {
        for (op, produces, channel) in &process.transfers {
            let end = &mut ends.entry(*channel).or_default()[*produces as usize];
            match end {
                Some((_, count, _)) => *count += 1,
                None => *end = Some((index, 1, *op)),
            }
        }
    }
    let mut rates = HashMap::new();
    for (channel_key, [consumer, producer]) in &ends {
        // Every entry has an end: it was made for a transfer.
        let Some((_, _, any)) = producer.or(*consumer) else { continue };
        let ring = ring_of(any)?;
        let channel = defining_op(ring).ok_or((any.location(), "a transfer without its channel".to_string()))?;
        let name = string_attribute(channel, "name");
        let (made, taken) = (producer.map_or(0, |p| p.1), consumer.map_or(0, |c| c.1));
        if made != taken {
            let (op, says) = match (producer, consumer) {
                (Some((p, _, op)), Some((c, _, _))) => (op, format!("the process '{}' fills it {made} times per iteration and the process '{}' reads it {taken} times", processes[*p].name, processes[*c].name)),
                (Some((p, _, op)), None) => (op, format!("the process '{}' fills it and no process of the pipe reads it", processes[*p].name)),
                (None, Some((c, _, op))) => (op, format!("the process '{}' reads it and no process of the pipe fills it", processes[*c].name)),
                (None, None) => continue,
            };
            return Err((op.location(), format!("the channel '{name}' is unbalanced: {says}")));
        }
        // verifier: a channel's ring has a static shape, its depth first
        let depth = htp_ir::builder::shape_of(ring.r#type())[0];
        if made > depth {
            return Err((
                channel.location(),
                format!("the channel '{name}' has depth {depth}, but an iteration of the pipe fills {made} of its slots before its reader runs: give it depth={made} or more"),
            ));
        }
        rates.insert(*channel_key, made);
    }
    Ok(rates)
}

/// The processes in an order where every channel's producer comes before
/// its consumer (declaration order among the rest); a cycle is an error.
fn order<'c>(pipe: OperationRef<'c, 'c>, processes: &[Process<'c>]) -> Result<Vec<usize>, Failure<'c>> {
    let producer_of: HashMap<usize, usize> =
        processes.iter().enumerate().flat_map(|(i, p)| p.transfers.iter().filter(|t| t.1).map(move |t| (t.2, i))).collect();
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); processes.len()];
    for (index, process) in processes.iter().enumerate() {
        for (_, produces, channel) in &process.transfers {
            if let (false, Some(&producer)) = (*produces, producer_of.get(channel)) {
                if !after[index].contains(&producer) {
                    after[index].push(producer);
                }
            }
        }
    }
    let mut placed = vec![false; processes.len()];
    let mut order = Vec::new();
    while order.len() < processes.len() {
        let Some(next) = (0..processes.len()).find(|&i| !placed[i] && after[i].iter().all(|&p| placed[p])) else {
            let waiting: Vec<String> = (0..processes.len()).filter(|&i| !placed[i]).map(|i| format!("'{}'", processes[i].name)).collect();
            return Err((
                pipe.location(),
                format!(
                    "the processes {} feed each other in a cycle: a pipe's iterations issue its processes in one order, each channel's producer before its reader",
                    waiting.join(", ")
                ),
            ));
        };
        placed[next] = true;
        order.push(next);
    }
    Ok(order)
}

/// `wsp.parallel` over the trip count of `first` (an `scf.for` with a
/// positive constant step) before the pipe: its body's terminator (where
/// the processes' ops go), the iteration number `k` and the loop's value
/// `i = start + k * step`.
fn fused_loop<'c>(
    context: &'c Context,
    at: &Emitter<'c, 'c>,
    first: OperationRef<'c, 'c>,
) -> Result<(OperationRef<'c, 'c>, V<'c>, V<'c>), Failure<'c>> {
    let operand = |i: usize| first.operand(i).map(detach).map_err(|e| (first.location(), e.to_string()));
    let (start, end, step) = (operand(0)?, operand(1)?, operand(2)?);
    if !constant_int(step).is_some_and(|s| s >= 1) {
        return Err((first.location(), "a pipe's loop steps by a positive constant (range(start, end, 16))".into()));
    }
    let index = Type::index(context);
    let span = at.value("arith.subi", &[end, start], index);
    let trips = at.value("arith.ceildivsi", &[span, step], index);
    let zero = at.index(0);
    let trips = at.value("arith.maxsi", &[trips, zero], index);
    let axis = at.value("wsp.dense", &[trips], crate::AxisKind::Dense.r#type(context));
    let region = melior::ir::Region::new();
    let block = region.append_block(melior::ir::Block::new(&[(index, first.location())]));
    let block = unsafe { BlockRef::from_raw(block.to_raw()) };
    at.op("wsp.parallel", &[axis], &[], &[], vec![region]);
    let inside = htp_ir::builder::BodyBuilder { context, block, location: first.location() };
    let k = detach(block.argument(0).map_err(|e| (first.location(), e.to_string()))?.into());
    let offset = inside.value("arith.muli", &[k, step], index);
    let i = inside.value("arith.addi", &[start, offset], index);
    let terminator = inside.op("wsp.yield", &[], &[], &[], vec![]);
    Ok((unsafe { OperationRef::from_raw(terminator.to_raw()) }, k, i))
}

/// Replaces the produce/consume `op` by its body on the view of its slot,
/// `(k * rate + j) mod depth` of the ring.
fn to_view<'c>(context: &'c Context, op: OperationRef<'c, 'c>, k: Option<V<'c>>, rate: i64, j: i64) -> Result<(), Failure<'c>> {
    let ring = ring_of(op)?;
    let block = op.block().ok_or((op.location(), "a transfer outside a block".to_string()))?;
    let at = Emitter { context, block, anchor: op, location: op.location() };
    let index = Type::index(context);
    let ring_type = MemRefType::try_from(ring.r#type()).map_err(|_| (op.location(), "a channel's ring is a tensor".to_string()))?;
    // verifier: a channel's ring has a static shape, its depth first
    let dims = htp_ir::builder::shape_of(ring.r#type());
    let depth = dims[0];
    let slot = match k {
        Some(k) => {
            let item = at.value("arith.muli", &[k, at.index(rate)], index);
            let item = at.value("arith.addi", &[item, at.index(j)], index);
            at.value("arith.remsi", &[item, at.index(depth)], index)
        }
        None => at.index(j % depth),
    };
    let mut operands = vec![ring, slot];
    operands.extend(dims[1..].iter().map(|_| at.index(0)));
    operands.extend(dims[1..].iter().map(|n| at.index(*n)));
    let view_type: Type = MemRefType::new(ring_type.element(), &dims[1..], None, None).into();
    let segments = DenseI32ArrayAttribute::new(context, &[1, dims.len() as i32, dims.len() as i32 - 1]).into();
    let view = at.value_with("wsp.view", &operands, view_type, &[("operandSegmentSizes", segments)]);
    let body = first_block(op)?;
    // verifier: a produce/consume body takes the slot
    let argument = detach(body.argument(0).map_err(|e| (op.location(), e.to_string()))?.into());
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), view.to_raw()) };
    for inner in body_ops(body) {
        unsafe { mlir_sys::mlirOperationMoveBefore(inner.to_raw(), op.to_raw()) };
    }
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    Ok(())
}

/// The ring a produce or consume transfers on.
fn ring_of<'c>(transfer: OperationRef<'c, 'c>) -> Result<V<'c>, Failure<'c>> {
    // verifier: produce and consume take their channel first
    transfer.operand(0).map(detach).map_err(|e| (transfer.location(), e.to_string()))
}
