//! A persistent thread pool: worker threads are started once and parked on a condition variable
//! between jobs, so a JIT kernel pays a queue push and a wake-up per parallel loop, not a thread
//! spawn.
//!
//! Two kinds of work share the one job queue:
//!
//! * [`ThreadPool::parallel_for`] splits a counted loop into about one contiguous chunk per
//!   thread. The calling thread runs chunks too and waits for the rest; workers that are busy
//!   elsewhere simply leave more chunks to the caller, so a loop never waits for a free worker.
//! * [`ThreadPool::spawn`] queues fire-and-forget tasks (the future WSP/CSP runtimes).

use std::{
    any::Any,
    cell::Cell,
    collections::VecDeque,
    fmt, mem,
    num::NonZeroUsize,
    ops::Range,
    panic::{self, AssertUnwindSafe},
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError,
    },
    thread::{self, JoinHandle},
    time::Instant,
};

use crate::{iter_space::IterSpace, trace::Trace};

/// Environment variable that sets the size of [`ThreadPool::global`] (a positive integer).
pub const NUM_THREADS_ENV: &str = "HTP_NUM_THREADS";

/// A queued unit of work.
type Job = Box<dyn FnOnce() + Send>;

thread_local! {
    /// 1 + the index of the pool worker this thread is, 0 for any other thread: the trace lane.
    static LANE: Cell<u64> = const { Cell::new(0) };
    /// Whether this thread is running a `parallel_for` chunk; nested loops then run inline.
    static IN_CHUNK: Cell<bool> = const { Cell::new(false) };
}

/// A fixed set of worker threads with a shared job queue.
///
/// Dropping the pool lets the workers finish every queued job, then joins them.
pub struct ThreadPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

/// State shared between the pool handle and its workers.
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled once per queued job, and for everyone at shutdown.
    wake: Condvar,
}

struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
}

impl ThreadPool {
    /// Starts a pool of `threads` worker threads.
    ///
    /// [`parallel_for`](Self::parallel_for) splits loops into `threads` chunks, one of which the
    /// calling thread runs, so at most `threads` threads work on one loop.
    ///
    /// # Panics
    /// If `threads` is 0, or the operating system refuses to start a thread.
    pub fn new(threads: usize) -> Self {
        assert!(threads > 0, "ThreadPool::new: a pool needs at least one thread");
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue { jobs: VecDeque::new(), shutdown: false }),
            wake: Condvar::new(),
        });
        let workers = (0..threads)
            .map(|index| {
                let shared = Arc::clone(&shared);
                thread::Builder::new()
                    .name(format!("htp-worker-{index}"))
                    .spawn(move || worker_main(&shared, index))
                    .expect("ThreadPool::new: failed to start a worker thread")
            })
            .collect();
        Self { shared, workers }
    }

    /// The process-wide pool that JIT kernels and the runtimes share, started on first use.
    ///
    /// Its size is `HTP_NUM_THREADS` when that is a positive integer, otherwise the machine's
    /// available parallelism. Sharing one pool keeps nested runtimes from oversubscribing cores.
    pub fn global() -> &'static ThreadPool {
        static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();
        GLOBAL.get_or_init(|| ThreadPool::new(default_threads()))
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Queues `job` to run on some worker and returns at once.
    ///
    /// A panic in `job` is reported by the panic hook and otherwise ignored: the worker survives.
    pub fn spawn(&self, job: Box<dyn FnOnce() + Send>) {
        self.push_jobs(std::iter::once(job));
    }

    /// Runs `body(i)` for `i = begin, begin + step, ... < end` on the pool's threads and returns
    /// once every call has returned.
    ///
    /// Calls for distinct `i` run concurrently, so `body` must only share state it synchronises.
    /// The iterations are split into contiguous chunks, about one per thread; the calling thread
    /// runs chunks as well. Runs inline, without synchronisation, when there are fewer than two
    /// iterations, the pool has one thread, or the call is nested in another `parallel_for`'s
    /// body (nested loops are serialised; this also keeps them from deadlocking).
    ///
    /// # Panics
    /// If `step` is not positive. If `body` panics, chunks not yet started are skipped and,
    /// after all running chunks have finished, the first panic is resumed on this thread.
    pub fn parallel_for(&self, begin: i64, end: i64, step: i64, body: &(dyn Fn(i64) + Sync)) {
        self.parallel_for_traced(begin, end, step, body, None, "");
    }

    /// [`parallel_for`](Self::parallel_for) that also records one event named `name` per chunk
    /// into `trace`, on lane 0 for the calling thread and 1 + the worker index for workers.
    pub fn parallel_for_traced(
        &self,
        begin: i64,
        end: i64,
        step: i64,
        body: &(dyn Fn(i64) + Sync),
        trace: Option<&Trace>,
        name: &str,
    ) {
        let space = IterSpace::new(begin, end, step);
        let len = space.len();
        let run_range = |range: Range<u64>| {
            let start = Instant::now();
            space.run(range, body);
            if let Some(trace) = trace {
                trace.record(name, LANE.with(Cell::get), start, Instant::now());
            }
        };
        if len == 0 {
            return;
        }
        if len == 1 || self.threads() == 1 || IN_CHUNK.with(Cell::get) {
            run_range(0..len);
            return;
        }

        let chunks = len.min(self.threads() as u64);
        let run_chunk = |c: u64| run_range(space.chunk(c, chunks));
        // SAFETY: `wait` below runs before `run_chunk` goes out of scope, on every path: chunk
        // panics are caught inside `help`, so nothing unwinds past the wait.
        let job = Arc::new(unsafe { ForJob::new(&run_chunk, chunks) });
        self.push_jobs((1..chunks).map(|_| {
            let job = Arc::clone(&job);
            Box::new(move || job.help()) as Job
        }));
        job.help();
        job.wait();
        if let Some(payload) = job.take_panic() {
            panic::resume_unwind(payload);
        }
    }

    fn push_jobs(&self, jobs: impl IntoIterator<Item = Job>) {
        let mut queue = lock(&self.shared.queue);
        let before = queue.jobs.len();
        queue.jobs.extend(jobs);
        let added = queue.jobs.len() - before;
        drop(queue);
        for _ in 0..added {
            self.shared.wake.notify_one();
        }
    }
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool").field("threads", &self.threads()).finish_non_exhaustive()
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        lock(&self.shared.queue).shutdown = true;
        self.shared.wake.notify_all();
        let current = thread::current().id();
        for worker in self.workers.drain(..) {
            // A task that owned the pool may drop it on a worker; that worker cannot join itself.
            if worker.thread().id() != current {
                // Workers catch every panic, so join only fails if the thread was killed.
                let _ = worker.join();
            }
        }
    }
}

