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
//! Files, one job each: `config.rs` (policies, configuration), `region.rs` (regions and their
//! overlap test), `node.rs` (a task in the graph), `deps.rs` (dependency inference), `live.rs` (a buffer's live accesses, indexed), `queues.rs`
//! (ready queues and parking), `inbox.rs` (the lock-free push side of a queue), `window.rs` (the in-flight bound), `executor.rs` (the workers).

mod config;
mod deps;
mod executor;
mod inbox;
mod live;
mod node;
mod queues;
mod region;
mod window;

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    thread::{self, JoinHandle},
};

pub use config::{DispatchPolicy, RuntimeConfig};
pub use node::TaskBody;
pub use region::{Access, AccessMode, Region};

use deps::DependencyTracker;
use executor::{Failure, Shared};
use node::lock;
use queues::ReadyQueues;
use window::Window;

use crate::trace::Trace;

/// A submitted task, numbered from 0 in submission order within one runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u64);

/// One kernel task: what it touches, what else it must follow, where it may run, what it runs.
pub struct TaskSpec {
    /// Shown in traces and errors, e.g. `attn[3,1]`.
    pub name: String,
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
    /// A task named `name` running `body`, with no accesses, edges, stream or placement.
    pub fn new(name: impl Into<String>, body: impl FnOnce() -> Result<(), String> + Send + 'static) -> Self {
        Self {
            name: name.into(),
            keys: Vec::new(),
            accesses: Vec::new(),
            after: Vec::new(),
            stream: None,
            worker: None,
            body: Box::new(body),
        }
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
            queues: ReadyQueues::new(config.policy, config.workers),
            window: Window::new(config.window, config.workers),
            failure: Failure::default(),
            trace: config.trace.then(Trace::new),
        });
        let mut runtime = Self {
            config,
            shared,
            workers: Vec::new(),
            tracker: Mutex::default(),
            stalls: AtomicUsize::new(0),
        };
        for index in 0..runtime.config.workers {
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
        if self.shared.failure.is_set() {
            return Err(self.shared.failure.first().unwrap_or_default());
        }
        if self.config.policy == DispatchPolicy::Affinity && spec.worker.is_none() {
            return Err(format!("task `{}`: the Affinity policy needs a worker for every task", spec.name));
        }
        let may_block = !executor::on_worker_of(&self.shared);
        match self.shared.window.enter(may_block) {
            Ok(true) => {
                self.stalls.fetch_add(1, Ordering::Relaxed);
            }
            Ok(false) => {}
            Err(window::Full::WouldBlock) => {
                return Err(format!(
                    "task `{}`: submitted from a task body while the window ({} tasks) is full; \
                     waiting there could deadlock",
                    spec.name, self.config.window
                ))
            }
        }
        let (task, edges) = {
            let mut tracker = lock(&self.tracker);
            let id = tracker.next_id();
            if let Some(later) = spec.after.iter().find(|after| after.0 >= id) {
                drop(tracker);
                self.shared.window.cancel_enter();
                return Err(format!(
                    "task `{}`: `after` names task {} which is not an earlier task (this is task {id})",
                    spec.name, later.0
                ));
            }
            let workers = self.config.workers;
            let worker = spec.worker.map_or((id % workers as u64) as usize, |worker| worker % workers);
            let task = tracker.new_node(spec.name, worker, spec.body);
            let edges = tracker.insert(&task, spec.accesses, &spec.after, spec.stream);
            (task, edges)
        };
        let id = TaskId(task.id);
        // Without predecessors the task is ready, and its pending count is nobody else's to
        // touch: skip the atomic.
        if edges == 0 || task.release_submit_hold() {
            self.shared.queues.push(task);
        }
        Ok(id)
    }

    /// Waits for every submitted task, stops the workers, and reports the run; the first task
    /// error or panic, if any, is the error.
    pub fn finish(mut self) -> Result<RunReport, String> {
        if executor::on_worker_of(&self.shared) {
            // It would wait for the very task calling it; dropping hands the wait to a thread.
            return Err("task runtime: `finish` called from one of its own tasks".into());
        }
        self.stop();
        let (tasks, edges) = {
            let tracker = lock(&self.tracker);
            (tracker.next_id() as usize, tracker.edges)
        };
        let stalls = self.stalls.load(Ordering::Relaxed);
        let shared = Arc::clone(&self.shared);
        drop(self);
        let shared = Arc::try_unwrap(shared)
            .map_err(|_| "task runtime: a worker still holds the runtime after joining".to_string())?;
        if let Some(error) = shared.failure.first() {
            return Err(error);
        }
        Ok(RunReport { tasks, edges, stalls, trace: shared.trace })
    }

    /// Waits for the tasks and joins the workers; idempotent. On one of its own workers (the
    /// last handle dropped by a task body) the waiting would wait for that very task, so a
    /// thread of its own does it.
    fn stop(&mut self) {
        if self.workers.is_empty() {
            return;
        }
        if executor::on_worker_of(&self.shared) {
            let (shared, workers) = (Arc::clone(&self.shared), std::mem::take(&mut self.workers));
            let stopper = move || {
                shared.window.wait_empty();
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
        self.shared.window.wait_empty();
        self.shared.queues.shut_down();
        for worker in self.workers.drain(..) {
            // Workers catch every panic of a body; join fails only if a thread was killed.
            let _ = worker.join();
        }
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
