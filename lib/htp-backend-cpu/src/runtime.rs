//! The MLIR runtime functions that lowered kernels call, implemented here so
//! that JIT-compiled code needs no runtime library on the machine. MLIR
//! lowers `memref.copy` between non-contiguous memrefs (tile loads and
//! stores of strided views) to `memrefCopy`.

use std::ffi::c_void;
use std::sync::atomic::{AtomicI64, Ordering};

use melior::ExecutionEngine;

/// `UnrankedMemRefType<char>` of MLIR's C runner utils.
#[repr(C)]
struct UnrankedMemRef {
    rank: i64,
    descriptor: *const i64,
}

/// A ranked descriptor's fields, borrowed: `{allocated, aligned, offset, sizes[r], strides[r]}`.
/// Kernels copy small tiles many times a call: nothing here allocates.
struct Strided<'d> {
    aligned: *mut u8,
    offset: i64,
    sizes: &'d [i64],
    strides: &'d [i64],
}

unsafe fn strided(memref: &UnrankedMemRef) -> Strided<'_> {
    let rank = memref.rank as usize;
    let words = unsafe { std::slice::from_raw_parts(memref.descriptor, 3 + 2 * rank) };
    Strided { aligned: words[1] as *mut u8, offset: words[2], sizes: &words[3..3 + rank], strides: &words[3 + rank..] }
}

/// The odometer's dimensions kept on the stack; a copy of higher rank counts in a `Vec`.
const STACK_RANK: usize = 8;

/// `void memrefCopy(int64_t elemSize, UnrankedMemRefType<char> *src, UnrankedMemRefType<char> *dst)`:
/// copies every element of `src` to the same position in `dst` (same sizes).
/// A kernel may copy a tensor region onto itself (`x[0:4] = x[0:4]`): each
/// run is moved with memmove semantics.
unsafe extern "C" fn memref_copy(element_size: i64, source: *const UnrankedMemRef, dest: *const UnrankedMemRef) {
    let (source, dest) = unsafe { (strided(&*source), strided(&*dest)) };
    let element_size = element_size as usize;
    if source.sizes.iter().any(|&s| s <= 0) {
        return;
    }
    let rank = source.sizes.len();
    // Rows whose elements are adjacent in both buffers move in one memcpy.
    let contiguous_rows = rank > 0 && source.strides[rank - 1] == 1 && dest.strides[rank - 1] == 1;
    let (outer_rank, run) = if contiguous_rows { (rank - 1, source.sizes[rank - 1] as usize) } else { (rank, 1) };
    let mut on_stack = [0i64; STACK_RANK];
    let mut on_heap = Vec::new();
    let index: &mut [i64] = if outer_rank <= STACK_RANK {
        &mut on_stack[..outer_rank]
    } else {
        on_heap.resize(outer_rank, 0);
        &mut on_heap
    };
    // Each buffer's element offset of the current index, kept up to date as the odometer turns.
    let (mut from, mut to) = (source.offset, dest.offset);
    loop {
        unsafe {
            std::ptr::copy(
                source.aligned.add(from as usize * element_size),
                dest.aligned.add(to as usize * element_size),
                run * element_size,
            );
        }
        // Odometer increment over the outer dims, last one fastest.
        let mut d = outer_rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            from += source.strides[d];
            to += dest.strides[d];
            if index[d] < source.sizes[d] {
                break;
            }
            from -= source.strides[d] * index[d];
            to -= dest.strides[d] * index[d];
            index[d] = 0;
        }
    }
}

/// Where a call's first failed run-time check goes: the site's id + 1, 0
/// for none. One per call, so that calls running at once (WSP tasks on a
/// task runtime, Python threads) never see each other's errors: the
/// calling thread, and each pool thread while it runs one of the call's
/// chunks, point [`CURRENT`] at it.
#[derive(Debug, Default)]
pub struct ErrorSlot(AtomicI64);

impl ErrorSlot {
    /// The site of the first failed check recorded here, if any.
    pub fn site(&self) -> Option<usize> {
        let site = self.0.load(Ordering::Relaxed);
        (site > 0).then(|| (site - 1) as usize)
    }

    /// Makes `self` the slot of this thread's checks until the guard drops.
    pub fn enter(&self) -> SlotGuard {
        SlotGuard(CURRENT.with(|current| current.replace(self as *const ErrorSlot)))
    }
}

thread_local! {
    /// The slot of the call this thread is running code of.
    static CURRENT: std::cell::Cell<*const ErrorSlot> = const { std::cell::Cell::new(std::ptr::null()) };
}

/// Restores the thread's previous slot.
#[must_use]
pub struct SlotGuard(*const ErrorSlot);

impl Drop for SlotGuard {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.0));
    }
}

