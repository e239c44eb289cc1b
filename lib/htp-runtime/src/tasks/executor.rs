//! The workers: take a ready task, run its body behind a panic boundary, record it, release its
//! successors, free its window slot. With a caller lane, a thread waiting for the run does the
//! same as worker 0 (`help_until_empty`, `help_while_full`).

use std::{
    any::Any,
    cell::Cell,
    collections::VecDeque,
    panic::{self, AssertUnwindSafe},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Instant,
};

use super::{
    node::{lock, TaskNode},
    queues::ReadyQueues,
    window::Window,
};
use crate::trace::Trace;

/// What the runtime handle and its workers share.
pub(crate) struct Shared {
    pub queues: ReadyQueues,
    pub window: Window,
    pub failure: Failure,
    pub trace: Option<Trace>,
    /// Worker 0 is a thread waiting for the run (`RuntimeConfig::caller_lane`).
    pub caller_lane: bool,
    /// Held by the one waiting thread acting as worker 0.
    pub lane_claimed: AtomicBool,
}

/// The first error of a run; once set, no further body starts.
#[derive(Default)]
pub(crate) struct Failure {
    failed: AtomicBool,
    first: Mutex<Option<String>>,
}

impl Failure {
    /// Forgets the failure (between runs, no task running).
    pub fn clear(&self) -> Option<String> {
        let first = lock(&self.first).take();
        self.failed.store(false, Ordering::Release);
        first
    }

    pub fn is_set(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    /// The first error recorded, if any.
    pub fn first(&self) -> Option<String> {
        lock(&self.first).clone()
    }

    fn record(&self, message: String) {
        lock(&self.first).get_or_insert(message);
        self.failed.store(true, Ordering::Release);
    }
}

thread_local! {
    /// The `Shared` (by address) this thread is a worker of; 0 on other threads.
    static WORKER_OF: Cell<usize> = const { Cell::new(0) };
}

/// Whether the calling thread is one of the workers of `shared`.
pub(crate) fn on_worker_of(shared: &Arc<Shared>) -> bool {
    WORKER_OF.with(Cell::get) == Arc::as_ptr(shared) as usize
}

/// The body of worker thread `index`: runs tasks until shutdown.
pub(crate) fn worker_main(shared: &Arc<Shared>, index: usize) {
    WORKER_OF.with(|of| of.set(Arc::as_ptr(shared) as usize));
    // Tasks taken from the queues and not yet run (several only for the static policies).
    let mut taken = VecDeque::new();
    while shared.queues.wait_for_tasks(index, &mut taken, || false) {
        run_taken(shared, index, &mut taken, Successors::Keep);
    }
}

/// What a thread running tasks does with the successors they ready.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Successors {
    /// Runs the first it may run next itself: a worker, or the caller lane waiting for the end.
    Keep,
    /// Queues them all: a submitter helping out, which must get back to submitting.
    Queue,
}

/// Runs the tasks in `taken` as worker `lane`, in order: each body, then its successors
/// released and its window slot freed. With `Successors::Keep`, the first successor the worker
/// may run it runs next itself, queued nowhere (`ReadyQueues::may_keep`): a chain of dependent
/// tasks stays on one core, its inputs in cache, and costs no wake-up of another worker per link.
fn run_taken(shared: &Shared, lane: usize, taken: &mut VecDeque<Arc<TaskNode>>, successors: Successors) {
    while let Some(task) = taken.pop_front() {
        run(shared, lane, &task);
        let mut next = None;
        task.finish(|successor| {
            if successors == Successors::Keep && next.is_none() && shared.queues.may_keep(&successor, lane) {
                next = Some(successor);
            } else {
                shared.queues.push(successor);
            }
        });
        if let Some(next) = next {
            taken.push_front(next);
        }
        // Let go of the node before its window slot: the submitter reuses unshared nodes.
        drop(task);
        shared.window.leave(lane);
        // A caller lane waiting for the last task sleeps as worker 0: the task that empties the
        // window wakes it (the window's SeqCst counters and the sleep announcement order the two
        // sides: either this sees it asleep, or it sees the window empty before it sleeps).
        if shared.caller_lane && lane != 0 && shared.queues.is_asleep(0) && shared.window.is_empty() {
            shared.queues.wake(0);
        }
    }
}

