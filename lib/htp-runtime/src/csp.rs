//! The CSP process runtime: the bounded channels of one run of a CSP
//! program, with the hardware's semantics (a full channel blocks its
//! sender, an empty one its receiver), and the one thing a plain channel
//! cannot know — that every process still running is blocked, which is a
//! deadlock. Then every blocked operation, and every later one, returns
//! [`Stopped`] instead of waiting forever, and [`Network::stopped`] names
//! each blocked process and its channel.
//!
//! Elements are fixed-size byte blocks (a tile) carried by this crate's
//! bounded [`channel`](crate::channel()): a send copies the element into a
//! slot taken from the channel's free list, a receive copies it out and
//! returns the slot. Processes are identified by a number the caller gives
//! each thread ([`Network::enter`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::channel::{channel, Receiver, Sender, TryRecvError, TrySendError};

/// One channel of a program: what diagnostics call it, how many elements
/// it holds, how many bytes an element is.
#[derive(Clone, Debug)]
pub struct ChannelSpec {
    /// The channel's name in the program (an array's element is `name[i]`).
    pub name: String,
    /// How many elements it holds before its sender blocks (at least 1).
    pub depth: usize,
    /// The size of one element.
    pub bytes: usize,
}

/// What a process waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Room in the channel, to send.
    Send,
    /// An element in the channel, to receive.
    Recv,
}

/// Why the network stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Every running process was blocked: each (process, channel, role).
    Deadlock(Vec<(usize, usize, Role)>),
    /// SIGINT arrived while a process waited.
    Interrupted,
}

struct Channel {
    data: (Sender<Box<[u8]>>, Receiver<Box<[u8]>>),
    free: (Sender<Box<[u8]>>, Receiver<Box<[u8]>>),
    spec: ChannelSpec,
}

struct Gate {
    /// What each process waits for now, if it waits.
    waiting: Vec<Option<(usize, Role)>>,
    /// Processes that have not finished.
    live: usize,
    stopped: Option<Stopped>,
}

/// The channels of one run and the processes using them.
pub struct Network {
    channels: Vec<Channel>,
    gate: Mutex<Gate>,
    changed: Condvar,
    /// Processes inside `wait` (read without the gate, so that a send or
    /// receive nobody waits for takes no lock).
    waiters: AtomicUsize,
}

thread_local! {
    /// The process this thread runs (see [`Network::enter`]).
    static PROCESS: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// How often a waiting process looks for SIGINT.
const POLL: Duration = Duration::from_millis(50);

impl Network {
    /// A network of `channels` used by `processes` processes.
    pub fn new(channels: Vec<ChannelSpec>, processes: usize) -> Network {
        let channels = channels
            .into_iter()
            .map(|spec| {
                let depth = spec.depth.max(1);
                let free = channel(depth + 1);
                for _ in 0..depth {
                    let _ = free.0.try_send(vec![0u8; spec.bytes].into_boxed_slice());
                }
                Channel { data: channel(depth), free, spec }
            })
            .collect();
        Network {
            channels,
            gate: Mutex::new(Gate { waiting: vec![None; processes], live: processes, stopped: None }),
            changed: Condvar::new(),
            waiters: AtomicUsize::new(0),
        }
    }

    /// The channels' specs, by index.
    pub fn spec(&self, channel: usize) -> Option<&ChannelSpec> {
        self.channels.get(channel).map(|c| &c.spec)
    }

    /// Makes this thread process `process` until the guard drops, which
    /// finishes the process (the others no longer wait for it).
    pub fn enter(&self, process: usize) -> ProcessGuard<'_> {
        PROCESS.with(|p| p.set(process));
        ProcessGuard { network: self, process }
    }

    fn lock(&self) -> MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why the network stopped, if it did.
    pub fn stopped(&self) -> Option<Stopped> {
        self.lock().stopped.clone()
    }

    /// Sends the element at `source` (the channel's element size) on
    /// `channel`, blocking while it is full.
    ///
    /// # Safety
    /// `source` must be readable for the channel's element size.
    pub unsafe fn send(&self, channel: usize, source: *const u8) -> Result<(), Stopped> {
        let Some(c) = self.channels.get(channel) else { return Err(Stopped::Deadlock(vec![])) };
        let mut slot = c.free.1.try_recv().unwrap_or_else(|_| vec![0u8; c.spec.bytes].into_boxed_slice());
        unsafe { std::ptr::copy_nonoverlapping(source, slot.as_mut_ptr(), c.spec.bytes) };
        loop {
            match c.data.0.try_send(slot) {
                Ok(()) => {
                    self.notify();
                    return Ok(());
                }
                Err(TrySendError::Full(back)) | Err(TrySendError::Disconnected(back)) => {
                    slot = back;
                    self.wait(channel, Role::Send)?;
                }
            }
        }
    }

    /// Receives the next element of `channel` into `dest` (the channel's
    /// element size), blocking while it is empty.
    ///
    /// # Safety
    /// `dest` must be writable for the channel's element size.
    pub unsafe fn recv(&self, channel: usize, dest: *mut u8) -> Result<(), Stopped> {
        let Some(c) = self.channels.get(channel) else { return Err(Stopped::Deadlock(vec![])) };
        loop {
            match c.data.1.try_recv() {
                Ok(slot) => {
                    unsafe { std::ptr::copy_nonoverlapping(slot.as_ptr(), dest, c.spec.bytes) };
                    let _ = c.free.0.try_send(slot);
                    self.notify();
                    return Ok(());
                }
                Err(TryRecvError::Empty) | Err(TryRecvError::Disconnected) => self.wait(channel, Role::Recv)?,
            }
        }
    }

    /// Whether `role` on `channel` can go ahead now.
    fn ready(&self, channel: usize, role: Role) -> bool {
        let c = &self.channels[channel];
        match role {
            Role::Send => c.data.0.len() < c.data.0.capacity(),
            Role::Recv => !c.data.1.is_empty(),
        }
    }

    /// Wakes the waiting processes after a channel changed.
    fn notify(&self) {
        if self.waiters.load(Ordering::SeqCst) > 0 {
            let _gate = self.lock();
            self.changed.notify_all();
        }
    }

    /// Blocks this process until `role` on `channel` may be ready again,
    /// or the network stopped.
    fn wait(&self, channel: usize, role: Role) -> Result<(), Stopped> {
        let process = PROCESS.with(|p| p.get());
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let mut gate = self.lock();
        let outcome = loop {
            if let Some(stopped) = &gate.stopped {
                break Err(stopped.clone());
            }
            if self.ready(channel, role) {
                break Ok(());
            }
            if let Some(waiting) = gate.waiting.get_mut(process) {
                *waiting = Some((channel, role));
            }
            if let Some(deadlock) = self.deadlock(&gate) {
                gate.stopped = Some(deadlock);
                self.changed.notify_all();
                continue;
            }
            if crate::interrupt::requested() {
                gate.stopped = Some(Stopped::Interrupted);
                self.changed.notify_all();
                continue;
            }
            gate = self.changed.wait_timeout(gate, POLL).unwrap_or_else(PoisonError::into_inner).0;
        };
        if let Some(waiting) = gate.waiting.get_mut(process) {
            *waiting = None;
        }
        drop(gate);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        outcome
    }

    /// A deadlock, if every live process waits for something that is not
    /// ready (checked under the gate, so no process can change a channel's
    /// readiness unseen: it would have to notify through the gate first).
    fn deadlock(&self, gate: &Gate) -> Option<Stopped> {
        let waiting: Vec<(usize, usize, Role)> = gate.waiting.iter().enumerate().filter_map(|(p, w)| w.map(|(c, r)| (p, c, r))).collect();
        let all_blocked = waiting.len() == gate.live && waiting.iter().all(|&(_, c, r)| !self.ready(c, r));
        all_blocked.then_some(Stopped::Deadlock(waiting))
    }

    fn finish(&self, _process: usize) {
        let mut gate = self.lock();
        gate.live = gate.live.saturating_sub(1);
        if gate.stopped.is_none() && gate.live > 0 {
            if let Some(deadlock) = self.deadlock(&gate) {
                gate.stopped = Some(deadlock);
            }
        }
        self.changed.notify_all();
    }
}

