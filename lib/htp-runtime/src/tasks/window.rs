//! The window: how many tasks may be submitted and not yet finished.
//!
//! `enter` (submit) counts a task in, blocking while the window is full; `leave` (a worker, once
//! the task has finished and released its successors) counts it out. `wait_empty` (finish)
//! blocks until every task has left.
//!
//! Why a stall cannot deadlock: a stalled submit holds no lock a worker needs, and every task
//! inside the window has only earlier tasks as predecessors (inferred edges point to earlier
//! submits, `after` may only name earlier ids, a stream's order is submission order). So the
//! oldest unfinished task has all its predecessors finished: it is ready, and sits in a queue a
//! worker drains (queues only ever hold ready tasks, which need nothing further to finish). Each
//! finished task frees a slot, so the submit proceeds. The one exception is a task body that
//! itself submits to its own runtime while the window is full: it would wait for slots only
//! workers can free, possibly all of them waiting alike, so `submit` refuses that with an error
//! instead of blocking.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Condvar, Mutex, PoisonError,
};

use super::node::lock;

/// The counters are split by writer so that a submit and a finishing task on another core do
/// not fight over one cache line per task: submitters count tasks in (`entered`), each worker
/// counts the tasks it finished in its own padded counter, and a submit reads the workers'
/// counters only when its last look says the window may be full.
pub(crate) struct Window {
    /// 0 = unbounded.
    limit: usize,
    /// Tasks counted in (written by submitters only).
    entered: AtomicUsize,
    /// Per worker, the tasks it finished (each written by its worker only).
    finished: Vec<Padded>,
    /// A total of `finished` seen by some submit; never above the true total.
    finished_seen: AtomicUsize,
    /// Threads blocked in `enter` or `wait_empty`; `leave` locks and notifies only if any.
    waiters: AtomicUsize,
    lock: Mutex<()>,
    freed: Condvar,
}

/// A counter on a cache line of its own (128 bytes: adjacent-line prefetching pairs lines).
#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicUsize);

/// Why `enter` did not count the task in.
pub(crate) enum Full {
    /// The window is full and the caller may not block.
    WouldBlock,
}

impl Window {
    pub fn new(limit: usize, workers: usize) -> Self {
        Self {
            limit,
            entered: AtomicUsize::new(0),
            finished: (0..workers).map(|_| Padded::default()).collect(),
            finished_seen: AtomicUsize::new(0),
            waiters: AtomicUsize::new(0),
            lock: Mutex::new(()),
            freed: Condvar::new(),
        }
    }

    /// Counts one task in; blocks while the window is full, unless `may_block` is false.
    /// Returns whether it had to wait (a stall).
    pub fn enter(&self, may_block: bool) -> Result<bool, Full> {
        if self.limit == 0 {
            self.entered.fetch_add(1, Ordering::SeqCst);
            return Ok(false);
        }
        let mut stalled = false;
        loop {
            let entered = self.entered.load(Ordering::SeqCst);
            if entered.saturating_sub(self.finished_seen.load(Ordering::Relaxed)) >= self.limit {
                let finished = self.total_finished();
                self.finished_seen.fetch_max(finished, Ordering::Relaxed);
                if entered.saturating_sub(finished) >= self.limit {
                    if !may_block {
                        return Err(Full::WouldBlock);
                    }
                    stalled = true;
                    self.wait_until(|| self.in_flight() < self.limit);
                    continue;
                }
            }
            if self
                .entered
                .compare_exchange_weak(entered, entered + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                return Ok(stalled);
            }
        }
    }

    /// Counts `count` tasks in at once, if the window is unbounded (a batch submit); `false`
    /// otherwise (then each enters alone).
    pub fn enter_unbounded(&self, count: usize) -> bool {
        if self.limit != 0 {
            return false;
        }
        self.entered.fetch_add(count, Ordering::SeqCst);
        true
    }

    /// Takes back an `enter` whose task was refused before it existed.
    pub fn cancel_enter(&self) {
        self.cancel_entered(1);
    }

    /// Takes back `count` enters whose tasks were refused.
    pub fn cancel_entered(&self, count: usize) {
        self.entered.fetch_sub(count, Ordering::SeqCst);
        self.notify_waiters();
    }

    /// Counts one task out on `worker`, waking blocked submitters or the finisher.
    pub fn leave(&self, worker: usize) {
        self.finished[worker].0.fetch_add(1, Ordering::SeqCst);
        self.notify_waiters();
    }

    /// Blocks until no task is in flight.
    pub fn wait_empty(&self) {
        self.wait_until(|| self.in_flight() == 0);
    }

    /// Whether no task is in flight.
    pub fn is_empty(&self) -> bool {
        self.in_flight() == 0
    }

    /// Whether a submit would have to wait.
    pub fn is_full(&self) -> bool {
        self.limit != 0 && self.in_flight() >= self.limit
    }

    fn notify_waiters(&self) {
        if self.waiters.load(Ordering::SeqCst) > 0 {
            // Taking the lock orders this notify after a waiter's check-then-wait.
            let _guard = lock(&self.lock);
            self.freed.notify_all();
        }
    }

    fn total_finished(&self) -> usize {
        self.finished.iter().map(|count| count.0.load(Ordering::SeqCst)).sum()
    }

    /// Tasks counted in and not out. `finished` is read first: a task finishing in between only
    /// makes the answer larger (safe for both a stall and `wait_empty`).
    pub fn in_flight(&self) -> usize {
        let finished = self.total_finished();
        self.entered.load(Ordering::SeqCst).saturating_sub(finished)
    }

    /// Blocks until `done()`, checked again whenever a task leaves.
    pub fn wait_until(&self, done: impl Fn() -> bool) {
        let mut guard = lock(&self.lock);
        self.waiters.fetch_add(1, Ordering::SeqCst);
        while !done() {
            guard = self.freed.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }
}
