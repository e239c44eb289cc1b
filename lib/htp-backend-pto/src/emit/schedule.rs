//! The orchestration C++ of scheduled tasks (`pto.schedule`, `pto.scope`,
//! `pto.ordered` / `pto.order_barrier`, `pto.guard`, `pto.tensor_view`,
//! `pto.alloc_tensor`, `pto.task`): what a programming model's conversion
//! produces (WSP workloads: `htp-conversion-wsp-to-pto`). Each task calls
//! its kernel's orchestration on views of the entry's tensors, through one
//! submitter, `htp_schedule::Schedule` ([`PRELUDE`]), which adds per PTO
//! task what pto-runtime's TensorMap does not infer, as explicit
//! dependencies (`set_dependencies`):
//! - WAR and WAW: earlier readers and writers of bytes the task writes (the
//!   TensorMap orders readers and in-out writers after earlier writers, but
//!   neither a writer after earlier readers nor a pure output
//!   (`OUTPUT_EXISTING`, which it does not look up) after an earlier writer);
//! - order: the barrier (a dummy task) that ends the previous iteration of
//!   each enclosing `pto.ordered`;
//! - a stream's previous task, a round-robin lane's previous task (per
//!   `pto.task`: every PTO task of its kernel's call);
//! - for a guarded task, the writers of its guard's element, and the guard
//!   itself as the task's dispatch predicate (`set_predicate`);
//!
//! and it counts each scope's tasks: more than the window - 1 would
//! deadlock the ring, so the orchestration stops with a message instead.