/// Takes worker 0 for the calling thread; `false` if another waiting thread has it.
fn claim_lane(shared: &Shared) -> bool {
    shared.caller_lane && !shared.lane_claimed.swap(true, Ordering::Acquire)
}

/// Waits until no task is in flight; with a caller lane (and worker 0 free) the calling thread
/// runs worker 0's tasks meanwhile, sleeping as worker 0 when there are none.
pub(crate) fn help_until_empty(shared: &Shared) {
    if !claim_lane(shared) {
        shared.window.wait_empty();
        return;
    }
    let mut taken = VecDeque::new();
    while shared.queues.wait_for_tasks(0, &mut taken, || shared.window.is_empty()) {
        run_taken(shared, 0, &mut taken, Successors::Keep);
    }
    shared.lane_claimed.store(false, Ordering::Release);
}

/// A caller lane more than `ahead` tasks ahead of the workers: runs worker 0's ready tasks
/// until half of them are done or it has none.
pub(crate) fn help_while_far_ahead(shared: &Shared, ahead: usize) {
    if shared.window.in_flight() <= ahead || !claim_lane(shared) {
        return;
    }
    let mut taken = VecDeque::new();
    while shared.window.in_flight() > ahead / 2 && shared.queues.take(0, &mut taken) {
        run_taken(shared, 0, &mut taken, Successors::Queue);
    }
    shared.lane_claimed.store(false, Ordering::Release);
}

/// A submit found the window full: with a caller lane, runs worker 0's ready tasks (the oldest
/// task in flight may be one of them, waiting for this very thread); otherwise, or when it has
/// none, waits until the window has room or worker 0 has work.
pub(crate) fn help_while_full(shared: &Shared) {
    if claim_lane(shared) {
        let mut taken = VecDeque::new();
        let found = shared.queues.take(0, &mut taken);
        if found {
            run_taken(shared, 0, &mut taken, Successors::Queue);
        }
        shared.lane_claimed.store(false, Ordering::Release);
        if found {
            return;
        }
    }
    // Finishing tasks notify this wait; they push their successors first, so a task readied
    // for worker 0 is seen.
    let lane_free = || shared.caller_lane && !shared.lane_claimed.load(Ordering::Acquire);
    shared.window.wait_until(|| !shared.window.is_full() || (lane_free() && shared.queues.has_work_for(0)));
}

/// Runs `task`'s body unless the run has failed (then the body is dropped unrun: a cancelled
/// task still finishes, so its successors and the window drain and `finish` returns).
fn run(shared: &Shared, worker: usize, task: &TaskNode) {
    let Some(body) = task.take_body() else { return };
    if shared.failure.is_set() {
        drop_quietly(body);
        return;
    }
    let start = shared.trace.as_ref().map(|_| Instant::now());
    let result = panic::catch_unwind(AssertUnwindSafe(|| body.run()));
    if let (Some(trace), Some(start)) = (&shared.trace, start) {
        let end = Instant::now();
        trace.record(task.name.render(), worker as u64, start, end);
    }
    match result {
        Ok(Ok(())) => {}
        Ok(Err(message)) => shared.failure.record(format!("task `{}` failed: {message}", task.name.render())),
        Err(payload) => {
            shared.failure.record(format!("task `{}` panicked: {}", task.name.render(), panic_message(&*payload)));
            drop_quietly(payload);
        }
    }
}

/// Drops user data (a body, a panic payload) without letting a panicking `Drop` kill the worker.
fn drop_quietly<T>(value: T) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(move || drop(value))) {
        // A payload of a panic in a drop: dropping it could panic again, so it is leaked.
        std::mem::forget(payload);
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "(a non-string panic payload)"
    }
}
