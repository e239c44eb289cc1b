//! The WSP task runtime: kernel tasks submitted one by one, run on a fixed set of worker
//! threads as soon as the tasks they depend on have finished.
//!
//! A caller (the WSP model's host code) evaluates a workload's loops and submits a [`TaskSpec`]
//! per kernel task, then calls [`TaskRuntime::finish`]. A task waits for
//!
//! * the earlier tasks whose [`Access`]es conflict with its own: read after write, write after
//!   read and write after write on overlapping [`Region`]s of one buffer (`deps.rs`),
//! * the earlier tasks named in [`TaskSpec::after`],
//! * the previous task of its [`TaskSpec::stream`].
//!
//! Ready tasks are placed by the [`DispatchPolicy`] (`queues.rs`); at most
//! [`RuntimeConfig::window`] tasks are in flight, further submits stall (`window.rs`, which also
//! says why a stall cannot deadlock). The first
//! failing or panicking body stops new bodies from starting; `finish` reports it.
//!
//! A runtime serves many runs: [`TaskRuntime::drain`] waits for a run's tasks, reports it and
//! keeps the workers for the next one (a WSP workload called once per decode step starts no
//! thread per call). [`TaskRuntime::submit_batch`] submits many tasks under one lock with one
//! wake-up decision; with [`RuntimeConfig::caller_lane`] the submitting thread is worker 0 and
//! runs tasks while it waits.
//!
//! Files, one job each: `config.rs` (policies, configuration), `region.rs` (regions and their
//! overlap test), `body.rs` (a task's work, inline in its node), `node.rs` (a task in the graph), `deps.rs` (dependency inference), `live.rs` (a buffer's live accesses, indexed), `recorder.rs` (the same inference ahead of a run, for callers that give edges instead of accesses), `queues.rs`
//! (ready queues and parking), `inbox.rs` (the lock-free push side of a queue), `window.rs` (the in-flight bound), `executor.rs` (the workers).

mod body;
mod config;
mod deps;
mod executor;
mod inbox;
mod live;
mod node;
mod queues;
mod recorder;
mod region;
mod window;

use std::{
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Mutex,
    },
    thread::{self, JoinHandle},
};

pub use body::TaskBody;
pub use config::{DispatchPolicy, RuntimeConfig};
pub use recorder::DependencyRecorder;
pub use region::{Access, AccessMode, Region, RegionDims};

use deps::DependencyTracker;
use executor::{Failure, Shared};
use node::{lock, TaskName, TaskNode};
use queues::ReadyQueues;
use window::Window;

use crate::trace::Trace;

/// With a caller lane, tasks in flight past which a batch submit first runs worker 0's ready
/// tasks: a submitter far ahead of the workers would only pile up fresh nodes (memory the
/// workers must then fetch), while its own core can run them.
const AHEAD: usize = 1024;

/// A submitted task, numbered from 0 in submission order within one runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u64);

/// One kernel task: what it touches, what else it must follow, where it may run, what it runs.
pub struct TaskSpec {
    /// Shown in traces and errors, e.g. `attn[3,1]`.
    pub name: String,
    /// Instead of `name`: the task is named `label[keys]` (`attn[3,1]`), written only when a
    /// trace or an error needs it — no formatting per task.
    pub label: Option<Arc<str>>,
    /// The task's loop indices, for the caller's use (choosing `worker`, naming); the runtime
    /// does not interpret them.
    pub keys: Vec<i64>,
    /// The regions the body reads and writes; dependencies are inferred from them.
    pub accesses: Vec<Access>,
    /// Explicit extra predecessors (e.g. a sequential loop's order); each must be an earlier
    /// task of this runtime.
    pub after: Vec<TaskId>,
    /// Tasks of one stream run in submission order, whatever the policy.
    pub stream: Option<u64>,
    /// The worker to run on: required by [`DispatchPolicy::Affinity`], a placement for
    /// `RoundRobin` and `WorkStealing`, ignored by `Dynamic`. Taken modulo the worker count.
    pub worker: Option<usize>,
    /// The work. An `Err` (or a panic) stops the runtime from starting further tasks.
    pub body: TaskBody,
}

impl TaskSpec {
    /// A task named `name` running `body`, with no accesses, edges, stream or placement. A small
    /// `body` is kept inline in the task (`TaskBody`): no allocation of its own.
    pub fn new(name: impl Into<String>, body: impl FnOnce() -> Result<(), String> + Send + 'static) -> Self {
        Self {
            name: name.into(),
            label: None,
            keys: Vec::new(),
            accesses: Vec::new(),
            after: Vec::new(),
            stream: None,
            worker: None,
            body: TaskBody::new(body),
        }
    }