impl Shared {
    /// The next job, waiting while the queue is empty; `None` once shut down and drained.
    fn next_job(&self) -> Option<Job> {
        let mut queue = lock(&self.queue);
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                return Some(job);
            }
            if queue.shutdown {
                return None;
            }
            queue = self.wake.wait(queue).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

fn worker_main(shared: &Shared, index: usize) {
    LANE.with(|lane| lane.set(index as u64 + 1));
    while let Some(job) = shared.next_job() {
        // The panic hook has already reported a panicking task; the worker carries on.
        let _ = panic::catch_unwind(AssertUnwindSafe(job));
    }
}

/// One `parallel_for` call in flight: its chunks are claimed one at a time by the caller and by
/// helper jobs on the workers.
struct ForJob {
    /// Runs chunk `c`. Borrowed from the `parallel_for` stack frame with its lifetime erased; only
    /// dereferenced after claiming a chunk, and the frame outlives every claimed chunk.
    run_chunk: *const (dyn Fn(u64) + Sync + 'static),
    chunks: u64,
    /// The next chunk to claim; values `>= chunks` mean nothing is left.
    next: AtomicU64,
    /// Chunks not yet finished; `wait` returns when it reaches 0.
    remaining: Mutex<u64>,
    all_done: Condvar,
    /// Set by the first panicking chunk so chunks not yet started are skipped.
    panicked: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `run_chunk` points to a `Sync` closure that outlives every dereference (see `new`);
// everything else is synchronised.
unsafe impl Send for ForJob {}
// SAFETY: as above.
unsafe impl Sync for ForJob {}

impl ForJob {
    /// # Safety
    /// `run_chunk` must stay alive until [`wait`](Self::wait) has returned.
    unsafe fn new<'a>(run_chunk: &'a (dyn Fn(u64) + Sync + 'a), chunks: u64) -> Self {
        let run_chunk: *const (dyn Fn(u64) + Sync + 'a) = run_chunk;
        // SAFETY: only the lifetime changes; the caller keeps the closure alive long enough.
        let run_chunk = unsafe {
            mem::transmute::<*const (dyn Fn(u64) + Sync + 'a), *const (dyn Fn(u64) + Sync + 'static)>(
                run_chunk,
            )
        };
        Self {
            run_chunk,
            chunks,
            next: AtomicU64::new(0),
            remaining: Mutex::new(chunks),
            all_done: Condvar::new(),
            panicked: AtomicBool::new(false),
            panic: Mutex::new(None),
        }
    }

    /// Claims and runs chunks until none are left. Never unwinds.
    fn help(&self) {
        loop {
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            if c >= self.chunks {
                return;
            }
            if !self.panicked.load(Ordering::Relaxed) {
                let outer = IN_CHUNK.with(|flag| flag.replace(true));
                // SAFETY: chunk `c` is claimed and not yet counted as finished, so `wait` has not
                // returned and the closure is alive.
                let result = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*self.run_chunk)(c) }));
                IN_CHUNK.with(|flag| flag.set(outer));
                if let Err(payload) = result {
                    self.panicked.store(true, Ordering::Relaxed);
                    lock(&self.panic).get_or_insert(payload);
                }
            }
            // The mutex also publishes this chunk's writes to the thread returning from `wait`.
            let mut remaining = lock(&self.remaining);
            *remaining -= 1;
            if *remaining == 0 {
                self.all_done.notify_all();
            }
        }
    }

