//! One submitted task in the graph: its body, how many predecessors it still waits for, and who
//! waits for it.

use std::{
    cell::UnsafeCell,
    fmt::Write as _,
    ptr,
    sync::{
        atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering},
        Arc, Mutex, MutexGuard, PoisonError,
    },
};

use super::body::TaskBody;

/// How a task is named in traces and errors.
pub(crate) struct TaskName {
    pub text: String,
    /// With a label, the name is `label[keys]`, written only when a trace or an error needs it.
    pub label: Option<Arc<str>>,
    pub keys: Vec<i64>,
}

impl TaskName {
    /// The name as text.
    pub fn render(&self) -> String {
        let Some(label) = &self.label else { return self.text.clone() };
        let mut name = String::with_capacity(label.len() + 2 + 4 * self.keys.len());
        name.push_str(label);
        name.push('[');
        for (n, key) in self.keys.iter().enumerate() {
            if n > 0 {
                name.push(',');
            }
            let _ = write!(name, "{key}");
        }
        name.push(']');
        name
    }
}

pub(crate) struct TaskNode {
    pub id: u64,
    pub name: TaskName,
    /// The worker whose queue the task goes to (per-worker policies); unused by `Dynamic`.
    pub worker: usize,
    /// Taken once, by the one thread that runs the task (`body_taken` says whether it was): a
    /// task becomes ready exactly once, so no lock is needed.
    body: UnsafeCell<Option<TaskBody>>,
    body_taken: AtomicBool,
    /// Unfinished predecessors, plus 1 while the submit is still adding edges, so the task cannot
    /// become ready before all its edges exist.
    pending: AtomicUsize,
    /// Mirrors `successors.finished` for lock-free reads (pruning the dependency tracker).
    done: AtomicBool,
    successors: Mutex<Successors>,
    /// The task pushed into the same inbox before this one (`inbox.rs`); meaningful only while
    /// the task sits in an inbox.
    pub next_ready: AtomicPtr<TaskNode>,
    /// The id of the last task that asked to follow this one (submit side only, under the
    /// tracker's lock), so a follower gets one edge however many accesses lead here.
    last_follower: AtomicU64,
}

#[derive(Default)]
struct Successors {
    finished: bool,
    waiting: Vec<Arc<TaskNode>>,
}

// SAFETY: the body (the one field not otherwise synchronised) is written while the node is not
// shared (`new`, `reuse` through `&mut`) and taken at most once, guarded by `body_taken`.
unsafe impl Sync for TaskNode {}

impl TaskNode {
    pub fn new(id: u64, name: TaskName, worker: usize, body: TaskBody) -> Self {
        Self {
            id,
            name,
            worker,
            body: UnsafeCell::new(Some(body)),
            body_taken: AtomicBool::new(false),
            pending: AtomicUsize::new(1),
            done: AtomicBool::new(false),
            successors: Mutex::default(),
            next_ready: AtomicPtr::new(ptr::null_mut()),
            last_follower: AtomicU64::new(u64::MAX),
        }
    }

    /// Makes a finished node, no longer shared, a new task (saves an allocation per task, and a
    /// free on another thread than the allocation's, the costly case for the system allocator).
    pub fn reuse(&mut self, id: u64, name: TaskName, worker: usize, body: TaskBody) {
        self.id = id;
        self.name = name;
        self.worker = worker;
        *self.body.get_mut() = Some(body);
        *self.body_taken.get_mut() = false;
        *self.pending.get_mut() = 1;
        *self.done.get_mut() = false;
        let successors = self.successors.get_mut().unwrap_or_else(PoisonError::into_inner);
        successors.finished = false;
        successors.waiting.clear();
        *self.next_ready.get_mut() = ptr::null_mut();
        *self.last_follower.get_mut() = u64::MAX;
    }

    /// Records that task `follower` asks to follow this one; `false` if it already had.
    pub fn mark_follower(&self, follower: u64) -> bool {
        // Relaxed: only submits, serialised by the tracker's lock, read and write it.
        self.last_follower.swap(follower, Ordering::Relaxed) != follower
    }

    /// Whether the task has finished (its successors may ignore it).
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Makes `successor` wait for `self`; `false` (no edge) when `self` has already finished.
    pub fn add_successor(&self, successor: &Arc<TaskNode>) -> bool {
        let mut successors = lock(&self.successors);
        if successors.finished {
            return false;
        }
        // Counted under the lock: `finish` cannot release the successor before this increment.
        successor.pending.fetch_add(1, Ordering::Relaxed);
        successors.waiting.push(Arc::clone(successor));
        true
    }

    /// Drops the submit's hold on the task; `true` when it is ready to run now.
    pub fn release_submit_hold(&self) -> bool {
        self.pending.fetch_sub(1, Ordering::AcqRel) == 1
    }

    /// The body, once (the runner takes it).
    pub fn take_body(&self) -> Option<TaskBody> {
        if self.body_taken.swap(true, Ordering::Acquire) {
            return None;
        }
        // SAFETY: only the thread that set `body_taken` gets here, once per submit.
        unsafe { (*self.body.get()).take() }
    }

    /// Marks the task finished and calls `ready` with each successor this made ready.
    pub fn finish(&self, mut ready: impl FnMut(Arc<TaskNode>)) {
        let waiting = {
            let mut successors = lock(&self.successors);
            successors.finished = true;
            self.done.store(true, Ordering::Release);
            std::mem::take(&mut successors.waiting)
        };
        for successor in waiting {
            // AcqRel: the successor's runner sees everything this task (and its other
            // predecessors) wrote.
            if successor.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
                ready(successor);
            }
        }
    }
}

/// Locks `mutex`, ignoring poisoning: no user code runs while the runtime holds one of its locks.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
