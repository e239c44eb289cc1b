//! Issues a workload's tasks to `htp-runtime`'s task runtime: each task's
//! kernel arguments (views become strided buffers into the call's arrays),
//! its accesses (what dependency inference reads), guards, order, stream
//! and placement.

use std::sync::{Arc, Mutex};

use htp_api::{Argument, Artifact, RunError, RunErrorKind};
use htp_runtime::tasks::{Access, Region, RegionDims, TaskId, TaskRuntime, TaskSpec};

use super::staging;
use super::task_graph::{CallGraph, TaskGraph};
use crate::plan::eval::{Guard, Issued, Issuer, Memory, Value, View};
use crate::plan::{Element, Mode, Num, Parameter, Plan};

/// The target's artifact, shared by the tasks. It is called from worker
/// threads only when it says it may be (`Artifact::concurrent_runs`);
/// otherwise the runner uses one worker, and the artifact (JIT code or a
/// package runner) is only moved to that thread.
pub struct SharedArtifact(pub Box<dyn Artifact>);

unsafe impl Send for SharedArtifact {}
unsafe impl Sync for SharedArtifact {}

/// What every task of one call shares, behind one `Arc` per task: the target's artifact, the
/// call's tensors, its first failure, the plan (for the tasks' kernels and lines).
pub struct CallContext {
    pub artifact: Arc<SharedArtifact>,
    pub memory: Arc<Memory>,
    pub failure: FirstFailure,
    pub plan: Arc<Plan>,
}

/// One task's call: its site, keys (for messages) and kernel arguments — raw pointers into the
/// caller's arrays, which outlive the call (the runner waits for every task) — and, rarely, its
/// guards and the views among them that are not contiguous, which the task stages. With its
/// context's `Arc`, small enough (56 bytes) to be kept inline in the runtime's task node.
struct TaskCall {
    site: usize,
    keys: Box<[i64]>,
    arguments: Box<[Argument]>,
    rare: Option<Box<GuardsAndStaging>>,
}

// The task's closure (this and its context's `Arc`) fits the runtime's inline body (64 bytes): no
// allocation of its own per task.
const _: () = assert!(std::mem::size_of::<TaskCall>() + std::mem::size_of::<Arc<CallContext>>() <= 64);

struct GuardsAndStaging {
    guards: Vec<Guard>,
    staged: Vec<Staged>,
}

unsafe impl Send for TaskCall {}

/// The first failure of a run, kept with its kind (an `IndexError` in a
/// kernel stays one).
pub type FirstFailure = Arc<Mutex<Option<RunError>>>;

pub struct RuntimeIssuer<'r> {
    pub runtime: &'r TaskRuntime,
    pub context: Arc<CallContext>,
    /// Per task site, its kernel's name: a task is named `kernel[keys]` when a trace or an
    /// error needs it.
    labels: &'r [Arc<str>],
    /// Affinity without a placement: the task's first key names its worker.
    pub place_by_first_key: bool,
    /// Tasks issued and not yet handed to the runtime (the timing policy).
    pending: Vec<TaskSpec>,
    batch: usize,
    /// Tasks issued so far: the runtime numbers tasks in submission order,
    /// and pending ones are submitted in issue order, so the n-th issued
    /// task is `TaskId(n)`.
    issued: usize,
    /// The tasks' edges: the last call's, while this one issues the same accesses.
    graph: CallGraph,
}

impl<'r> RuntimeIssuer<'r> {
    pub fn new(runtime: &'r TaskRuntime, context: Arc<CallContext>, labels: &'r [Arc<str>], place_by_first_key: bool, batch: usize, recorded: Option<TaskGraph>) -> Self {
        RuntimeIssuer { runtime, context, labels, place_by_first_key, pending: Vec::new(), batch: batch.max(1), issued: 0, graph: CallGraph::new(recorded) }
    }

    /// The task graph the next call starts from.
    pub fn into_graph(self) -> Option<TaskGraph> {
        self.graph.finish()
    }

    /// Issues `spec`, whose task makes `accesses`: at once, or held until a
    /// batch is full (timing), then submitted with the rest in issue order.
    /// Its handle is its issue number.
    fn submit(&mut self, mut spec: TaskSpec, accesses: Vec<Access>) -> Result<usize, RunError> {
        let (runtime, pending) = (self.runtime, &mut self.pending);
        let flush_pending = || runtime.submit_batch(std::mem::take(pending)).map(drop);
        self.graph.place(self.issued, &mut spec, accesses, runtime, flush_pending).map_err(|message| self.failure_or(message))?;
        self.issued += 1;
        if self.batch == 1 {
            self.runtime.submit(spec).map_err(|message| self.failure_or(message))?;
        } else {
            self.pending.push(spec);
            if self.pending.len() >= self.batch {
                self.flush()?;
            }
        }
        Ok(self.issued - 1)
    }

