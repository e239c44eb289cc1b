//! `wsp-to-pto`: makes each WSP workload of a module lowered for PTO the
//! package's orchestration (`pto.orchestration`), and rejects at the user's
//! lines what pto-runtime cannot realise:
//! - placement: the `affinity` policy and `dispatch_by` / `worker=` (the
//!   runtime's ready queues pick the core; it has no pinning), `workers=`
//!   other than round-robin's lanes, `trace=`;
//! - a task window that is not a power of two of at least 4, and a loop
//!   whose iterations (one scope each) hold a static number of tasks the
//!   window cannot (a scope of more than window - 1 tasks deadlocks);
//! - a view a kernel would address wrongly (kernels address their tensors
//!   as contiguous blocks of their own shape: a view keeps the tensor's rank
//!   and whole inner dimensions);
//! - more than one guard on a task (`wsp.select` / `wsp.when`: one dispatch
//!   predicate per task), a guard on a float element (predicates compare
//!   integers).
//!
//! It records each tensor's direction (`pto.direction`, from the tasks'
//! access modes) and the task window (`pto.runtime_env`), then rewrites the
//! wsp ops into the backend's orchestration IR (`convert.rs`: `pto.schedule`,
//! `pto.scope`, `pto.ordered`, `pto.guard`, `pto.tensor_view`, `pto.task`, ...).
//! The kernels' own orchestration functions stay: each task calls its kernel's.

use std::collections::HashMap;

use htp_ir::query::{constant_int, key, ops_named};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        r#type::{DimSize, MemRefType, ShapedTypeLike},
        OperationRef, RegionLike, TypeLike, Value, ValueLike,
    },
    Context,
};

use htp_pass::Failure;

use htp_model_wsp::schedule::{Dispatch, Schedule};

use htp_backend_pto::conversion::comm;

htp_pass::pass! {
    pub DEFINITION = Pass<"wsp-to-pto", "builtin.module"> {
        summary: "Make WSP workloads pto-runtime orchestrations (checks placement, views, guards and the task window; records directions and the window)",
        dialects: [htp_model_wsp::handles::wsp, htp_backend_pto::handles::pto, scf, arith, memref],
        run: run,
    }
}

/// The default task window of pto-runtime's rings (`runtime_env.ring_task_window`).
pub const DEFAULT_WINDOW: i64 = 16384;

/// The loop ops of the wsp dialect.
pub const LOOPS: [&str; 3] = ["wsp.parallel", "wsp.sequential", "wsp.select"];

use htp_model_wsp::ir::{access, is_workload, segments};
use htp_model_wsp::ir::{name_of, operands, symbol};

fn defining<'c>(value: Value<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    melior::ir::operation::OperationResult::try_from(value).ok().map(|r| unsafe { OperationRef::from_raw(r.owner().to_raw()) })
}

/// The workload tensor a task argument is (a view of).
fn tensor_of<'c>(value: Value<'c, 'c>) -> Value<'c, 'c> {
    match defining(value) {
        Some(op) if name_of(op) == "wsp.view" => op.operand(0).map(|v| unsafe { Value::from_raw(v.to_raw()) }).unwrap_or(value),
        _ => value,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut functions = HashMap::new();
    let mut op = module.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
    while let Some(current) = op {
        if let Some(name) = symbol(current) {
            functions.insert(name, unsafe { OperationRef::from_raw(current.to_raw()) });
        }
        op = current.next_in_block();
    }
    for workload in functions.values().copied().filter(|f| is_workload(*f)) {
        lower(context, workload, &functions)?;
    }
    Ok(())
}

