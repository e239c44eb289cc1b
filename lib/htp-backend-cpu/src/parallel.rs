//! Runs a kernel whose outer loop has independent iterations on every core:
//! `tile-outline-parallel-chunks` gave it `<k>__bounds` (the loop's bounds
//! and step) and `<k>__chunk` (the kernel over `[begin, end)` of the loop);
//! this module asks for the bounds, cuts the iterations into contiguous
//! chunks as the kernel's distribution says (`htp.distribution`, an Axe
//! layout of the loop's trips over the `core` level) and runs them on
//! `htp-runtime`'s pool.

use std::ffi::c_void;

use htp_api::{Argument, Dims};
use htp_runtime::ThreadPool;
use melior::ExecutionEngine;

use htp_transforms::distribution::Distribution;

use crate::packing::Packed;

/// The packed entry point (`_mlir__mlir_ciface_<name>`) MLIR's
/// ExecutionEngine generates for a function with a C interface: one
/// pointer per argument.
pub type PackedFn = unsafe extern "C" fn(*mut *mut ());

/// A kernel's chunked form, looked up once after JIT compilation.
#[derive(Clone)]
pub struct Chunked {
    bounds: PackedFn,
    chunk: PackedFn,
    distribution: Distribution,
}

/// Chunks per pool thread when the distribution leaves the count to the
/// run time: a few, so that ragged or uneven iterations balance (the pool
/// hands them out dynamically), few enough that each amortises its start.
const CHUNKS_PER_THREAD: i64 = 4;

/// The packed entry point of `kernel` + `suffix` (a function with a C interface), if the engine
/// has it.
pub fn packed_entry(engine: &ExecutionEngine, kernel: &str, suffix: &str) -> Option<PackedFn> {
    let address = engine.lookup(&format!("_mlir__mlir_ciface_{kernel}{suffix}"));
    // Safe: a non-null address of a packed entry point has this type.
    (!address.is_null()).then(|| unsafe { std::mem::transmute::<*mut (), PackedFn>(address) })
}

impl Chunked {
    /// The chunked form of `kernel`, if the pass outlined one, cut as
    /// `distribution` says.
    pub fn find(engine: &ExecutionEngine, kernel: &str, distribution: Distribution) -> Option<Chunked> {
        Some(Chunked {
            bounds: packed_entry(engine, kernel, htp_transforms::outline_parallel_chunks::BOUNDS_SUFFIX)?,
            chunk: packed_entry(engine, kernel, htp_transforms::outline_parallel_chunks::CHUNK_SUFFIX)?,
            distribution,
        })
    }

    /// Runs the kernel on `arguments` in chunks over `pool`; `false` if the
    /// loop has too few iterations to split (the caller runs it whole).
    ///
    /// # Safety
    /// As for `CompiledModule::call`; the chunks write disjoint slices of the
    /// outputs (the independence proof), so they may run at once.
    pub unsafe fn run(&self, arguments: &[Argument], pool: &ThreadPool) -> bool {
        let mut bounds = [0i64; 3];
        let mut with_bounds = arguments.to_vec();
        with_bounds.push(Argument::Buffer { data: bounds.as_mut_ptr() as *mut c_void, sizes: Dims::from_slice(&[3]), strides: Dims::from_slice(&[1]) });
        let mut packed = Packed::new(&with_bounds);
        unsafe { (self.bounds)(packed.slots().as_mut_ptr()) };
        let [lower, upper, step] = bounds;
        if step <= 0 || upper <= lower {
            return false;
        }
        // In i128: bounds near i64's ends must not overflow (Python's range
        // does not).
        let iterations = ((upper as i128 - lower as i128 + step as i128 - 1) / step as i128).min(i64::MAX as i128) as i64;
        let (chunks, per_chunk) = self.distribution.chunks(iterations, CHUNKS_PER_THREAD * pool.threads() as i64);
        if chunks < 2 {
            return false;
        }
        let shared = SharedArguments(arguments);
        // The chunks record failed checks in the call's slot, whichever
        // pool thread runs them.
        let slot = SharedSlot(crate::runtime::current_slot());
        let grain = self.distribution.grain.is_some();
        // Tasks of the grain, or `chunks` blocks as even as they can be.
        let boundary = |chunk: i64| -> i64 {
            if grain {
                (chunk as i128 * per_chunk as i128).min(iterations as i128) as i64
            } else {
                (chunk as i128 * iterations as i128 / chunks as i128) as i64
            }
        };
        let body = |chunk: i64| {
            if htp_runtime::interrupt::requested() {
                return; // Ctrl-C: the chunks not started yet are skipped
            }
            let _entered = slot.enter();
            let (first, last) = (boundary(chunk), boundary(chunk + 1));
            let mut chunk_arguments = shared.arguments().to_vec();
            let at = |iteration: i64| (lower as i128 + iteration as i128 * step as i128).min(upper as i128) as i64;
            chunk_arguments.push(Argument::I64(at(first)));
            chunk_arguments.push(Argument::I64(at(last)));
            let mut packed = Packed::new(&chunk_arguments);
            unsafe { (self.chunk)(packed.slots().as_mut_ptr()) };
        };
        pool.parallel_for(0, chunks, 1, &body);
        true
    }
}

/// The calling thread's error slot, entered by every chunk.
struct SharedSlot(*const crate::runtime::ErrorSlot);

// The slot is atomics; the call waits for its chunks, so it outlives them.
unsafe impl Sync for SharedSlot {}

impl SharedSlot {
    fn enter(&self) -> Option<crate::runtime::SlotGuard> {
        unsafe { self.0.as_ref() }.map(|slot| slot.enter())
    }
}

/// The caller's arguments, read by every chunk. They hold raw buffer
/// pointers (not `Sync`); the chunks only read the descriptors, and write
/// disjoint parts of the buffers.
struct SharedArguments<'a>(&'a [Argument]);

unsafe impl Sync for SharedArguments<'_> {}

impl SharedArguments<'_> {
    fn arguments(&self) -> &[Argument] {
        self.0
    }
}