    /// Hands every held task to the runtime, as one batch.
    pub fn flush(&mut self) -> Result<(), RunError> {
        let pending = std::mem::take(&mut self.pending);
        self.runtime.submit_batch(pending).map(drop).map_err(|message| self.failure_or(message))
    }

    /// A kernel's own failure (with its kind) if a task failed, else the runtime's `message`.
    fn failure_or(&self, message: String) -> RunError {
        self.context.failure.lock().ok().and_then(|f| f.clone()).unwrap_or_else(|| RunError::from(message))
    }

    fn id(handle: usize) -> TaskId {
        TaskId(handle as u64)
    }

    /// The bytes `view` covers, for dependency inference; `None` for a view of a workload input,
    /// which orders nothing ([`Plan::read_only`]).
    fn region(&self, view: &View, element: Element) -> Option<Region> {
        if self.context.plan.read_only.get(view.parameter).copied().unwrap_or(false) {
            return None;
        }
        let buffer = self.context.memory.buffers.get(view.parameter)?.as_ref()?;
        Some(Region {
            buffer: buffer.data as usize,
            offset: view.offset * element.bytes,
            dims: view.sizes.iter().zip(&view.strides).map(|(s, t)| (*s, t * element.bytes)).collect(),
            element_bytes: element.bytes,
        })
    }
}