    /// This task named `label[keys]` (see [`label`](Self::label)).
    pub fn labelled(mut self, label: Arc<str>) -> Self {
        self.label = Some(label);
        self
    }

    /// This task with `access` added.
    pub fn access(mut self, access: Access) -> Self {
        self.accesses.push(access);
        self
    }

    /// This task, also after `task`.
    pub fn after(mut self, task: TaskId) -> Self {
        self.after.push(task);
        self
    }

    /// This task in `stream`.
    pub fn stream(mut self, stream: u64) -> Self {
        self.stream = Some(stream);
        self
    }

    /// This task placed on `worker`.
    pub fn worker(mut self, worker: usize) -> Self {
        self.worker = Some(worker);
        self
    }

    /// This task with loop indices `keys`.
    pub fn keys(mut self, keys: Vec<i64>) -> Self {
        self.keys = keys;
        self
    }
}

impl std::fmt::Debug for TaskSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSpec")
            .field("name", &self.name)
            .field("label", &self.label)
            .field("keys", &self.keys)
            .field("accesses", &self.accesses)
            .field("after", &self.after)
            .field("stream", &self.stream)
            .field("worker", &self.worker)
            .finish_non_exhaustive()
    }
}

/// What a finished run did.
#[derive(Debug)]
pub struct RunReport {
    /// Tasks submitted.
    pub tasks: usize,
    /// Dependency edges added (inferred, explicit and stream edges to tasks not yet finished
    /// when the edge was made; one per predecessor pair).
    pub edges: usize,
    /// Submits that had to wait for the window.
    pub stalls: usize,
    /// One event per task that ran (lane = worker index), when [`RuntimeConfig::trace`] is set;
    /// [`Trace::to_chrome_json`] writes it for Perfetto.
    pub trace: Option<Trace>,
}

/// A running task runtime: worker threads waiting for submitted tasks.
///
/// Dropping it without [`finish`](Self::finish) still waits for every submitted task (when the
/// last handle goes inside one of its own task bodies, a thread of its own does the waiting).
pub struct TaskRuntime {
    config: RuntimeConfig,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    tracker: Mutex<DependencyTracker>,
    stalls: AtomicUsize,
}

impl TaskRuntime {
    /// Starts `config.workers` worker threads.
    pub fn start(config: RuntimeConfig) -> Result<Self, String> {
        config.validate()?;
        let shared = Arc::new(Shared {
            queues: ReadyQueues::new(config.policy, config.workers, config.caller_lane),
            window: Window::new(config.window, config.workers),
            failure: Failure::default(),
            trace: config.trace.then(Trace::new),
            caller_lane: config.caller_lane,
            lane_claimed: AtomicBool::new(false),
        });
        let mut runtime = Self {
            config,
            shared,
            workers: Vec::new(),
            tracker: Mutex::default(),
            stalls: AtomicUsize::new(0),
        };
        for index in runtime.config.first_thread()..runtime.config.workers {
            let shared = Arc::clone(&runtime.shared);
            let worker = thread::Builder::new()
                .name(format!("htp-task-{index}"))
                .spawn(move || executor::worker_main(&shared, index))
                .map_err(|error| format!("task runtime: cannot start worker {index}: {error}"))?;
            runtime.workers.push(worker);
        }
        Ok(runtime)
    }

    /// The configuration the runtime was started with.
    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    /// Adds a task; it runs once its predecessors have finished. Blocks while the window is
    /// full. Fails if an earlier task has failed, if `after` names a task not submitted before
    /// this one, if `Affinity` gets a task without a worker, or if a task body submits while
    /// the window is full (waiting there could deadlock: the workers would wait for themselves).
    pub fn submit(&self, spec: TaskSpec) -> Result<TaskId, String> {
        self.check(&spec)?;
        self.enter_window(&spec)?;
        let (task, ready) = {
            let mut tracker = lock(&self.tracker);
            match self.insert(&mut tracker, spec) {
                Ok(inserted) => inserted,
                Err(error) => {
                    drop(tracker);
                    self.shared.window.cancel_enter();
                    return Err(error);
                }
            }
        };
        let id = TaskId(task.id);
        if ready {
            self.shared.queues.push(task);
        }
        Ok(id)
    }

