//! Ready tasks waiting for a worker, one layout per [`DispatchPolicy`], and the parking of idle
//! workers.
//!
//! A worker that finds nothing spins briefly, then announces itself asleep, looks once more, and
//! parks on its own condition variable. A push wakes a sleeping worker only when one is asleep
//! (one atomic load otherwise), so a busy runtime makes no wake-up calls at all. The two sides
//! are ordered by `SeqCst` fences (the "announce, then look" / "push, then look for sleepers"
//! handshake): either the pusher sees the sleeper, or the sleeper sees the task.

use std::{
    collections::VecDeque,
    sync::{
        atomic::{fence, AtomicBool, AtomicUsize, Ordering},
        Arc, Condvar, Mutex,
    },
};

use super::{config::DispatchPolicy, node::lock, node::TaskNode};

type Queue = Mutex<VecDeque<Arc<TaskNode>>>;

pub(crate) struct ReadyQueues {
    policy: DispatchPolicy,
    /// `Dynamic`: the one FIFO every worker takes from.
    shared: Queue,
    /// The other policies: one queue per worker.
    local: Vec<Queue>,
    parkers: Vec<Parker>,
    /// Workers announced asleep (a quick "nobody to wake" check for pushes).
    sleepers: AtomicUsize,
    shutdown: AtomicBool,
}

/// Where one worker sleeps.
struct Parker {
    /// Announced asleep; cleared by whoever wakes it (or by itself when it finds work).
    asleep: AtomicBool,
    woken: Mutex<bool>,
    wake: Condvar,
}

impl ReadyQueues {
    pub fn new(policy: DispatchPolicy, workers: usize) -> Self {
        let per_worker = policy != DispatchPolicy::Dynamic;
        Self {
            policy,
            shared: Mutex::default(),
            local: (0..if per_worker { workers } else { 0 }).map(|_| Mutex::default()).collect(),
            parkers: (0..workers)
                .map(|_| Parker { asleep: AtomicBool::new(false), woken: Mutex::new(false), wake: Condvar::new() })
                .collect(),
            sleepers: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
        }
    }

    /// Makes `task` available to the workers its policy allows, waking one if needed.
    pub fn push(&self, task: Arc<TaskNode>) {
        let worker = task.worker;
        match self.policy {
            DispatchPolicy::Dynamic => {
                lock(&self.shared).push_back(task);
                self.wake_any();
            }
            DispatchPolicy::RoundRobin | DispatchPolicy::Affinity => {
                lock(&self.local[worker]).push_back(task);
                fence(Ordering::SeqCst);
                self.wake(worker);
            }
            DispatchPolicy::WorkStealing => {
                lock(&self.local[worker]).push_back(task);
                fence(Ordering::SeqCst);
                // The owner if it sleeps, else a thief: the task should not wait for a busy owner.
                if !self.wake(worker) {
                    self.wake_any();
                }
            }
        }
    }

    /// The next task `worker` may run, if any.
    pub fn pop(&self, worker: usize) -> Option<Arc<TaskNode>> {
        match self.policy {
            DispatchPolicy::Dynamic => lock(&self.shared).pop_front(),
            DispatchPolicy::RoundRobin | DispatchPolicy::Affinity => lock(&self.local[worker]).pop_front(),
            DispatchPolicy::WorkStealing => {
                if let Some(task) = lock(&self.local[worker]).pop_back() {
                    return Some(task);
                }
                let workers = self.local.len();
                (1..workers).find_map(|k| lock(&self.local[(worker + k) % workers]).pop_front())
            }
        }
    }

    /// Blocks `worker` until a task is pushed that it may run, or shutdown. Returns the task,
    /// or `None` at shutdown.
    pub fn wait_for_task(&self, worker: usize) -> Option<Arc<TaskNode>> {
        const SPINS: u32 = 64;
        const YIELDS: u32 = 8;
        for round in 0..SPINS + YIELDS {
            if let Some(task) = self.pop(worker) {
                return Some(task);
            }
            if self.shutdown.load(Ordering::Acquire) {
                return None;
            }
            if round < SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        let parker = &self.parkers[worker];
        loop {
            parker.asleep.store(true, Ordering::SeqCst);
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if let Some(task) = self.pop(worker) {
                self.cancel_sleep(parker);
                return Some(task);
            }
            if self.shutdown.load(Ordering::SeqCst) {
                self.cancel_sleep(parker);
                return None;
            }
            let mut woken = lock(&parker.woken);
            while !*woken {
                woken = parker.wake.wait(woken).unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            *woken = false;
            drop(woken);
            // A waker cleared `asleep`; a task may have been taken by another worker meanwhile.
            self.cancel_sleep(parker);
            if let Some(task) = self.pop(worker) {
                return Some(task);
            }
            if self.shutdown.load(Ordering::SeqCst) {
                return None;
            }
        }
    }

    /// Wakes every worker for good: they return `None` once their queues are empty.
    pub fn shut_down(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        for worker in 0..self.parkers.len() {
            self.claim_and_wake(worker);
            // A worker between announcing and parking sees `shutdown` before it waits.
        }
    }

    /// Clears `asleep` if nobody else did, keeping `sleepers` exact.
    fn cancel_sleep(&self, parker: &Parker) {
        if parker.asleep.swap(false, Ordering::SeqCst) {
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Wakes `worker` if it is asleep; `true` if it was.
    fn wake(&self, worker: usize) -> bool {
        if self.sleepers.load(Ordering::SeqCst) == 0 || !self.parkers[worker].asleep.load(Ordering::SeqCst) {
            return false;
        }
        self.claim_and_wake(worker)
    }

    /// Wakes one sleeping worker, if any.
    fn wake_any(&self) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        for worker in 0..self.parkers.len() {
            if self.claim_and_wake(worker) {
                return;
            }
        }
    }

    /// Takes `worker`'s sleep announcement (so only one waker pays for the wake-up) and wakes it.
    fn claim_and_wake(&self, worker: usize) -> bool {
        let parker = &self.parkers[worker];
        let claimed = parker.asleep.swap(false, Ordering::SeqCst);
        if claimed {
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
        if claimed || self.shutdown.load(Ordering::SeqCst) {
            *lock(&parker.woken) = true;
            parker.wake.notify_one();
        }
        claimed
    }
}