    /// Blocks until every chunk has finished.
    fn wait(&self) {
        let mut remaining = lock(&self.remaining);
        while *remaining > 0 {
            remaining = self.all_done.wait(remaining).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn take_panic(&self) -> Option<Box<dyn Any + Send>> {
        lock(&self.panic).take()
    }
}

/// Locks `mutex`, ignoring poisoning: no user code runs while the pool holds one of its locks.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The size of the global pool: `HTP_NUM_THREADS` if valid, else the available parallelism.
pub fn default_threads() -> usize {
    let fallback = available_parallelism;
    match std::env::var(NUM_THREADS_ENV) {
        Ok(value) => threads_from_env(&value).unwrap_or_else(|| {
            eprintln!("htp-runtime: ignoring {NUM_THREADS_ENV}={value:?}: not a positive integer");
            fallback()
        }),
        Err(_) => fallback(),
    }
}

/// The machine's available parallelism, asked once per process: the standard library reads the
/// cgroup's CPU quota files each time (tens of microseconds, which every WSP workload call paid).
fn available_parallelism() -> usize {
    static PARALLELISM: OnceLock<usize> = OnceLock::new();
    *PARALLELISM.get_or_init(|| thread::available_parallelism().map_or(1, NonZeroUsize::get))
}

/// Parses a thread count from the environment: a positive integer, surrounding spaces allowed.
fn threads_from_env(value: &str) -> Option<usize> {
    value.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{
        sync::atomic::{AtomicI64, AtomicU32, AtomicUsize},
        sync::mpsc,
        time::Duration,
    };

    const CASES: &[(i64, i64, i64)] = crate::iter_space::tests::LOOP_CASES;

    /// Runs the loop on `pool` and checks that every index ran exactly once and nothing else ran.
    fn check_each_index_once(pool: &ThreadPool, begin: i64, end: i64, step: i64) {
        let expected: Vec<i64> =
            (i128::from(begin)..i128::from(end)).step_by(step as usize).map(|i| i as i64).collect();
        let hits: Vec<AtomicU32> = expected.iter().map(|_| AtomicU32::new(0)).collect();
        let strays = AtomicU32::new(0);
        let sum = AtomicI64::new(0);
        pool.parallel_for(begin, end, step, &|i| {
            let offset = i128::from(i) - i128::from(begin);
            if offset < 0 || offset % i128::from(step) != 0 || offset / i128::from(step) >= hits.len() as i128
            {
                strays.fetch_add(1, Ordering::Relaxed);
            } else {
                hits[(offset / i128::from(step)) as usize].fetch_add(1, Ordering::Relaxed);
            }
            sum.fetch_add(i.wrapping_sub(begin), Ordering::Relaxed);
        });
        let case = format!("({begin}, {end}, {step}) on {} threads", pool.threads());
        assert_eq!(strays.into_inner(), 0, "indices outside the loop for {case}");
        for (k, hit) in hits.iter().enumerate() {
            assert_eq!(hit.load(Ordering::Relaxed), 1, "index {} for {case}", expected[k]);
        }
        let expected_sum = expected.iter().fold(0i64, |acc, &i| acc.wrapping_add(i.wrapping_sub(begin)));
        assert_eq!(sum.into_inner(), expected_sum, "sum for {case}");
    }

    #[test]
    fn every_index_runs_exactly_once() {
        for threads in [1, 2, 3, 8] {
            let pool = ThreadPool::new(threads);
            for &(begin, end, step) in CASES {
                check_each_index_once(&pool, begin, end, step);
            }
        }
    }

    #[test]
    fn writes_to_disjoint_slots_are_visible_after_return() {
        let pool = ThreadPool::new(4);
        let out: Vec<AtomicI64> = (0..1000).map(|_| AtomicI64::new(-1)).collect();
        pool.parallel_for(0, 1000, 1, &|i| out[i as usize].store(i * i, Ordering::Relaxed));
        let got: Vec<i64> = out.iter().map(|v| v.load(Ordering::Relaxed)).collect();
        let expected: Vec<i64> = (0..1000).map(|i| i * i).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn chunks_run_concurrently_on_all_threads() {
        // Four chunks of one iteration each: every iteration waits (bounded) for all four to have
        // started, which only happens if the caller and three workers run them at once.
        let pool = ThreadPool::new(4);
        let arrived = Mutex::new(0usize);
        let all_arrived = Condvar::new();
        let saw_all = AtomicUsize::new(0);
        pool.parallel_for(0, 4, 1, &|_| {
            let mut count = arrived.lock().unwrap();
            *count += 1;
            all_arrived.notify_all();
            let (count, _) =
                all_arrived.wait_timeout_while(count, Duration::from_secs(10), |count| *count < 4).unwrap();
            if *count == 4 {
                saw_all.fetch_add(1, Ordering::Relaxed);
            }
        });
        assert_eq!(saw_all.into_inner(), 4);
    }

    #[test]
    fn panics_propagate_after_all_chunks_finish_and_the_pool_survives() {
        let pool = ThreadPool::new(4);
        for bad in [0i64, 37, 99] {
            let in_flight = AtomicI64::new(0);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.parallel_for(0, 100, 1, &|i| {
                    in_flight.fetch_add(1, Ordering::SeqCst);
                    if i == bad {
                        panic!("boom at {i}");
                    }
                    thread::sleep(Duration::from_micros(200));
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                });
            }));
            let payload = result.expect_err("the panic must reach the caller");
            assert_eq!(
                payload.downcast_ref::<String>().map(String::as_str),
                Some(format!("boom at {bad}").as_str())
            );
            // Only the panicking iteration never finished: the call waited for all the others.
            assert_eq!(in_flight.load(Ordering::SeqCst), 1, "panic at {bad}");
            check_each_index_once(&pool, -50, 50, 1);
        }
    }