use melior::ir::{attribute::StringAttribute, operation::OperationLike, r#type::ShapedTypeLike, OperationRef, RegionLike, TypeLike, Value, ValueLike};

use crate::emit::orchestration::{data_type, index_array, Orchestration, SUBMITTER_PRELUDE};
use crate::emit::writer::{comment, Writer};
use crate::ods::pto;

/// The C++ variable of the entry's schedule (a reserved identifier).
pub const SCHEDULE: &str = "htp_schedule";

/// The prelude's name and text.
pub const NAME: &str = "htp-schedule";
pub const PRELUDE: &str = r#"// The schedule of an orchestration's scheduled tasks (pto.schedule; htp-backend-pto,
// src/emit/schedule.rs): explicit dependencies the TensorMap does not infer (WAR, WAW of pure
// outputs, pto.ordered barriers, streams, round-robin lanes, guard producers), dispatch
// predicates, and each scope's task count against the task window.
#include <vector>
namespace htp_schedule {
struct Access {
    uint64_t lo, hi;
    PTO2TaskId task;
    bool write;
    uint64_t call;  // the pto.task whose kernel orchestration submitted the task
};
// An in-order chain of pto.tasks (a stream, a round-robin lane): each call's PTO tasks depend on
// every PTO task of the chain's previous call.
struct Chain {
    uint64_t call = 0;
    std::vector<PTO2TaskId> previous, current;
    void enter(uint64_t c) {
        if (call == c) return;
        previous.swap(current);
        current.clear();
        call = c;
    }
};
struct Order {
    PTO2TaskId after = PTO2TaskId::invalid();
    std::vector<PTO2TaskId> issued;
};
struct Schedule final : HtpSubmitter {
    Schedule(int64_t window, int64_t lanes) : window(window), lanes(lanes), lane_chains(lanes > 0 ? lanes : 0) {}
    int64_t window, lanes;
    std::vector<Chain> lane_chains;
    std::vector<Access> accesses;
    std::vector<Order> orders;
    std::vector<std::pair<int64_t, Chain>> streams;
    std::vector<PTO2TaskId> deps;
    // The pto.task being submitted: its tensors, how it uses them, its stream.
    uint64_t lo[32], hi[32];
    bool reads[32], writes[32];
    uint32_t views = 0;
    uint64_t call = 0;  // numbers the pto.tasks: a kernel's chunk tasks of one call are independent
    bool has_stream = false;
    int64_t stream = 0;
    const char *task_at = "";
    // The guards of the tasks being submitted (pto.guard, innermost last): the innermost applies.
    struct Guard {
        CoreTaskPredicate predicate;
        uint64_t lo, hi;
    };
    std::vector<Guard> guards;
    // The scope being filled (an iteration of an outermost loop).
    bool in_scope = false;
    int64_t scope_tasks = 0;
    int64_t unscoped_tasks = 0;
    const char *scope_at = "";

    static void range(const ChipTensor &t, uint64_t &first, uint64_t &last) {
        const uint64_t size = get_element_size(t.dtype);
        uint64_t span = 1;
        for (uint32_t d = 0; d < t.ndims; d++) {
            if (t.shapes[d] == 0) {
                first = last = 0;
                return;
            }
            span += static_cast<uint64_t>(t.shapes[d] - 1) * t.strides[d];
        }
        first = t.buffer.addr + t.start_offset * size;
        last = first + span * size;
    }
    void begin_task(const char *at) {
        // The previous pto.task's PTO tasks (all its chunks) depend on the
        // accesses inside bytes it writes: later tasks need not see those.
        // Pruned only now: pruning after its first chunk would hide them
        // from its other chunks.
        if (call > 0) {
            size_t kept = 0;
            for (size_t k = 0; k < accesses.size(); k++) {
                bool covered = false;
                for (uint32_t i = 0; i < views && !covered; i++)
                    covered = accesses[k].call != call && writes[i] && lo[i] <= accesses[k].lo && accesses[k].hi <= hi[i];
                if (!covered) accesses[kept++] = accesses[k];
            }
            accesses.resize(kept);
        }
        call++;
        views = 0;
        has_stream = false;
        task_at = at;
    }
    void tensor(const ChipTensor &t, bool read, bool write) {
        if (views == 32) return;
        range(t, lo[views], hi[views]);
        reads[views] = read;
        writes[views] = write;
        views++;
    }
    // A kernel parameter of static extent `size` in dimension `dim` gets a block of another extent
    // (a ragged edge, a block past the end): the orchestration stops with the task's line.
    void fits(const ChipTensor &t, uint32_t dim, uint32_t size, const char *kernel) {
        if (t.shapes[dim] == size || rt_is_fatal()) return;
        rt_report_fatal(PTO2_ERROR_INVALID_ARGS,
                        "the task at %s gives %s a block of extent %u in dimension %u, where its parameter takes %u",
                        task_at, kernel, static_cast<unsigned>(t.shapes[dim]), static_cast<unsigned>(dim), static_cast<unsigned>(size));
    }
    // A view's start `offset` in dimension `dim` of `t`: at most its extent (`at_end_ok`: a block
    // starting at the end is empty) or below it (a dropped index); else the run stops at the view's line.
    void starts_within(const ChipTensor &t, uint32_t dim, int64_t offset, bool at_end_ok, const char *at, const char *name) {
        const int64_t extent = static_cast<int64_t>(t.shapes[dim]);
        if ((offset >= 0 && (offset < extent || (at_end_ok && offset == extent))) || rt_is_fatal()) return;
        rt_report_fatal(PTO2_ERROR_INVALID_ARGS, "%s: error: a task's view starts at %lld in dimension %u of '%s', which has %lld: outside it",
                        at, static_cast<long long>(offset), static_cast<unsigned>(dim), name, static_cast<long long>(extent));
    }
    void guard(const ChipTensor &t, uint32_t ndims, const uint32_t indices[], PredicateOp op, int64_t target) {
        Guard g;
        g.predicate.operand.tensor = &t;
        g.predicate.operand.ndims = ndims;
        for (uint32_t d = 0; d < ndims; d++) g.predicate.operand.indices[d] = indices[d];
        g.predicate.op = op;
        g.predicate.target = target;
        const uint64_t size = get_element_size(t.dtype);
        g.lo = t.buffer.addr + t.compute_flat_offset(indices, ndims) * size;
        g.hi = g.lo + size;
        guards.push_back(g);
    }
    void unguard() { guards.pop_back(); }
    bool count(const char *what) {
        if (!in_scope) {
            // Outside every pto.scope: the orchestration's own scope, which ends only with the run.
            if (++unscoped_tasks <= window - 1) return true;
            rt_report_fatal(PTO2_ERROR_INVALID_ARGS,
                            "the orchestration submits more than %lld tasks outside its loops' scopes (%s at %s), which the task "
                            "window (ring_task_window=%lld) cannot hold: put them in a loop or raise the schedule's window",
                            static_cast<long long>(window - 1), what, task_at, static_cast<long long>(window));
            return false;
        }
        if (++scope_tasks <= window - 1) return true;
        rt_report_fatal(PTO2_ERROR_INVALID_ARGS,
                        "one iteration of the loop at %s submits more than %lld tasks (%s at %s), which the task window "
                        "(ring_task_window=%lld) cannot hold: raise the schedule's window or split the loop",
                        scope_at, static_cast<long long>(window - 1), what, task_at, static_cast<long long>(window));
        return false;
    }
    void open_scope(const char *at) {
        rt_scope_begin();
        in_scope = true;
        scope_tasks = 0;
        scope_at = at;
    }
    void close_scope() {
        in_scope = false;
        rt_scope_end();
    }
    static bool overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }
    TaskOutputTensors submit(const MixedKernels &kernels, CoreTaskArgs &args) override {
        if (rt_is_fatal() || !count("a task")) return TaskOutputTensors{};
        deps.clear();
        for (const Access &a : accesses) {
            if (a.call == call) continue;  // another chunk of this call: independent by construction
            bool needed = false;
            for (uint32_t i = 0; i < views && !needed; i++)
                needed = writes[i] && overlap(lo[i], hi[i], a.lo, a.hi);  // WAR, WAW
            if (!needed && !guards.empty()) needed = a.write && overlap(guards.back().lo, guards.back().hi, a.lo, a.hi);  // the guard's producer
            if (needed) deps.push_back(a.task);
        }
        for (const Order &o : orders)
            if (o.after.is_valid()) deps.push_back(o.after);
        Chain *chains[2] = {nullptr, nullptr};
        if (has_stream) {
            for (auto &entry : streams)
                if (entry.first == stream) chains[0] = &entry.second;
            if (!chains[0]) {
                streams.push_back({stream, Chain{}});
                chains[0] = &streams.back().second;
            }
        }
        if (lanes > 0) chains[1] = &lane_chains[(call - 1) % static_cast<uint64_t>(lanes)];
        for (Chain *chain : chains) {
            if (!chain) continue;
            chain->enter(call);
            deps.insert(deps.end(), chain->previous.begin(), chain->previous.end());
        }
        args.set_dependencies(deps.data(), static_cast<uint32_t>(deps.size()));
        if (!guards.empty()) args.set_predicate(guards.back().predicate);
        TaskOutputTensors out = rt_submit_task(kernels, args);
        const PTO2TaskId id = out.task_id();
        if (!id.is_valid()) return out;
        for (uint32_t i = 0; i < views; i++)
            if (hi[i] > lo[i]) accesses.push_back(Access{lo[i], hi[i], id, writes[i], call});
        for (Order &o : orders) o.issued.push_back(id);
        for (Chain *chain : chains)
            if (chain) chain->current.push_back(id);
        return out;
    }
    // pto.ordered: the tasks of an iteration run after the previous iteration's.
    void begin_order() { orders.push_back(Order{}); }
    void next_iteration() {
        Order &o = orders.back();
        if (o.issued.empty() || rt_is_fatal() || !count("the order barrier")) return;
        CoreTaskArgs barrier;
        barrier.set_dependencies(o.issued.data(), static_cast<uint32_t>(o.issued.size()));
        TaskOutputTensors out = rt_submit_dummy_task(barrier);
        o.issued.clear();
        o.after = out.task_id();
        for (size_t k = 0; k + 1 < orders.size(); k++)
            if (o.after.is_valid()) orders[k].issued.push_back(o.after);
    }
    void end_order() { orders.pop_back(); }
};
}  // namespace htp_schedule"#;

