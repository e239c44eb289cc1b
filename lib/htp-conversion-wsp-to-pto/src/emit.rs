//! The orchestration C++ of the wsp ops (registered with the PTO backend's
//! orchestration writer, `htp_backend_pto::emit::orchestration`). The
//! workload's loops become C++ loops on AICPU (a ragged or sparse axis
//! reads its lengths / CSR arrays with `get_tensor_data`: inputs of the
//! call, read at once); each iteration of an outermost loop is a
//! pto-runtime scope; a task calls its kernel's orchestration on
//! `ChipTensor::view`s through `wsp_run` (`runtime.rs`).

use htp_backend_pto::emit::{
    orchestration::{register_op_emitter, Orchestration},
    writer::{c_type, comment, Writer},
};
use melior::ir::{
    attribute::StringAttribute,
    block::BlockLike,
    operation::{OperationLike, OperationResult},
    BlockRef, OperationRef, RegionLike, TypeLike, Value, ValueLike,
};

use crate::lower::{enclosing, DEFAULT_WINDOW, LOOPS};
use htp_model_wsp::ir::{access, position, segments};
use htp_model_wsp::schedule::{Dispatch, Schedule};

/// The C++ name of the workload's `wsp::Run`.
pub const RUN: &str = "wsp_run";

pub fn register() -> Result<(), String> {
    let emitters: [(&str, htp_backend_pto::emit::orchestration::OpEmitter); 12] = [
        ("wsp.channel", channel),
        ("wsp.cores", cores),
        ("wsp.dense", axis),
        ("wsp.ragged", axis),
        ("wsp.sparse", axis),
        ("wsp.element", element),
        ("wsp.yield", nothing),
        ("wsp.view", view),
        ("wsp.parallel", loop_op),
        ("wsp.sequential", loop_op),
        ("wsp.select", loop_op),
        ("wsp.when", when),
    ];
    for (name, emitter) in emitters {
        register_op_emitter(name, emitter)?;
    }
    register_op_emitter("wsp.task", task)
}

fn err(e: impl ToString) -> String {
    e.to_string()
}

use htp_model_wsp::ir::name_of;

fn defining<'c>(value: Value<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    OperationResult::try_from(value).ok().map(|r| unsafe { OperationRef::from_raw(r.owner().to_raw()) })
}

/// A C++ string literal of `text`.
fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// The workload function around `op`.
fn workload_of<'c>(op: OperationRef<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    let mut current = unsafe { mlir_sys::mlirOperationGetParentOperation(op.to_raw()) };
    while !current.ptr.is_null() {
        let parent: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(current) };
        if name_of(parent) == "func.func" {
            return Some(parent);
        }
        current = unsafe { mlir_sys::mlirOperationGetParentOperation(current) };
    }
    None
}

/// Declares `wsp_run` at the start of the entry (once), with the
/// schedule's window and round-robin lanes.
fn run(state: &mut Orchestration, op: OperationRef) -> Result<(), String> {
    if state.in_called_function() {
        return Err("wsp ops belong in the workload, not in a function it calls".into());
    }
    let schedule = workload_of(op).map(Schedule::of).transpose()?.unwrap_or_default();
    let window = if schedule.window == 0 { DEFAULT_WINDOW } else { schedule.window as i64 };
    let lanes = match (schedule.dispatch, schedule.workers) {
        (Dispatch::RoundRobin, 0) => "std::max<int64_t>(1, rt_available_cluster_count())".to_string(),
        (Dispatch::RoundRobin, n) => n.to_string(),
        _ => "0".to_string(),
    };
    state.require_prelude("htp-submitter", htp_backend_pto::emit::orchestration::SUBMITTER_PRELUDE);
    state.require_prelude(crate::runtime::NAME, crate::runtime::PRELUDE);
    state.preamble_once(RUN, &format!("wsp::Run {RUN}({window}, {lanes});  // the schedule: {}", schedule.dispatch.name()));
    Ok(())
}

