//! What a task runs: a closure kept inline in the task's node when it is small, so that a task
//! costs no allocation of its own beyond its node (and none at all when the node is a reused
//! one). A larger or over-aligned closure is boxed.

use std::{
    mem::{self, ManuallyDrop, MaybeUninit},
    ptr,
};

/// The words a closure may take to be kept inline: a closure of a few references and indices.
/// More would make every node larger (more memory to touch per task, on two cores); a WSP task's
/// closure (its argument vectors) is boxed, one allocation among its vectors'.
const INLINE_WORDS: usize = 8;

type Boxed = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// A task's work, run once. An `Err` (or a panic) stops the runtime from starting further tasks.
pub struct TaskBody(Repr);

enum Repr {
    Inline {
        storage: MaybeUninit<[usize; INLINE_WORDS]>,
        /// Moves the closure out of the storage and calls it.
        call: unsafe fn(*mut u8) -> Result<(), String>,
        /// Drops the closure in the storage, uncalled.
        drop: unsafe fn(*mut u8),
    },
    Boxed(Boxed),
}

// SAFETY: only `Send` closures are stored (`new`, `From<Boxed>`).
unsafe impl Send for TaskBody {}

impl TaskBody {
    /// `body`, inline when it fits.
    pub fn new<F: FnOnce() -> Result<(), String> + Send + 'static>(body: F) -> Self {
        if mem::size_of::<F>() > mem::size_of::<[usize; INLINE_WORDS]>() || mem::align_of::<F>() > mem::align_of::<usize>() {
            return Self(Repr::Boxed(Box::new(body)));
        }
        let mut storage = MaybeUninit::<[usize; INLINE_WORDS]>::uninit();
        // SAFETY: the storage is large and aligned enough for `F` (checked above).
        unsafe { storage.as_mut_ptr().cast::<F>().write(body) };
        Self(Repr::Inline { storage, call: call_inline::<F>, drop: drop_inline::<F> })
    }

    /// Runs the work (consuming it).
    pub fn run(self) -> Result<(), String> {
        let mut this = ManuallyDrop::new(self);
        match &mut this.0 {
            // SAFETY: the storage holds the closure `call` was made for; `this` is never dropped,
            // so the closure moved out here is not dropped again.
            Repr::Inline { storage, call, .. } => unsafe { call(storage.as_mut_ptr().cast()) },
            Repr::Boxed(boxed) => {
                // SAFETY: read out once; `this` is never dropped.
                let boxed: Boxed = unsafe { ptr::read(boxed) };
                boxed()
            }
        }
    }
}

impl Drop for TaskBody {
    fn drop(&mut self) {
        if let Repr::Inline { storage, drop, .. } = &mut self.0 {
            // SAFETY: an unrun body still holds its closure.
            unsafe { drop(storage.as_mut_ptr().cast()) }
        }
    }
}

impl From<Boxed> for TaskBody {
    fn from(body: Boxed) -> Self {
        Self(Repr::Boxed(body))
    }
}

impl std::fmt::Debug for TaskBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Repr::Inline { .. } => "TaskBody(inline)",
            Repr::Boxed(_) => "TaskBody(boxed)",
        })
    }
}

unsafe fn call_inline<F: FnOnce() -> Result<(), String>>(storage: *mut u8) -> Result<(), String> {
    // SAFETY (caller): `storage` holds an `F`, read out once.
    let body = unsafe { storage.cast::<F>().read() };
    body()
}

unsafe fn drop_inline<F>(storage: *mut u8) {
    // SAFETY (caller): `storage` holds an `F` not read out.
    unsafe { storage.cast::<F>().drop_in_place() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    /// Counts its drops.
    struct Dropped(Arc<AtomicUsize>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn small_bodies_are_inline_large_ones_boxed_and_each_drops_its_captures_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let small = {
            let captured = Dropped(Arc::clone(&drops));
            TaskBody::new(move || {
                let _keep = &captured;
                Ok(())
            })
        };
        assert!(format!("{small:?}").contains("inline"));
        let large = {
            let captured = (Dropped(Arc::clone(&drops)), [0u64; 64]);
            TaskBody::new(move || {
                let (_keep, words) = &captured;
                Err(format!("{}", words.len()))
            })
        };
        assert!(format!("{large:?}").contains("boxed"));
        assert_eq!(small.run(), Ok(()));
        assert_eq!(drops.load(Ordering::SeqCst), 1, "run drops the captures once");
        assert_eq!(large.run(), Err("64".into()));
        assert_eq!(drops.load(Ordering::SeqCst), 2);
        let unrun = {
            let captured = Dropped(Arc::clone(&drops));
            TaskBody::new(move || {
                let _keep = &captured;
                Ok(())
            })
        };
        drop(unrun);
        assert_eq!(drops.load(Ordering::SeqCst), 3, "an unrun body drops its captures");
    }

    #[test]
    fn a_panicking_inline_body_drops_its_captures_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let captured = Dropped(Arc::clone(&drops));
        let body = TaskBody::new(move || {
            let _keep = &captured;
            panic!("boom")
        });
        assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body.run())).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
}
