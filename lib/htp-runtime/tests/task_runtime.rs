//! The WSP task runtime through its public API: policies, dependencies, streams, the window,
//! failures, traces. No test asserts speed.

use std::{
    collections::BTreeSet,
    sync::{
        atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

use htp_runtime::{Access, DependencyRecorder, DispatchPolicy, Region, RegionDims, RuntimeConfig, TaskId, TaskRuntime, TaskSpec};

const ALL_POLICIES: [DispatchPolicy; 4] = [
    DispatchPolicy::RoundRobin,
    DispatchPolicy::Affinity,
    DispatchPolicy::WorkStealing,
    DispatchPolicy::Dynamic,
];

fn start(workers: usize, policy: DispatchPolicy) -> TaskRuntime {
    TaskRuntime::start(RuntimeConfig::new(workers, policy).with_trace(true)).expect("start")
}

/// A task spec that Affinity accepts too (placed on `index`'s worker).
fn task(index: usize, body: impl FnOnce() -> Result<(), String> + Send + 'static) -> TaskSpec {
    TaskSpec::new(format!("t{index}"), body).worker(index)
}

fn sleep_ms(ms: u64) -> impl FnOnce() -> Result<(), String> + Send + 'static {
    move || {
        thread::sleep(Duration::from_millis(ms));
        Ok(())
    }
}

/// The trace's lane of every task, by the index in its name `t<index>`.
fn lanes_by_task(report: &htp_runtime::RunReport, tasks: usize) -> Vec<u64> {
    let mut lanes = vec![u64::MAX; tasks];
    for event in report.trace.as_ref().expect("trace").events() {
        let index: usize = event.name.trim_start_matches('t').parse().expect("task index");
        lanes[index] = event.lane;
    }
    lanes
}

#[test]
fn round_robin_runs_the_nth_task_on_worker_n_mod_workers() {
    let runtime = start(3, DispatchPolicy::RoundRobin);
    for n in 0..30 {
        let spec = TaskSpec::new(format!("t{n}"), sleep_ms(1));
        // Every fifth task names its worker, which wins over the rotation.
        let spec = if n % 5 == 0 { spec.worker(7) } else { spec };
        runtime.submit(spec).unwrap();
    }
    let report = runtime.finish().unwrap();
    let lanes = lanes_by_task(&report, 30);
    for (n, lane) in lanes.iter().enumerate() {
        let expected = if n % 5 == 0 { 7 % 3 } else { n % 3 };
        assert_eq!(*lane, expected as u64, "task {n}");
    }
}

#[test]
fn affinity_runs_each_task_on_its_worker_and_needs_one() {
    let runtime = start(4, DispatchPolicy::Affinity);
    for n in 0..40 {
        runtime.submit(TaskSpec::new(format!("t{n}"), sleep_ms(1)).worker(n * 7)).unwrap();
    }
    let error = runtime.submit(TaskSpec::new("placeless", || Ok(()))).unwrap_err();
    assert!(error.contains("placeless") && error.contains("Affinity"), "{error}");
    let report = runtime.finish().unwrap();
    assert_eq!(report.tasks, 40, "the refused task is not counted");
    for (n, lane) in lanes_by_task(&report, 40).iter().enumerate() {
        assert_eq!(*lane, (n * 7 % 4) as u64, "task {n}");
    }
}

#[test]
fn work_stealing_idle_workers_steal_from_a_loaded_one() {
    let runtime = start(3, DispatchPolicy::WorkStealing);
    for n in 0..30 {
        runtime.submit(TaskSpec::new(format!("t{n}"), sleep_ms(3)).worker(0)).unwrap();
    }
    let report = runtime.finish().unwrap();
    let lanes = lanes_by_task(&report, 30);
    let stolen = lanes.iter().filter(|&&lane| lane != 0).count();
    assert!(stolen > 0, "nothing was stolen: {lanes:?}");
    assert!(lanes.iter().all(|&lane| lane < 3));
}

#[test]
fn dynamic_gives_every_worker_work() {
    let runtime = start(4, DispatchPolicy::Dynamic);
    for n in 0..40 {
        runtime.submit(TaskSpec::new(format!("t{n}"), sleep_ms(3))).unwrap();
    }
    let report = runtime.finish().unwrap();
    let used: BTreeSet<u64> = lanes_by_task(&report, 40).into_iter().collect();
    assert_eq!(used, (0..4).collect(), "lanes used");
}

/// Elements `[first, first + len)` of the 1-D i64 buffer `buffer`.
fn elements(buffer: usize, first: i64, len: i64) -> Region {
    Region { buffer, offset: first * 8, dims: RegionDims::from_slice(&[(len, 8)]), element_bytes: 8 }
}

/// Tasks read-modify-write overlapping windows of one buffer with a non-commutative update; in
/// every policy the result is the sequential one. Plain loads and stores (no read-modify-write
/// atomics) make a missing dependency lose updates.
#[test]
fn overlapping_read_modify_writes_give_the_sequential_result() {
    const LEN: usize = 40;
    const TASKS: usize = 1000;
    let window_of = |i: usize| (i * 7 % (LEN - 8), 1 + i % 8);
    let mut expected = vec![1i64; LEN];
    for i in 0..TASKS {
        let (first, len) = window_of(i);
        for value in &mut expected[first..first + len] {
            *value = (*value * 3 + i as i64) % 1_000_003;
        }
    }
    for policy in ALL_POLICIES {
        let data: Arc<Vec<AtomicI64>> = Arc::new((0..LEN).map(|_| AtomicI64::new(1)).collect());
        let buffer = data.as_ptr() as usize;
        let runtime = TaskRuntime::start(RuntimeConfig::new(4, policy).with_window(64)).unwrap();
        for i in 0..TASKS {
            let (first, len) = window_of(i);
            let data = Arc::clone(&data);
            let body = move || {
                for value in &data[first..first + len] {
                    let old = value.load(Ordering::Relaxed);
                    thread::yield_now();
                    value.store((old * 3 + i as i64) % 1_000_003, Ordering::Relaxed);
                }
                Ok(())
            };
            let spec = task(i, body).access(Access::read_write(elements(buffer, first as i64, len as i64)));
            runtime.submit(spec).unwrap();
        }
        let report = runtime.finish().unwrap();
        let got: Vec<i64> = data.iter().map(|value| value.load(Ordering::Relaxed)).collect();
        assert_eq!(got, expected, "{policy:?}");
        assert!(report.edges > 0);
    }
}

#[test]
fn a_chain_of_1000_tasks_runs_in_order() {
    let counter = Arc::new(AtomicI64::new(0));
    let buffer = Arc::as_ptr(&counter) as usize;
    let runtime = start(4, DispatchPolicy::Dynamic);
    for i in 0..1000i64 {
        let counter = Arc::clone(&counter);
        let body = move || {
            let seen = counter.load(Ordering::Relaxed);
            if seen != i {
                return Err(format!("saw {seen}, expected {i}"));
            }
            counter.store(i + 1, Ordering::Relaxed);
            Ok(())
        };
        runtime
            .submit(
                TaskSpec::new(format!("t{i}"), body).access(Access::read_write(Region::bytes(buffer, 0, 8))),
            )
            .unwrap();
    }
    let report = runtime.finish().unwrap();
    assert_eq!(counter.load(Ordering::Relaxed), 1000);
    assert!(report.edges <= 999, "at most one edge per link: {}", report.edges);
}

#[test]
fn a_writer_waits_for_earlier_readers() {
    for policy in [DispatchPolicy::Dynamic, DispatchPolicy::WorkStealing] {
        let value = Arc::new(AtomicI64::new(0));
        let buffer = Arc::as_ptr(&value) as usize;
        let region = Region::bytes(buffer, 0, 8);
        let runtime = start(4, policy);
        let reads: Arc<Mutex<Vec<i64>>> = Arc::default();
        for reader in 0..3 {
            let (value, reads) = (Arc::clone(&value), Arc::clone(&reads));
            let body = move || {
                thread::sleep(Duration::from_millis(20));
                reads.lock().unwrap().push(value.load(Ordering::Relaxed));
                Ok(())
            };
            runtime
                .submit(TaskSpec::new(format!("r{reader}"), body).access(Access::read(region.clone())))
                .unwrap();
        }
        let writer_value = Arc::clone(&value);
        let writer = move || {
            writer_value.store(1, Ordering::Relaxed);
            Ok(())
        };
        runtime.submit(TaskSpec::new("w", writer).access(Access::write(region.clone()))).unwrap();
        let report = runtime.finish().unwrap();
        assert_eq!(*reads.lock().unwrap(), vec![0, 0, 0], "{policy:?}: a reader saw the later write");
        assert_eq!(report.edges, 3, "{policy:?}: one WAR edge per reader, none between readers");
        assert_eq!(value.load(Ordering::Relaxed), 1);
    }
}

/// Stores 7 into `value` after 20 ms.
fn writes_7_late(value: &Arc<AtomicI64>) -> impl FnOnce() -> Result<(), String> + Send + 'static {
    let value = Arc::clone(value);
    move || {
        thread::sleep(Duration::from_millis(20));
        value.store(7, Ordering::Relaxed);
        Ok(())
    }
}