/// `wsp.cores` (main's planner construct): the clusters pto-runtime has for this run.
fn cores(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    let name = w.fresh("cores");
    w.line(&format!("const int64_t {name} = std::max<int64_t>(1, static_cast<int64_t>(rt_available_cluster_count()));"));
    w.bind(op.result(0).map_err(err)?.into(), name);
    Ok(())
}

fn nothing(_: &mut Orchestration, _: &mut Writer, _: OperationRef) -> Result<(), String> {
    Ok(())
}

/// Axes and guard elements are read where they are used (loops, guards).
fn axis(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    w.bind(op.result(0).map_err(err)?.into(), "/* axis */".into());
    Ok(())
}

fn element(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    w.bind(op.result(0).map_err(err)?.into(), "/* element */".into());
    Ok(())
}

/// `wsp.channel` (a pipe's ring, after `wsp-lower-pipes`): a tensor the
/// runtime allocates once for the run (`alloc_tensors`, in the
/// orchestration's own scope, which ends with the run), the tasks' views
/// its slots.
fn channel(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    w.source_comment(op);
    let ring = op.result(0).map_err(err)?;
    let shape = htp_ir::builder::shape_of(ring.r#type());
    let dtype = htp_backend_pto::emit::orchestration::data_type(htp_ir::builder::element_of(ring.r#type())).map_err(|e| format!("a channel of {e}"))?;
    let name = w.fresh("channel");
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    w.line(&format!("uint32_t {name}_shape[{}] = {{{}}};", shape.len(), dims.join(", ")));
    w.line(&format!("TensorCreateInfo {name}_info({name}_shape, {}, DataType::{dtype});", shape.len()));
    w.line(&format!("TaskOutputTensors {name}_alloc = alloc_tensors({name}_info);"));
    w.line(&format!("const ChipTensor &{name} = {name}_alloc.get_ref(0);"));
    w.bind(ring.into(), name);
    Ok(())
}

/// `wsp.view`: `tensor.view(shape, offsets)`. A view dropping leading
/// dimensions views the tensor reshaped so that those and its first
/// dimension are one (a workload's tensors are whole, contiguous); the
/// block is contiguous (`wsp-to-pto` checked), as kernels address it.
fn view(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    let names: Vec<String> = op.operands().map(|v| w.name(v)).collect::<Result<_, _>>()?;
    let tensor = op.operand(0).map_err(err)?;
    let rank = melior::ir::r#type::MemRefType::try_from(tensor.r#type()).map(|m| melior::ir::r#type::ShapedTypeLike::rank(&m)).map_err(|_| "a view of a non-tensor".to_string())?;
    let view_rank = names.len() - 1 - rank;
    let dropped = rank - view_rank;
    let cast = |v: &String| format!("static_cast<uint32_t>({v})");
    // As on the cpu: a block that starts past the end (or a dropped index
    // at or past it) stops the run at the view's line; one that starts at
    // the end or ends before it starts is empty (its extent below zero).
    let at = quoted(&position(op.location()));
    for d in 0..rank {
        let last = if d < dropped { "false" } else { "true" };
        w.line(&format!("{RUN}.starts_within({}, {d}, {}, {last}, {at}, {});", names[0], names[1 + d], quoted(&names[0])));
    }
    let size = |v: &String| format!("static_cast<uint32_t>(std::max<int64_t>(0, {v}))");
    let sizes: Vec<String> = names[1 + rank..].iter().map(size).collect();
    let name = w.fresh("view");
    let tensor = &names[0];
    w.line(&format!("const uint32_t {name}_shape[{view_rank}] = {{{}}};", sizes.join(", ")));
    if dropped == 0 {
        w.line(&format!("const uint32_t {name}_offset[{rank}] = {{{}}};", names[1..1 + rank].iter().map(cast).collect::<Vec<_>>().join(", ")));
        w.line(&format!("const ChipTensor {name} = {tensor}.view({name}_shape, {name}_offset);"));
    } else {
        // Dimensions 0..=dropped as one: its extent, and the view's first
        // offset in it (row-major).
        let merged = (0..=dropped).map(|d| format!("{tensor}.shapes[{d}]")).collect::<Vec<_>>().join(" * ");
        let mut linear = cast(&names[1]);
        for d in 1..=dropped {
            linear = format!("({linear} * {tensor}.shapes[{d}] + {})", cast(&names[1 + d]));
        }
        let flat: Vec<String> = std::iter::once(merged).chain((dropped + 1..rank).map(|d| format!("{tensor}.shapes[{d}]"))).collect();
        let offsets: Vec<String> = std::iter::once(linear).chain(names[2 + dropped..1 + rank].iter().map(cast)).collect();
        w.line(&format!("const uint32_t {name}_flat[{view_rank}] = {{{}}};", flat.join(", ")));
        w.line(&format!("const uint32_t {name}_offset[{view_rank}] = {{{}}};", offsets.join(", ")));
        w.line(&format!("const ChipTensor {name} = {tensor}.reshape({name}_flat, {view_rank}).view({name}_shape, {name}_offset);"));
    }
    w.bind(op.result(0).map_err(err)?.into(), name);
    Ok(())
}

/// The C++ that reads element `index` of a 1-D (or 1xN) integer tensor.
fn read(w: &mut Writer, tensor: Value, index: &str) -> Result<String, String> {
    let name = w.name(tensor)?;
    let memref = melior::ir::r#type::MemRefType::try_from(tensor.r#type()).map_err(|_| "expected a tensor")?;
    let c = c_type(melior::ir::r#type::ShapedTypeLike::element(&memref))?;
    let rank = melior::ir::r#type::ShapedTypeLike::rank(&memref);
    let at = w.fresh("at");
    let indices = if rank == 2 { format!("0, static_cast<uint32_t>({index})") } else { format!("static_cast<uint32_t>({index})") };
    w.line(&format!("const uint32_t {at}[{rank}] = {{{indices}}};"));
    Ok(format!("static_cast<int64_t>(get_tensor_data<{c}>({name}, {rank}, {at}))"))
}

/// A loop over the axes of a `wsp.parallel` / `wsp.sequential` /
/// `wsp.select`: nested C++ loops binding the body's indices; an
/// outermost loop's iterations are scopes; a sequential one's iterations
/// end with an order barrier; a select's body is guarded by `predicate[i] != 0`.
fn loop_op(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    w.source_comment(op);
    let kind = name_of(op);
    let body: BlockRef = op.region(0).map_err(err)?.first_block().ok_or("a loop without a body")?;
    let mut indices = Vec::new();
    let mut opened = 0;
    let at = quoted(&position(op.location()));
    if kind == "wsp.sequential" {
        w.line(&format!("{RUN}.begin_order();"));
    }
    let mut guard = None;
    if kind == "wsp.select" {
        let size = w.name(op.operand(0).map_err(err)?)?;
        let i = w.fresh("e");
        w.open(&format!("for (int64_t {i} = 0; {i} < {size}; {i}++) {{"));
        opened += 1;
        indices.push(i.clone());
        guard = Some((op.operand(1).map_err(err)?, i));
    } else {
        for axis_value in op.operands() {
            let axis = defining(axis_value).ok_or("an axis that is not wsp.dense/ragged/sparse")?;
            let operand = |k: usize| axis.operand(k).map_err(err);
            match name_of(axis).as_str() {
                "wsp.dense" => {
                    let size = w.name(operand(0)?)?;
                    let i = w.fresh("i");
                    w.open(&format!("for (int64_t {i} = 0; {i} < {size}; {i}++) {{"));
                    opened += 1;
                    indices.push(i);
                }
                "wsp.ragged" => {
                    let size = w.name(operand(0)?)?;
                    let b = w.fresh("b");
                    w.open(&format!("for (int64_t {b} = 0; {b} < {size}; {b}++) {{"));
                    let length = read(w, operand(1)?, &b)?;
                    let n = w.fresh("length");
                    w.line(&format!("const int64_t {n} = std::max<int64_t>(0, {length});"));
                    let c = w.fresh("c");
                    w.open(&format!("for (int64_t {c} = 0; {c} < {n}; {c}++) {{"));
                    opened += 2;
                    indices.extend([b, c]);
                }
                "wsp.sparse" => {
                    let rows = w.name(operand(0)?)?;
                    let r = w.fresh("row");
                    w.open(&format!("for (int64_t {r} = 0; {r} < {rows}; {r}++) {{"));
                    let start = read(w, operand(1)?, &r)?;
                    let first = w.fresh("first");
                    w.line(&format!("const int64_t {first} = std::max<int64_t>(0, {start});"));
                    let end = read(w, operand(1)?, &format!("{r} + 1"))?;
                    let last = w.fresh("last");
                    w.line(&format!("const int64_t {last} = {end};"));
                    let k = w.fresh("k");
                    w.open(&format!("for (int64_t {k} = {first}; {k} < {last}; {k}++) {{"));
                    let column = read(w, operand(2)?, &k)?;
                    let col = w.fresh("column");
                    w.line(&format!("const int64_t {col} = {column};"));
                    opened += 2;
                    indices.extend([r, col]);
                }
                other => return Err(format!("'{other}' is not an axis")),
            }
        }
    }
    for (index, name) in indices.iter().enumerate() {
        w.bind(body.argument(index).map_err(err)?.into(), name.clone());
    }
    let scoped = enclosing(op, &LOOPS).is_empty();
    if scoped {
        w.line(&format!("{RUN}.open_scope({at});"));
    }
    if let Some((predicate, i)) = guard {
        let (name, memref) = (w.name(predicate)?, melior::ir::r#type::MemRefType::try_from(predicate.r#type()).map_err(|_| "expected a tensor")?);
        let rank = melior::ir::r#type::ShapedTypeLike::rank(&memref);
        let at = w.fresh("at");
        let indices = if rank == 2 { format!("0, static_cast<uint32_t>({i})") } else { format!("static_cast<uint32_t>({i})") };
        w.line(&format!("const uint32_t {at}[{rank}] = {{{indices}}};"));
        w.line(&format!("{RUN}.guard({name}, {rank}, {at}, PredicateOp::NE, 0);"));
    }
    w.block(body, state)?;
    if kind == "wsp.select" {
        w.line(&format!("{RUN}.unguard();"));
    }
    // The order barrier is submitted inside the iteration's scope: outside it, the barriers of
    // every iteration would pile up in the orchestration's own scope, which no scope_end ever
    // releases, and a long wsp.seq loop would fill the task window.
    if kind == "wsp.sequential" {
        w.line(&format!("{RUN}.next_iteration();"));
    }
    if scoped {
        w.line(&format!("{RUN}.close_scope();"));
    }
    for _ in 0..opened {
        w.close("}");
    }
    if kind == "wsp.sequential" {
        w.line(&format!("{RUN}.end_order();"));
    }
    Ok(())
}

/// `wsp.when`: the tasks inside are submitted with the dispatch predicate
/// `element <predicate> bound` (evaluated by the scheduler when each task is ready).
fn when(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    w.source_comment(op);
    let element = defining(op.operand(0).map_err(err)?).filter(|e| name_of(*e) == "wsp.element").ok_or("a guard reads a wsp.element")?;
    let bound = w.name(op.operand(1).map_err(err)?)?;
    let predicate = op.attribute("predicate").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).unwrap_or_default();
    let kind = match predicate.as_str() {
        "eq" => "EQ",
        "ne" => "NE",
        "lt" => "LT",
        "le" => "LE",
        "gt" => "GT",
        "ge" => "GE",
        other => return Err(format!("a guard with the predicate '{other}'")),
    };
    let tensor = w.name(element.operand(0).map_err(err)?)?;
    let indices: Vec<String> = (1..element.operand_count()).map(|k| w.name(element.operand(k).map_err(err)?).map(|i| format!("static_cast<uint32_t>({i})"))).collect::<Result<_, _>>()?;
    let at = w.fresh("at");
    w.open("{");
    w.line(&format!("const uint32_t {at}[{}] = {{{}}};", indices.len(), indices.join(", ")));
    w.line(&format!("{RUN}.guard({tensor}, {}, {at}, PredicateOp::{kind}, static_cast<int64_t>({bound}));", indices.len()));
    let body = op.region(0).map_err(err)?.first_block().ok_or("a when without a body")?;
    w.block(body, state)?;
    w.line(&format!("{RUN}.unguard();"));
    w.close("}");
    Ok(())
}

/// The shapes of the tensor parameters of the function `name` of `op`'s
/// module (empty for a scalar), `ShapedType::kDynamic` (negative) where dynamic.
fn kernel_parameters(op: OperationRef, name: &str) -> Vec<Vec<i64>> {
    let Some(workload) = workload_of(op) else { return Vec::new() };
    let function = workload.block().and_then(|module| htp_model_wsp::ir::functions(module).remove(name));
    let Some(block) = function.and_then(|f| f.region(0).ok()).and_then(|r| r.first_block()) else { return Vec::new() };
    (0..block.argument_count())
        .filter_map(|i| block.argument(i).ok())
        .map(|a| if a.r#type().is_mem_ref() { htp_ir::builder::shape_of(a.r#type()) } else { Vec::new() })
        .collect()
}

/// `wsp.task`: its tensors' accesses and stream go to `wsp_run`, then the
/// kernel's orchestration is called on the task's views and scalars,
/// submitting its PTO task(s) through `wsp_run`.
fn task(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    run(state, op)?;
    w.source_comment(op);
    let seg = segments(op);
    if seg.len() != 4 {
        return Err("a task without operand segments".into());
    }
    let operands: Vec<Value> = op.operands().collect();
    let arguments = &operands[seg[0]..seg[0] + seg[1]];
    let modes = access(op).unwrap_or_default();
    let callee = op.attribute("callee").map_err(err)?.to_string().trim_start_matches('@').to_string();
    let at = position(op.location());
    w.line(&comment(&format!("task {callee} at {at}")));
    w.line(&format!("{RUN}.begin_task({});", quoted(&at)));
    let parameters = kernel_parameters(op, &callee);
    let mut names = Vec::new();
    for (index, (argument, mode)) in arguments.iter().zip(modes.iter().map(String::as_str).chain(std::iter::repeat("none"))).enumerate() {
        let name = w.name(*argument)?;
        if argument.r#type().is_mem_ref() {
            let (read, write) = (matches!(mode, "in" | "inout"), matches!(mode, "out" | "inout"));
            w.line(&format!("{RUN}.tensor({name}, {read}, {write});"));
            // The kernel's static extents: a block of another extent stops the orchestration.
            let given = htp_ir::builder::shape_of(argument.r#type());
            if let Some(shape) = parameters.get(index).filter(|p| p.len() == given.len()) {
                for (dim, (&size, &known)) in shape.iter().zip(&given).enumerate() {
                    if size >= 0 && known != size {
                        w.line(&format!("{RUN}.fits({name}, {dim}, {size}, {});", quoted(&callee)));
                    }
                }
            }
        }
        names.push(name);
    }
    if seg[2] == 1 {
        let stream = w.name(operands[seg[0] + seg[1]])?;
        w.line(&format!("{RUN}.has_stream = true;"));
        w.line(&format!("{RUN}.stream = {stream};"));
    }
    state.call_orchestration(w, &callee, RUN, &names)
}