    #[test]
    fn panics_in_every_chunk_propagate_one_payload() {
        let pool = ThreadPool::new(3);
        let result =
            panic::catch_unwind(AssertUnwindSafe(|| pool.parallel_for(0, 30, 1, &|_| panic!("all bad"))));
        assert_eq!(result.unwrap_err().downcast_ref::<&str>(), Some(&"all bad"));
        check_each_index_once(&pool, 0, 30, 1);
    }

    #[test]
    fn panics_propagate_from_a_one_thread_pool() {
        let pool = ThreadPool::new(1);
        let result =
            panic::catch_unwind(AssertUnwindSafe(|| pool.parallel_for(0, 3, 1, &|_| panic!("inline"))));
        assert_eq!(result.unwrap_err().downcast_ref::<&str>(), Some(&"inline"));
        check_each_index_once(&pool, 0, 3, 1);
    }

    #[test]
    fn nested_loops_run_inline_and_cover_everything() {
        let pool = ThreadPool::new(4);
        let hits: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
        let other_thread = AtomicU32::new(0);
        pool.parallel_for(0, 8, 1, &|i| {
            let outer = thread::current().id();
            pool.parallel_for(0, 8, 1, &|j| {
                if thread::current().id() != outer {
                    other_thread.fetch_add(1, Ordering::Relaxed);
                }
                hits[(i * 8 + j) as usize].fetch_add(1, Ordering::Relaxed);
            });
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        assert_eq!(other_thread.into_inner(), 0, "nested iterations left their outer thread");
    }

    #[test]
    fn nested_loop_on_another_pool_does_not_deadlock() {
        let outer = ThreadPool::new(2);
        let inner = ThreadPool::new(2);
        let total = AtomicI64::new(0);
        outer.parallel_for(0, 10, 1, &|i| {
            inner.parallel_for(0, 10, 1, &|j| {
                total.fetch_add(i * 10 + j, Ordering::Relaxed);
            });
        });
        assert_eq!(total.into_inner(), (0..100).sum::<i64>());
    }

    #[test]
    fn concurrent_callers_share_one_pool() {
        let pool = ThreadPool::new(3);
        thread::scope(|scope| {
            for t in 0..4 {
                let pool = &pool;
                scope.spawn(move || {
                    for round in 0..20 {
                        let sum = AtomicI64::new(0);
                        pool.parallel_for(t, 1000 + round, 1, &|i| {
                            sum.fetch_add(i, Ordering::Relaxed);
                        });
                        assert_eq!(sum.into_inner(), (t..1000 + round).sum::<i64>());
                    }
                });
            }
        });
    }

    #[test]
    fn parallel_for_inside_a_spawned_task_completes() {
        let pool = Arc::new(ThreadPool::new(2));
        let (tx, rx) = mpsc::channel();
        for t in 0..4i64 {
            let (pool2, tx) = (Arc::clone(&pool), tx.clone());
            pool.spawn(Box::new(move || {
                let sum = AtomicI64::new(0);
                pool2.parallel_for(0, 100, 1, &|i| {
                    sum.fetch_add(i * t, Ordering::Relaxed);
                });
                tx.send(sum.into_inner()).unwrap();
            }));
        }
        let mut sums: Vec<i64> = (0..4).map(|_| rx.recv_timeout(Duration::from_secs(30)).unwrap()).collect();
        sums.sort_unstable();
        assert_eq!(sums, vec![0, 4950, 9900, 14850]);
    }

    #[test]
    fn spawned_tasks_all_run_and_panics_do_not_kill_workers() {
        let pool = ThreadPool::new(2);
        let (tx, rx) = mpsc::channel();
        for _ in 0..4 {
            pool.spawn(Box::new(|| panic!("task failure")));
        }
        for k in 0..50u64 {
            let tx = tx.clone();
            pool.spawn(Box::new(move || tx.send(k).unwrap()));
        }
        let mut got: Vec<u64> = (0..50).map(|_| rx.recv_timeout(Duration::from_secs(30)).unwrap()).collect();
        got.sort_unstable();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn dropping_the_pool_finishes_queued_tasks() {
        let done = Arc::new(AtomicUsize::new(0));
        let pool = ThreadPool::new(2);
        for _ in 0..20 {
            let done = Arc::clone(&done);
            pool.spawn(Box::new(move || {
                thread::sleep(Duration::from_millis(1));
                done.fetch_add(1, Ordering::SeqCst);
            }));
        }
        drop(pool);
        assert_eq!(done.load(Ordering::SeqCst), 20);
    }

    #[test]
    fn global_pool_has_threads() {
        let pool = ThreadPool::global();
        assert!(pool.threads() >= 1);
        assert!(std::ptr::eq(pool, ThreadPool::global()));
        check_each_index_once(pool, -3, 300, 2);
    }

    #[test]
    fn thread_count_from_environment() {
        assert_eq!(threads_from_env("4"), Some(4));
        assert_eq!(threads_from_env(" 16\n"), Some(16));
        assert_eq!(threads_from_env("0"), None);
        assert_eq!(threads_from_env("-2"), None);
        assert_eq!(threads_from_env("four"), None);
        assert_eq!(threads_from_env(""), None);
    }

    #[test]
    #[should_panic(expected = "at least one thread")]
    fn empty_pool_is_rejected() {
        ThreadPool::new(0);
    }

    #[test]
    #[should_panic(expected = "step must be positive")]
    fn non_positive_step_is_rejected() {
        ThreadPool::new(2).parallel_for(0, 10, 0, &|_| {});
    }

    #[test]
    fn traced_loop_records_one_event_per_chunk() {
        let trace = Trace::new();
        let pool = ThreadPool::new(4);
        let sum = AtomicI64::new(0);
        pool.parallel_for_traced(
            0,
            100,
            1,
            &|i| {
                sum.fetch_add(i, Ordering::Relaxed);
            },
            Some(&trace),
            "kernel",
        );
        assert_eq!(sum.into_inner(), 4950);
        let events = trace.events();
        assert_eq!(events.len(), 4);
        assert!(events.iter().all(|e| e.name == "kernel" && e.lane <= 4));

        // Inline runs are one chunk; empty loops record nothing.
        pool.parallel_for_traced(0, 1, 1, &|_| {}, Some(&trace), "single");
        pool.parallel_for_traced(0, 0, 1, &|_| {}, Some(&trace), "empty");
        ThreadPool::new(1).parallel_for_traced(0, 10, 1, &|_| {}, Some(&trace), "serial");
        let names: Vec<String> = trace.events().into_iter().skip(4).map(|e| e.name).collect();
        assert_eq!(names, vec!["single", "serial"]);
    }
}
