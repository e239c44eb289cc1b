//! The artifact of a CSP program on the cpu: a call plays the program's
//! protocol on the call's shapes and scalars first (a network that would
//! block, or leave tiles behind, is an error before anything runs), then
//! runs every process instance on a thread of its own, each a call of its
//! compiled function with the program's arguments, the network and its
//! replica index. A deadlock the check could not foresee (a protocol too
//! long to play) stops the network: the call fails naming each blocked
//! process and channel, it never hangs.

use htp_api::{Argument, Artifact, Dims, PackageFile, RunError, RunErrorKind};
use htp_runtime::csp::{ChannelSpec, Network, Role, Stopped};

use super::outline::ProcessFunction;
use htp_model_csp::protocol::eval::Inputs;
use htp_model_csp::protocol::Protocol;

pub struct ProgramArtifact {
    inner: Box<dyn Artifact>,
    name: String,
    protocol: Protocol,
    processes: Vec<ProcessFunction>,
}

/// The inner artifact, shared by the process threads (the cpu's runs may
/// run at once: `Artifact::concurrent_runs`).
struct Shared<'a>(&'a dyn Artifact);
unsafe impl Send for Shared<'_> {}
unsafe impl Sync for Shared<'_> {}

/// The arguments, shared by the process threads (raw pointers into the
/// caller's arrays, which outlive the call).
struct Arguments(Vec<Argument>);
unsafe impl Send for Arguments {}
unsafe impl Sync for Arguments {}

impl ProgramArtifact {
    pub fn new(inner: Box<dyn Artifact>, name: String, protocol: Protocol, processes: Vec<ProcessFunction>) -> Self {
        ProgramArtifact { inner, name, protocol, processes }
    }

    /// What the call's arguments tell the protocol: shapes and integers.
    fn inputs(arguments: &[Argument]) -> Inputs {
        let mut inputs = Inputs::default();
        for argument in arguments {
            inputs.scalars.push(argument.integer());
            inputs.dims.push(match argument {
                Argument::Buffer { sizes, .. } => sizes.iter().map(|&s| Some(s)).collect(),
                _ => vec![],
            });
        }
        inputs
    }

    fn specs(&self) -> Vec<ChannelSpec> {
        self.protocol.channels.iter().map(|c| ChannelSpec { name: c.name.clone(), depth: c.depth, bytes: c.bytes, count: c.count }).collect()
    }

    /// Each channel's ring as the processes' memref argument
    /// (`(count * depth * rows) x cols`, row-major).
    fn rings(&self, network: &Network) -> Vec<Argument> {
        self.protocol
            .channels
            .iter()
            .enumerate()
            .map(|(i, c)| Argument::Buffer {
                data: network.ring(i).unwrap_or(std::ptr::null_mut()) as *mut std::ffi::c_void,
                sizes: Dims::from_slice(&[(c.count * c.depth.max(1) * c.rows) as i64, c.cols as i64]),
                strides: Dims::from_slice(&[c.cols as i64, 1]),
            })
            .collect()
    }

    unsafe fn run_program(&self, arguments: &[Argument]) -> Result<(), RunError> {
        htp_model_csp::protocol::check_call(&self.protocol, &Self::inputs(arguments), &self.name).map_err(|message| RunError::new(RunErrorKind::Failed, message))?;
        if !self.inner.concurrent_runs() {
            return Err(RunError::from("error: a CSP program runs its processes at once; this target's code cannot".to_string()));
        }
        let instances = self.protocol.instances();
        // HTP_CSP_TRACE=<file>: the run's timeline as Chrome trace JSON
        // (drawn by `python -m htp.trace_plot`), one lane per process.
        let trace_path = std::env::var_os("HTP_CSP_TRACE").filter(|p| !p.is_empty());
        let mut network = Network::try_new(self.specs(), instances.len()).map_err(|why| RunError::from(format!("error: {why}")))?;
        if trace_path.is_some() {
            network = network.traced(instances.iter().map(|&i| self.protocol.instance_label(i)).collect());
        }
        let handle = &network as *const Network as i64;
        let inner = Shared(self.inner.as_ref());
        let mut shared = Arguments(arguments.to_vec());
        shared.0.extend(self.rings(&network));
        let _watch = htp_runtime::interrupt::Watch::start();
        let outcomes: Vec<Result<(), RunError>> = std::thread::scope(|scope| {
            let threads: Vec<_> = instances
                .iter()
                .enumerate()
                .map(|(id, &(process, replica))| {
                    let (inner, shared, network) = (&inner, &shared, &network);
                    let symbol = self.processes.get(process).map(|p| p.symbol.clone()).unwrap_or_default();
                    scope.spawn(move || {
                        let _process = network.enter(id);
                        let mut call = shared.0.clone();
                        call.push(Argument::I64(handle));
                        call.push(Argument::I64(replica as i64));
                        unsafe { inner.0.run(&symbol, &call) }
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap_or_else(|_| Err(RunError::from("error: a process thread panicked".to_string())))).collect()
        });
        match network.stopped() {
            Some(Stopped::Interrupted) => {
                return Err(RunError::new(RunErrorKind::Interrupted, format!("error: the call of {} was interrupted (SIGINT)", self.name)))
            }
            Some(Stopped::Deadlock(blocked)) => return Err(self.deadlock(&instances, &blocked)),
            Some(Stopped::SharedEnd(channel, role, first, second)) => {
                let who = |id: usize| instances.get(id).map(|&i| self.protocol.instance_name(i)).unwrap_or_else(|| format!("process #{id}"));
                let what = if role == Role::Send { "sent on" } else { "received from" };
                return Err(RunError::from(format!(
                    "error: {} and {} both {what} channel '{}': a channel has one sending and one receiving process",
                    who(first),
                    who(second),
                    self.protocol.flat_name(channel)
                )));
            }
            None => {}
        }
        if let (Some(path), Some(trace)) = (&trace_path, network.trace()) {
            std::fs::write(path, trace.to_chrome_json())
                .map_err(|e| RunError::from(format!("error: cannot write the trace to {}: {e}", std::path::Path::new(path).display())))?;
        }
        outcomes.into_iter().collect()
    }

    /// The run-time deadlock, named in the program's terms.
    fn deadlock(&self, instances: &[(usize, usize)], blocked: &[(usize, usize, Role)]) -> RunError {
        let lines: Vec<String> = blocked
            .iter()
            .map(|&(id, channel, role)| {
                let who = instances.get(id).map(|&i| self.protocol.instance_name(i)).unwrap_or_else(|| format!("process #{id}"));
                let what = if role == Role::Send { "send on" } else { "receive from" };
                format!("  {who} waits to {what} '{}'", self.protocol.flat_name(channel))
            })
            .collect();
        RunError::from(format!("error: deadlock in {}: every running process waits on a channel:\n{}", self.name, lines.join("\n")))
    }
}

impl Artifact for ProgramArtifact {
    unsafe fn run(&self, kernel: &str, arguments: &[Argument]) -> Result<(), RunError> {
        if kernel == self.name {
            unsafe { self.run_program(arguments) }
        } else {
            unsafe { self.inner.run(kernel, arguments) }
        }
    }

    fn files(&self) -> Vec<PackageFile> {
        self.inner.files()
    }

    fn runner(&self) -> Option<&'static str> {
        self.inner.runner()
    }

    fn concurrent_runs(&self) -> bool {
        self.inner.concurrent_runs()
    }
}
