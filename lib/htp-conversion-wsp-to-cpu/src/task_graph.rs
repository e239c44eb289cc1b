//! A workload's task graph, kept from one call to the next (D88): the dependency edges of the
//! tasks a call issued, in issue order, with the accesses they were inferred from.
//!
//! A serving step calls one workload again and again on the same state, and its tasks touch the
//! same regions call after call (a scalar such as a sequence length changes, a view rarely
//! does). Task `i`'s inferred edges depend only on the accesses of tasks `0..=i`, so while a
//! call issues the accesses of the recorded call, in the same order, its tasks take the
//! recorded edges (`TaskSpec::after`) and nothing is inferred. Otherwise the edges are inferred
//! by `htp_runtime::tasks::DependencyRecorder` — the runtime's own inference, but independent
//! of the timing of the call — and given to the runtime as `after` too, so recording costs what
//! inference by the runtime would; from the first task that differs, the recording restarts
//! from the tasks before it. A call of more than [`RECORDED_TASKS`] tasks hands inference to
//! the runtime (which keeps only unfinished tasks' accesses) and records nothing.

use htp_runtime::tasks::{Access, DependencyRecorder, TaskId, TaskRuntime, TaskSpec};

/// Calls that issue more tasks than this are not recorded: the recording holds every task's
/// accesses, while the runtime holds only the unfinished tasks'.
pub const RECORDED_TASKS: usize = 4096;

/// The recorded edges of one call's tasks.
#[derive(Default)]
pub struct TaskGraph {
    tasks: Vec<RecordedTask>,
}

struct RecordedTask {
    accesses: Vec<Access>,
    predecessors: Vec<TaskId>,
}

/// How the tasks of one call get their edges.
pub enum CallGraph {
    /// Every task so far issued the accesses the recorded call's task did at its place: it
    /// follows the recorded predecessors.
    Replaying(TaskGraph),
    /// The edges are inferred by the recorder, and recorded for the next call.
    Recording { recorder: DependencyRecorder, graph: TaskGraph },
    /// The runtime infers the edges; too many tasks to record.
    Inferring,
}

impl CallGraph {
    /// The start of a call, replaying the last call's graph if there is one.
    pub fn new(recorded: Option<TaskGraph>) -> Self {
        match recorded {
            Some(graph) => CallGraph::Replaying(graph),
            None => CallGraph::Recording { recorder: DependencyRecorder::new(), graph: TaskGraph::default() },
        }
    }

    /// Gives task `index` (the next one issued: `0, 1, ...`, every task and barrier once) its
    /// edges, in `spec`: as predecessors (`after`), or as `accesses` for the runtime to infer
    /// from. `before` submits the tasks the caller holds back: they must reach the runtime
    /// before it is told their accesses.
    pub fn place(&mut self, index: usize, spec: &mut TaskSpec, accesses: Vec<Access>, runtime: &TaskRuntime, before: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
        if let CallGraph::Replaying(graph) = self {
            if let Some(recorded) = graph.tasks.get(index).filter(|recorded| recorded.accesses == accesses) {
                spec.after.extend_from_slice(&recorded.predecessors);
                return Ok(());
            }
            // The first task that differs: the recording restarts from the tasks before it.
            let mut kept = std::mem::take(&mut graph.tasks);
            kept.truncate(index);
            let mut recorder = DependencyRecorder::new();
            for task in &kept {
                recorder.add(task.accesses.clone());
            }
            *self = CallGraph::Recording { recorder, graph: TaskGraph { tasks: kept } };
        }
        if let CallGraph::Recording { recorder, graph } = self {
            if graph.tasks.len() < RECORDED_TASKS {
                let predecessors = recorder.add(accesses.clone());
                spec.after.extend_from_slice(&predecessors);
                graph.tasks.push(RecordedTask { accesses, predecessors });
                return Ok(());
            }
            // Too many to record: the runtime infers from here on, told the tasks before.
            before()?;
            let tasks = std::mem::take(&mut graph.tasks);
            runtime.track_accesses(tasks.into_iter().enumerate().map(|(i, task)| (TaskId(i as u64), task.accesses)))?;
            *self = CallGraph::Inferring;
        }
        spec.accesses = accesses;
        Ok(())
    }