/// Fails unless `value` holds 7 (the writer ran first).
fn reads_7(value: &Arc<AtomicI64>) -> impl FnOnce() -> Result<(), String> + Send + 'static {
    let value = Arc::clone(value);
    move || match value.load(Ordering::Relaxed) {
        7 => Ok(()),
        other => Err(format!("read {other} before the write")),
    }
}

#[test]
fn a_reader_waits_for_the_earlier_writer() {
    let value = Arc::new(AtomicI64::new(0));
    let buffer = Arc::as_ptr(&value) as usize;
    let runtime = start(2, DispatchPolicy::Dynamic);
    runtime
        .submit(
            TaskSpec::new("w", writes_7_late(&value))
            .access(Access::write(Region::bytes(buffer, 0, 8))),
        )
        .unwrap();
    runtime
        .submit(
            TaskSpec::new("r", reads_7(&value))
            // Overlaps the writer's bytes partially.
            .access(Access::read(Region::bytes(buffer, 4, 8))),
        )
        .unwrap();
    assert_eq!(runtime.finish().unwrap().edges, 1);
}

#[test]
fn tracked_accesses_of_a_task_with_given_edges_order_later_tasks() {
    let value = Arc::new(AtomicI64::new(0));
    let buffer = Arc::as_ptr(&value) as usize;
    let runtime = start(2, DispatchPolicy::Dynamic);
    // Submitted without its accesses (its edges recorded elsewhere), then told them.
    let writer = runtime.submit(TaskSpec::new("w", writes_7_late(&value))).unwrap();
    runtime.track_accesses([(writer, vec![Access::write(Region::bytes(buffer, 0, 8))])]).unwrap();
    runtime
        .submit(
            TaskSpec::new("r", reads_7(&value))
            .access(Access::read(Region::bytes(buffer, 0, 8))),
        )
        .unwrap();
    let error = runtime.track_accesses([(TaskId(5), Vec::new())]).unwrap_err();
    assert!(error.contains("not been submitted"), "{error}");
    assert_eq!(runtime.finish().unwrap().edges, 1);
}

