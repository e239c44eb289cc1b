//! The protocol of a CSP program: for every process, which channel
//! operations it performs, in which order, under which loops — a small
//! program of its own over integers (`extract.rs` builds it from the IR),
//! kept after the IR is lowered so that it can be run again on a call's
//! shapes and scalars (`eval.rs`), and then played as tokens over the
//! channels' declared depths (`simulate.rs`).
//!
//! What this proves (docs/csp.md): each channel has one sending and one
//! receiving process; and, once the loop bounds and indices are known (at
//! compile time when they are constants, at the call otherwise), that the
//! network with its depths neither blocks forever nor ends with tiles nobody
//! receives. That holds for every interleaving: with one sender and one
//! receiver per channel, a process that can go ahead stays able to until it
//! does (a Kahn network), so one greedy play decides it. Control that
//! depends on tensor data is refused unless both branches of the `if`
//! perform the same channel operations.

use htp_ir::arith::{IntBinary, IntPredicate};

pub mod eval;
pub mod extract;
pub mod report;
pub mod simulate;

/// Plays `protocol` on a call's arguments (`inputs`: every shape and
/// integer scalar) before anything runs, for any target: `Ok(true)` when
/// the network is proven to finish, `Ok(false)` when it is too long to play
/// (the target's own run-time detection is then all there is), and the
/// problem (unbalanced channels, a deadlock) as "file:line:col: error: ..."
/// otherwise. `program` names the program for a protocol that cannot be
/// played on these arguments.
pub fn check_call(protocol: &Protocol, inputs: &eval::Inputs, program: &str) -> Result<bool, String> {
    match simulate::check(protocol, inputs) {
        Ok(simulate::Outcome::Proven { .. }) => Ok(true),
        Ok(simulate::Outcome::TooLong) => Ok(false),
        Ok(simulate::Outcome::Later) => Err(format!("error: the protocol of {program} could not be played on the call's arguments")),
        Err(problem) => {
            let (site, message) = report::describe(protocol, &problem);
            let at = protocol.sites.get(site).cloned().unwrap_or_else(|| "<unknown>".into());
            Err(format!("{at}: error: {message}"))
        }
    }
}

/// A register of the protocol program (one per integer value of the IR).
pub type Reg = usize;

/// The value a register takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const(i64),
    /// Scalar argument `i` of the program (an integer).
    Scalar(usize),
    /// Dimension `dim` of tensor argument `i`.
    Dim(usize, usize),
    /// The replica index of the process.
    Replica,
    /// Computed from tensor data: never known before the process runs.
    Data,
    Binary(IntBinary, Reg, Reg),
    Compare(IntPredicate, Reg, Reg),
    Select(Reg, Reg, Reg),
    /// The same value (a cast).
    Copy(Reg),
}

/// What a process does to a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Put an element in (waits for a free slot).
    Send,
    /// Take an element out, its slot free at once (waits for an element).
    Recv,
    /// Take an element and hold its slot (`csp.consume`'s start; waits for an element) ...
    Acquire,
    /// ... and free the slot (its end; never waits).
    Release,
}

impl Op {
    /// Whether the op is the sending end's.
    pub fn sends(self) -> bool {
        self == Op::Send
    }
}

/// One statement of a process's protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Let(Reg, Expr),
    /// `for iv in range(lower, upper, step)` carrying `carried` (argument,
    /// initial value) to `yields`, whose last values are `results`.
    For { iv: Reg, lower: Reg, upper: Reg, step: Reg, carried: Vec<(Reg, Reg)>, yields: Vec<Reg>, results: Vec<Reg>, body: Vec<Stmt>, site: usize },
    /// `if condition` with each branch's yields becoming `results`.
    If { condition: Reg, then: Vec<Stmt>, then_yields: Vec<Reg>, otherwise: Vec<Stmt>, else_yields: Vec<Reg>, results: Vec<Reg>, site: usize },
    /// An operation on channel `channel` of the program, element `index` of an array.
    Event { channel: usize, index: Option<Reg>, op: Op, site: usize },
    /// A loop whose trip count nothing here can know (`while`) around
    /// channel operations: the protocol cannot be played.
    Opaque { site: usize, why: String },
}

impl Stmt {
    /// Whether the statement performs channel operations.
    pub fn has_events(&self) -> bool {
        match self {
            Stmt::Let(..) => false,
            Stmt::Event { .. } | Stmt::Opaque { .. } => true,
            Stmt::For { body, .. } => body.iter().any(Stmt::has_events),
            Stmt::If { then, otherwise, .. } => then.iter().chain(otherwise).any(Stmt::has_events),
        }
    }
}

/// A channel (or array of channels) of the program.
#[derive(Clone, Debug)]
pub struct Channel {
    pub name: String,
    pub depth: usize,
    pub count: usize,
    /// The element's size in bytes, rows and columns (a tile).
    pub bytes: usize,
    pub rows: usize,
    pub cols: usize,
    /// Where the user made it.
    pub site: usize,
}

/// A process of the program.
#[derive(Clone, Debug)]
pub struct Process {
    pub name: String,
    pub replicas: usize,
    pub body: Vec<Stmt>,
    pub site: usize,
}

/// The whole protocol: channels, processes, registers, and the user's
/// file:line:col of every site a diagnostic can name.
#[derive(Clone, Debug, Default)]
pub struct Protocol {
    pub channels: Vec<Channel>,
    pub processes: Vec<Process>,
    pub registers: usize,
    pub sites: Vec<String>,
}

impl Protocol {
    /// The flat channel `base + index` of channel `channel` (arrays laid out in order).
    pub fn base(&self, channel: usize) -> usize {
        self.channels[..channel].iter().map(|c| c.count).sum()
    }

    /// How many channels there are, arrays counted element by element.
    pub fn flat_channels(&self) -> usize {
        self.channels.iter().map(|c| c.count).sum()
    }

    /// The user's name of flat channel `flat`: `a`, or `a[2]` in an array.
    pub fn flat_name(&self, flat: usize) -> String {
        let mut base = 0;
        for channel in &self.channels {
            if flat < base + channel.count {
                return if channel.count == 1 { channel.name.clone() } else { format!("{}[{}]", channel.name, flat - base) };
            }
            base += channel.count;
        }
        format!("channel #{flat}")
    }

    /// The flat channel's declaration.
    pub fn channel_of(&self, flat: usize) -> Option<&Channel> {
        let mut base = 0;
        for channel in &self.channels {
            if flat < base + channel.count {
                return Some(channel);
            }
            base += channel.count;
        }
        None
    }

    /// Every process instance: (process, replica).
    pub fn instances(&self) -> Vec<(usize, usize)> {
        self.processes.iter().enumerate().flat_map(|(p, process)| (0..process.replicas).map(move |r| (p, r))).collect()
    }

    /// A trace lane's name for instance `(process, replica)`: `loader`, `worker[2]`.
    pub fn instance_label(&self, (process, replica): (usize, usize)) -> String {
        let p = &self.processes[process];
        if p.replicas == 1 {
            p.name.clone()
        } else {
            format!("{}[{replica}]", p.name)
        }
    }

    /// How a diagnostic names instance `(process, replica)`.
    pub fn instance_name(&self, (process, replica): (usize, usize)) -> String {
        let p = &self.processes[process];
        if p.replicas == 1 {
            format!("process '{}'", p.name)
        } else {
            format!("replica {replica} of process '{}'", p.name)
        }
    }
}
