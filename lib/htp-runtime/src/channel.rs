//! A bounded multi-producer multi-consumer channel.
//!
//! CSP processes and simulated AIE cores talk through FIFOs of fixed depth; a full FIFO must stall
//! its producer (back-pressure), which is exactly what a bounded blocking channel models. The
//! implementation is a `Mutex<VecDeque>` with one condition variable per direction: simple, and
//! fast enough for process-level communication.
//!
//! Closing is implicit: when every [`Receiver`] is gone, sends fail and hand the value back; when
//! every [`Sender`] is gone, receivers drain what is left and then get `None`.

use std::{
    collections::VecDeque,
    error::Error,
    fmt,
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
};

/// Creates a channel that holds at most `capacity` values.
///
/// # Panics
/// If `capacity` is 0: a rendezvous channel (sender and receiver meet, no buffer) is a different
/// protocol and is not supported; use a capacity of 1 for the tightest coupling.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(
        capacity > 0,
        "channel: capacity must be at least 1 (rendezvous channels with capacity 0 are not supported)"
    );
    let chan = Arc::new(Chan {
        state: Mutex::new(State { queue: VecDeque::with_capacity(capacity), senders: 1, receivers: 1 }),
        not_empty: Condvar::new(),
        not_full: Condvar::new(),
        capacity,
    });
    (Sender { chan: Arc::clone(&chan) }, Receiver { chan })
}

struct Chan<T> {
    state: Mutex<State<T>>,
    /// Signalled when a value arrives, and for everyone when the last sender leaves.
    not_empty: Condvar,
    /// Signalled when a value leaves, and for everyone when the last receiver leaves.
    not_full: Condvar,
    capacity: usize,
}

struct State<T> {
    queue: VecDeque<T>,
    senders: usize,
    receivers: usize,
}

impl<T> Chan<T> {
    /// Locks the state, ignoring poisoning: no user code runs while the lock is held.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn len(&self) -> usize {
        self.lock().queue.len()
    }

    fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut state = self.lock();
        match state.queue.pop_front() {
            Some(value) => {
                drop(state);
                self.not_full.notify_one();
                Ok(value)
            }
            None if state.senders == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }
}

/// The sending half of a [`channel`]. Clone it for more producers.
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

/// The receiving half of a [`channel`]. Clone it for more consumers; each value goes to one.
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
}

/// What both ends of a channel can tell about it.
macro_rules! channel_state {
    ($end:ident) => {
        impl<T> $end<T> {
            /// The number of values waiting in the channel.
            pub fn len(&self) -> usize {
                self.chan.len()
            }

            /// Whether no values are waiting in the channel.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// The most values the channel holds.
            pub fn capacity(&self) -> usize {
                self.chan.capacity
            }
        }
    };
}

channel_state!(Sender);
channel_state!(Receiver);

impl<T> Sender<T> {
    /// Sends `value`, waiting while the channel is full.
    ///
    /// # Errors
    /// Gives `value` back in [`SendError`] if every receiver is gone (now or while waiting).
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let mut state = self.chan.lock();
        loop {
            if state.receivers == 0 {
                return Err(SendError(value));
            }
            if state.queue.len() < self.chan.capacity {
                state.queue.push_back(value);
                drop(state);
                self.chan.not_empty.notify_one();
                return Ok(());
            }
            state = self.chan.not_full.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Sends `value` if there is room right now.
    ///
    /// # Errors
    /// [`TrySendError::Full`] or [`TrySendError::Disconnected`], both giving `value` back.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let mut state = self.chan.lock();
        if state.receivers == 0 {
            return Err(TrySendError::Disconnected(value));
        }
        if state.queue.len() >= self.chan.capacity {
            return Err(TrySendError::Full(value));
        }
        state.queue.push_back(value);
        drop(state);
        self.chan.not_empty.notify_one();
        Ok(())
    }
}

impl<T> Receiver<T> {
    /// Receives the oldest value, waiting while the channel is empty.
    ///
    /// Returns `None` once the channel is empty and every sender is gone.
    pub fn recv(&self) -> Option<T> {
        let mut state = self.chan.lock();
        loop {
            if let Some(value) = state.queue.pop_front() {
                drop(state);
                self.chan.not_full.notify_one();
                return Some(value);
            }
            if state.senders == 0 {
                return None;
            }
            state = self.chan.not_empty.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Receives the oldest value if there is one right now.
    ///
    /// # Errors
    /// [`TryRecvError::Empty`] while senders remain, [`TryRecvError::Disconnected`] once the
    /// channel is empty and every sender is gone.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.chan.try_recv()
    }

    /// Iterates over received values, blocking like [`recv`](Self::recv) and ending when it
    /// returns `None`.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { receiver: self }
    }
}