#[test]
fn recorded_edges_given_as_after_order_tasks_as_inference_would() {
    let value = Arc::new(AtomicI64::new(0));
    let buffer = Arc::as_ptr(&value) as usize;
    let region = Region::bytes(buffer, 0, 8);
    let mut recorder = DependencyRecorder::new();
    let runtime = start(2, DispatchPolicy::Dynamic);
    // Ten read-modify-writes of one value, each after the previous by its recorded edges alone.
    for step in 0..10 {
        let predecessors = recorder.add(vec![Access::read_write(region.clone())]);
        assert_eq!(predecessors, if step == 0 { vec![] } else { vec![TaskId(step - 1)] });
        let value = Arc::clone(&value);
        let mut spec = TaskSpec::new(format!("t{step}"), move || {
            thread::sleep(Duration::from_millis(2));
            match value.load(Ordering::Relaxed) {
                seen if seen == step as i64 => {
                    value.store(seen + 1, Ordering::Relaxed);
                    Ok(())
                }
                seen => Err(format!("step {step} saw {seen}")),
            }
        });
        spec.after = predecessors;
        runtime.submit(spec).unwrap();
    }
    runtime.finish().unwrap();
    assert_eq!(value.load(Ordering::Relaxed), 10);
}

/// Waits up to 10 s for `count` to reach `target` (after adding 1): two tasks that meet here must
/// run at the same time.
fn rendezvous(count: &AtomicUsize, target: usize) -> Result<(), String> {
    count.fetch_add(1, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(10);
    while count.load(Ordering::SeqCst) < target {
        if Instant::now() > deadline {
            return Err("the other task never ran alongside".into());
        }
        thread::sleep(Duration::from_micros(200));
    }
    Ok(())
}

#[test]
fn disjoint_columns_of_one_matrix_do_not_depend() {
    // Two writers of the left and right halves of a 16 × 16 f32 matrix must run together.
    let matrix = vec![0f32; 256];
    let buffer = matrix.as_ptr() as usize;
    let met = Arc::new(AtomicUsize::new(0));
    let runtime = start(2, DispatchPolicy::Dynamic);
    for (n, col) in [0, 8].into_iter().enumerate() {
        let met = Arc::clone(&met);
        let region = Region::tile_2d(buffer, 16, 4, (0, col), (16, 8));
        runtime
            .submit(TaskSpec::new(format!("t{n}"), move || rendezvous(&met, 2)).access(Access::write(region)))
            .unwrap();
    }
    let report = runtime.finish().unwrap();
    assert_eq!(report.edges, 0);
    // And a task touching both halves waits for both.
    let runtime = start(2, DispatchPolicy::Dynamic);
    let left = runtime.submit(TaskSpec::new("left", || Ok(())).access(Access::write(Region::tile_2d(
        buffer,
        16,
        4,
        (0, 0),
        (16, 8),
    ))));
    let right = runtime.submit(TaskSpec::new("right", sleep_ms(20)).access(Access::write(Region::tile_2d(
        buffer,
        16,
        4,
        (0, 8),
        (16, 8),
    ))));
    assert_eq!((left, right), (Ok(TaskId(0)), Ok(TaskId(1))));
    runtime
        .submit(TaskSpec::new("row", || Ok(())).access(Access::read(Region::tile_2d(
            buffer,
            16,
            4,
            (3, 0),
            (1, 16),
        ))))
        .unwrap();
    let report = runtime.finish().unwrap();
    assert!(report.edges >= 1, "the row read waited for no writer");
}

#[test]
fn explicit_edges_order_tasks_and_must_name_earlier_ones() {
    let done = Arc::new(AtomicBool::new(false));
    let runtime = start(3, DispatchPolicy::Dynamic);
    let first_done = Arc::clone(&done);
    let first = runtime
        .submit(TaskSpec::new("first", move || {
            thread::sleep(Duration::from_millis(20));
            first_done.store(true, Ordering::SeqCst);
            Ok(())
        }))
        .unwrap();
    let second_done = Arc::clone(&done);
    runtime
        .submit(
            TaskSpec::new("second", move || {
                if second_done.load(Ordering::SeqCst) {
                    Ok(())
                } else {
                    Err("ran before its `after` task".into())
                }
            })
            .after(first),
        )
        .unwrap();
    let error = runtime.submit(TaskSpec::new("third", || Ok(())).after(TaskId(2))).unwrap_err();
    assert!(error.contains("not an earlier task"), "{error}");
    // The refused task took no id and no window slot.
    assert_eq!(runtime.submit(TaskSpec::new("fourth", || Ok(()))), Ok(TaskId(2)));
    let report = runtime.finish().unwrap();
    assert_eq!((report.tasks, report.edges), (3, 1));
}

#[test]
fn streams_run_in_submission_order() {
    for policy in [DispatchPolicy::Dynamic, DispatchPolicy::WorkStealing, DispatchPolicy::RoundRobin] {
        let order: Arc<Mutex<Vec<(u64, usize)>>> = Arc::default();
        let runtime = start(4, policy);
        for n in 0..300 {
            let stream = (n % 3) as u64;
            let order = Arc::clone(&order);
            let body = move || {
                if n % 7 == 0 {
                    thread::sleep(Duration::from_micros(300));
                }
                order.lock().unwrap().push((stream, n));
                Ok(())
            };
            runtime.submit(TaskSpec::new(format!("t{n}"), body).stream(stream)).unwrap();
        }
        runtime.finish().unwrap();
        let order = order.lock().unwrap();
        assert_eq!(order.len(), 300);
        for stream in 0..3 {
            let seen: Vec<usize> = order.iter().filter(|(s, _)| *s == stream).map(|&(_, n)| n).collect();
            let mut sorted = seen.clone();
            sorted.sort_unstable();
            assert_eq!(seen, sorted, "{policy:?}: stream {stream} out of order");
        }
    }
}

#[test]
fn the_window_bounds_tasks_in_flight_and_counts_stalls() {
    for policy in ALL_POLICIES {
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let runtime = TaskRuntime::start(RuntimeConfig::new(4, policy).with_window(3)).unwrap();
        for n in 0..60 {
            let (running, most) = (Arc::clone(&running), Arc::clone(&most));
            let body = move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                thread::sleep(Duration::from_millis(1));
                running.fetch_sub(1, Ordering::SeqCst);
                Ok(())
            };
            runtime.submit(task(n, body)).unwrap();
        }
        let report = runtime.finish().unwrap();
        let most = most.load(Ordering::SeqCst);
        assert!((1..=3).contains(&most), "{policy:?}: {most} tasks ran at once with a window of 3");
        assert!(report.stalls > 0 && report.stalls <= 57, "{policy:?}: {} stalls", report.stalls);
    }
}