/// `void htpRuntimeError(int64_t site)`: a failed run-time check (a tile access outside its tensor, an integer division by zero)
/// (`tile-check-bounds`). Records the first site in the running call's slot; the access was skipped.
unsafe extern "C" fn index_error(site: i64) {
    let slot = CURRENT.with(|current| current.get());
    // Safe: a slot outlives the guards pointing at it (the call waits for
    // its chunks); JIT code runs only inside a call, which entered one.
    if let Some(slot) = unsafe { slot.as_ref() } {
        let _ = slot.0.compare_exchange(0, site + 1, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// The slot of the call running on this thread (for a call's chunks to
/// enter on pool threads).
pub fn current_slot() -> *const ErrorSlot {
    CURRENT.with(|current| current.get())
}

/// `int32_t htpRuntimeInterrupted(void)`: non-zero once SIGINT arrived
/// during the running call (`cpu-poll-interrupts`).
unsafe extern "C" fn interrupted() -> i32 {
    htp_runtime::interrupt::requested() as i32
}

/// Makes the runtime functions visible to `engine`'s compiled code.
pub fn register(engine: &ExecutionEngine) {
    unsafe { engine.register_symbol("memrefCopy", memref_copy as *mut c_void as *mut ()) };
    unsafe { engine.register_symbol(crate::check_bounds::ERROR_FUNCTION, index_error as *mut c_void as *mut ()) };
    unsafe { engine.register_symbol(crate::poll_interrupts::POLL_FUNCTION, interrupted as *mut c_void as *mut ()) };
    for (name, function) in crate::tile_buffers::symbols() {
        unsafe { engine.register_symbol(name, function) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_a_strided_window_into_a_dense_buffer() {
        // A 2x3 window at (1, 1) of a 4x5 row-major source.
        let source_data: Vec<f32> = (0..20).map(|v| v as f32).collect();
        let mut dest_data = vec![0f32; 6];
        let source_desc = [0, source_data.as_ptr() as i64, 6, 2, 3, 5, 1];
        let dest_desc = [0, dest_data.as_mut_ptr() as i64, 0, 2, 3, 3, 1];
        let source = UnrankedMemRef { rank: 2, descriptor: source_desc.as_ptr() };
        let dest = UnrankedMemRef { rank: 2, descriptor: dest_desc.as_ptr() };
        unsafe { memref_copy(4, &source, &dest) };
        assert_eq!(dest_data, [6.0, 7.0, 8.0, 11.0, 12.0, 13.0]);
    }

    #[test]
    fn copies_a_column_whose_elements_are_not_adjacent() {
        // Column 2 of a 3x4 source into a 3x1 destination with stride 1.
        let source_data: Vec<i32> = (0..12).collect();
        let mut dest_data = vec![0i32; 3];
        let source_desc = [0, source_data.as_ptr() as i64, 2, 3, 1, 4, 4];
        let dest_desc = [0, dest_data.as_mut_ptr() as i64, 0, 3, 1, 1, 1];
        let source = UnrankedMemRef { rank: 2, descriptor: source_desc.as_ptr() };
        let dest = UnrankedMemRef { rank: 2, descriptor: dest_desc.as_ptr() };
        unsafe { memref_copy(4, &source, &dest) };
        assert_eq!(dest_data, [2, 6, 10]);
    }

    #[test]
    fn copies_a_3d_window_whose_rows_and_columns_are_strided() {
        // Elements [0..2, 1..3, 0..4 step 2] of a 2x4x4 source into a dense 2x2x2.
        let source_data: Vec<i32> = (0..32).collect();
        let mut dest_data = vec![0i32; 8];
        let source_desc = [0, source_data.as_ptr() as i64, 4, 2, 2, 2, 16, 4, 2];
        let dest_desc = [0, dest_data.as_mut_ptr() as i64, 0, 2, 2, 2, 4, 2, 1];
        let source = UnrankedMemRef { rank: 3, descriptor: source_desc.as_ptr() };
        let dest = UnrankedMemRef { rank: 3, descriptor: dest_desc.as_ptr() };
        unsafe { memref_copy(4, &source, &dest) };
        assert_eq!(dest_data, [4, 6, 8, 10, 20, 22, 24, 26]);
    }

    #[test]
    fn rank_zero_copies_one_element() {
        let source_value = 7i64;
        let mut dest_value = 0i64;
        let source_desc = [0, &source_value as *const i64 as i64, 0];
        let dest_desc = [0, &mut dest_value as *mut i64 as i64, 0];
        let source = UnrankedMemRef { rank: 0, descriptor: source_desc.as_ptr() };
        let dest = UnrankedMemRef { rank: 0, descriptor: dest_desc.as_ptr() };
        unsafe { memref_copy(8, &source, &dest) };
        assert_eq!(dest_value, 7);
    }
}
