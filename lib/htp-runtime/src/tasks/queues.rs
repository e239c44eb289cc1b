//! Ready tasks waiting for a worker, one layout per [`DispatchPolicy`], and the parking of idle
//! workers.
//!
//! A worker that finds nothing spins briefly and yields (searching: for up to 100 µs when the
//! caller's thread is worker 0), then announces itself asleep, looks once more, and parks on its
//! own condition variable. A push wakes a sleeping worker only when
//! one is asleep and, where any worker may take the task (`Dynamic`, `WorkStealing`), nobody is
//! searching; a searching worker that finds work wakes the next sleeper if work is left over. So
//! a busy runtime makes no wake-up calls, and a burst of tasks costs the submitter one at most. The two sides
//! are ordered by `SeqCst` operations on a queue's length and the sleep announcement (the
//! "announce, then look" / "push, then look for sleepers" handshake): either the pusher sees the
//! sleeper, or the sleeper sees the task.

use std::{
    collections::VecDeque,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, Condvar, Mutex,
    },
    time::{Duration, Instant},
};

use super::{config::DispatchPolicy, inbox::Inbox, node::lock, node::TaskNode};

/// Ready tasks of one worker (or of all, for `Dynamic`): pushes go to a lock-free inbox, so the
/// submitting thread never waits for a lock; takers move the inbox, oldest first, into a deque
/// under a lock they share only with each other. Both halves can be polled without a lock, so
/// idle workers only read shared cache lines.
#[derive(Default)]
struct Queue {
    inbox: Inbox,
    /// Tasks moved out of the inbox, oldest first.
    tasks: Mutex<VecDeque<Arc<TaskNode>>>,
    /// `tasks.len()`, readable without the lock.
    len: AtomicUsize,
}

impl Queue {
    fn push(&self, task: Arc<TaskNode>) {
        self.inbox.push(task);
    }

    fn is_empty(&self) -> bool {
        self.inbox.is_empty() && self.len.load(Ordering::SeqCst) == 0
    }

    /// The oldest task.
    fn pop_front(&self) -> Option<Arc<TaskNode>> {
        self.pop_with(VecDeque::pop_front)
    }

    /// The newest task.
    fn pop_back(&self) -> Option<Arc<TaskNode>> {
        self.pop_with(VecDeque::pop_back)
    }

    fn pop_with(
        &self,
        pop: impl FnOnce(&mut VecDeque<Arc<TaskNode>>) -> Option<Arc<TaskNode>>,
    ) -> Option<Arc<TaskNode>> {
        if self.is_empty() {
            return None;
        }
        let mut tasks = lock(&self.tasks);
        self.inbox.take_all(&mut tasks);
        let task = pop(&mut tasks);
        self.len.store(tasks.len(), Ordering::SeqCst);
        task
    }

    /// Moves every task to the back of `into`, oldest first; whether there was any. For a queue
    /// with one taker (the static policies), which never fills the deque: no lock at all.
    fn drain_into(&self, into: &mut VecDeque<Arc<TaskNode>>) -> bool {
        self.inbox.take_all(into)
    }
}

pub(crate) struct ReadyQueues {
    policy: DispatchPolicy,
    /// `Dynamic`: the one FIFO every worker takes from.
    shared: Queue,
    /// The other policies: one queue per worker.
    local: Vec<Queue>,
    parkers: Vec<Parker>,
    /// Workers announced asleep (a quick "nobody to wake" check for pushes).
    sleepers: AtomicUsize,
    /// Workers spinning for work: a push to a queue they can take from needs no wake-up.
    searching: AtomicUsize,
    shutdown: AtomicBool,
    /// How long a worker that found nothing keeps yielding before it parks. A parked worker
    /// costs a wake-up on the critical path later (a futex call and the scheduler's latency,
    /// tens of µs on a VM): the caller lane waiting for a run's last task, a worker idle between
    /// two decode steps. With a caller lane every thread of the runtime is a worker, so at most
    /// one per core by default, and yielding takes no core another of its threads needs: 100
    /// µs. Without, a submitting thread of the caller's shares the cores: a few yields only.
    yield_for: Duration,
}