fn lower<'c>(context: &'c Context, workload: OperationRef<'c, 'c>, functions: &HashMap<String, OperationRef<'c, 'c>>) -> Result<(), Failure<'c>> {
    let at = workload.location();
    let schedule = Schedule::of(workload).map_err(|message| (at, message))?;
    if schedule.dispatch == Dispatch::Affinity {
        return Err((at, "the 'affinity' schedule pins tasks to workers, and pto-runtime has no placement (its ready queues give each task the next idle core): on PTO use 'work_stealing'/'dynamic' (the runtime's own queues) or 'round_robin' (lanes of dependencies)".into()));
    }
    if schedule.workers != 0 && schedule.dispatch != Dispatch::RoundRobin {
        return Err((at, format!("workers={} has no meaning on PTO: pto-runtime runs tasks on every core it has (round_robin takes workers= as its number of lanes)", schedule.workers)));
    }
    if schedule.trace.is_some() {
        return Err((at, "trace= writes the cpu task runtime's trace; on PTO use pto-runtime's own profiling".into()));
    }
    let window = if schedule.window == 0 { DEFAULT_WINDOW } else { schedule.window as i64 };
    if window < 4 || (window & (window - 1)) != 0 {
        return Err((at, format!("window={window}: pto-runtime's task window (ring_task_window) is a power of two of at least 4")));
    }

    let entry = workload.region(0).ok().and_then(|r| r.first_block()).ok_or((at, "a workload without a body".to_string()))?;
    let arguments: Vec<Value> = (0..entry.argument_count()).filter_map(|i| entry.argument(i).ok()).map(|a| unsafe { Value::from_raw(a.to_raw()) }).collect();
    let mut modes: HashMap<usize, (bool, bool)> = HashMap::new();
    // The kernels that communicate (their orchestration takes the chip's CommContext).
    let mut communicating = HashMap::new();
    for task in ops_named(workload, "wsp.task") {
        let where_ = task.location();
        let seg = segments(task);
        if seg.len() != 4 {
            return Err((where_, "internal error: a task without operand segments".into()));
        }
        if seg[3] != 0 {
            return Err((where_, "this task names its worker (dispatch_by= / worker=), and pto-runtime has no placement: its ready queues give each task the next idle core. On PTO drop dispatch_by, or use stream_by for an order".into()));
        }
        let callee = task.attribute("callee").map(|a| a.to_string().trim_start_matches('@').to_string()).unwrap_or_default();
        let orchestration = functions.get(&callee).filter(|f| f.attribute("pto.orchestration").is_ok());
        let Some(orchestration) = orchestration else {
            return Err((where_, format!("no PTO tasks for the kernel '{callee}' (it did not lower to an orchestration)")));
        };
        if let Some(index) = comm::context_argument(*orchestration) {
            communicating.insert(callee.clone(), index);
        }
        let all = operands(task);
        let task_arguments = &all[seg[0]..seg[0] + seg[1]];
        let modes_of = access(task).unwrap_or_default();
        for (argument, mode) in task_arguments.iter().zip(&modes_of) {
            if let Some(view) = defining(*argument).filter(|op| name_of(*op) == "wsp.view") {
                check_view(view)?;
            }
            let tensor = tensor_of(*argument);
            if tensor.r#type().is_mem_ref() {
                let entry = modes.entry(key(tensor)).or_default();
                entry.0 |= matches!(mode.as_str(), "in" | "inout");
                entry.1 |= matches!(mode.as_str(), "out" | "inout");
            }
        }
        let guards = enclosing(task, &["wsp.select", "wsp.when"]);
        if guards.len() > 1 {
            return Err((where_, "this task has more than one guard (wsp.select / wsp.when around it); pto-runtime gives a task one dispatch predicate: compute one guard tensor in a task and guard by it".into()));
        }
        if let Some(when) = guards.first().filter(|g| name_of(**g) == "wsp.when") {
            let element = when.operand(0).map_err(|e| (when.location(), e.to_string()))?;
            let bound = when.operand(1).map_err(|e| (when.location(), e.to_string()))?;
            if !(element.r#type().is_integer() || element.r#type().is_index()) || !(bound.r#type().is_integer() || bound.r#type().is_index()) {
                return Err((when.location(), "on PTO a guard compares an integer element with an integer (pto-runtime's dispatch predicate reads integers): store the condition as an integer tensor".into()));
            }
        }
    }
    // Scopes: each iteration of an outermost loop is one; a static count of tasks must fit the window.
    for outer in outermost_loops(workload) {
        // An outermost wsp.seq's order barrier is one more task of the iteration's scope.
        let barrier = i64::from(name_of(outer) == "wsp.sequential");
        if let Some(count) = static_tasks(outer, functions).map(|n| if n > 0 { n + barrier } else { 0 }) {
            if count > window - 1 {
                return Err((
                    outer.location(),
                    format!("each iteration of this loop is one pto-runtime scope of {count} tasks, and the task window (window={window}) holds {} at once: a scope of more deadlocks. Raise the window (a power of two) or split the loop", window - 1),
                ));
            }
        }
    }

    // Directions, the window, the marker.
    use htp_api::signature::{declared_arguments, IN_OUTS_ATTRIBUTE, OUTPUTS_ATTRIBUTE};
    let (outputs, in_outs) = (declared_arguments(workload, OUTPUTS_ATTRIBUTE), declared_arguments(workload, IN_OUTS_ATTRIBUTE));
    let mut directions = Vec::new();
    for (index, argument) in arguments.iter().enumerate() {
        if !argument.r#type().is_mem_ref() {
            directions.push(None);
            continue;
        }
        // The parameter's declaration first (an in-out keeps what no task writes), then the tasks'.
        let (read, written) = modes.get(&key(*argument)).copied().unwrap_or((true, false));
        let (read, written) = if in_outs.contains(&(index as i64)) {
            (true, true)
        } else if outputs.contains(&(index as i64)) {
            (read, true)
        } else {
            (read || !written, written)
        };
        directions.push(Some(match (read, written) {
            (_, false) => "in",
            (false, true) => "out",
            (true, true) => "inout",
        }));
    }
    // A workload that communicates (tasks of kernels that do, or windows of its own) takes its
    // chip's CommContext as its last argument, which each such task hands on; the manifest marks it
    // and the windows for the runner (a group session), as for a kernel that communicates.
    let windows: Vec<usize> = htp_api::signature::declared_arguments(workload, htp_api::signature::WINDOWS_ATTRIBUTE).into_iter().map(|i| i as usize).collect();
    let comm_context = if communicating.is_empty() && windows.is_empty() {
        None
    } else {
        let index = comm::append_context(context, workload).map_err(|e| (at, e))?;
        comm::mark_orchestration(context, workload, &windows, index).map_err(|e| (at, e))?;
        directions.push(None);
        Some(index)
    };
    htp_backend_pto::emit::package::mark_entry(context, workload, &directions, (schedule.window != 0).then_some(window)).map_err(|e| (at, e))?;
    crate::convert::convert(context, workload, &schedule, window, comm_context, &communicating)
}