fn err(e: impl ToString) -> String {
    e.to_string()
}

/// A C++ string literal of `text`.
fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// The op viewed as `T`, or an error naming what was expected.
fn view<'c, T: htp_dialects::ods::Op<'c>>(op: OperationRef<'c, '_>) -> Result<htp_dialects::ods::View<T>, String> {
    htp_dialects::ods::view::<T>(op).ok_or_else(|| format!("not a {}", T::op_name()))
}

/// `pto.schedule`: the entry's `htp_schedule::Schedule` (once, at its start).
pub fn schedule(state: &mut Orchestration, _: &mut Writer, op: OperationRef) -> Result<(), String> {
    let schedule = view::<pto::ScheduleOperation>(op)?;
    if state.in_called_function() {
        return Err("a pto.schedule belongs in the orchestration's entry, not in a function it calls".into());
    }
    let window = schedule.window().map_err(err)?.value();
    let lanes = match schedule.lanes().map_err(err)?.value() {
        -1 => "std::max<int64_t>(1, rt_available_cluster_count())".to_string(),
        n => n.to_string(),
    };
    let dispatch = schedule.dispatch().map_err(err)?.value().to_string();
    state.require_prelude("htp-submitter", SUBMITTER_PRELUDE);
    state.require_prelude(NAME, PRELUDE);
    state.preamble_once(SCHEDULE, &format!("htp_schedule::Schedule {SCHEDULE}({window}, {lanes});  // the schedule: {dispatch}"));
    Ok(())
}