    /// What the next call starts from.
    pub fn finish(self) -> Option<TaskGraph> {
        match self {
            CallGraph::Replaying(graph) | CallGraph::Recording { graph, .. } => Some(graph),
            CallGraph::Inferring => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::{
            atomic::{AtomicI64, Ordering},
            Arc,
        },
        thread,
        time::Duration,
    };

    use htp_runtime::tasks::{DispatchPolicy, Region, RuntimeConfig};

    use super::*;

    /// Places and submits a task making `accesses`; its spec's edges and accesses as placed.
    fn issue(graph: &mut CallGraph, runtime: &TaskRuntime, index: usize, accesses: Vec<Access>, body: impl FnOnce() -> Result<(), String> + Send + 'static) -> (Vec<TaskId>, usize) {
        let mut spec = TaskSpec::new(format!("t{index}"), body);
        graph.place(index, &mut spec, accesses, runtime, || Ok(())).unwrap();
        let placed = (spec.after.clone(), spec.accesses.len());
        assert_eq!(runtime.submit(spec).unwrap(), TaskId(index as u64));
        placed
    }

    #[test]
    fn a_call_like_the_last_replays_its_edges_and_one_that_differs_records_anew() {
        let (a, b) = (Region::bytes(0x1000, 0, 8), Region::bytes(0x2000, 0, 8));
        let mut runtime = TaskRuntime::start(RuntimeConfig::new(2, DispatchPolicy::Dynamic)).unwrap();
        let ok = || Ok(());
        // A first call: recorded, its edges given as predecessors.
        let mut graph = CallGraph::new(None);
        assert_eq!(issue(&mut graph, &runtime, 0, vec![Access::write(a.clone())], ok), (vec![], 0));
        assert_eq!(issue(&mut graph, &runtime, 1, vec![Access::read(a.clone())], ok), (vec![TaskId(0)], 0));
        let recorded = graph.finish();
        runtime.drain().unwrap();
        // The same accesses: the recorded edges.
        let mut graph = CallGraph::new(recorded);
        assert!(matches!(graph, CallGraph::Replaying(_)));
        assert_eq!(issue(&mut graph, &runtime, 0, vec![Access::write(a.clone())], ok), (vec![], 0));
        assert_eq!(issue(&mut graph, &runtime, 1, vec![Access::read(a.clone())], ok), (vec![TaskId(0)], 0));
        assert!(matches!(graph, CallGraph::Replaying(_)));
        let recorded = graph.finish();
        runtime.drain().unwrap();
        // Task 1 differs: recorded anew from task 0 on, and task 2's read still follows task 0's
        // write, which takes a while.
        let value = Arc::new(AtomicI64::new(0));
        let mut graph = CallGraph::new(recorded);
        let writer = Arc::clone(&value);
        let slow_write = move || {
            thread::sleep(Duration::from_millis(30));
            writer.store(7, Ordering::Relaxed);
            Ok(())
        };
        assert_eq!(issue(&mut graph, &runtime, 0, vec![Access::write(a.clone())], slow_write), (vec![], 0));
        assert_eq!(issue(&mut graph, &runtime, 1, vec![Access::read(b.clone())], ok), (vec![], 0));
        assert!(matches!(graph, CallGraph::Recording { .. }));
        let reader = Arc::clone(&value);
        let read = move || if reader.load(Ordering::Relaxed) == 7 { Ok(()) } else { Err("read before the write".to_string()) };
        assert_eq!(issue(&mut graph, &runtime, 2, vec![Access::read(a.clone())], read), (vec![TaskId(0)], 0));
        assert_eq!(runtime.drain().unwrap().edges, 1);
        // ... and the next call replays the three tasks.
        let mut graph = CallGraph::new(graph.finish());
        assert_eq!(issue(&mut graph, &runtime, 0, vec![Access::write(a.clone())], ok), (vec![], 0));
        assert_eq!(issue(&mut graph, &runtime, 1, vec![Access::read(b)], ok), (vec![], 0));
        assert_eq!(issue(&mut graph, &runtime, 2, vec![Access::read(a)], ok), (vec![TaskId(0)], 0));
        assert!(matches!(graph, CallGraph::Replaying(_)));
        runtime.drain().unwrap();
    }

    #[test]
    fn past_the_recording_limit_the_runtime_infers_knowing_the_tasks_before() {
        let mut runtime = TaskRuntime::start(RuntimeConfig::new(2, DispatchPolicy::Dynamic)).unwrap();
        let value = Arc::new(AtomicI64::new(0));
        let region = Region::bytes(Arc::as_ptr(&value) as usize, 0, 8);
        let mut graph = CallGraph::new(None);
        // Read-modify-writes of one value: each must see the previous one's result.
        for index in 0..RECORDED_TASKS + 3 {
            let value = Arc::clone(&value);
            let step = move || match value.load(Ordering::Relaxed) {
                seen if seen == index as i64 => {
                    value.store(seen + 1, Ordering::Relaxed);
                    Ok(())
                }
                seen => Err(format!("task {index} saw {seen}")),
            };
            let (after, accesses) = issue(&mut graph, &runtime, index, vec![Access::read_write(region.clone())], step);
            if index < RECORDED_TASKS {
                assert_eq!((after.len(), accesses), (usize::from(index > 0), 0));
            } else {
                assert_eq!((after.len(), accesses), (0, 1));
            }
        }
        assert!(matches!(graph, CallGraph::Inferring));
        assert!(graph.finish().is_none());
        runtime.drain().unwrap();
        assert_eq!(value.load(Ordering::Relaxed), (RECORDED_TASKS + 3) as i64);
    }
}