#[test]
fn a_task_error_stops_new_tasks_and_is_reported() {
    let ran_after = Arc::new(AtomicBool::new(false));
    let runtime = start(2, DispatchPolicy::Dynamic);
    let buffer = 0x5000;
    // The failing task waits until its successor is submitted (a submit after the failure
    // would be refused).
    let (go, wait) = mpsc::channel::<()>();
    let bad = move || {
        wait.recv_timeout(Duration::from_secs(10)).map_err(|error| error.to_string())?;
        Err("boom".to_string())
    };
    runtime.submit(TaskSpec::new("bad[1]", bad).access(Access::write(Region::bytes(buffer, 0, 4)))).unwrap();
    let flag = Arc::clone(&ran_after);
    runtime
        .submit(
            TaskSpec::new("dependent", move || {
                flag.store(true, Ordering::SeqCst);
                Ok(())
            })
            .access(Access::read(Region::bytes(buffer, 0, 4))),
        )
        .unwrap();
    go.send(()).unwrap();
    // Submits fail once the failure is seen.
    let deadline = Instant::now() + Duration::from_secs(10);
    let submit_error = loop {
        match runtime.submit(TaskSpec::new("later", || Ok(()))) {
            Err(error) => break error,
            Ok(_) if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
            Ok(_) => panic!("submit kept succeeding after a task failed"),
        }
    };
    assert!(submit_error.contains("boom"), "{submit_error}");
    let error = runtime.finish().unwrap_err();
    assert_eq!(error, "task `bad[1]` failed: boom");
    assert!(!ran_after.load(Ordering::SeqCst), "a successor of the failed task ran");
}