/// The ops named in `names` around `op`, innermost first.
pub fn enclosing<'c>(op: OperationRef<'c, '_>, names: &[&str]) -> Vec<OperationRef<'c, 'c>> {
    let mut found = Vec::new();
    let mut current = unsafe { mlir_sys::mlirOperationGetParentOperation(op.to_raw()) };
    while !current.ptr.is_null() {
        let parent: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(current) };
        if names.contains(&name_of(parent).as_str()) {
            found.push(parent);
        }
        current = unsafe { mlir_sys::mlirOperationGetParentOperation(current) };
    }
    found
}

/// The wsp loops of `workload` inside no other wsp loop.
pub fn outermost_loops<'c>(workload: OperationRef<'c, 'c>) -> Vec<OperationRef<'c, 'c>> {
    let mut found = Vec::new();
    for name in LOOPS {
        for op in ops_named(workload, name) {
            if enclosing(op, &LOOPS).is_empty() {
                found.push(op);
            }
        }
    }
    found
}

/// A view's checks: kernels address a tensor argument as a contiguous
/// block of their parameter's shape (row-major strides of the shape they
/// see), so after the dimensions a view drops (one index each, `k[b, h,
/// i:i + 64, :]`), those of extent 1 and the next one, every dimension is
/// whole.
fn check_view<'c>(view: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let at = view.location();
    let all = operands(view);
    let tensor = MemRefType::try_from(all[0].r#type()).map_err(|_| (at, "a view of a non-tensor".to_string()))?;
    let rank = tensor.rank();
    let sizes = &all[1 + rank..];
    let dropped = rank - sizes.len();
    // Leading dimensions of extent 1 do not break contiguity: after the
    // first one that may hold more, every dimension must be whole.
    let first = (dropped..rank).find(|d| !at_most_one(sizes[d - dropped])).unwrap_or(rank);
    for d in first + 1..rank {
        let whole = match tensor.dim_size(d) {
            Ok(DimSize::Static(n)) => constant_int(sizes[d - dropped]) == Some(n as i64) && constant_int(all[1 + d]) == Some(0),
            _ => false,
        };
        if !whole {
            return Err((at, format!("on PTO a task's block covers whole rows: dimension {d} of the tensor must be taken whole (':') and be static, since a kernel addresses its tensor arguments as contiguous blocks of its own shape")));
        }
    }
    Ok(())
}