/// `pto.scope`: `open_scope` / `close_scope` around its tasks.
pub fn scope(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let scope = view::<pto::ScopeOperation>(op)?;
    let at = quoted(scope.at().map_err(err)?.value());
    w.line(&format!("{SCHEDULE}.open_scope({at});"));
    w.block(op.region(0).map_err(err)?.first_block().ok_or("a scope without a body")?, state)?;
    w.line(&format!("{SCHEDULE}.close_scope();"));
    Ok(())
}

/// `pto.ordered`: its iterations' tasks in order.
pub fn ordered(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    w.source_comment(op);
    w.line(&format!("{SCHEDULE}.begin_order();"));
    w.block(op.region(0).map_err(err)?.first_block().ok_or("an ordered region without a body")?, state)?;
    w.line(&format!("{SCHEDULE}.end_order();"));
    Ok(())
}

/// `pto.order_barrier`: the iteration's barrier task (inside its scope: outside it, the barriers
/// of every iteration would pile up in the orchestration's own scope, which no scope_end releases).
pub fn order_barrier(_: &mut Orchestration, w: &mut Writer, _: OperationRef) -> Result<(), String> {
    w.line(&format!("{SCHEDULE}.next_iteration();"));
    Ok(())
}

/// `pto.guard`: the tasks inside carry the dispatch predicate.
pub fn guard(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let guard = view::<pto::GuardOperation>(op)?;
    w.source_comment(op);
    let kind = match guard.predicate().map_err(err)?.value() {
        "eq" => "EQ",
        "ne" => "NE",
        "lt" => "LT",
        "le" => "LE",
        "gt" => "GT",
        "ge" => "GE",
        other => return Err(format!("a guard with the predicate '{other}'")),
    };
    let tensor = w.name(guard.tensor().map_err(err)?)?;
    let indices: Vec<String> = guard.indices().map(|v| w.name(v)).collect::<Result<_, _>>()?;
    let bound = w.name(guard.bound().map_err(err)?)?;
    w.open("{");
    let at = index_array(w, &indices);
    w.line(&format!("{SCHEDULE}.guard({tensor}, {}, {at}, PredicateOp::{kind}, static_cast<int64_t>({bound}));", indices.len().max(1)));
    w.block(op.region(0).map_err(err)?.first_block().ok_or("a guard without a body")?, state)?;
    w.line(&format!("{SCHEDULE}.unguard();"));
    w.close("}");
    Ok(())
}

