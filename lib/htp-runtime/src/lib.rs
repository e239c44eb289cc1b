//! The one shared CPU runtime of HTP.
//!
//! Everything HTP executes on the host goes through this crate, so that all of it shares one set
//! of worker threads and one set of primitives instead of every backend growing its own:
//!
//! * **JIT-compiled CPU kernels** whose outer loop is proven independent call the C ABI entry
//!   point [`htp_runtime_parallel_for`] to run chunks of that loop on all cores of the
//!   [global pool](ThreadPool::global). [`symbols`] lists the C entry points by name so the JIT
//!   can register them with its execution engine.
//! * **WSP workloads** submit kernel tasks to a [`TaskRuntime`] ([`tasks`]): tasks run on the
//!   runtime's own worker threads (a task may block, so not on the global pool) once the tasks
//!   they depend on have finished — dependencies inferred from the [`Region`]s each task reads
//!   and writes (RAW, WAR, WAW), explicit `after` edges and in-order streams — placed by a
//!   [`DispatchPolicy`] (round-robin, affinity, work stealing, one shared queue), with at most
//!   a window of tasks in flight.
//! * **Later runtimes** build on the same pieces: the CSP process runtime on bounded
//!   [`channel`](fn@channel)s between processes, and the AIE functional simulator on the pool and
//!   channels.
//! * [`Trace`] records which task ran on which lane and when, and exports it as Chrome
//!   trace-event JSON (`chrome://tracing`, Perfetto) to see load balance and idle time.
//!
//! The crate depends on `std` only: it is linked into every HTP tool and into JIT processes, so
//! it must be cheap to build and must not drag a second runtime (rayon, tokio) along.
//!
//! Modules, one job each: [`pool`] (threads), [`ffi`] (C ABI), [`channel`](mod@channel)
//! (bounded MPMC queue), [`tasks`] (the WSP task runtime), [`trace`] (timelines; drawn as PNG by
//! the `htp.trace_plot` Python module).

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod channel;
pub mod csp;
pub mod ffi;
pub mod interrupt;
mod iter_space;
pub mod pool;
pub mod tasks;
pub mod trace;

pub use channel::{channel, Receiver, SendError, Sender, TryRecvError, TrySendError};
pub use ffi::{htp_runtime_num_threads, htp_runtime_parallel_for, symbols, LoopBody};
pub use pool::{ThreadPool, NUM_THREADS_ENV};
pub use tasks::{
    Access, AccessMode, DependencyRecorder, DispatchPolicy, Region, RegionDims, RunReport, RuntimeConfig, TaskBody,
    TaskId, TaskRuntime, TaskSpec,
};
pub use trace::{Span, Trace, TraceEvent};