#[test]
fn a_panicking_task_is_an_error_not_a_hang() {
    for policy in ALL_POLICIES {
        let runtime = TaskRuntime::start(RuntimeConfig::new(2, policy).with_window(4)).unwrap();
        for n in 0..20 {
            let body = move || {
                if n == 5 {
                    panic!("kaboom {n}");
                }
                Ok(())
            };
            // Later submits may already see the failure.
            if runtime.submit(task(n, body)).is_err() {
                break;
            }
        }
        let error = runtime.finish().unwrap_err();
        assert_eq!(error, "task `t5` panicked: kaboom 5", "{policy:?}");
    }
}

#[test]
fn many_independent_tasks_finish() {
    for policy in ALL_POLICIES {
        let count = Arc::new(AtomicUsize::new(0));
        let runtime = TaskRuntime::start(RuntimeConfig::new(3, policy)).unwrap();
        for n in 0..100_000 {
            let count = Arc::clone(&count);
            runtime
                .submit(
                    TaskSpec::new(String::new(), move || {
                        count.fetch_add(1, Ordering::Relaxed);
                        Ok(())
                    })
                    .worker(n),
                )
                .unwrap();
        }
        let report = runtime.finish().unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 100_000, "{policy:?}");
        assert_eq!((report.tasks, report.edges, report.stalls), (100_000, 0, 0));
        assert!(report.trace.is_none());
    }
}

#[test]
fn disjoint_tiles_of_many_tasks_stay_independent() {
    // 64 × 64 tiles of 4 × 4 f32: every task writes its own tile, then reads the tile's row.
    let matrix = vec![0f32; 64 * 64];
    let buffer = matrix.as_ptr() as usize;
    let runtime =
        TaskRuntime::start(RuntimeConfig::new(2, DispatchPolicy::WorkStealing).with_window(100)).unwrap();
    for i in 0..16 {
        for j in 0..16 {
            let tile = Region::tile_2d(buffer, 64, 4, (i * 4, j * 4), (4, 4));
            runtime
                .submit(
                    TaskSpec::new(format!("w[{i},{j}]"), || Ok(()))
                        .keys(vec![i, j])
                        .access(Access::write(tile)),
                )
                .unwrap();
        }
    }
    let report = runtime.finish().unwrap();
    assert_eq!(report.edges, 0);
}

#[test]
fn the_trace_has_one_event_per_task_and_exports_as_chrome_json() {
    let runtime = start(2, DispatchPolicy::Dynamic);
    for n in 0..10 {
        runtime.submit(TaskSpec::new(format!("attn[{n},0]"), sleep_ms(1))).unwrap();
    }
    let report = runtime.finish().unwrap();
    let trace = report.trace.unwrap();
    let events = trace.events();
    assert_eq!(events.len(), 10);
    assert!(events.iter().all(|event| event.lane < 2 && event.duration >= Duration::from_millis(1)));
    let json = trace.to_chrome_json();
    assert!(json.starts_with("{\"traceEvents\":[") && json.contains("\"name\":\"attn[9,0]\""), "{json}");
}

