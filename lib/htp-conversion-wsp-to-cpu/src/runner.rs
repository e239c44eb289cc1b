//! The artifact of a workload on the cpu: a call of the workload evaluates
//! its plan on the host and runs the tasks on a task runtime set up as its
//! schedule says; any other call (a kernel) goes to the cpu artifact.

use std::sync::{Arc, Mutex};

use htp_api::{Argument, Artifact, PackageFile, RunError};
use htp_runtime::tasks::{DispatchPolicy, RuntimeConfig, TaskRuntime};

use super::issuer::{RuntimeIssuer, SharedArtifact};
use crate::plan::eval::{self, Buffer, Memory, Value};
use crate::plan::Plan;
use htp_model_wsp::schedule::{Dispatch, Schedule};

pub struct WorkloadArtifact {
    inner: Arc<SharedArtifact>,
    name: String,
    plan: Arc<Plan>,
    schedule: Schedule,
}

impl WorkloadArtifact {
    pub fn new(inner: Box<dyn Artifact>, name: String, plan: Plan, schedule: Schedule) -> Self {
        WorkloadArtifact { inner: Arc::new(SharedArtifact(inner)), name, plan: Arc::new(plan), schedule }
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
            let mut strides = vec![1i64; channel.sizes.len()];
            for d in (0..channel.sizes.len().saturating_sub(1)).rev() {
                strides[d] = strides[d + 1] * channel.sizes[d + 1];
            }
            buffers.push(Some(Buffer { data: ring.as_mut_ptr() as *mut u8, sizes: channel.sizes.clone(), strides, element: channel.element }));
            rings.push(ring);
        }
        let memory = Arc::new(Memory { buffers });
        // Ctrl-C stops issuing (the evaluator polls) and every task's
        // kernel; one watch for the whole call, which the kernel calls
        // inside only count (no signal handler swapped per task).
        let _watch = htp_runtime::interrupt::Watch::start();
        let config = RuntimeConfig::new(self.workers(), self.policy()).with_window(self.schedule.window).with_trace(self.schedule.trace.is_some());
        let runtime = TaskRuntime::start(config).map_err(RunError::from)?;
        let failure = Arc::new(Mutex::new(None));
        let affinity = self.schedule.dispatch == Dispatch::Affinity;
        let issued = {
            let mut issuer = RuntimeIssuer::new(&runtime, memory.clone(), self.inner.clone(), failure.clone(), affinity, self.schedule.batch);
            let outcome = eval::run(&self.plan, &memory, &scalars, self.workers(), &mut issuer);
            // What was issued runs even when issuing stopped early.
            let flushed = issuer.flush();
            outcome.and(flushed)
        };
        let finished = runtime.finish();
        // A kernel's own failure first (its kind: IndexError, ...), then the
        // workload's, then the runtime's.
        if let Some(error) = failure.lock().ok().and_then(|mut f| f.take()) {
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
