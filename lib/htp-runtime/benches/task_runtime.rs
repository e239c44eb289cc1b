//! Benchmarks of the WSP task runtime (not tests: nothing here asserts speed).
//!
//! `cargo bench -p htp-runtime --bench task_runtime` prints a markdown table:
//!
//! * (a) overhead per task of 100k trivial independent tasks, per policy, against `rayon::scope`
//!   spawning the same tasks on a rayon pool of as many threads, measured in the same run: each
//!   task submitted alone by a thread outside the runtime, and (a') the way a WSP workload call
//!   submits now — in batches of `BATCH` (`submit_batch`), the submitting thread being worker 0
//!   (`caller_lane`: it runs tasks while it waits, as rayon's scope runs on a pool thread);
//! * (b) ns per task of one dependency chain (each task read-writes the region the previous one
//!   wrote), of 16 independent chains interleaved, and of tasks writing the tiles of one matrix
//!   (many live accesses to one buffer, the exact overlap test for each neighbour);
//! * (c) speed-up of 2000 tasks of about 50 µs of computation on all cores over one worker.
//!
//! Each time is the best of `ROUNDS` runs, the two sides of a comparison alternating (the
//! machine is shared; the best is the least disturbed); the load average is printed before and
//! after.

use std::{
    hint::black_box,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    thread,
    time::{Duration, Instant},
};

use htp_runtime::{Access, DispatchPolicy, Region, RuntimeConfig, TaskRuntime, TaskSpec};

const TASKS: usize = 100_000;
/// Tasks per `submit_batch` in (a').
const BATCH: usize = 256;
const ROUNDS: usize = 9;
const SPIN_TASKS: usize = 2000;

/// What the tasks of a run update. Statics, so a task's closure holds a plain `&'static`
/// reference, as rayon's scope closures hold a borrow: an `Arc` per task would make its
/// reference count (on the counter's cache line) bounce between the submitter and the workers
/// once per task, a cost rayon's side would not pay.
static COUNTER: AtomicU64 = AtomicU64::new(0);
/// One counter per chain, a cache line (8 × 8 bytes) apart.
static CELLS: [AtomicU64; 16 * 8] = [const { AtomicU64::new(0) }; 16 * 8];
/// A 256 × 256 f32 matrix's bytes, as 64-bit counters.
static MATRIX: [AtomicU64; 256 * 256 / 2] = [const { AtomicU64::new(0) }; 256 * 256 / 2];

const POLICIES: [DispatchPolicy; 4] = [
    DispatchPolicy::RoundRobin,
    DispatchPolicy::Affinity,
    DispatchPolicy::WorkStealing,
    DispatchPolicy::Dynamic,
];

fn best_of(mut run: impl FnMut() -> Duration) -> Duration {
    (0..ROUNDS).map(|_| run()).min().unwrap_or_default()
}

fn ns_per_task(time: Duration, tasks: usize) -> f64 {
    time.as_nanos() as f64 / tasks as f64
}

/// Submits `tasks` tasks made by `make(n)` and waits for them; the time from the first submit
/// to the end of `finish` (the workers are started before the clock starts).
fn run_tasks(config: RuntimeConfig, tasks: usize, mut make: impl FnMut(usize) -> TaskSpec) -> Duration {
    let runtime = TaskRuntime::start(config).expect("start");
    let start = Instant::now();
    for n in 0..tasks {
        runtime.submit(make(n)).expect("submit");
    }
    let report = runtime.finish().expect("finish");
    let time = start.elapsed();
    assert_eq!(report.tasks, tasks);
    time
}

