//! The CSP process runtime: the bounded channels of one run of a CSP
//! program, with the hardware's semantics (a full channel blocks its
//! sender, an empty one its receiver), and the one thing a plain channel
//! cannot know — that every process still running is blocked, which is a
//! deadlock. Then every blocked operation, and every later one, returns
//! [`Stopped`] instead of waiting forever, and [`Network::stopped`] names
//! each blocked process and its channel.
//!
//! Elements are fixed-size byte blocks (a tile) in a ring of `depth`
//! slots per channel: a send copies the element into the next free slot, a
//! receive copies it out. A channel has one sending and one receiving
//! process (the protocol check proves it; the ring checks it again, cheaply,
//! and stops the network rather than race), so the ring is single-producer
//! single-consumer and takes no lock: the general bounded
//! [`channel`](crate::channel()) (a mutex per operation) costs several times
//! more per hand-over of a small tile (`benches/csp_channel.rs`). Processes
//! are identified by a number the caller gives each thread
//! ([`Network::enter`]).

use std::cell::UnsafeCell;
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// One channel of a program, or an array of `count` channels: what
/// diagnostics call it, how many elements each holds, how many bytes an
/// element is. The array's rings are one block of memory, `count * depth`
/// slots ([`Network::ring`]), so that compiled code can address a slot by
/// its index.
#[derive(Clone, Debug)]
pub struct ChannelSpec {
    /// The channel's name in the program (an array's element is `name[i]`).
    pub name: String,
    /// How many elements each channel holds before its sender blocks (at least 1).
    pub depth: usize,
    /// The size of one element.
    pub bytes: usize,
    /// How many channels (1, or an array's length).
    pub count: usize,
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
    /// Two processes used one end of a channel: (channel, role, the first, the second).
    SharedEnd(usize, Role, usize, usize),
    /// SIGINT arrived while a process waited.
    Interrupted,
}

struct Channel {
    depth: usize,
    bytes: usize,
    /// Its ring's memory (one per declared channel or array) and its first slot there.
    ring: usize,
    first_slot: usize,
    /// Elements received so far (the next slot to read is `head % depth`).
    head: AtomicUsize,
    /// Elements sent so far.
    tail: AtomicUsize,
    /// The process at each end, once it has used it.
    sender: AtomicUsize,
    receiver: AtomicUsize,
}

// Safe: a slot is written only by the one sender, between its check that
// the slot is free (`tail - head < depth`, acquiring `head`) and its release
// of `tail`, and read only by the one receiver between its acquire of `tail`
// and its release of `head`.
unsafe impl Sync for Network {}

impl Channel {
    /// The slot of the `index`-th element, counted in its ring.
    fn slot(&self, index: usize) -> usize {
        self.first_slot + index % self.depth
    }

    /// Records `process` at the end `role`; another process there is an error.
    fn claim(&self, role: Role, process: usize) -> Result<(), usize> {
        let end = if role == Role::Send { &self.sender } else { &self.receiver };
        match end.compare_exchange(usize::MAX, process, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => Ok(()),
            Err(owner) if owner == process => Ok(()),
            Err(owner) => Err(owner),
        }
    }
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
    /// Per declared channel (or array), its slots, 8-byte aligned.
    rings: Vec<Box<[UnsafeCell<u64>]>>,
    gate: Mutex<Gate>,
    changed: Condvar,
    /// Processes inside `wait` (read without the gate, so that a send or
    /// receive nobody waits for takes no lock).
    waiters: AtomicUsize,
    /// When asked: each process's busy spans (from the end of one channel
    /// operation to the start of the next), one lane per process, named
    /// by it; the gaps are its waits.
    trace: Option<(crate::Trace, Vec<String>)>,
}

