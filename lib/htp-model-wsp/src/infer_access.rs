//! `wsp-infer-access`: the WSP model's pipeline, on every target. For each
//! `wsp.task` it records how the kernel uses each argument (`access`:
//! outputs it only writes are "out", outputs it also reads "inout", other
//! tensors "in", scalars "none") — what dependency inference reads — and
//! names the task by the indices of its enclosing loops when it has no
//! `keys`. It rejects, at their lines, what a workload cannot do: compute
//! on tiles (that belongs in a kernel), and reading on the host (a length,
//! a CSR array) a tensor one of its tasks writes (use `wsp.element` /
//! `wsp.when`, read when the tasks run).

use std::collections::{HashMap, HashSet};

use htp_ir::query::{key, ops_named};
use melior::{
    ir::{
        attribute::{ArrayAttribute, DenseI32ArrayAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike, WalkOrder, WalkResult},
        Attribute, Identifier, OperationRef, RegionLike, Value, ValueLike,
    },
    Context,
};

use htp_pass::Failure;

use crate::ir::{is_workload, operands, segments};

htp_pass::pass! {
    pub DEFINITION = Pass<"wsp-infer-access", "builtin.module"> {
        summary: "Record how each WSP task's kernel uses its arguments (in/out/inout), name tasks by their loops' indices, reject host reads of task-written tensors",
        dialects: [crate::handles::wsp],
        run: run,
    }
}