/// `pto.alloc_tensor`: a tensor the runtime allocates at once (`alloc_tensors`, in the
/// orchestration's own scope, which ends with the run).
pub fn alloc_tensor(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let alloc = view::<pto::AllocTensorOperation>(op)?;
    w.source_comment(op);
    let result = alloc.result().map_err(err)?;
    let shape = htp_ir::builder::shape_of(result.r#type());
    let dtype = data_type(htp_ir::builder::element_of(result.r#type())).map_err(|e| format!("a tensor of {e}"))?;
    let name = w.fresh("allocated");
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    w.line(&format!("uint32_t {name}_shape[{}] = {{{}}};", shape.len(), dims.join(", ")));
    w.line(&format!("TensorCreateInfo {name}_info({name}_shape, {}, DataType::{dtype});", shape.len()));
    w.line(&format!("TaskOutputTensors {name}_alloc = alloc_tensors({name}_info);"));
    w.line(&format!("const ChipTensor &{name} = {name}_alloc.get_ref(0);"));
    w.bind(result.into(), name);
    Ok(())
}

/// `pto.tensor_view`: `tensor.view(shape, offsets)`. A view of lower rank
/// views the tensor reshaped so that the dropped dimensions and the next
/// one are one (the orchestration's tensors are whole, contiguous).
pub fn tensor_view(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let view_op = view::<pto::TensorViewOperation>(op)?;
    let source = view_op.source().map_err(err)?;
    let tensor = w.name(source)?;
    let offsets: Vec<String> = view_op.offsets().map_err(err)?.map(|v| w.name(v)).collect::<Result<_, _>>()?;
    let sizes: Vec<String> = view_op.sizes().map_err(err)?.map(|v| w.name(v)).collect::<Result<_, _>>()?;
    let rank = melior::ir::r#type::MemRefType::try_from(source.r#type()).map(|m| m.rank()).map_err(|_| "a view of a non-tensor".to_string())?;
    let view_rank = sizes.len();
    let dropped = rank - view_rank;
    let cast = |v: &String| format!("static_cast<uint32_t>({v})");
    // A block that starts past the end (or a dropped index at or past it) stops the run at the
    // view's line; one that starts at the end or ends before it starts is empty (its extent below zero).
    let at = quoted(view_op.at().map_err(err)?.value());
    for (d, offset) in offsets.iter().enumerate() {
        let last = if d < dropped { "false" } else { "true" };
        w.line(&format!("{SCHEDULE}.starts_within({tensor}, {d}, {offset}, {last}, {at}, {});", quoted(&tensor)));
    }
    let size = |v: &String| format!("static_cast<uint32_t>(std::max<int64_t>(0, {v}))");
    let extents: Vec<String> = sizes.iter().map(size).collect();
    let name = w.fresh("view");
    w.line(&format!("const uint32_t {name}_shape[{view_rank}] = {{{}}};", extents.join(", ")));
    if dropped == 0 {
        w.line(&format!("const uint32_t {name}_offset[{rank}] = {{{}}};", offsets.iter().map(cast).collect::<Vec<_>>().join(", ")));
        w.line(&format!("const ChipTensor {name} = {tensor}.view({name}_shape, {name}_offset);"));
    } else {
        // Dimensions 0..=dropped as one: its extent, and the view's first offset in it (row-major).
        let merged = (0..=dropped).map(|d| format!("{tensor}.shapes[{d}]")).collect::<Vec<_>>().join(" * ");
        let mut linear = cast(&offsets[0]);
        for (d, offset) in offsets.iter().enumerate().take(dropped + 1).skip(1) {
            linear = format!("({linear} * {tensor}.shapes[{d}] + {})", cast(offset));
        }
        let flat: Vec<String> = std::iter::once(merged).chain((dropped + 1..rank).map(|d| format!("{tensor}.shapes[{d}]"))).collect();
        let rest: Vec<String> = std::iter::once(linear).chain(offsets[dropped + 1..].iter().map(cast)).collect();
        w.line(&format!("const uint32_t {name}_flat[{view_rank}] = {{{}}};", flat.join(", ")));
        w.line(&format!("const uint32_t {name}_offset[{view_rank}] = {{{}}};", rest.join(", ")));
        w.line(&format!("const ChipTensor {name} = {tensor}.reshape({name}_flat, {view_rank}).view({name}_shape, {name}_offset);"));
    }
    w.bind(view_op.result().map_err(err)?.into(), name);
    Ok(())
}

/// `pto.task`: its tensors' accesses and stream go to the schedule, then
/// the callee's orchestration is called on the task's arguments,
/// submitting its PTO task(s) through the schedule.
pub fn task(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let task = view::<pto::TaskOperation>(op)?;
    w.source_comment(op);
    let callee = task.callee().map_err(err)?.value().to_string();
    let at = task.at().map_err(err)?.value().to_string();
    let access = task.access().map_err(err)?;
    w.line(&comment(&format!("task {callee} at {at}")));
    w.line(&format!("{SCHEDULE}.begin_task({});", quoted(&at)));
    let parameters = state.parameter_shapes(&callee);
    let mut names = Vec::new();
    for (index, argument) in task.arguments().map_err(err)?.enumerate() {
        let name = w.name(argument)?;
        if argument.r#type().is_mem_ref() {
            let mode = access.element(index).ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).unwrap_or_default();
            let (read, write) = (matches!(mode.as_str(), "in" | "inout"), matches!(mode.as_str(), "out" | "inout"));
            w.line(&format!("{SCHEDULE}.tensor({name}, {read}, {write});"));
            // The kernel's static extents: a block of another extent stops the orchestration.
            let given = htp_ir::builder::shape_of(argument.r#type());
            if let Some(shape) = parameters.get(index).filter(|p| p.len() == given.len()) {
                for (dim, (&size, &known)) in shape.iter().zip(&given).enumerate() {
                    if size >= 0 && known != size {
                        w.line(&format!("{SCHEDULE}.fits({name}, {dim}, {size}, {});", quoted(&callee)));
                    }
                }
            }
        }
        names.push(name);
    }
    if let Ok(stream) = task.stream() {
        let stream: Value = stream;
        let stream = w.name(stream)?;
        w.line(&format!("{SCHEDULE}.has_stream = true;"));
        w.line(&format!("{SCHEDULE}.stream = {stream};"));
    }
    state.call_orchestration(w, &callee, SCHEDULE, &names)
}