/// A blocking iterator over received values; ends once the channel is empty and every sender is
/// gone. Created by [`Receiver::iter`].
#[derive(Debug)]
pub struct Iter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.receiver.recv()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.chan.lock().senders += 1;
        Self { chan: Arc::clone(&self.chan) }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.chan.lock().receivers += 1;
        Self { chan: Arc::clone(&self.chan) }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = self.chan.lock();
        state.senders -= 1;
        if state.senders == 0 {
            drop(state);
            // Waiting receivers must wake up to see the channel is closed.
            self.chan.not_empty.notify_all();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = self.chan.lock();
        state.receivers -= 1;
        if state.receivers == 0 {
            drop(state);
            // Waiting senders must wake up to fail instead of waiting forever.
            self.chan.not_full.notify_all();
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").field("len", &self.len()).field("capacity", &self.capacity()).finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").field("len", &self.len()).field("capacity", &self.capacity()).finish()
    }
}

/// [`Sender::send`] failed because every receiver is gone; holds the value that was not sent.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// Why [`Sender::try_send`] failed; holds the value that was not sent.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TrySendError<T> {
    /// The channel is full.
    Full(T),
    /// Every receiver is gone.
    Disconnected(T),
}

impl<T> TrySendError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        match self {
            Self::Full(value) | Self::Disconnected(value) => value,
        }
    }
}

/// Why [`Receiver::try_recv`] returned no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing is waiting, but senders remain.
    Empty,
    /// Nothing is waiting and every sender is gone: nothing will arrive.
    Disconnected,
}

// Debug without a `T: Debug` bound, like std's channel errors, so `unwrap` works for any `T`.
impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SendError(..)")
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Full(_) => "Full(..)",
            Self::Disconnected(_) => "Disconnected(..)",
        })
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sending on a channel whose receivers are all gone")
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Full(_) => "sending on a full channel",
            Self::Disconnected(_) => "sending on a channel whose receivers are all gone",
        })
    }
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Empty => "receiving on an empty channel",
            Self::Disconnected => "receiving on an empty channel whose senders are all gone",
        })
    }
}

