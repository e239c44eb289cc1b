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

pub(crate) struct Window {
    /// 0 = unbounded.
    limit: usize,
    in_flight: AtomicUsize,
    /// Threads blocked in `enter` or `wait_empty`; `leave` locks and notifies only if any.
    waiters: AtomicUsize,
    lock: Mutex<()>,
    freed: Condvar,
}

/// Why `enter` did not count the task in.
pub(crate) enum Full {
    /// The window is full and the caller may not block.
    WouldBlock,
}

impl Window {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            in_flight: AtomicUsize::new(0),
            waiters: AtomicUsize::new(0),
            lock: Mutex::new(()),
            freed: Condvar::new(),
        }
    }

    /// Counts one task in; blocks while the window is full, unless `may_block` is false.
    /// Returns whether it had to wait (a stall).
    pub fn enter(&self, may_block: bool) -> Result<bool, Full> {
        if self.limit == 0 {
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            return Ok(false);
        }
        let mut stalled = false;
        let mut current = self.in_flight.load(Ordering::SeqCst);
        loop {
            if current < self.limit {
                match self.in_flight.compare_exchange_weak(
                    current,
                    current + 1,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                ) {
                    Ok(_) => return Ok(stalled),
                    Err(now) => current = now,
                }
                continue;
            }
            if !may_block {
                return Err(Full::WouldBlock);
            }
            stalled = true;
            self.wait_until(|in_flight| in_flight < self.limit);
            current = self.in_flight.load(Ordering::SeqCst);
        }
    }

    /// Counts one task out, waking blocked submitters or the finisher.
    pub fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.waiters.load(Ordering::SeqCst) > 0 {
            // Taking the lock orders this notify after a waiter's check-then-wait.
            let _guard = lock(&self.lock);
            self.freed.notify_all();
        }
    }

    /// Blocks until no task is in flight.
    pub fn wait_empty(&self) {
        self.wait_until(|in_flight| in_flight == 0);
    }

    fn wait_until(&self, done: impl Fn(usize) -> bool) {
        let mut guard = lock(&self.lock);
        self.waiters.fetch_add(1, Ordering::SeqCst);
        while !done(self.in_flight.load(Ordering::SeqCst)) {
            guard = self.freed.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }
}