#[test]
fn no_workers_is_an_error() {
    let error = TaskRuntime::start(RuntimeConfig::new(0, DispatchPolicy::Dynamic)).unwrap_err();
    assert!(error.contains("workers"), "{error}");
}

#[test]
fn a_body_submitting_into_a_full_window_gets_an_error() {
    let runtime =
        Arc::new(TaskRuntime::start(RuntimeConfig::new(1, DispatchPolicy::Dynamic).with_window(1)).unwrap());
    let (sender, receiver) = mpsc::channel();
    let inner = Arc::clone(&runtime);
    runtime
        .submit(TaskSpec::new("outer", move || {
            let result = inner.submit(TaskSpec::new("inner", || Ok(())));
            drop(inner);
            sender.send(result).map_err(|error| error.to_string())
        }))
        .unwrap();
    let result = receiver.recv_timeout(Duration::from_secs(10)).expect("the outer task ran");
    let error = result.unwrap_err();
    assert!(error.contains("inner") && error.contains("window"), "{error}");
    // The outer task may still be finishing; wait for its handle to go.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut runtime = runtime;
    let runtime = loop {
        match Arc::try_unwrap(runtime) {
            Ok(runtime) => break runtime,
            Err(shared) if Instant::now() < deadline => {
                runtime = shared;
                thread::sleep(Duration::from_millis(1));
            }
            Err(_) => panic!("the task body kept its runtime handle"),
        }
    };
    assert_eq!(runtime.finish().unwrap().tasks, 1);
}

#[test]
fn dropping_without_finish_waits_for_the_tasks() {
    let count = Arc::new(AtomicUsize::new(0));
    {
        let runtime = start(2, DispatchPolicy::WorkStealing);
        for n in 0..20 {
            let count = Arc::clone(&count);
            runtime
                .submit(task(n, move || {
                    thread::sleep(Duration::from_millis(1));
                    count.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }))
                .unwrap();
        }
    }
    assert_eq!(count.load(Ordering::SeqCst), 20);
}

#[test]
fn reads_of_a_buffer_nobody_writes_add_no_edges() {
    // Every task reads the same weights and writes its own output row: no task waits for another,
    // however many there are (the readers' list is pruned as tasks finish).
    let weights = vec![0f32; 64];
    let outputs = vec![0f32; 64 * 4096];
    let (weights, outputs) = (weights.as_ptr() as usize, outputs.as_ptr() as usize);
    let runtime =
        TaskRuntime::start(RuntimeConfig::new(2, DispatchPolicy::Dynamic).with_window(256)).unwrap();
    for row in 0..4096 {
        let spec = TaskSpec::new(format!("t{row}"), || Ok(()))
            .access(Access::read(Region::bytes(weights, 0, 256)))
            .access(Access::write(Region::tile_2d(outputs, 64, 4, (row, 0), (1, 64))));
        runtime.submit(spec).unwrap();
    }
    let report = runtime.finish().unwrap();
    assert_eq!((report.tasks, report.edges), (4096, 0));
}

#[test]
fn several_threads_may_submit_at_once() {
    // Four submitters, each a chain over its own counter: each chain stays in order, and every
    // task runs once.
    for policy in ALL_POLICIES {
        let counters: Arc<Vec<AtomicI64>> = Arc::new((0..4).map(|_| AtomicI64::new(0)).collect());
        let buffer = counters.as_ptr() as usize;
        let runtime = TaskRuntime::start(RuntimeConfig::new(3, policy).with_window(64)).unwrap();
        thread::scope(|scope| {
            for submitter in 0..4usize {
                let (runtime, counters) = (&runtime, &counters);
                scope.spawn(move || {
                    for i in 0..2000i64 {
                        let counters = Arc::clone(counters);
                        let body = move || {
                            let counter = &counters[submitter];
                            let seen = counter.load(Ordering::Relaxed);
                            if seen != i {
                                return Err(format!("chain {submitter}: saw {seen}, expected {i}"));
                            }
                            counter.store(i + 1, Ordering::Relaxed);
                            Ok(())
                        };
                        let region = Region::bytes(buffer, 8 * submitter as i64, 8);
                        let spec = task(submitter, body).access(Access::read_write(region));
                        runtime.submit(spec).unwrap();
                    }
                });
            }
        });
        let report = runtime.finish().unwrap();
        assert_eq!(report.tasks, 8000, "{policy:?}");
        let finals: Vec<i64> = counters.iter().map(|counter| counter.load(Ordering::Relaxed)).collect();
        assert_eq!(finals, vec![2000; 4], "{policy:?}");
    }
}