/// Ops whose tensor operand a workload reads on the host as it issues
/// tasks, and which operand.
const HOST_READS: [(&str, usize); 4] = [("memref.load", 0), ("wsp.ragged", 1), ("wsp.sparse", 1), ("wsp.sparse", 2)];

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let functions = module.region(0).ok().and_then(|r| r.first_block()).map(crate::ir::functions).unwrap_or_default();
    for workload in functions.values().filter(|f| is_workload(**f)) {
        reject_compute(*workload)?;
        let inputs = input_parameters(*workload);
        let mut written = HashSet::new();
        let windows = window_parameters(*workload);
        for task in ops_named(*workload, "wsp.task") {
            let access = access_of(task, &functions)?;
            check_windows(task, &functions, &windows)?;
            for (index, (argument, mode)) in task_arguments(task).iter().zip(&access).enumerate() {
                if matches!(*mode, "out" | "inout") {
                    let tensor = tensor_of(*argument);
                    if let Some(parameter) = inputs.get(&key(tensor)) {
                        return Err((task.location(), writes_input(task, index, *parameter)));
                    }
                    written.insert(key(tensor));
                }
            }
            let task = with_default_keys(context, task)?;
            let modes: Vec<Attribute> = access.iter().map(|m| StringAttribute::new(context, m).into()).collect();
            let mut task = unsafe { melior::ir::operation::OperationRefMut::from_raw(task.to_raw()) };
            task.set_attribute("access", ArrayAttribute::new(context, &modes).into());
        }
        for (name, operand) in HOST_READS {
            for read in ops_named(*workload, name) {
                let Ok(tensor) = read.operand(operand) else { continue };
                if written.contains(&key(tensor)) {
                    return Err((
                        read.location(),
                        "reads, as the workload issues tasks, a tensor one of its tasks writes: the value is not there yet. \
                         Guard the tasks with wsp.when(wsp.element(t, i) ...) (or wsp.select), which read it when they run"
                            .to_string(),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The workload's `htp.Tensor` parameters (inputs: neither `htp.Out` nor
/// `htp.InOut`), by value key, with their indices.
fn input_parameters(workload: OperationRef) -> HashMap<usize, usize> {
    let outputs = htp_api::signature::declared_arguments(workload, htp_api::signature::OUTPUTS_ATTRIBUTE);
    // A communication window is written (by its tasks and by the peers' puts).
    let windows = htp_api::signature::declared_arguments(workload, htp_api::signature::WINDOWS_ATTRIBUTE);
    let Some(block) = workload.region(0).ok().and_then(|r| r.first_block()) else { return HashMap::new() };
    (0..block.argument_count())
        .filter_map(|i| Some((i, block.argument(i).ok()?)))
        .filter(|(i, a)| htp_ir::builder::is_memref(a.r#type()) && !outputs.contains(&(*i as i64)) && !windows.contains(&(*i as i64)))
        .map(|(i, a)| (key(a.into()), i))
        .collect()
}

/// The workload's communication windows (`comm.Window[...]` parameters), by value key.
fn window_parameters(workload: OperationRef) -> HashSet<usize> {
    let windows = htp_api::signature::declared_arguments(workload, htp_api::signature::WINDOWS_ATTRIBUTE);
    let Some(block) = workload.region(0).ok().and_then(|r| r.first_block()) else { return HashSet::new() };
    windows.iter().filter_map(|i| block.argument(*i as usize).ok()).map(|a| key(a.into())).collect()
}

/// A kernel's communication window is addressed on its peers at its offset
/// in the window, so a task gives it (a view of) a window of the workload,
/// never another tensor.
fn check_windows<'c>(task: OperationRef<'c, '_>, functions: &HashMap<String, OperationRef<'c, '_>>, windows: &HashSet<usize>) -> Result<(), Failure<'c>> {
    let callee = task.attribute("callee").map(|a| a.to_string().trim_start_matches('@').to_string()).unwrap_or_default();
    let Some(kernel) = functions.get(&callee) else { return Ok(()) };
    for index in htp_api::signature::declared_arguments(*kernel, htp_api::signature::WINDOWS_ATTRIBUTE) {
        let Some(argument) = task_arguments(task).get(index as usize).copied() else { continue };
        if !windows.contains(&key(tensor_of(argument))) {
            return Err((
                task.location(),
                format!(
                    "task '{callee}': its argument #{index} is a communication window of the kernel (comm.Window), and the task \
                     gives it a tensor that is not one: a kernel reaches a window on its peers at the window's own offset. \
                     Declare the workload's parameter comm.Window[...] and pass it (or a block of it)"
                ),
            ));
        }
    }
    Ok(())
}

/// The error of a task whose kernel writes (a view of) an input of the
/// workload: as for kernels, a call never writes its caller's inputs.
fn writes_input(task: OperationRef, argument: usize, parameter: usize) -> String {
    let callee = task.attribute("callee").map(|a| a.to_string().trim_start_matches('@').to_string()).unwrap_or_default();
    format!(
        "task '{callee}' writes its argument #{argument} (an output of the kernel), a view of the workload's parameter #{parameter}, \
         which is an input (htp.Tensor): a workload never writes its caller's inputs; declare that parameter htp.InOut[...] \
         to read and write it, or htp.Out[...] to only write it"
    )
}

/// Tile compute and stores in a workload are errors at their lines.
fn reject_compute<'c>(workload: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut found = None;
    workload.walk(WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name.starts_with("tile.") || name == "memref.store" {
            found = Some((op.location().to_raw(), name));
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    match found {
        Some((location, name)) => Err((
            unsafe { melior::ir::Location::from_raw(location) },
            format!("a workload issues tasks; '{name}' computes, which belongs in a kernel (run it with wsp.task)"),
        )),
        None => Ok(()),
    }
}

fn task_arguments<'c>(task: OperationRef<'c, '_>) -> Vec<Value<'c, 'c>> {
    let s = segments(task);
    operands(task).into_iter().skip(s.first().copied().unwrap_or(0)).take(s.get(1).copied().unwrap_or(0)).collect()
}

/// The tensor a task argument is a view of (itself when it is one).
fn tensor_of<'c>(value: Value<'c, 'c>) -> Value<'c, 'c> {
    match htp_ir::query::defining_op(unsafe { Value::from_raw(value.to_raw()) }) {
        Some(op) if op.name().as_string_ref().as_str() == Ok("wsp.view") => op.operand(0).map(|v| unsafe { Value::from_raw(v.to_raw()) }).unwrap_or(value),
        _ => value,
    }
}

/// How the task's kernel uses each argument.
fn access_of<'c>(task: OperationRef<'c, '_>, functions: &HashMap<String, OperationRef<'c, '_>>) -> Result<Vec<&'static str>, Failure<'c>> {
    let callee = task.attribute("callee").map(|a| a.to_string().trim_start_matches('@').to_string()).unwrap_or_default();
    let kernel = functions.get(&callee).ok_or_else(|| (task.location(), format!("calls '{callee}', which is not a kernel of the program")))?;
    if kernel.attribute("htp.kernel").is_err() {
        return Err((task.location(), format!("'{callee}' is not an @htp.kernel: a task runs a kernel")));
    }
    let outputs = htp_api::signature::declared_arguments(*kernel, htp_api::signature::OUTPUTS_ATTRIBUTE);
    let windows = htp_api::signature::declared_arguments(*kernel, htp_api::signature::WINDOWS_ATTRIBUTE);
    let block = kernel.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| (task.location(), format!("'{callee}' has no body")))?;
    let mut modes = Vec::new();
    for index in 0..block.argument_count() {
        let Ok(parameter) = block.argument(index) else { continue };
        let mode = if !htp_ir::builder::is_memref(parameter.r#type()) {
            "none"
        } else if windows.contains(&(index as i64)) {
            // A communication window: read and written by the kernel and by its peers.
            "inout"
        } else if !outputs.contains(&(index as i64)) {
            "in"
        } else if is_read(parameter.into()) {
            "inout"
        } else {
            "out"
        };
        modes.push(mode);
    }
    Ok(modes)
}

/// Whether an output parameter is read: any use but the destination of a
/// store or a scatter (`tile.store` / `tile.scatter`, the destination their
/// operand #1) or a query of its extents.
fn is_read(parameter: Value) -> bool {
    htp_ir::query::uses(unsafe { Value::from_raw(parameter.to_raw()) }).iter().any(|user| {
        let name = user.name().as_string_ref().as_str().unwrap_or("").to_string();
        let written = matches!(name.as_str(), "tile.store" | "tile.scatter") && user.operand(1).is_ok_and(|o| key(o) == key(parameter));
        !(name == "memref.dim" || written)
    })
}

/// The indices of the loops around `op`, outermost first.
fn enclosing_indices<'c>(op: OperationRef<'c, '_>) -> Vec<Value<'c, 'c>> {
    let mut levels = Vec::new();
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        let name = parent.name().as_string_ref().as_str().unwrap_or("").to_string();
        let block = parent.region(0).ok().and_then(|r| r.first_block());
        if let Some(block) = block {
            let arguments: Vec<Value> = (0..block.argument_count()).filter_map(|i| block.argument(i).ok()).map(|a| unsafe { Value::from_raw(a.to_raw()) }).collect();
            match name.as_str() {
                "wsp.parallel" | "wsp.sequential" | "wsp.select" => levels.push(arguments),
                "scf.for" => levels.push(arguments.into_iter().take(1).collect()),
                _ => {}
            }
        }
        if name == "func.func" {
            break;
        }
        current = parent.parent_operation();
    }
    levels.into_iter().rev().flatten().collect()
}

/// `task`, or a copy of it keyed by its loops' indices when it has no keys.
fn with_default_keys<'c>(context: &'c Context, task: OperationRef<'c, '_>) -> Result<OperationRef<'c, 'c>, Failure<'c>> {
    let task = unsafe { OperationRef::from_raw(task.to_raw()) };
    let s = segments(task);
    if s.first().copied().unwrap_or(0) > 0 {
        return Ok(task);
    }
    let keys = enclosing_indices(task);
    if keys.is_empty() {
        return Ok(task);
    }
    let mut all = keys.clone();
    all.extend(operands(task));
    let mut sizes: Vec<i32> = s.iter().map(|n| *n as i32).collect();
    sizes[0] = keys.len() as i32;
    let mut attributes: Vec<(Identifier, Attribute)> = Vec::new();
    for index in 0..task.attribute_count() {
        let Ok(named) = task.attribute_at(index) else { continue };
        let name = named.0.as_string_ref().as_str().unwrap_or("").to_string();
        if name != "operandSegmentSizes" {
            attributes.push((Identifier::new(context, &name), named.1));
        }
    }
    attributes.push((Identifier::new(context, "operandSegmentSizes"), DenseI32ArrayAttribute::new(context, &sizes).into()));
    let rebuilt = OperationBuilder::new("wsp.task", task.location())
        .add_operands(&all)
        .add_attributes(&attributes)
        .build()
        .map_err(|e| (task.location(), format!("internal error: cannot rebuild the task: {e}")))?;
    let block = task.block().ok_or_else(|| (task.location(), "a task outside any block".to_string()))?;
    let rebuilt = block.insert_operation_before(task, rebuilt);
    unsafe { mlir_sys::mlirOperationDestroy(task.to_raw()) };
    Ok(unsafe { OperationRef::from_raw(rebuilt.to_raw()) })
}