/// `value` as the scalar parameter of type `num`.
fn scalar(value: &Value, num: Num) -> Result<Argument, String> {
    let (int, float) = match value {
        Value::Int(v) => (*v, *v as f64),
        Value::Float(f) => (*f as i64, *f),
        _ => return Err("expected a scalar".into()),
    };
    Ok(match num {
        Num::Int(1) => Argument::Bool(int & 1 != 0),
        Num::Int(8) => Argument::I8(int as i8),
        Num::Int(16) => Argument::I16(int as i16),
        Num::Int(32) => Argument::I32(int as i32),
        Num::Int(_) => Argument::I64(int),
        Num::Float(32) => Argument::F32(float as f32),
        Num::Float(64) => Argument::F64(float),
        Num::Float(16) => return Err("f16 scalars cannot be passed to tasks yet: pass an f32 and cast in the kernel".into()),
        Num::Float(_) => {
            // bf16: round to nearest even from f32.
            let bits = (float as f32).to_bits();
            Argument::BF16(((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16)
        }
    })
}

impl Issuer for RuntimeIssuer<'_> {
    fn task(&mut self, plan: &Plan, task: Issued) -> Result<usize, RunError> {
        let site = &plan.tasks[task.site];
        let invalid = |message: String| RunError::new(RunErrorKind::InvalidValue, format!("{}: error: task '{}': {message}", site.at, site.kernel));
        let mut arguments = Vec::with_capacity(task.arguments.len());
        let mut staged = Vec::new();
        let mut accesses = Vec::with_capacity(task.arguments.len() + task.guards.len());
        for (index, ((value, parameter), mode)) in task.arguments.into_iter().zip(&site.parameters).zip(&site.access).enumerate() {
            match (value, parameter) {
                (Value::View(view), Parameter::Tensor { element, dims, column_major }) => {
                    if view.sizes.len() != dims.len() {
                        return Err(invalid(format!("argument #{index} is a rank-{} view, the kernel takes a rank-{} tensor", view.sizes.len(), dims.len())));
                    }
                    if let Some((d, (want, got))) = dims.iter().zip(&view.sizes).enumerate().find(|(_, (want, got))| want.is_some_and(|w| w != **got)) {
                        return Err(invalid(format!(
                            "argument #{index} holds {got} elements in dimension {d}, the kernel takes {} (a view at a ragged edge is smaller: make the kernel's dimension symbolic)",
                            want.unwrap_or(0)
                        )));
                    }
                    let buffer = self.context.memory.buffers.get(view.parameter).and_then(|b| b.as_ref()).ok_or_else(|| invalid(format!("argument #{index} is not a tensor of the call")))?;
                    let data = unsafe { buffer.data.offset((view.offset * element.bytes) as isize) };
                    let empty = view.sizes.contains(&0);
                    // A kernel reads its tensors as dense arrays in their
                    // declared order (its code may flatten them): a view
                    // with gaps is handed over as a dense copy, written
                    // back after.
                    if !empty && !staging::is_dense(&view.sizes, &view.strides, *column_major) {
                        let strided = staging::StridedView::new(data, &view.sizes, &view.strides, element.bytes as usize, *column_major);
                        staged.push(Staged { argument: arguments.len(), view: strided, writes_back: !matches!(mode, Mode::In | Mode::None) });
                    }
                    if let (false, Some(region)) = (empty, self.region(&view, *element)) {
                        match mode {
                            Mode::In => accesses.push(Access::read(region)),
                            Mode::Out => accesses.push(Access::write(region)),
                            Mode::InOut => accesses.push(Access::read_write(region)),
                            Mode::None => {}
                        }
                    }
                    arguments.push(Argument::Buffer { data: data as *mut _, sizes: view.sizes.clone(), strides: view.strides.clone() });
                }
                (value, Parameter::Scalar(num)) => arguments.push(scalar(&value, *num).map_err(|e| invalid(format!("argument #{index}: {e}")))?),
                _ => return Err(invalid(format!("argument #{index} does not match the kernel's parameter"))),
            }
        }
        for guard in &task.guards {
            if let Some(region) = self.region(&guard.element.view, guard.element.element) {
                accesses.push(Access::read(Region { dims: RegionDims::from_slice(&[(1, region.element_bytes)]), ..region }));
            }
        }
        let worker = task.worker.or_else(|| self.place_by_first_key.then(|| task.keys.first().copied().unwrap_or(0)));
        let rare = (!task.guards.is_empty() || !staged.is_empty()).then(|| Box::new(GuardsAndStaging { guards: task.guards, staged }));
        let call = TaskCall { site: task.site, keys: task.keys.clone().into_boxed_slice(), arguments: arguments.into_boxed_slice(), rare };
        let context = Arc::clone(&self.context);
        // Fields set in place: a spec (its body inline) is a few hundred bytes to move.
        let mut spec = TaskSpec::new(String::new(), move || run_task(&context, call));
        spec.label = Some(Arc::clone(&self.labels[task.site]));
        spec.keys = task.keys;
        spec.after = task.after.iter().map(|handle| Self::id(*handle)).collect();
        spec.stream = task.stream.map(|stream| stream as u64);
        spec.worker = worker.map(|worker| worker.rem_euclid(i64::MAX) as usize);
        self.submit(spec, accesses)
    }

    fn barrier(&mut self, after: Vec<usize>) -> Result<usize, RunError> {
        let mut spec = TaskSpec::new("barrier", || Ok(()));
        spec.after = after.iter().map(|h| Self::id(*h)).collect();
        if self.place_by_first_key {
            // Affinity places every task; a barrier does no work anywhere.
            spec = spec.worker(0);
        }
        self.submit(spec, Vec::new())
    }
}

/// A task argument that is a view with gaps: the task runs its kernel on a
/// row-major copy (`staging`) and, when the kernel may write it, copies it back.
struct Staged {
    argument: usize,
    view: staging::StridedView,
    writes_back: bool,
}

/// One task's run: its guards, then the kernel. A kernel's failure keeps its kind and its line in
/// the kernel, and names the task (its `wsp.task` line and its keys: which call failed).
fn run_task(context: &CallContext, call: TaskCall) -> Result<(), String> {
    let TaskCall { site, keys, mut arguments, rare } = call;
    let (guards, staged) = rare.as_deref().map_or((&[][..], &[][..]), |rare| (&rare.guards[..], &rare.staged[..]));
    if guards.iter().any(|guard| !guard.holds(&context.memory)) {
        return Ok(());
    }
    let site = &context.plan.tasks[site];
    // Copied in whole, outputs too: what the kernel does not write keeps its value.
    let mut copies: Vec<staging::RowMajorCopy> = staged.iter().map(|s| unsafe { staging::RowMajorCopy::gather(&s.view) }).collect();
    for (s, copy) in staged.iter().zip(&mut copies) {
        arguments[s.argument] = Argument::Buffer { data: copy.data() as *mut _, sizes: s.view.argument_sizes().into(), strides: s.view.dense_strides().into() };
    }
    let outcome = unsafe { context.artifact.0.run(&site.kernel, &arguments) };
    if outcome.is_ok() {
        for (s, copy) in staged.iter().zip(&copies) {
            if s.writes_back {
                unsafe { copy.scatter(&s.view) };
            }
        }
    }
    match outcome {
        Ok(()) => Ok(()),
        Err(mut error) => {
            let keys = keys.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",");
            error.message = format!("{}\n{}: note: in the task {}[{keys}] (this wsp.task, at those keys)", error.message, site.at, site.kernel);
            let message = error.message.clone();
            if let Ok(mut first) = context.failure.lock() {
                first.get_or_insert(error);
            }
            Err(message)
        }
    }
}