/// A thread's time as a process of a [`Network`].
pub struct ProcessGuard<'n> {
    network: &'n Network,
    process: usize,
}

impl Drop for ProcessGuard<'_> {
    fn drop(&mut self) {
        PROCESS.with(|p| p.set(usize::MAX));
        self.network.finish(self.process);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, depth: usize) -> ChannelSpec {
        ChannelSpec { name: name.into(), depth, bytes: 8 }
    }

    #[test]
    fn a_pipeline_delivers_every_element_in_order() {
        let network = Network::new(vec![spec("a", 2)], 2);
        let received = std::thread::scope(|s| {
            s.spawn(|| {
                let _p = network.enter(0);
                for i in 0..1000u64 {
                    unsafe { network.send(0, i.to_ne_bytes().as_ptr()) }.unwrap();
                }
            });
            let consumer = s.spawn(|| {
                let _p = network.enter(1);
                let mut seen = Vec::new();
                for _ in 0..1000 {
                    let mut bytes = [0u8; 8];
                    unsafe { network.recv(0, bytes.as_mut_ptr()) }.unwrap();
                    seen.push(u64::from_ne_bytes(bytes));
                }
                seen
            });
            consumer.join().unwrap()
        });
        assert_eq!(received, (0..1000).collect::<Vec<u64>>());
        assert_eq!(network.stopped(), None);
    }

    #[test]
    fn two_processes_receiving_first_are_a_deadlock() {
        let network = Network::new(vec![spec("a", 1), spec("b", 1)], 2);
        let results = std::thread::scope(|s| {
            let one = s.spawn(|| {
                let _p = network.enter(0);
                let mut bytes = [0u8; 8];
                unsafe { network.recv(0, bytes.as_mut_ptr()) }
            });
            let two = s.spawn(|| {
                let _p = network.enter(1);
                let mut bytes = [0u8; 8];
                unsafe { network.recv(1, bytes.as_mut_ptr()) }
            });
            (one.join().unwrap(), two.join().unwrap())
        });
        assert!(results.0.is_err() && results.1.is_err());
        let Some(Stopped::Deadlock(mut blocked)) = network.stopped() else { panic!("no deadlock reported") };
        blocked.sort();
        assert_eq!(blocked, vec![(0, 0, Role::Recv), (1, 1, Role::Recv)]);
    }

    #[test]
    fn a_receiver_whose_sender_finished_is_a_deadlock() {
        let network = Network::new(vec![spec("a", 4)], 2);
        std::thread::scope(|s| {
            s.spawn(|| {
                let _p = network.enter(0);
                unsafe { network.send(0, [1u8; 8].as_ptr()) }.unwrap();
            });
            s.spawn(|| {
                let _p = network.enter(1);
                let mut bytes = [0u8; 8];
                unsafe { network.recv(0, bytes.as_mut_ptr()) }.unwrap();
                assert!(unsafe { network.recv(0, bytes.as_mut_ptr()) }.is_err());
            });
        });
        assert_eq!(network.stopped(), Some(Stopped::Deadlock(vec![(1, 0, Role::Recv)])));
    }
}