/// Where one worker sleeps.
struct Parker {
    /// Announced asleep; cleared by whoever wakes it (or by itself when it finds work).
    asleep: AtomicBool,
    woken: Mutex<bool>,
    wake: Condvar,
}

impl ReadyQueues {
    pub fn new(policy: DispatchPolicy, workers: usize, caller_lane: bool) -> Self {
        let per_worker = policy != DispatchPolicy::Dynamic;
        Self {
            policy,
            shared: Queue::default(),
            local: (0..if per_worker { workers } else { 0 }).map(|_| Queue::default()).collect(),
            parkers: (0..workers)
                .map(|_| Parker {
                    asleep: AtomicBool::new(false),
                    woken: Mutex::new(false),
                    wake: Condvar::new(),
                })
                .collect(),
            sleepers: AtomicUsize::new(0),
            searching: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            yield_for: if caller_lane { Duration::from_micros(100) } else { Duration::ZERO },
        }
    }

    /// Makes `task` available to the workers its policy allows, waking one if needed.
    pub fn push(&self, task: Arc<TaskNode>) {
        let worker = task.worker;
        match self.policy {
            DispatchPolicy::Dynamic => {
                self.shared.push(task);
                // A searching worker will find it (and wake a helper if more work piles up).
                if self.searching.load(Ordering::SeqCst) == 0 {
                    self.wake_any();
                }
            }
            DispatchPolicy::RoundRobin | DispatchPolicy::Affinity => {
                self.local[worker].push(task);
                self.wake(worker);
            }
            DispatchPolicy::WorkStealing => {
                self.local[worker].push(task);
                // Any searching worker may take it; else the owner if it sleeps, else a thief:
                // the task should not wait for a busy owner.
                if self.searching.load(Ordering::SeqCst) == 0 && !self.wake(worker) {
                    self.wake_any();
                }
            }
        }
    }

    /// Whether `worker`, which has just readied `task` by finishing its predecessor, may run it
    /// next itself instead of queueing it: always where the policy moves tasks (`Dynamic`,
    /// `WorkStealing`: a placement is a hint), only when placed on `worker` where it does not.
    pub fn may_keep(&self, task: &TaskNode, worker: usize) -> bool {
        match self.policy {
            DispatchPolicy::Dynamic | DispatchPolicy::WorkStealing => true,
            DispatchPolicy::RoundRobin | DispatchPolicy::Affinity => task.worker == worker,
        }
    }

    /// Makes `tasks` available like [`push`](Self::push) one by one, deciding about wake-ups
    /// once per worker touched (`Dynamic`: once) instead of once per task: what a batch submit
    /// saves besides the tracker's lock.
    pub fn push_all(&self, tasks: Vec<Arc<TaskNode>>) {
        if tasks.is_empty() {
            return;
        }
        if self.policy == DispatchPolicy::Dynamic {
            self.shared.inbox.push_all(tasks);
            // One woken worker hands the rest of the burst on (`hand_on`).
            if self.searching.load(Ordering::SeqCst) == 0 {
                self.wake_any();
            }
            return;
        }
        let mut touched = vec![false; self.local.len()];
        for task in tasks {
            touched[task.worker] = true;
            self.local[task.worker].push(task);
        }
        for worker in (0..touched.len()).filter(|&worker| touched[worker]) {
            match self.policy {
                DispatchPolicy::WorkStealing => {
                    if self.searching.load(Ordering::SeqCst) == 0 && !self.wake(worker) {
                        self.wake_any();
                    }
                }
                _ => {
                    self.wake(worker);
                }
            }
        }
    }

    /// Whether a task `worker` may run is queued (a hint: it may be taken meanwhile).
    pub fn has_work_for(&self, worker: usize) -> bool {
        match self.policy {
            DispatchPolicy::Dynamic => !self.shared.is_empty(),
            DispatchPolicy::RoundRobin | DispatchPolicy::Affinity => !self.local[worker].is_empty(),
            DispatchPolicy::WorkStealing => self.local.iter().any(|queue| !queue.is_empty()),
        }
    }

