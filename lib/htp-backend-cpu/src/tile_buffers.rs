//! The buffers lowered kernels allocate: MLIR's generic allocation functions
//! (`finalize-memref-to-llvm{use-generic-functions}`), served from per-thread
//! free lists of power-of-two blocks. A kernel allocates and frees its tiles in
//! every iteration of its loops; through malloc that cost more than the copies
//! (a serving step spent a fifth of its time in malloc, free and their
//! consolidation of freed chunks). Blocks are malloc's: one freed on another
//! thread, or after its thread's lists are gone, is still freed correctly.

use std::cell::RefCell;
use std::ffi::c_void;

/// Every block starts with this header: its size class (or [`UNPOOLED`]) and
/// the pointer malloc returned. 16 bytes, so the data keeps malloc's alignment.
#[repr(C)]
struct Header {
    class: usize,
    base: *mut u8,
}

const HEADER: usize = std::mem::size_of::<Header>();
/// The smallest pooled block's data is 2^MIN_SHIFT bytes, the largest 2^MAX_SHIFT.
const MIN_SHIFT: usize = 6;
const MAX_SHIFT: usize = 16;
const CLASSES: usize = MAX_SHIFT - MIN_SHIFT + 1;
/// Free blocks kept per class and thread (up to 256 KiB of a class, at most 64 and at least 4
/// blocks); more are returned to malloc.
fn kept(class: usize) -> usize {
    ((1 << 18) >> (class + MIN_SHIFT)).clamp(4, 64)
}
/// The class of a block malloc serves directly (larger, or over-aligned).
const UNPOOLED: usize = usize::MAX;
/// malloc's alignment on the platforms HTP runs on.
const MALLOC_ALIGNMENT: usize = 16;

const _: () = assert!(HEADER == MALLOC_ALIGNMENT);

struct FreeLists([Vec<*mut u8>; CLASSES]);

impl Drop for FreeLists {
    fn drop(&mut self) {
        for list in &mut self.0 {
            for base in list.drain(..) {
                unsafe { libc_free(base) };
            }
        }
    }
}

thread_local! {
    static FREE: RefCell<FreeLists> = RefCell::new(FreeLists(Default::default()));
}

unsafe extern "C" {
    #[link_name = "malloc"]
    fn libc_malloc(size: usize) -> *mut u8;
    #[link_name = "free"]
    fn libc_free(pointer: *mut u8);
}

/// The class of a block of `size` data bytes, if pooled.
fn class_of(size: usize) -> Option<usize> {
    let shift = size.max(1).next_power_of_two().trailing_zeros() as usize;
    (shift <= MAX_SHIFT).then(|| shift.saturating_sub(MIN_SHIFT))
}

/// A block of at least `size` data bytes; its header written. Null if malloc fails.
fn allocate(size: usize) -> *mut u8 {
    let class = class_of(size);
    if let Some(class) = class {
        let reused = FREE.try_with(|free| free.borrow_mut().0[class].pop()).ok().flatten();
        if let Some(base) = reused {
            return unsafe { base.add(HEADER) };
        }
    }
    let data_bytes = class.map_or(size, |class| 1 << (class + MIN_SHIFT));
    let base = unsafe { libc_malloc(HEADER + data_bytes) };
    if base.is_null() {
        return base;
    }
    unsafe { (base as *mut Header).write(Header { class: class.unwrap_or(UNPOOLED), base }) };
    unsafe { base.add(HEADER) }
}

/// `void *_mlir_memref_to_llvm_alloc(size_t size)`.
unsafe extern "C" fn memref_alloc(size: usize) -> *mut c_void {
    allocate(size) as *mut c_void
}

/// `void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size)`: an alignment
/// beyond malloc's is a block served by malloc, aligned within it.
unsafe extern "C" fn memref_aligned_alloc(alignment: usize, size: usize) -> *mut c_void {
    if alignment <= MALLOC_ALIGNMENT {
        return allocate(size) as *mut c_void;
    }
    let base = unsafe { libc_malloc(HEADER + size + alignment) };
    if base.is_null() {
        return base as *mut c_void;
    }
    let data = (base as usize + HEADER).next_multiple_of(alignment) as *mut u8;
    unsafe { (data.sub(HEADER) as *mut Header).write(Header { class: UNPOOLED, base }) };
    data as *mut c_void
}

/// `void _mlir_memref_to_llvm_free(void *pointer)`.
unsafe extern "C" fn memref_free(pointer: *mut c_void) {
    if pointer.is_null() {
        return;
    }
    let header = unsafe { ((pointer as *mut u8).sub(HEADER) as *const Header).read() };
    if header.class != UNPOOLED {
        let kept = FREE
            .try_with(|free| {
                let mut free = free.borrow_mut();
                let list = &mut free.0[header.class];
                (list.len() < kept(header.class)).then(|| list.push(header.base)).is_some()
            })
            .unwrap_or(false);
        if kept {
            return;
        }
    }
    unsafe { libc_free(header.base) };
}

/// The generic allocation functions' names and implementations.
pub fn symbols() -> [(&'static str, *mut ()); 3] {
    [
        ("_mlir_memref_to_llvm_alloc", memref_alloc as *mut ()),
        ("_mlir_memref_to_llvm_aligned_alloc", memref_aligned_alloc as *mut ()),
        ("_mlir_memref_to_llvm_free", memref_free as *mut ()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_block_of_a_class_is_reused_and_blocks_keep_their_bytes() {
        unsafe {
            let a = memref_alloc(100) as *mut u8;
            assert_eq!(a as usize % MALLOC_ALIGNMENT, 0);
            std::ptr::write_bytes(a, 7, 128); // the class's whole block is usable
            memref_free(a as *mut c_void);
            let b = memref_alloc(120) as *mut u8; // same class (128 bytes)
            assert_eq!(a, b);
            let c = memref_alloc(100) as *mut u8; // a second live block of the class
            assert_ne!(b, c);
            memref_free(b as *mut c_void);
            memref_free(c as *mut c_void);
        }
    }

    #[test]
    fn large_and_over_aligned_blocks_go_to_malloc() {
        unsafe {
            let big = memref_alloc((1 << MAX_SHIFT) + 1) as *mut u8;
            std::ptr::write_bytes(big, 1, (1 << MAX_SHIFT) + 1);
            memref_free(big as *mut c_void);
            let aligned = memref_aligned_alloc(64, 200) as *mut u8;
            assert_eq!(aligned as usize % 64, 0);
            std::ptr::write_bytes(aligned, 2, 200);
            memref_free(aligned as *mut c_void);
            memref_free(std::ptr::null_mut());
        }
    }

    #[test]
    fn a_block_freed_on_another_thread_is_kept_there_or_freed() {
        let blocks: Vec<usize> = (0..2 * kept(0)).map(|_| unsafe { memref_alloc(64) } as usize).collect();
        std::thread::spawn(move || {
            for block in blocks {
                unsafe { memref_free(block as *mut c_void) };
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn classes_cover_the_pooled_sizes() {
        assert_eq!((kept(0), kept(CLASSES - 1)), (64, 4));
        assert_eq!(class_of(0), Some(0));
        assert_eq!(class_of(64), Some(0));
        assert_eq!(class_of(65), Some(1));
        assert_eq!(class_of(1 << MAX_SHIFT), Some(CLASSES - 1));
        assert_eq!(class_of((1 << MAX_SHIFT) + 1), None);
    }
}
