//! The artifact of a workload on the cpu: a call of the workload evaluates
//! its plan on the host and runs the tasks on a task runtime set up as its
//! schedule says; any other call (a kernel) goes to the cpu artifact.
//!
//! The task runtime outlives the call: a finished call drains it and keeps
//! it, threads and all, for the next call (`idle`), so a workload called
//! once per decode step starts no thread per step. The calling thread is
//! the runtime's worker 0 (`RuntimeConfig::caller_lane`): it issues the
//! tasks, then runs tasks while it waits for the rest.

use std::sync::{Arc, Mutex, PoisonError};

use htp_api::{Argument, Artifact, Dims, PackageFile, RunError};
use htp_runtime::tasks::{DispatchPolicy, RuntimeConfig, TaskRuntime};

use super::issuer::{CallContext, RuntimeIssuer, SharedArtifact};
use super::task_graph::TaskGraph;
use crate::plan::eval::{self, Buffer, Memory, Value};
use crate::plan::Plan;
use htp_model_wsp::schedule::{Dispatch, Schedule};

/// Idle task runtimes kept per workload: one per call running at once (Python threads may
/// call one workload concurrently), up to this many.
const IDLE_RUNTIMES: usize = 4;

pub struct WorkloadArtifact {
    inner: Arc<SharedArtifact>,
    name: String,
    plan: Arc<Plan>,
    /// Per task site, its kernel's name (tasks are named `kernel[keys]`).
    labels: Vec<Arc<str>>,
    schedule: Schedule,
    /// Task runtimes of finished calls, their workers parked, for the next calls.
    idle: Mutex<Vec<TaskRuntime>>,
    /// The last call's task graph (`task_graph.rs`): taken by a call, put back when it has
    /// issued its tasks.
    graph: Mutex<Option<TaskGraph>>,
}

impl WorkloadArtifact {
    pub fn new(inner: Box<dyn Artifact>, name: String, plan: Plan, schedule: Schedule) -> Self {
        let labels = plan.tasks.iter().map(|site| Arc::from(site.kernel.as_str())).collect();
        WorkloadArtifact { inner: Arc::new(SharedArtifact(inner)), name, plan: Arc::new(plan), labels, schedule, idle: Mutex::default(), graph: Mutex::default() }
    }