#[test]
fn the_last_handle_may_go_inside_a_task() {
    // A task that owns the runtime's last handle drops it: no deadlock, every task still runs,
    // and `finish` there is refused instead of waiting for itself.
    let ran = Arc::new(AtomicUsize::new(0));
    let runtime = Arc::new(TaskRuntime::start(RuntimeConfig::new(2, DispatchPolicy::Dynamic)).unwrap());
    let (sender, receiver) = mpsc::channel();
    for n in 0..10 {
        let ran = Arc::clone(&ran);
        runtime
            .submit(task(n, move || {
                thread::sleep(Duration::from_millis(2));
                ran.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }))
            .unwrap();
    }
    let owner = Arc::clone(&runtime);
    runtime
        .submit(TaskSpec::new("owner", move || {
            // Wait until the test has let go of its handle, so this one is the last.
            let mut owner = owner;
            let deadline = Instant::now() + Duration::from_secs(10);
            let runtime = loop {
                match Arc::try_unwrap(owner) {
                    Ok(runtime) => break runtime,
                    Err(shared) if Instant::now() < deadline => {
                        owner = shared;
                        thread::sleep(Duration::from_millis(1));
                    }
                    Err(_) => return Err("the test kept its handle".into()),
                }
            };
            let refused = runtime.finish().is_err();
            sender.send(refused).map_err(|error| error.to_string())
        }))
        .unwrap();
    drop(runtime);
    assert_eq!(
        receiver.recv_timeout(Duration::from_secs(10)),
        Ok(true),
        "finish inside a task was not refused"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while ran.load(Ordering::SeqCst) < 10 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(ran.load(Ordering::SeqCst), 10);
}

#[test]
fn a_drained_runtime_runs_the_next_run_with_the_same_workers() {
    for policy in ALL_POLICIES {
        let mut runtime = start(2, policy);
        for run in 0..3 {
            let buffer = 0x9000usize;
            let log = Arc::new(Mutex::new(Vec::new()));
            for n in 0..20 {
                let log = Arc::clone(&log);
                let spec = task(n, move || {
                    log.lock().unwrap().push(n);
                    Ok(())
                });
                // One chain: each task read-writes the bytes the previous one wrote.
                let id = runtime.submit(spec.access(Access::read_write(Region::bytes(buffer, 0, 8)))).unwrap();
                assert_eq!(id, TaskId(n as u64), "ids start from 0 in every run");
            }
            let report = runtime.drain().unwrap();
            assert_eq!(report.tasks, 20, "{policy:?} run {run}");
            assert_eq!(*log.lock().unwrap(), (0..20).collect::<Vec<_>>(), "{policy:?} run {run}: in order");
            assert_eq!(report.trace.expect("trace").events().len(), 20, "each run its own trace");
        }
        // A run measured from its own start: not from the last drain.
        std::thread::sleep(std::time::Duration::from_millis(30));
        runtime.restart_trace();
        runtime.submit(task(0, || Ok(()))).unwrap();
        let trace = runtime.drain().unwrap().trace.expect("trace");
        assert!(trace.events()[0].start < std::time::Duration::from_millis(25), "{policy:?}: {:?}", trace.events()[0].start);
        // A failed run reports its failure, and the next run starts clean.
        runtime.submit(task(0, || Err("first run fails".into()))).unwrap();
        assert!(runtime.drain().unwrap_err().contains("first run fails"));
        runtime.submit(task(0, || Ok(()))).unwrap();
        assert_eq!(runtime.finish().unwrap().tasks, 1, "{policy:?}");
    }
}

#[test]
fn a_caller_lane_is_worker_0_and_runs_its_tasks_while_waiting() {
    for policy in ALL_POLICIES {
        let caller = thread::current().id();
        let ran_on_caller = Arc::new(AtomicUsize::new(0));
        let runtime =
            TaskRuntime::start(RuntimeConfig::new(2, policy).with_trace(true).with_caller_lane(true)).unwrap();
        for n in 0..40 {
            let ran_on_caller = Arc::clone(&ran_on_caller);
            runtime
                .submit(task(n, move || {
                    if thread::current().id() == caller {
                        ran_on_caller.fetch_add(1, Ordering::Relaxed);
                    }
                    thread::sleep(Duration::from_micros(200));
                    Ok(())
                }))
                .unwrap();
        }
        let report = runtime.finish().unwrap();
        let lanes = lanes_by_task(&report, 40);
        assert!(lanes.iter().all(|&lane| lane < 2), "{policy:?}: {lanes:?}");
        let on_lane_0 = lanes.iter().filter(|&&lane| lane == 0).count();
        assert_eq!(on_lane_0, ran_on_caller.load(Ordering::Relaxed), "{policy:?}: lane 0 is the caller");
        if matches!(policy, DispatchPolicy::RoundRobin | DispatchPolicy::Affinity) {
            // Placed, and never moved: half of them waited for the caller.
            assert_eq!(on_lane_0, 20, "{policy:?}");
        }
    }
}

#[test]
fn a_caller_lane_of_one_worker_runs_everything_on_the_caller() {
    for policy in ALL_POLICIES {
        let caller = thread::current().id();
        let mut runtime = TaskRuntime::start(RuntimeConfig::new(1, policy).with_caller_lane(true)).unwrap();
        for _ in 0..2 {
            let count = Arc::new(AtomicUsize::new(0));
            for n in 0..100 {
                let count = Arc::clone(&count);
                runtime
                    .submit(task(n, move || {
                        assert_eq!(thread::current().id(), caller);
                        count.fetch_add(1, Ordering::Relaxed);
                        Ok(())
                    }))
                    .unwrap();
            }
            runtime.drain().unwrap();
            assert_eq!(count.load(Ordering::Relaxed), 100, "{policy:?}");
        }
    }
}

#[test]
fn a_caller_lane_stalled_by_the_window_runs_the_tasks_that_wait_for_it() {
    // Affinity puts every task on worker 0, the caller: a full window waits for the caller itself.
    for policy in ALL_POLICIES {
        let count = Arc::new(AtomicUsize::new(0));
        let runtime =
            TaskRuntime::start(RuntimeConfig::new(2, policy).with_window(4).with_caller_lane(true)).unwrap();
        for n in 0..200 {
            let count = Arc::clone(&count);
            let spec = TaskSpec::new(format!("t{n}"), move || {
                count.fetch_add(1, Ordering::Relaxed);
                Ok(())
            });
            runtime.submit(spec.worker(0)).unwrap();
        }
        let report = runtime.finish().unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 200, "{policy:?}");
        assert!(report.stalls > 0, "{policy:?}: the window never filled");
    }
}