    /// Submits `specs` in order, as many [`submit`](Self::submit)s would, taking the dependency
    /// tracker's lock once and deciding about waking workers once (per worker touched): their
    /// ids are consecutive. At the first spec refused, the earlier ones stay submitted and its
    /// error is returned. With a bounded window the specs go one by one (a stall must not hold
    /// the lock). Returns the number submitted. The iterator is read under the tracker's lock:
    /// it should only hand over specs (a `Vec`'s, a cheap `map`), not compute them at length.
    pub fn submit_batch(&self, specs: impl IntoIterator<Item = TaskSpec>) -> Result<usize, String> {
        let mut specs = specs.into_iter();
        // Counted into the window before any is inserted (a predecessor finishing meanwhile may
        // run one at once): the iterator's announced length in one step, any further one by
        // one. The specs are taken as they come, never collected (a batch of specs is tens of
        // KiB: allocating it per batch cost page faults).
        let announced = specs.size_hint().0;
        if !self.shared.window.enter_unbounded(announced) {
            let mut submitted = 0;
            for spec in specs {
                self.submit(spec)?;
                submitted += 1;
            }
            return Ok(submitted);
        }
        let mut ready = Vec::with_capacity(announced);
        let mut count = 0;
        let mut outcome = Ok(());
        {
            let mut tracker = lock(&self.tracker);
            for spec in specs.by_ref() {
                if count >= announced {
                    self.shared.window.enter_unbounded(1);
                }
                count += 1;
                if let Err(error) = self.check(&spec).and_then(|()| {
                    let (task, is_ready) = self.insert(&mut tracker, spec)?;
                    if is_ready {
                        ready.push(task);
                    }
                    Ok(())
                }) {
                    // This spec and the announced ones not taken were counted in.
                    self.shared.window.cancel_entered(1 + announced.saturating_sub(count));
                    outcome = Err(error);
                    break;
                }
            }
            if outcome.is_ok() && count < announced {
                self.shared.window.cancel_entered(announced - count);
            }
        }
        let outcome = outcome.map(|()| count);
        self.shared.queues.push_all(ready);
        if self.config.caller_lane && !executor::on_worker_of(&self.shared) {
            executor::help_while_far_ahead(&self.shared, AHEAD);
        }
        outcome
    }

    /// Adds the accesses of tasks submitted earlier with their edges given (`after`, e.g. from
    /// a [`DependencyRecorder`]) to dependency inference, as if they had been submitted with
    /// them: tasks submitted later with accesses wait for them. Give them in submission order,
    /// before any later task with accesses. Fails if a task has not been submitted.
    pub fn track_accesses(&self, tasks: impl IntoIterator<Item = (TaskId, Vec<Access>)>) -> Result<(), String> {
        let mut tracker = lock(&self.tracker);
        for (task, accesses) in tasks {
            if !tracker.track(task, accesses) {
                return Err(format!("task runtime: accesses given for task {}, which has not been submitted", task.0));
            }
        }
        Ok(())
    }

    /// What refuses a spec before it enters the window.
    fn check(&self, spec: &TaskSpec) -> Result<(), String> {
        if self.shared.failure.is_set() {
            return Err(self.shared.failure.first().unwrap_or_default());
        }
        if self.config.policy == DispatchPolicy::Affinity && spec.worker.is_none() {
            return Err(format!("task `{}`: the Affinity policy needs a worker for every task", display_name(spec)));
        }
        Ok(())
    }

    /// Counts the task into the window, waiting while it is full: a caller lane runs worker 0's
    /// tasks meanwhile (the oldest task in flight may be one of them).
    fn enter_window(&self, spec: &TaskSpec) -> Result<(), String> {
        let on_worker = executor::on_worker_of(&self.shared);
        let may_block = !on_worker && !self.config.caller_lane;
        loop {
            match self.shared.window.enter(may_block) {
                Ok(stalled) => {
                    if stalled {
                        self.stalls.fetch_add(1, Ordering::Relaxed);
                    }
                    return Ok(());
                }
                Err(window::Full::WouldBlock) if !on_worker => {
                    self.stalls.fetch_add(1, Ordering::Relaxed);
                    executor::help_while_full(&self.shared);
                }
                Err(window::Full::WouldBlock) => {
                    return Err(format!(
                        "task `{}`: submitted from a task body while the window ({} tasks) is full; \
                         waiting there could deadlock",
                        display_name(spec),
                        self.config.window
                    ))
                }
            }
        }
    }