    /// A runtime set up as `config` says: an idle one of an earlier call, or a new one.
    fn runtime(&self, config: RuntimeConfig) -> Result<TaskRuntime, RunError> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match idle {
            // The worker count follows HTP_NUM_THREADS, which may change between calls.
            Some(runtime) if *runtime.config() == config => {
                // A kept runtime's trace measures from its last drain: this run's times are
                // from now, the call's start (docs/wsp.md, "The trace file").
                runtime.restart_trace();
                Ok(runtime)
            }
            _ => TaskRuntime::start(config).map_err(RunError::from),
        }
    }

    /// Keeps a drained runtime for the next call.
    fn keep(&self, runtime: TaskRuntime) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_RUNTIMES {
            idle.push(runtime);
        }
    }

    fn policy(&self) -> DispatchPolicy {
        match self.schedule.dispatch {
            Dispatch::RoundRobin => DispatchPolicy::RoundRobin,
            Dispatch::Affinity => DispatchPolicy::Affinity,
            Dispatch::WorkStealing => DispatchPolicy::WorkStealing,
            Dispatch::Dynamic => DispatchPolicy::Dynamic,
        }
    }

    fn workers(&self) -> usize {
        if !self.inner.0.concurrent_runs() {
            return 1;
        }
        if self.schedule.workers > 0 {
            self.schedule.workers
        } else {
            htp_runtime::pool::default_threads()
        }
    }

    unsafe fn run_workload(&self, arguments: &[Argument]) -> Result<(), RunError> {
        let mut buffers = Vec::new();
        let mut scalars = Vec::new();
        for (argument, element) in arguments.iter().zip(self.plan.parameters.iter().chain(std::iter::repeat(&None))) {
            match (argument, element) {
                (Argument::Buffer { data, sizes, strides }, Some(element)) => {
                    buffers.push(Some(Buffer { data: *data as *mut u8, sizes: sizes.clone(), strides: strides.clone(), element: *element }));
                    scalars.push(Value::Unset);
                }
                (scalar, _) => {
                    buffers.push(None);
                    scalars.push(match scalar {
                        Argument::F32(v) => Value::Float(*v as f64),
                        Argument::F64(v) => Value::Float(*v),
                        other => other.integer().map_or(Value::Unset, Value::Int),
                    });
                }
            }
        }
        // The pipes' channels: one zeroed ring each, alive until every task
        // ran (`runtime.finish()` below), after the parameters' tensors.
        buffers.resize(self.plan.parameters.len(), None);
        let mut rings: Vec<Vec<u64>> = Vec::new();
        for channel in &self.plan.channels {
            let count: i64 = channel.sizes.iter().product();
            let mut ring = vec![0u64; ((count * channel.element.bytes + 7) / 8) as usize];
            let mut strides = Dims::from_elem(1, channel.sizes.len());
            for d in (0..channel.sizes.len().saturating_sub(1)).rev() {
                strides[d] = strides[d + 1] * channel.sizes[d + 1];
            }
            buffers.push(Some(Buffer { data: ring.as_mut_ptr() as *mut u8, sizes: Dims::from_slice(&channel.sizes), strides, element: channel.element }));
            rings.push(ring);
        }
        let memory = Arc::new(Memory { buffers });
        // Ctrl-C stops issuing (the evaluator polls) and every task's
        // kernel; one watch for the whole call, which the kernel calls
        // inside only count (no signal handler swapped per task).
        let _watch = htp_runtime::interrupt::Watch::start();
        let workers = self.workers();
        let config = RuntimeConfig::new(workers, self.policy())
            .with_window(self.schedule.window)
            .with_trace(self.schedule.trace.is_some())
            .with_caller_lane(true);
        let context = Arc::new(CallContext { artifact: self.inner.clone(), memory: memory.clone(), failure: Arc::new(Mutex::new(None)), plan: self.plan.clone() });
        // Declared after the call's memory: dropped first (on an unwind too), which waits for
        // every task.
        let mut runtime = self.runtime(config)?;
        let affinity = self.schedule.dispatch == Dispatch::Affinity;
        let issued = {
            let recorded = self.graph.lock().unwrap_or_else(PoisonError::into_inner).take();
            let mut issuer = RuntimeIssuer::new(&runtime, context.clone(), &self.labels, affinity, self.schedule.batch, recorded);
            let outcome = eval::run(&self.plan, &memory, &scalars, workers, &mut issuer);
            // What was issued runs even when issuing stopped early.
            let flushed = issuer.flush();
            *self.graph.lock().unwrap_or_else(PoisonError::into_inner) = issuer.into_graph();
            outcome.and(flushed)
        };
        let finished = runtime.drain();
        self.keep(runtime);
        // A kernel's own failure first (its kind: IndexError, ...), then the
        // workload's, then the runtime's.
        if let Some(error) = context.failure.lock().ok().and_then(|mut f| f.take()) {
            return Err(error);
        }
        issued?;
        let report = finished.map_err(RunError::from)?;
        if let (Some(path), Some(trace)) = (&self.schedule.trace, &report.trace) {
            std::fs::write(path, trace.to_chrome_json()).map_err(|e| RunError::from(format!("cannot write the trace to {path}: {e}")))?;
        }
        Ok(())
    }
}

impl Artifact for WorkloadArtifact {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), RunError> {
        if kernel == self.name {
            unsafe { self.run_workload(arguments) }
        } else {
            unsafe { self.inner.0.run(kernel, arguments) }
        }
    }

    fn files(&self) -> Vec<PackageFile> {
        self.inner.0.files()
    }

    fn runner(&self) -> Option<&'static str> {
        self.inner.0.runner()
    }

    fn concurrent_runs(&self) -> bool {
        self.inner.0.concurrent_runs()
    }
}
