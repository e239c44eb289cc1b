//! Ctrl-C (SIGINT) reaches long kernel calls. While a call runs chunks of a
//! parallel loop, a SIGINT handler of the runtime's own records the signal
//! in a flag that the chunks poll: chunks not yet started are skipped, and
//! the call reports that it was interrupted (the binding then hands the
//! signal to its host, Python's `KeyboardInterrupt`). The handler is
//! installed only while at least one call is running (a count), and only
//! over a handler that is a function: a process that ignores SIGINT, or
//! lets it kill it, keeps doing so.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Running watches. A watch started or ended while others run only counts (an atomic: the
/// kernel calls of a WSP workload's tasks, each a watch inside the call's, do not queue on a
/// lock); the first and the last take `STATE`'s lock to swap the handler.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// The handler the running watches replaced.
struct Installed {
    previous: Option<libc::sigaction>,
}

static STATE: Mutex<Installed> = Mutex::new(Installed { previous: None });

/// Adds `delta` to `RUNNING` unless it is `from` (the first start, the last end): whether it did.
fn count_unless(from: usize, delta: isize) -> bool {
    let mut running = RUNNING.load(Ordering::Acquire);
    while running != from {
        match RUNNING.compare_exchange_weak(running, running.wrapping_add_signed(delta), Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return true,
            Err(now) => running = now,
        }
    }
    false
}

extern "C" fn on_sigint(_signal: libc::c_int) {
    // Async-signal-safe: one atomic store.
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Watches for SIGINT while it lives (see the module's documentation).
pub struct Watch(());

impl Watch {
    /// Starts watching (installs the handler if no other call is running).
    pub fn start() -> Watch {
        if count_unless(0, 1) {
            return Watch(());
        }
        let mut state = STATE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if RUNNING.load(Ordering::Acquire) == 0 {
            REQUESTED.store(false, Ordering::SeqCst);
            unsafe {
                let mut current: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut current) == 0
                    && current.sa_sigaction != libc::SIG_DFL
                    && current.sa_sigaction != libc::SIG_IGN
                {
                    let mut ours: libc::sigaction = std::mem::zeroed();
                    ours.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
                    libc::sigemptyset(&mut ours.sa_mask);
                    ours.sa_flags = libc::SA_RESTART;
                    if libc::sigaction(libc::SIGINT, &ours, std::ptr::null_mut()) == 0 {
                        state.previous = Some(current);
                    }
                }
            }
        }
        RUNNING.fetch_add(1, Ordering::AcqRel);
        Watch(())
    }

    /// Whether SIGINT arrived since the first running watch started.
    pub fn interrupted(&self) -> bool {
        requested()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if count_unless(1, -1) {
            return;
        }
        let mut state = STATE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // The last one unless a start counted in meanwhile (then that start found the handler
        // installed, and the handler stays).
        if RUNNING.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(previous) = state.previous.take() {
                unsafe { libc::sigaction(libc::SIGINT, &previous, std::ptr::null_mut()) };
            }
        }
    }
}

/// Whether a running call was interrupted: chunks poll it before they start.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sigint_during_a_watch_sets_the_flag_and_the_previous_handler_comes_back() {
        extern "C" fn previous_handler(_: libc::c_int) {}
        unsafe {
            let mut handler: libc::sigaction = std::mem::zeroed();
            handler.sa_sigaction = previous_handler as extern "C" fn(libc::c_int) as usize;
            libc::sigaction(libc::SIGINT, &handler, std::ptr::null_mut());
        }
        {
            let watch = Watch::start();
            assert!(!watch.interrupted());
            unsafe { libc::raise(libc::SIGINT) };
            assert!(watch.interrupted());
        }
        let mut current: libc::sigaction = unsafe { std::mem::zeroed() };
        unsafe { libc::sigaction(libc::SIGINT, std::ptr::null(), &mut current) };
        assert_eq!(current.sa_sigaction, previous_handler as extern "C" fn(libc::c_int) as usize);
        // A new call starts with the flag clear.
        assert!(!Watch::start().interrupted());
    }
}