    /// Adds the task of `spec` (counted into the window) to the graph: the node and whether it is
    /// ready now.
    fn insert(&self, tracker: &mut DependencyTracker, spec: TaskSpec) -> Result<(Arc<TaskNode>, bool), String> {
        let id = tracker.next_id();
        if let Some(later) = spec.after.iter().find(|after| after.0 >= id) {
            return Err(format!(
                "task `{}`: `after` names task {} which is not an earlier task (this is task {id})",
                display_name(&spec),
                later.0
            ));
        }
        let workers = self.config.workers;
        let worker = spec.worker.map_or((id % workers as u64) as usize, |worker| worker % workers);
        let name = TaskName { text: spec.name, label: spec.label, keys: spec.keys };
        let task = tracker.new_node(name, worker, spec.body);
        let edges = tracker.insert(&task, spec.accesses, &spec.after, spec.stream);
        // Without predecessors the task is ready, and its pending count is nobody else's to
        // touch: skip the atomic.
        let ready = edges == 0 || task.release_submit_hold();
        Ok((task, ready))
    }

    /// Waits for every submitted task, stops the workers, and reports the run; the first task
    /// error or panic, if any, is the error.
    pub fn finish(mut self) -> Result<RunReport, String> {
        let report = self.drain();
        self.stop();
        report
    }

    /// Starts the trace's clock again (events recorded since the last [`drain`](Self::drain)
    /// are dropped): a runtime kept between runs measures each run from its own start.
    pub fn restart_trace(&self) {
        if let Some(trace) = &self.shared.trace {
            drop(trace.restart());
        }
    }

    /// Waits for every task submitted so far and reports the run (the first task error or
    /// panic, if any, is the error), then makes the runtime ready for another run with the same
    /// workers: task ids start again from 0, the failure is forgotten, the trace restarts. With a
    /// caller lane the calling thread runs worker 0's tasks while it waits.
    pub fn drain(&mut self) -> Result<RunReport, String> {
        if executor::on_worker_of(&self.shared) {
            // It would wait for the very task calling it; dropping hands the wait to a thread.
            return Err("task runtime: `finish` called from one of its own tasks".into());
        }
        executor::help_until_empty(&self.shared);
        let (tasks, edges) = lock(&self.tracker).reset();
        let stalls = self.stalls.swap(0, Ordering::Relaxed);
        let trace = self.shared.trace.as_ref().map(Trace::restart);
        if let Some(error) = self.shared.failure.clear() {
            return Err(error);
        }
        Ok(RunReport { tasks, edges, stalls, trace })
    }

    /// Waits for the tasks and joins the workers; idempotent. On one of its own workers (the
    /// last handle dropped by a task body) the waiting would wait for that very task, so a
    /// thread of its own does it.
    fn stop(&mut self) {
        if self.workers.is_empty() {
            // No thread (or already stopped); a caller lane's tasks still run before the end.
            if self.shared.caller_lane && !executor::on_worker_of(&self.shared) {
                executor::help_until_empty(&self.shared);
            }
            return;
        }
        if executor::on_worker_of(&self.shared) {
            let (shared, workers) = (Arc::clone(&self.shared), std::mem::take(&mut self.workers));
            let stopper = move || {
                executor::help_until_empty(&shared);
                shared.queues.shut_down();
                for worker in workers {
                    let _ = worker.join();
                }
            };
            if thread::Builder::new().name("htp-task-stop".into()).spawn(stopper).is_err() {
                // No thread to wait with: the workers stay parked until the process exits.
                eprintln!(
                    "htp-runtime: cannot start a thread to stop a task runtime dropped by its own task"
                );
            }
            return;
        }
        executor::help_until_empty(&self.shared);
        self.shared.queues.shut_down();
        for worker in self.workers.drain(..) {
            // Workers catch every panic of a body; join fails only if a thread was killed.
            let _ = worker.join();
        }
    }
}

/// The name of `spec` as its errors show it.
fn display_name(spec: &TaskSpec) -> String {
    match &spec.label {
        Some(label) => TaskName { text: String::new(), label: Some(Arc::clone(label)), keys: spec.keys.clone() }.render(),
        None => spec.name.clone(),
    }
}

impl Drop for TaskRuntime {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for TaskRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRuntime").field("config", &self.config).finish_non_exhaustive()
    }
}