thread_local! {
    /// The process this thread runs (see [`Network::enter`]).
    static PROCESS: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
    /// When its current busy span started (traced networks only).
    static BUSY_SINCE: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// How often a waiting process looks for SIGINT.
const POLL: Duration = Duration::from_millis(50);

impl Network {
    /// A network of `channels` used by `processes` processes.
    ///
    /// # Panics
    /// If the machine cannot hold the rings; [`Network::try_new`] says so instead.
    pub fn new(channels: Vec<ChannelSpec>, processes: usize) -> Network {
        Self::try_new(channels, processes).unwrap_or_else(|why| panic!("{why}"))
    }

    /// `bytes` of zeroed, 8-byte aligned ring memory, or why not.
    fn ring_memory(name: &str, bytes: usize) -> Result<Box<[UnsafeCell<u64>]>, String> {
        let words = bytes.div_ceil(8);
        let mut memory: Vec<UnsafeCell<u64>> = Vec::new();
        memory
            .try_reserve_exact(words)
            .map_err(|_| format!("channel '{name}' needs {bytes} bytes of slots (depth x count x tile), more than this machine gives"))?;
        memory.extend((0..words).map(|_| UnsafeCell::new(0)));
        Ok(memory.into_boxed_slice())
    }

    /// A network of `channels` used by `processes` processes, or why the
    /// machine cannot hold its rings.
    pub fn try_new(channels: Vec<ChannelSpec>, processes: usize) -> Result<Network, String> {
        let mut flat = Vec::new();
        let mut rings = Vec::new();
        for spec in channels {
            let depth = spec.depth.max(1);
            let count = spec.count.max(1);
            for element in 0..count {
                flat.push(Channel {
                    depth,
                    bytes: spec.bytes,
                    ring: rings.len(),
                    first_slot: element * depth,
                    head: AtomicUsize::new(0),
                    tail: AtomicUsize::new(0),
                    sender: AtomicUsize::new(usize::MAX),
                    receiver: AtomicUsize::new(usize::MAX),
                });
            }
            rings.push(Self::ring_memory(&spec.name, count * depth * spec.bytes)?);
        }
        Ok(Network {
            channels: flat,
            rings,
            gate: Mutex::new(Gate { waiting: vec![None; processes], live: processes, stopped: None }),
            changed: Condvar::new(),
            waiters: AtomicUsize::new(0),
            trace: None,
        })
    }

    /// The memory of the `index`-th declared channel's (or array's) ring:
    /// `count * depth` slots of its element size, the `e`-th channel of an
    /// array from slot `e * depth`; the slot numbers `acquire_send` and
    /// `acquire_recv` return count in it.
    pub fn ring(&self, index: usize) -> Option<*mut u8> {
        self.rings.get(index).map(|ring| ring.as_ptr() as *mut u8)
    }

    /// The address of `slot` of `channel`'s ring.
    fn address(&self, channel: &Channel, slot: usize) -> *mut u8 {
        let base = self.rings[channel.ring].as_ptr() as *mut u8;
        // In bounds: the ring holds `count * depth` slots and `slot` is one of them.
        unsafe { base.add(slot * channel.bytes) }
    }

    /// The same network, recording each process's busy spans under its
    /// name (`names[process]`).
    pub fn traced(mut self, names: Vec<String>) -> Network {
        self.trace = Some((crate::Trace::new(), names));
        self
    }

    /// The trace, if the network records one.
    pub fn trace(&self) -> Option<&crate::Trace> {
        self.trace.as_ref().map(|(trace, _)| trace)
    }

    /// Ends this thread's busy span (at a channel operation, or when the process finishes).
    fn end_busy(&self) {
        let Some((trace, names)) = &self.trace else { return };
        let process = PROCESS.with(|p| p.get());
        if let Some(start) = BUSY_SINCE.with(|b| b.take()) {
            let name = names.get(process).cloned().unwrap_or_else(|| format!("process {process}"));
            trace.record(name, process as u64, start, std::time::Instant::now());
        }
    }

    /// Starts this thread's next busy span.
    fn start_busy(&self) {
        if self.trace.is_some() {
            BUSY_SINCE.with(|b| b.set(Some(std::time::Instant::now())));
        }
    }

    /// Makes this thread process `process` until the guard drops, which
    /// finishes the process (the others no longer wait for it).
    pub fn enter(&self, process: usize) -> ProcessGuard<'_> {
        PROCESS.with(|p| p.set(process));
        self.start_busy();
        ProcessGuard { network: self }
    }

    fn lock(&self) -> MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why the network stopped, if it did.
    pub fn stopped(&self) -> Option<Stopped> {
        self.lock().stopped.clone()
    }

    /// Waits for room in `channel` and returns the slot (counted in its
    /// ring, [`Network::ring`]) the next element goes to; the element is
    /// sent by [`Network::release_send`] once the caller has written it.
    pub fn acquire_send(&self, channel: usize) -> Result<usize, Stopped> {
        self.acquire(channel, Role::Send)
    }

    /// Sends the element written into the slot `acquire_send` gave.
    pub fn release_send(&self, channel: usize) {
        self.release(channel, Role::Send)
    }

    /// Waits for an element in `channel` and returns its slot; the slot is
    /// given back by [`Network::release_recv`] once the caller has read it.
    pub fn acquire_recv(&self, channel: usize) -> Result<usize, Stopped> {
        self.acquire(channel, Role::Recv)
    }

    /// Gives back the slot `acquire_recv` gave.
    pub fn release_recv(&self, channel: usize) {
        self.release(channel, Role::Recv)
    }

    /// The slot `role` may use next on `channel`, once it may.
    fn acquire(&self, channel: usize, role: Role) -> Result<usize, Stopped> {
        let c = self.endpoint(channel, role)?;
        self.end_busy();
        loop {
            let (head, tail) = match role {
                Role::Send => (c.head.load(Ordering::Acquire), c.tail.load(Ordering::Relaxed)),
                Role::Recv => (c.head.load(Ordering::Relaxed), c.tail.load(Ordering::Acquire)),
            };
            let slot = match role {
                Role::Send => (tail - head < c.depth).then(|| c.slot(tail)),
                Role::Recv => (tail > head).then(|| c.slot(head)),
            };
            if let Some(slot) = slot {
                return Ok(slot);
            }
            if let Err(stopped) = self.wait(channel, role) {
                self.start_busy();
                return Err(stopped);
            }
        }
    }

    /// Publishes what `role` did with its slot: the element (a sender), the
    /// free slot (a receiver).
    fn release(&self, channel: usize, role: Role) {
        if let Some(c) = self.channels.get(channel) {
            let counter = if role == Role::Send { &c.tail } else { &c.head };
            counter.fetch_add(1, Ordering::Release);
            self.notify();
        }
        self.start_busy();
    }

    /// Sends the element at `source` (the channel's element size) on
    /// `channel`, blocking while it is full.
    ///
    /// # Safety
    /// `source` must be readable for the channel's element size.
    pub unsafe fn send(&self, channel: usize, source: *const u8) -> Result<(), Stopped> {
        let slot = self.acquire_send(channel)?;
        let c = &self.channels[channel];
        unsafe { std::ptr::copy_nonoverlapping(source, self.address(c, slot), c.bytes) };
        self.release_send(channel);
        Ok(())
    }

    /// Receives the next element of `channel` into `dest` (the channel's
    /// element size), blocking while it is empty.
    ///
    /// # Safety
    /// `dest` must be writable for the channel's element size.
    pub unsafe fn recv(&self, channel: usize, dest: *mut u8) -> Result<(), Stopped> {
        let slot = self.acquire_recv(channel)?;
        let c = &self.channels[channel];
        unsafe { std::ptr::copy_nonoverlapping(self.address(c, slot), dest, c.bytes) };
        self.release_recv(channel);
        Ok(())
    }

    /// Channel `channel`, its end `role` claimed by this thread's process;
    /// a second process at that end stops the network.
    fn endpoint(&self, channel: usize, role: Role) -> Result<&Channel, Stopped> {
        let Some(c) = self.channels.get(channel) else { return Err(Stopped::Deadlock(vec![])) };
        let process = PROCESS.with(|p| p.get());
        if let Err(owner) = c.claim(role, process) {
            let stopped = Stopped::SharedEnd(channel, role, owner, process);
            let mut gate = self.lock();
            gate.stopped.get_or_insert(stopped.clone());
            self.changed.notify_all();
            return Err(stopped);
        }
        Ok(c)
    }

    /// Whether `role` on `channel` can go ahead now.
    fn ready(&self, channel: usize, role: Role) -> bool {
        let c = &self.channels[channel];
        let (head, tail) = (c.head.load(Ordering::Acquire), c.tail.load(Ordering::Acquire));
        match role {
            Role::Send => tail - head < c.depth,
            Role::Recv => tail > head,
        }
    }

    /// Wakes the waiting processes after a channel changed. The fence
    /// orders the channel's update before the read of `waiters` (a waiter
    /// counts itself before it looks at the channel), so a waiter either
    /// sees the update or is woken.
    fn notify(&self) {
        fence(Ordering::SeqCst);
        if self.waiters.load(Ordering::SeqCst) > 0 {
            let _gate = self.lock();
            self.changed.notify_all();
        }
    }

    /// Blocks this process until `role` on `channel` may be ready again,
    /// or the network stopped.
    fn wait(&self, channel: usize, role: Role) -> Result<(), Stopped> {
        // A hand-over between running processes is usually a matter of
        // microseconds: spin, then yield, before sleeping on the gate (as
        // crossbeam's channels back off); a sleep and wake-up costs more
        // than the copy.
        for step in 0..16u32 {
            if self.ready(channel, role) {
                return Ok(());
            }
            if step < 6 {
                for _ in 0..(1u32 << step) {
                    std::hint::spin_loop();
                }
            } else {
                std::thread::yield_now();
            }
        }
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

    fn finish(&self) {
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
}

impl Drop for ProcessGuard<'_> {
    fn drop(&mut self) {
        self.network.end_busy();
        PROCESS.with(|p| p.set(usize::MAX));
        self.network.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, depth: usize) -> ChannelSpec {
        ChannelSpec { name: name.into(), depth, bytes: 8, count: 1 }
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
    fn a_second_sender_stops_the_network() {
        let network = Network::new(vec![spec("a", 4)], 2);
        std::thread::scope(|s| {
            s.spawn(|| {
                let _p = network.enter(0);
                unsafe { network.send(0, [1u8; 8].as_ptr()) }.unwrap();
            })
            .join()
            .unwrap();
            s.spawn(|| {
                let _p = network.enter(1);
                assert!(unsafe { network.send(0, [2u8; 8].as_ptr()) }.is_err());
            });
        });
        assert_eq!(network.stopped(), Some(Stopped::SharedEnd(0, Role::Send, 0, 1)));
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
