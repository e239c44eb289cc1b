//! C ABI entry points, called by JIT-compiled kernels.
//!
//! The CPU backend lowers an outer loop it has proven independent to a call of
//! [`htp_runtime_parallel_for`] with the loop body outlined into a function that takes a context
//! pointer (the captured values) and the loop index. The JIT resolves the entry points by name
//! through [`symbols`], so they need not be exported from the executable's dynamic symbol table.

use std::ffi::c_void;

use crate::pool::ThreadPool;

/// An outlined loop body: called as `body(context, i)` for each loop index `i`.
pub type LoopBody = unsafe extern "C" fn(context: *mut c_void, i: i64);

/// Runs `body(context, i)` for `i = begin, begin + step, ... < end` on the
/// [global pool](ThreadPool::global) and returns once every call has returned.
///
/// # Safety
/// The caller (the generated kernel) guarantees:
/// * `body` may be called concurrently from several threads, each time with a distinct `i`; every
///   `i` is passed exactly once, and the calling thread runs some of them itself.
/// * `context` is passed unchanged to every call and must stay valid until this function returns.
///   What it points to is shared: either only read, or synchronised by `body` itself (e.g.
///   iterations write disjoint elements).
/// * `body` does not unwind (no C++ exception or Rust panic escapes it).
/// * `step` is positive; otherwise the process aborts with a message, as the loop would be
///   meaningless.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn htp_runtime_parallel_for(
    body: LoopBody,
    context: *mut c_void,
    begin: i64,
    end: i64,
    step: i64,
) {
    if step <= 0 {
        eprintln!("htp_runtime_parallel_for: step must be positive, got {step}; aborting");
        std::process::abort();
    }
    let context = SharedContext(context);
    ThreadPool::global().parallel_for(begin, end, step, &|i| {
        // SAFETY: guaranteed by this function's caller, see the contract above.
        unsafe { body(context.get(), i) }
    });
}

/// The number of threads of the global pool: how many chunks a parallel loop is split into, so
/// a kernel can size per-thread scratch buffers.
#[unsafe(no_mangle)]
pub extern "C" fn htp_runtime_num_threads() -> i64 {
    i64::try_from(ThreadPool::global().threads()).unwrap_or(i64::MAX)
}

/// The C entry points as `(symbol name, address)` pairs, ready for a JIT to register by name
/// (e.g. melior's `ExecutionEngine::register_symbol(name, address)`).
pub fn symbols() -> Vec<(&'static str, *mut ())> {
    vec![
        ("htp_runtime_parallel_for", htp_runtime_parallel_for as *mut ()),
        ("htp_runtime_num_threads", htp_runtime_num_threads as *mut ()),
    ]
}

/// The kernel's context pointer, shared across the pool's threads under the contract of
/// [`htp_runtime_parallel_for`].
struct SharedContext(*mut c_void);

// SAFETY: the caller of `htp_runtime_parallel_for` guarantees the pointee may be used from
// several threads at once.
unsafe impl Sync for SharedContext {}

impl SharedContext {
    /// Reading through a method makes closures capture the whole (`Sync`) wrapper rather than
    /// just its raw-pointer field.
    fn get(&self) -> *mut c_void {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};

    /// What the test kernel captures: the loop it belongs to and one hit counter per iteration.
    struct Counters {
        begin: i64,
        step: i64,
        hits: Vec<AtomicU32>,
        sum: AtomicI64,
    }

    impl Counters {
        fn new(begin: i64, end: i64, step: i64) -> Self {
            let len = (begin..end).step_by(step as usize).count();
            Self { begin, step, hits: (0..len).map(|_| AtomicU32::new(0)).collect(), sum: AtomicI64::new(0) }
        }

        fn as_context(&self) -> *mut c_void {
            self as *const Self as *mut c_void
        }

        fn assert_each_once(&self) {
            for (k, hit) in self.hits.iter().enumerate() {
                assert_eq!(hit.load(Ordering::Relaxed), 1, "iteration {k}");
            }
        }
    }

    /// A loop body as a compiled kernel would have it: C ABI, state behind the context pointer.
    unsafe extern "C" fn count(context: *mut c_void, i: i64) {
        // SAFETY: the tests pass a live `Counters`, only touched through atomics.
        let counters = unsafe { &*(context as *const Counters) };
        let k = (i - counters.begin) / counters.step;
        counters.hits[k as usize].fetch_add(1, Ordering::Relaxed);
        counters.sum.fetch_add(i, Ordering::Relaxed);
    }

    #[test]
    fn parallel_for_calls_the_c_body_once_per_index() {
        for (begin, end, step) in [(-5, 95, 3), (0, 1, 1), (0, 10_000, 1), (7, 8, 100)] {
            let counters = Counters::new(begin, end, step);
            // SAFETY: `count` matches `counters`, which outlives the call.
            unsafe { htp_runtime_parallel_for(count, counters.as_context(), begin, end, step) };
            counters.assert_each_once();
            assert_eq!(
                counters.sum.load(Ordering::Relaxed),
                (begin..end).step_by(step as usize).sum::<i64>()
            );
        }
    }

    #[test]
    fn empty_loop_never_calls_the_body() {
        static CALLS: AtomicU32 = AtomicU32::new(0);
        unsafe extern "C" fn tally(_: *mut c_void, _: i64) {
            CALLS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: `tally` ignores its context.
        unsafe {
            htp_runtime_parallel_for(tally, std::ptr::null_mut(), 10, 10, 1);
            htp_runtime_parallel_for(tally, std::ptr::null_mut(), 10, -10, 4);
        }
        assert_eq!(CALLS.load(Ordering::Relaxed), 0);
        // SAFETY: as above.
        unsafe { htp_runtime_parallel_for(tally, std::ptr::null_mut(), 10, 11, 4) };
        assert_eq!(CALLS.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn num_threads_matches_the_global_pool() {
        assert_eq!(htp_runtime_num_threads(), ThreadPool::global().threads() as i64);
        assert!(htp_runtime_num_threads() >= 1);
    }

    #[test]
    fn symbols_resolve_to_callable_entry_points() {
        let symbols = symbols();
        let names: Vec<&str> = symbols.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["htp_runtime_parallel_for", "htp_runtime_num_threads"]);

        // Call through the registered addresses, as JIT-compiled code would.
        let address = |wanted: &str| symbols.iter().find(|(name, _)| *name == wanted).unwrap().1;
        // SAFETY: the addresses are those of the functions with exactly these signatures.
        let parallel_for: unsafe extern "C" fn(LoopBody, *mut c_void, i64, i64, i64) =
            unsafe { std::mem::transmute(address("htp_runtime_parallel_for")) };
        let num_threads: extern "C" fn() -> i64 =
            unsafe { std::mem::transmute(address("htp_runtime_num_threads")) };

        assert_eq!(num_threads(), htp_runtime_num_threads());
        let counters = Counters::new(-100, 100, 1);
        // SAFETY: as in `parallel_for_calls_the_c_body_once_per_index`.
        unsafe { parallel_for(count, counters.as_context(), -100, 100, 1) };
        counters.assert_each_once();
        assert_eq!(counters.sum.load(Ordering::Relaxed), -100);
    }
}