/// (a) for one policy: trivial tasks that bump a shared counter.
fn independent(policy: DispatchPolicy, workers: usize) -> Duration {
    COUNTER.store(0, Ordering::Relaxed);
    let counter: &'static AtomicU64 = &COUNTER;
    let time = run_tasks(RuntimeConfig::new(workers, policy), TASKS, |n| {
        TaskSpec::new(String::new(), move || {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
        .worker(n)
    });
    assert_eq!(COUNTER.load(Ordering::Relaxed), TASKS as u64);
    time
}

/// (a') the same tasks in batches of `BATCH`, the submitting thread worker 0.
fn independent_batched(policy: DispatchPolicy, workers: usize) -> Duration {
    COUNTER.store(0, Ordering::Relaxed);
    let counter: &'static AtomicU64 = &COUNTER;
    let runtime = TaskRuntime::start(RuntimeConfig::new(workers, policy).with_caller_lane(true)).expect("start");
    let start = Instant::now();
    for first in (0..TASKS).step_by(BATCH) {
        let batch = (first..(first + BATCH).min(TASKS)).map(|n| {
            TaskSpec::new(String::new(), move || {
                counter.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .worker(n)
        });
        runtime.submit_batch(batch).expect("submit");
    }
    let report = runtime.finish().expect("finish");
    let time = start.elapsed();
    assert_eq!(report.tasks, TASKS);
    assert_eq!(COUNTER.load(Ordering::Relaxed), TASKS as u64);
    time
}

/// (a) submitted by a task: the loop runs on a worker, which then waits in `finish`'s stead.
fn independent_from_a_task(policy: DispatchPolicy, workers: usize) -> Duration {
    let mut runtime = Arc::new(TaskRuntime::start(RuntimeConfig::new(workers, policy)).expect("start"));
    COUNTER.store(0, Ordering::Relaxed);
    let counter: &'static AtomicU64 = &COUNTER;
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let start = Instant::now();
    let inner = Arc::clone(&runtime);
    runtime
        .submit(TaskSpec::new("submitter", move || {
            for n in 0..TASKS {
                let spec = TaskSpec::new(String::new(), move || {
                    counter.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                });
                inner.submit(spec.worker(n))?;
            }
            drop(inner);
            done.send(()).map_err(|error| error.to_string())
        }))
        .expect("submit");
    // Blocks (no spinning here: the main thread must not take a core from the workers).
    wait.recv().expect("the submitting task ran");
    let runtime = loop {
        match Arc::try_unwrap(runtime) {
            Ok(runtime) => break runtime,
            Err(shared) => {
                thread::yield_now();
                runtime = shared;
            }
        }
    };
    runtime.finish().expect("finish");
    let time = start.elapsed();
    assert_eq!(counter.load(Ordering::Relaxed), TASKS as u64);
    time
}

/// (a) the baseline: the same tasks spawned into a `rayon::scope` on a pool of `workers`.
fn rayon_independent(pool: &rayon::ThreadPool) -> Duration {
    COUNTER.store(0, Ordering::Relaxed);
    let counter: &'static AtomicU64 = &COUNTER;
    let start = Instant::now();
    pool.scope(|scope| {
        for _ in 0..TASKS {
            scope.spawn(move |_| {
                counter.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    let time = start.elapsed();
    assert_eq!(COUNTER.load(Ordering::Relaxed), TASKS as u64);
    time
}

/// (b) `chains` chains interleaved: task n read-writes the 8 bytes of chain `n % chains` (a cache
/// line apart), so it depends on task `n - chains`.
fn chains(policy: DispatchPolicy, workers: usize, chains: usize) -> Duration {
    let cells: &'static [AtomicU64] = &CELLS[..chains * 8];
    cells.iter().for_each(|cell| cell.store(0, Ordering::Relaxed));
    let buffer = cells.as_ptr() as usize;
    let time = run_tasks(RuntimeConfig::new(workers, policy), TASKS, |n| {
        let chain = n % chains;
        TaskSpec::new(String::new(), move || {
            let cell = &cells[chain * 8];
            cell.store(cell.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            Ok(())
        })
        .worker(chain)
        .access(Access::read_write(Region::bytes(buffer, (chain * 64) as i64, 8)))
    });
    let total: u64 = cells.iter().map(|cell| cell.load(Ordering::Relaxed)).sum();
    assert_eq!(total, TASKS as u64);
    time
}

/// (b) tasks writing the 4 × 4 f32 tiles of a 256 × 256 matrix in row-major order, each tile
/// again every 4096 tasks: a task's lookup meets the live tiles of its row band (byte ranges
/// interleave, so the exact overlap test runs for each) and depends only on its tile's previous
/// writer.
fn tiles(policy: DispatchPolicy, workers: usize) -> Duration {
    let matrix: &'static [AtomicU64] = &MATRIX;
    matrix.iter().for_each(|cell| cell.store(0, Ordering::Relaxed));
    let buffer = matrix.as_ptr() as usize;
    let time = run_tasks(RuntimeConfig::new(workers, policy), TASKS, |n| {
        let (row, col) = ((n / 64 % 64) as i64, (n % 64) as i64);
        TaskSpec::new(String::new(), move || {
            matrix[(row * 4 * 128 + col * 2) as usize].fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
        .worker(n)
        .access(Access::write(Region::tile_2d(buffer, 256, 4, (row * 4, col * 4), (4, 4))))
    });
    let total: u64 = matrix.iter().map(|cell| cell.load(Ordering::Relaxed)).sum();
    assert_eq!(total, TASKS as u64);
    time
}

/// The machine's 1-minute load average (`/proc/loadavg`), to tell a quiet run from a loaded one.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// Iterations of `spin` that take about `target` on this machine (the fastest of several
/// timings: a timing disturbed by other load would make the tasks shorter).
fn calibrate_spin(target: Duration) -> u64 {
    let mut iterations = 1000u64;
    loop {
        let took = (0..ROUNDS)
            .map(|_| {
                let start = Instant::now();
                spin(iterations);
                start.elapsed()
            })
            .min()
            .unwrap_or_default();
        if took >= Duration::from_millis(5) {
            return (iterations as f64 * target.as_secs_f64() / took.as_secs_f64()) as u64;
        }
        iterations *= 2;
    }
}

/// A fixed amount of arithmetic (not a clock: a descheduled task must not count as done).
fn spin(iterations: u64) -> u64 {
    let mut x = black_box(0x9e37_79b9_7f4a_7c15u64);
    for _ in 0..iterations {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    black_box(x)
}

/// (c) `SPIN_TASKS` independent tasks of `iterations` spins each.
fn spin_tasks(policy: DispatchPolicy, workers: usize, iterations: u64) -> Duration {
    run_tasks(RuntimeConfig::new(workers, policy), SPIN_TASKS, |n| {
        TaskSpec::new(String::new(), move || {
            spin(iterations);
            Ok(())
        })
        .worker(n)
    })
}

fn main() {
    let workers = std::env::var("TASK_BENCH_WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(workers).build().expect("rayon pool");
    if std::env::args().any(|arg| arg == "submit-only") {
        for _ in 0..3 {
            let runtime = TaskRuntime::start(RuntimeConfig::new(1, DispatchPolicy::Affinity)).unwrap();
            let (go, wait) = std::sync::mpsc::channel::<()>();
            runtime
                .submit(
                    TaskSpec::new("gate", move || {
                        let _ = wait.recv();
                        Ok(())
                    })
                    .worker(0),
                )
                .unwrap();
            let counter = Arc::new(AtomicU64::new(0));
            let start = Instant::now();
            for _ in 0..TASKS {
                let counter = Arc::clone(&counter);
                runtime
                    .submit(
                        TaskSpec::new(String::new(), move || {
                            counter.fetch_add(1, Ordering::Relaxed);
                            Ok(())
                        })
                        .worker(0),
                    )
                    .unwrap();
            }
            let submitted = start.elapsed();
            go.send(()).unwrap();
            let start = Instant::now();
            runtime.finish().unwrap();
            println!(
                "submit {:.0} ns/task, run {:.0} ns/task",
                ns_per_task(submitted, TASKS),
                ns_per_task(start.elapsed(), TASKS)
            );
        }
        return;
    }
    // `-- speedup`: only (c).
    if std::env::args().any(|arg| arg == "speedup") {
        let iterations = calibrate_spin(Duration::from_micros(50));
        for policy in POLICIES {
            let (mut serial, mut parallel) = (Duration::MAX, Duration::MAX);
            for _ in 0..ROUNDS {
                serial = serial.min(spin_tasks(policy, 1, iterations));
                parallel = parallel.min(spin_tasks(policy, workers, iterations));
            }
            println!("{policy:?}: 1 worker {serial:?}, {workers} workers {parallel:?}");
        }
        return;
    }
    // `-- from-task`: (a) with the submitting loop itself a task on a worker (2 threads in all,
    // as rayon's scope), Dynamic and WorkStealing only (the others would pin tasks behind it).
    if std::env::args().any(|arg| arg == "from-task") {
        for policy in [DispatchPolicy::WorkStealing, DispatchPolicy::Dynamic] {
            let (mut ours, mut theirs) = (Duration::MAX, Duration::MAX);
            for _ in 0..ROUNDS {
                ours = ours.min(independent_from_a_task(policy, workers));
                theirs = theirs.min(rayon_independent(&pool));
            }
            println!(
                "{policy:?}: {:.0} ns/task, rayon {:.0} ns/task",
                ns_per_task(ours, TASKS),
                ns_per_task(theirs, TASKS)
            );
        }
        return;
    }
    // `-- tiles`: only the tiles column of (b), for profiling.
    if std::env::args().any(|arg| arg == "tiles") {
        for policy in POLICIES {
            println!("{policy:?}: {:.0} ns/task", ns_per_task(best_of(|| tiles(policy, workers)), TASKS));
        }
        return;
    }
    // `-- independent`: only (a), every policy, for profiling (`perf record`).
    if std::env::args().any(|arg| arg == "independent") {
        let only: Vec<String> = std::env::args()
            .skip_while(|arg| arg != "independent")
            .skip(1)
            .filter(|arg| !arg.starts_with("--"))
            .collect();
        for policy in POLICIES {
            if !only.is_empty() && !only.iter().any(|name| *name == format!("{policy:?}")) {
                continue;
            }
            let (mut ours, mut batched, mut theirs) = (Duration::MAX, Duration::MAX, Duration::MAX);
            for _ in 0..ROUNDS {
                ours = ours.min(independent(policy, workers));
                batched = batched.min(independent_batched(policy, workers));
                theirs = theirs.min(rayon_independent(&pool));
            }
            println!(
                "{policy:?}: {:.0} ns/task, batched with a caller lane {:.0} ns/task ({:.2}x), rayon {:.0} ns/task",
                ns_per_task(ours, TASKS),
                ns_per_task(batched, TASKS),
                batched.as_secs_f64() / theirs.as_secs_f64(),
                ns_per_task(theirs, TASKS)
            );
        }
        return;
    }
    let iterations = calibrate_spin(Duration::from_micros(50));
    println!(
        "{workers} workers; {TASKS} tasks per run; best of {ROUNDS}; spin task = {iterations} iterations \
         (~50 us); load average before: {}\n",
        load_average()
    );

    println!("| policy | (a) independent, ns/task | (a') batches of {BATCH}, caller as worker 0, ns/task | rayon::scope, ns/task | ratio (a) | ratio (a') | (b) 1 chain, ns/task | 16 chains, ns/task | 64 × 64 tiles, ns/task | (c) speed-up, {workers} workers vs 1 |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for policy in POLICIES {
        // Ours and rayon alternate, so both see the same machine load.
        let (mut ours, mut batched, mut theirs) = (Duration::MAX, Duration::MAX, Duration::MAX);
        for _ in 0..ROUNDS {
            ours = ours.min(independent(policy, workers));
            batched = batched.min(independent_batched(policy, workers));
            theirs = theirs.min(rayon_independent(&pool));
        }
        let one_chain = best_of(|| chains(policy, workers, 1));
        let sixteen = best_of(|| chains(policy, workers, 16));
        let tiled = best_of(|| tiles(policy, workers));
        let (mut serial, mut parallel) = (Duration::MAX, Duration::MAX);
        for _ in 0..ROUNDS {
            serial = serial.min(spin_tasks(policy, 1, iterations));
            parallel = parallel.min(spin_tasks(policy, workers, iterations));
        }
        println!(
            "| {policy:?} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {:.2} |",
            ns_per_task(ours, TASKS),
            ns_per_task(batched, TASKS),
            ns_per_task(theirs, TASKS),
            ours.as_secs_f64() / theirs.as_secs_f64(),
            batched.as_secs_f64() / theirs.as_secs_f64(),
            ns_per_task(one_chain, TASKS),
            ns_per_task(sixteen, TASKS),
            ns_per_task(tiled, TASKS),
            serial.as_secs_f64() / parallel.as_secs_f64(),
        );
    }
    println!("\nload average after: {}; the target of (a): at most 2x rayon", load_average());
}