impl<T> Error for SendError<T> {}
impl<T> Error for TrySendError<T> {}
impl Error for TryRecvError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{
        sync::atomic::{AtomicBool, Ordering},
        thread,
        time::Duration,
    };

    /// Long enough for a thread that is not blocked to get through a few channel operations.
    const SETTLE: Duration = Duration::from_millis(50);

    #[test]
    fn spsc_preserves_order() {
        let (tx, rx) = channel(4);
        let producer = thread::spawn(move || {
            for k in 0..10_000u32 {
                tx.send(k).unwrap();
            }
        });
        let mut got = Vec::new();
        for value in &rx {
            got.push(value);
        }
        producer.join().unwrap();
        assert_eq!(got, (0..10_000).collect::<Vec<_>>());
        assert_eq!(rx.recv(), None);
    }

    #[test]
    fn mpmc_delivers_every_value_exactly_once() {
        const PRODUCERS: u64 = 4;
        const PER_PRODUCER: u64 = 2_500;
        let (tx, rx) = channel(8);
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let tx = tx.clone();
                thread::spawn(move || {
                    for k in 0..PER_PRODUCER {
                        tx.send(p * PER_PRODUCER + k).unwrap();
                    }
                })
            })
            .collect();
        drop(tx);
        let consumers: Vec<_> = (0..3)
            .map(|_| {
                let rx = rx.clone();
                thread::spawn(move || {
                    let got: Vec<u64> = rx.iter().collect();
                    // Each producer's values reach any one consumer in the order they were sent.
                    for p in 0..PRODUCERS {
                        let mine: Vec<u64> = got.iter().copied().filter(|v| v / PER_PRODUCER == p).collect();
                        assert!(mine.windows(2).all(|w| w[0] < w[1]), "producer {p} reordered");
                    }
                    got
                })
            })
            .collect();
        drop(rx);
        for producer in producers {
            producer.join().unwrap();
        }
        let mut all: Vec<u64> = consumers.into_iter().flat_map(|c| c.join().unwrap()).collect();
        let sum: u64 = all.iter().sum();
        all.sort_unstable();
        assert_eq!(all, (0..PRODUCERS * PER_PRODUCER).collect::<Vec<_>>());
        assert_eq!(sum, (0..PRODUCERS * PER_PRODUCER).sum::<u64>());
    }

    #[test]
    fn send_blocks_while_full_until_a_value_is_received() {
        let (tx, rx) = channel(1);
        tx.send(1).unwrap();
        assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
        let sent = Arc::new(AtomicBool::new(false));
        let producer = {
            let sent = Arc::clone(&sent);
            thread::spawn(move || {
                tx.send(2).unwrap();
                sent.store(true, Ordering::SeqCst);
            })
        };
        thread::sleep(SETTLE);
        assert!(!sent.load(Ordering::SeqCst), "send returned although the channel was full");
        assert_eq!(rx.len(), 1);
        assert_eq!(rx.recv(), Some(1));
        producer.join().unwrap();
        assert!(sent.load(Ordering::SeqCst));
        assert_eq!(rx.recv(), Some(2));
        assert_eq!(rx.recv(), None, "the producer (last sender) is gone");
    }

    #[test]
    fn recv_blocks_while_empty_until_a_value_is_sent() {
        let (tx, rx) = channel::<u8>(2);
        let received = Arc::new(AtomicBool::new(false));
        let consumer = {
            let received = Arc::clone(&received);
            thread::spawn(move || {
                let value = rx.recv();
                received.store(true, Ordering::SeqCst);
                value
            })
        };
        thread::sleep(SETTLE);
        assert!(!received.load(Ordering::SeqCst), "recv returned from an empty channel");
        tx.send(9).unwrap();
        assert_eq!(consumer.join().unwrap(), Some(9));
    }

    #[test]
    fn dropping_all_senders_drains_then_ends() {
        let (tx, rx) = channel(4);
        let tx2 = tx.clone();
        tx.send('a').unwrap();
        tx2.send('b').unwrap();
        drop(tx);
        assert_eq!(rx.try_recv(), Ok('a'));
        assert_eq!(rx.try_recv(), Ok('b'));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty), "a sender is still alive");
        tx2.send('c').unwrap();
        tx2.send('d').unwrap();
        drop(tx2);
        assert_eq!(rx.recv(), Some('c'));
        assert_eq!(rx.recv(), Some('d'));
        assert_eq!(rx.recv(), None);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[test]
    fn dropping_the_last_sender_wakes_blocked_receivers() {
        let (tx, rx) = channel::<u8>(1);
        let consumers: Vec<_> = (0..3)
            .map(|_| {
                let rx = rx.clone();
                thread::spawn(move || rx.recv())
            })
            .collect();
        thread::sleep(SETTLE);
        drop(tx);
        for consumer in consumers {
            assert_eq!(consumer.join().unwrap(), None);
        }
    }

    #[test]
    fn dropping_all_receivers_fails_sends_and_returns_the_value() {
        let (tx, rx) = channel(1);
        let rx2 = rx.clone();
        drop(rx);
        tx.send(String::from("kept")).unwrap();
        assert_eq!(rx2.recv().as_deref(), Some("kept"));
        drop(rx2);
        assert_eq!(tx.send(String::from("lost")), Err(SendError(String::from("lost"))));
        let err = tx.try_send(String::from("again")).unwrap_err();
        assert!(matches!(err, TrySendError::Disconnected(_)));
        assert_eq!(err.into_inner(), "again");
    }

    #[test]
    fn dropping_the_last_receiver_wakes_a_blocked_sender() {
        let (tx, rx) = channel(1);
        tx.send(1).unwrap();
        let producer = thread::spawn(move || tx.send(2));
        thread::sleep(SETTLE);
        drop(rx);
        assert_eq!(producer.join().unwrap(), Err(SendError(2)));
    }

    #[test]
    fn len_and_capacity() {
        let (tx, rx) = channel(3);
        assert_eq!((tx.capacity(), rx.capacity()), (3, 3));
        assert!(tx.is_empty() && rx.is_empty());
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        assert_eq!((tx.len(), rx.len()), (2, 2));
        tx.try_send(3).unwrap();
        assert_eq!(tx.try_send(4).unwrap_err().into_inner(), 4);
        assert_eq!(rx.len(), 3);
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(tx.len(), 2);
        assert!(!rx.is_empty());
    }

    #[test]
    fn errors_describe_themselves_without_debug_values() {
        struct Opaque;
        let (tx, rx) = channel(1);
        drop(rx);
        let err = tx.send(Opaque).unwrap_err();
        assert_eq!(format!("{err:?}"), "SendError(..)");
        assert_eq!(err.to_string(), "sending on a channel whose receivers are all gone");
        assert_eq!(TryRecvError::Empty.to_string(), "receiving on an empty channel");
    }

    #[test]
    #[should_panic(expected = "capacity must be at least 1")]
    fn zero_capacity_is_rejected() {
        let _ = channel::<u8>(0);
    }
}