/// Whether an extent is at most 1: the constant 1, or a block of one row
/// at a ragged edge (`min(1, n - i)`, as the front end writes it).
fn at_most_one(size: Value) -> bool {
    if constant_int(size) == Some(1) {
        return true;
    }
    htp_ir::query::defining_op(htp_ir::builder::detach(size))
        .filter(|op| name_of(*op) == "arith.minsi")
        .is_some_and(|op| (0..2).any(|i| op.operand(i).ok().and_then(constant_int) == Some(1)))
}

/// The PTO tasks one call of `orchestration` submits, when static (no loop).
fn kernel_tasks(orchestration: OperationRef) -> Option<i64> {
    let mut count = 0;
    let mut looped = false;
    orchestration.walk(WalkOrder::PreOrder, |op| {
        match name_of(op).as_str() {
            "pto.submit" => count += 1,
            "scf.for" | "scf.if" | "func.call" => looped = true,
            _ => {}
        }
        WalkResult::Advance
    });
    (!looped).then_some(count)
}

/// The tasks (and order barriers) one iteration of the loop `op` submits, when static.
fn static_tasks(op: OperationRef, functions: &HashMap<String, OperationRef>) -> Option<i64> {
    let body = op.region(0).ok()?.first_block()?;
    block_tasks(body, functions)
}

fn trips(axis: Value) -> Option<i64> {
    let op = defining(axis)?;
    (name_of(op) == "wsp.dense").then(|| constant_int(op.operand(0).ok()?)).flatten()
}

fn block_tasks(block: melior::ir::BlockRef, functions: &HashMap<String, OperationRef>) -> Option<i64> {
    let mut total = 0i64;
    let mut op = block.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = name_of(current);
        let tasks = match name.as_str() {
            "wsp.task" => {
                let callee = current.attribute("callee").ok()?.to_string().trim_start_matches('@').to_string();
                kernel_tasks(*functions.get(&callee)?)?
            }
            "wsp.parallel" => {
                let mut n = 1i64;
                for axis in operands(current) {
                    n = n.checked_mul(trips(axis)?)?;
                }
                n.checked_mul(static_tasks(current, functions)?)?
            }
            // Each iteration that issued tasks ends with an order barrier (a dummy task).
            "wsp.sequential" => {
                let per = static_tasks(current, functions)?;
                trips(current.operand(0).ok()?)?.checked_mul(if per > 0 { per + 1 } else { 0 })?
            }
            "wsp.select" | "wsp.when" | "scf.for" | "scf.if" | "func.call" => {
                let mut has_task = false;
                current.walk(WalkOrder::PreOrder, |inner| {
                    has_task |= name_of(inner) == "wsp.task";
                    WalkResult::Advance
                });
                if has_task {
                    return None;
                }
                0
            }
            _ => 0,
        };
        total = total.checked_add(tasks)?;
    }
    Some(total)
}