#[test]
fn a_batch_is_submitted_in_order_with_its_dependencies() {
    for policy in ALL_POLICIES {
        for caller_lane in [false, true] {
            let runtime =
                TaskRuntime::start(RuntimeConfig::new(2, policy).with_caller_lane(caller_lane)).unwrap();
            let log = Arc::new(Mutex::new(Vec::new()));
            let buffer = 0xA000usize;
            let specs = (0..50).map(|n| {
                let log = Arc::clone(&log);
                task(n, move || {
                    log.lock().unwrap().push(n);
                    Ok(())
                })
                .access(Access::read_write(Region::bytes(buffer, 0, 8)))
            });
            assert_eq!(runtime.submit_batch(specs).unwrap(), 50);
            // A refused spec in a batch: the ones before it are submitted.
            let refused = [task(50, || Ok(())), task(51, || Ok(())).after(TaskId(99)), task(52, || Ok(()))];
            assert!(runtime.submit_batch(refused).unwrap_err().contains("not an earlier task"));
            // A batch whose iterator does not announce its length (a filter): counted into the
            // window as it comes, and the run still ends.
            let extra = Arc::new(AtomicUsize::new(0));
            let unannounced = (0..8).filter(|n| n % 2 == 0).map(|n| {
                let extra = Arc::clone(&extra);
                task(60 + n, move || {
                    extra.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                })
            });
            assert_eq!(runtime.submit_batch(unannounced).unwrap(), 4);
            let report = runtime.finish().unwrap();
            assert_eq!(report.tasks, 55, "{policy:?}");
            assert_eq!(extra.load(Ordering::Relaxed), 4);
            assert_eq!(*log.lock().unwrap(), (0..50).collect::<Vec<_>>(), "{policy:?} caller lane {caller_lane}");
        }
    }
}

#[test]
fn labelled_tasks_are_named_by_their_keys_in_traces_and_errors() {
    let runtime = start(1, DispatchPolicy::Dynamic);
    let label: Arc<str> = Arc::from("attn");
    runtime.submit(TaskSpec::new(String::new(), || Ok(())).keys(vec![3, 1]).labelled(Arc::clone(&label))).unwrap();
    let report = runtime.finish().unwrap();
    assert_eq!(report.trace.unwrap().events()[0].name, "attn[3,1]");
    let runtime = start(1, DispatchPolicy::Dynamic);
    runtime.submit(TaskSpec::new(String::new(), || Err("no".into())).keys(vec![7]).labelled(label)).unwrap();
    assert_eq!(runtime.finish().unwrap_err(), "task `attn[7]` failed: no");
}