    /// After a searching worker found work: if work is left over, nobody else searches and
    /// someone sleeps, wake one. Wake-ups pass from worker to worker instead of costing the
    /// submitting thread a system call per task.
    fn hand_on(&self) {
        let shared_policy = matches!(self.policy, DispatchPolicy::Dynamic | DispatchPolicy::WorkStealing);
        if !shared_policy
            || self.sleepers.load(Ordering::SeqCst) == 0
            || self.searching.load(Ordering::SeqCst) > 0
        {
            return;
        }
        let work_left = !self.shared.is_empty() || self.local.iter().any(|queue| !queue.is_empty());
        if work_left {
            self.wake_any();
        }
    }

    /// Moves the next tasks `worker` may run to the back of `into`: one task, or for the
    /// static policies (whose tasks never move) everything queued for the worker at once.
    /// Whether it found any.
    pub fn take(&self, worker: usize, into: &mut VecDeque<Arc<TaskNode>>) -> bool {
        let one = match self.policy {
            DispatchPolicy::Dynamic => self.shared.pop_front(),
            DispatchPolicy::RoundRobin | DispatchPolicy::Affinity => {
                return self.local[worker].drain_into(into)
            }
            DispatchPolicy::WorkStealing => self.local[worker].pop_back().or_else(|| {
                let workers = self.local.len();
                (1..workers).find_map(|k| self.local[(worker + k) % workers].pop_front())
            }),
        };
        one.map(|task| into.push_back(task)).is_some()
    }

    /// Moves the next tasks `worker` may run to `into` like [`take`](Self::take), blocking
    /// until there are some; `false` at shutdown, or once `done()` holds (a condition whose
    /// change wakes the worker: the caller lane's "no task in flight").
    pub fn wait_for_tasks(&self, worker: usize, into: &mut VecDeque<Arc<TaskNode>>, done: impl Fn() -> bool) -> bool {
        // Spinning first keeps a worker fed by a fast submitter off the futex; short, because
        // the submitter may need this core. Then a few yields, or yielding for a while when
        // the runtime's threads are all workers (`yield_for`, below).
        const SPINS: u32 = 200;
        const YIELDS: u32 = 4;
        let parker = &self.parkers[worker];
        // A busy worker finds work at once: no searching announcement (two read-modify-writes of
        // a line every worker and pusher touches, per task). Pushers wake sleepers themselves
        // when nobody searches, so nothing waits on this worker's hand-on.
        if self.take(worker, into) {
            return true;
        }
        loop {
            self.searching.fetch_add(1, Ordering::SeqCst);
            let mut yielding_since = None;
            for round in 0.. {
                if self.take(worker, into) {
                    self.searching.fetch_sub(1, Ordering::SeqCst);
                    self.hand_on();
                    return true;
                }
                if self.shutdown.load(Ordering::Acquire) || done() {
                    self.searching.fetch_sub(1, Ordering::SeqCst);
                    return false;
                }
                if round < SPINS {
                    std::hint::spin_loop();
                } else if round < SPINS + YIELDS || yielding_since.get_or_insert_with(Instant::now).elapsed() < self.yield_for {
                    std::thread::yield_now();
                } else {
                    break;
                }
            }
            // Stop searching, announce sleep, look once more: a push either sees this worker
            // searching or asleep, or happened before the last look.
            self.searching.fetch_sub(1, Ordering::SeqCst);
            parker.asleep.store(true, Ordering::SeqCst);
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            if self.take(worker, into) {
                self.cancel_sleep(parker);
                self.hand_on();
                return true;
            }
            if self.shutdown.load(Ordering::SeqCst) || done() {
                self.cancel_sleep(parker);
                return false;
            }
            let mut woken = lock(&parker.woken);
            while !*woken {
                woken = parker.wake.wait(woken).unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            *woken = false;
            drop(woken);
            // A waker cleared `asleep`; search again (the task may have gone to another worker).
            self.cancel_sleep(parker);
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

    /// Whether `worker` announced it sleeps.
    pub fn is_asleep(&self, worker: usize) -> bool {
        self.parkers[worker].asleep.load(Ordering::SeqCst)
    }

    /// Wakes `worker` if it is asleep; `true` if it was.
    pub fn wake(&self, worker: usize) -> bool {
        if self.sleepers.load(Ordering::SeqCst) == 0 || !self.parkers[worker].asleep.load(Ordering::SeqCst) {
            return false;
        }
        self.claim_and_wake(worker)
    }

    /// Wakes one sleeping worker, if any.
    fn wake_any(&self) {
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
