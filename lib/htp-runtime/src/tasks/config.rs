//! How a [`TaskRuntime`](super::TaskRuntime) is set up: worker count, dispatch policy, window.

/// Which worker runs a ready task.
///
/// Whatever the policy, a task only becomes ready once all its predecessors have finished; the
/// policy decides only where a ready task waits and who may take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DispatchPolicy {
    /// Static placement: the n-th submitted task (counting from 0) runs on worker
    /// `n % workers`, or on `spec.worker % workers` when the spec names one. It never moves.
    RoundRobin,
    /// Placement by the caller: a task runs on worker `spec.worker % workers`; a task without a
    /// worker is refused at submit. It never moves.
    Affinity,
    /// Per-worker deques: a ready task is pushed on the deque of `spec.worker % workers`, or of
    /// the next worker in round-robin order when the spec names none. A worker takes its own
    /// newest task first (LIFO: a successor readied by the task just finished is likely to find
    /// its inputs in cache), and when its deque is empty steals the oldest task of another
    /// worker's deque (FIFO end: the oldest work is the least likely to be hot in its owner's
    /// cache, and owner and thief touch opposite ends). A worker whose finished task readies
    /// successors runs the first of them next itself, wherever it was placed.
    WorkStealing,
    /// One shared FIFO ready queue: any idle worker takes the oldest ready task; a worker whose
    /// finished task readies successors runs the first of them next itself (a chain of tasks
    /// stays on one core). `spec.worker` is ignored.
    Dynamic,
}

/// The configuration [`TaskRuntime::start`](super::TaskRuntime::start) takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Number of worker threads the runtime starts (its own threads, not the global pool's:
    /// a task body may block). At least 1.
    pub workers: usize,
    /// Where ready tasks run.
    pub policy: DispatchPolicy,
    /// The most tasks that may be submitted and not yet finished; `0` means unbounded.
    /// [`submit`](super::TaskRuntime::submit) blocks (stalls) while the window is full.
    pub window: usize,
    /// Record one trace event per task (lane = worker index) into
    /// [`RunReport::trace`](super::RunReport::trace).
    pub trace: bool,
    /// The thread that submits is worker 0: the runtime starts `workers - 1` threads, and a thread
    /// waiting for the run ([`finish`](super::TaskRuntime::finish),
    /// [`drain`](super::TaskRuntime::drain), a submit stalled by the window) runs worker 0's
    /// tasks meanwhile — the shared queue's (`Dynamic`), its own deque's and stolen ones
    /// (`WorkStealing`), those placed on worker 0 (`RoundRobin`, `Affinity`, which wait for it).
    /// Work stays on the submitting core while it is free, and a run of one worker starts no
    /// thread at all.
    pub caller_lane: bool,
}

impl RuntimeConfig {
    /// `workers` threads with `policy`, an unbounded window and no trace.
    pub fn new(workers: usize, policy: DispatchPolicy) -> Self {
        Self { workers, policy, window: 0, trace: false, caller_lane: false }
    }

    /// This configuration with a window of `window` tasks (0 = unbounded).
    pub fn with_window(mut self, window: usize) -> Self {
        self.window = window;
        self
    }

    /// This configuration with tracing on or off.
    pub fn with_trace(mut self, trace: bool) -> Self {
        self.trace = trace;
        self
    }

    /// This configuration with the submitting thread as worker 0 or not (see
    /// [`caller_lane`](Self::caller_lane)).
    pub fn with_caller_lane(mut self, caller_lane: bool) -> Self {
        self.caller_lane = caller_lane;
        self
    }

    /// The first worker index the runtime starts a thread for.
    pub(crate) fn first_thread(&self) -> usize {
        usize::from(self.caller_lane)
    }

    /// An error message when the configuration cannot run.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.workers == 0 {
            return Err("task runtime: `workers` must be at least 1".into());
        }
        Ok(())
    }
}
