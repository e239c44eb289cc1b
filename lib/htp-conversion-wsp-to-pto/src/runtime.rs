//! The C++ a workload's orchestration runs with (the prelude `wsp-runtime`):
//! `wsp::Run`, the `HtpSubmitter` every task's kernel orchestration submits
//! through. Per submitted PTO task it adds, as explicit dependencies
//! (`set_dependencies`), what pto-runtime's TensorMap does not infer:
//! - WAR and WAW: earlier readers and writers of bytes the task writes (the
//!   TensorMap orders readers and in-out writers after earlier writers, but
//!   neither a writer after earlier readers nor a pure output
//!   (`OUTPUT_EXISTING`, which it does not look up) after an earlier writer);
//! - `wsp.seq` order: the barrier (a dummy task) that ends the previous
//!   iteration of each enclosing sequential loop;
//! - a stream's previous task (`stream_by`), a round-robin lane's previous
//!   task (per `wsp.task`: every PTO task of its kernel's call);
//! - for a guarded task, the writers of its guard's element, and the
//!   guard itself as the task's dispatch predicate (`set_predicate`);
//!
//! and it counts each scope's tasks: more than the window - 1 would
//! deadlock the ring, so the orchestration stops with a message instead.

pub const NAME: &str = "wsp-runtime";

pub const PRELUDE: &str = r#"// WSP's workload runtime (htp-conversion-wsp-to-pto, src/runtime.rs): explicit dependencies the
// TensorMap does not infer (WAR, WAW of pure outputs, wsp.seq order, streams, round-robin lanes,
// guard producers),
// dispatch predicates, and each scope's task count against the task window.
#include <vector>
namespace wsp {
struct Access {
    uint64_t lo, hi;
    PTO2TaskId task;
    bool write;
    uint64_t call;  // the wsp.task whose kernel submitted the task
};
// An in-order chain of wsp.tasks (a stream, a round-robin lane): each call's PTO tasks depend on
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
struct Run final : HtpSubmitter {
    Run(int64_t window, int64_t lanes) : window(window), lanes(lanes), lane_chains(lanes > 0 ? lanes : 0) {}
    int64_t window, lanes;
    std::vector<Chain> lane_chains;
    std::vector<Access> accesses;
    std::vector<Order> orders;
    std::vector<std::pair<int64_t, Chain>> streams;
    std::vector<PTO2TaskId> deps;
    // The wsp.task being submitted: its tensors, how it uses them, its stream.
    uint64_t lo[32], hi[32];
    bool reads[32], writes[32];
    uint32_t views = 0;
    uint64_t call = 0;  // numbers the wsp.tasks: a kernel's chunk tasks of one call are independent
    bool has_stream = false;
    int64_t stream = 0;
    const char *task_at = "";
    // The guard of the tasks being submitted (wsp.select / wsp.when).
    bool guarded = false;
    CoreTaskPredicate predicate;
    uint64_t guard_lo = 0, guard_hi = 0;
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
        // The previous wsp.task's PTO tasks (all its chunks) depend on the
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
                        "wsp: the task at %s gives %s a block of extent %u in dimension %u, where its parameter takes %u",
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
        guarded = true;
        predicate.operand.tensor = &t;
        predicate.operand.ndims = ndims;
        for (uint32_t d = 0; d < ndims; d++) predicate.operand.indices[d] = indices[d];
        predicate.op = op;
        predicate.target = target;
        const uint64_t size = get_element_size(t.dtype);
        guard_lo = t.buffer.addr + t.compute_flat_offset(indices, ndims) * size;
        guard_hi = guard_lo + size;
    }
    void unguard() { guarded = false; }
    bool count(const char *what) {
        if (!in_scope) {
            // Outside every wsp loop: the orchestration's own scope, which ends only with the run.
            if (++unscoped_tasks <= window - 1) return true;
            rt_report_fatal(PTO2_ERROR_INVALID_ARGS,
                            "wsp: the workload submits more than %lld tasks outside its wsp loops (%s at %s), which the task "
                            "window (ring_task_window=%lld) cannot hold: put them in a wsp loop or raise the schedule's window",
                            static_cast<long long>(window - 1), what, task_at, static_cast<long long>(window));
            return false;
        }
        if (++scope_tasks <= window - 1) return true;
        rt_report_fatal(PTO2_ERROR_INVALID_ARGS,
                        "wsp: one iteration of the loop at %s submits more than %lld tasks (%s at %s), which the task window "
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
            if (!needed && guarded) needed = a.write && overlap(guard_lo, guard_hi, a.lo, a.hi);  // the guard's producer
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
        if (guarded) args.set_predicate(predicate);
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
    // wsp.seq: the tasks of an iteration run after the previous iteration's.
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
}  // namespace wsp"#;
