//! The workers: take a ready task, run its body behind a panic boundary, record it, release its
//! successors, free its window slot.

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
}

/// The first error of a run; once set, no further body starts.
#[derive(Default)]
pub(crate) struct Failure {
    failed: AtomicBool,
    first: Mutex<Option<String>>,
}

impl Failure {
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
    while shared.queues.wait_for_tasks(index, &mut taken) {
        while let Some(task) = taken.pop_front() {
            run(shared, index, &task);
            task.finish(|successor| shared.queues.push(successor));
            // Let go of the node before its window slot: the submitter reuses unshared nodes.
            drop(task);
            shared.window.leave(index);
        }
    }
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
    let result = panic::catch_unwind(AssertUnwindSafe(body));
    if let (Some(trace), Some(start)) = (&shared.trace, start) {
        trace.record(task.name.clone(), worker as u64, start, Instant::now());
    }
    match result {
        Ok(Ok(())) => {}
        Ok(Err(message)) => shared.failure.record(format!("task `{}` failed: {message}", task.name)),
        Err(payload) => {
            shared.failure.record(format!("task `{}` panicked: {}", task.name, panic_message(&*payload)));
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
