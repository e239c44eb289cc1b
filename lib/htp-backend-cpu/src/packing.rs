//! Arguments of a JIT-compiled function, packed the way MLIR's C interface
//! (`_mlir_ciface_*`, through its packed wrapper `_mlir__mlir_ciface_*`) reads them:
//! one pointer per argument, to the argument's value; a memref's value is a
//! pointer to its descriptor `{allocated, aligned, offset, sizes[r], strides[r]}`.
//!
//! Everything is in one block of words — on the stack for the usual few
//! arguments, else one allocation — so that a call (a WSP task's, a chunk's)
//! allocates nothing per argument.

use htp_api::Argument;

/// Words kept on the stack: a kernel of a handful of rank-2 tensors.
const INLINE_WORDS: usize = 64;

/// Owns every descriptor and scalar while a call runs. Its words are
/// `[where (n) | slots (n) | values (n) | descriptors...]`: `where[i]` is
/// 1 + the word offset of argument i's descriptor (0 for a scalar); the
/// pointers (`slots`, a buffer's value) are written by [`Packed::slots`],
/// after the last move of the `Packed`.
pub(crate) struct Packed {
    arguments: usize,
    words: Words,
}

// The inline block is the point (a call allocates nothing); a `Packed` lives on the caller's stack.
#[allow(clippy::large_enum_variant)]
enum Words {
    Inline([u64; INLINE_WORDS]),
    Heap(Vec<u64>),
}

impl Packed {
    pub fn new(arguments: &[Argument]) -> Self {
        let n = arguments.len();
        let descriptors: usize = arguments
            .iter()
            .map(|argument| match argument {
                Argument::Buffer { sizes, strides, .. } => 3 + sizes.len() + strides.len(),
                _ => 0,
            })
            .sum();
        let total = 3 * n + descriptors;
        let mut words = if total <= INLINE_WORDS { Words::Inline([0; INLINE_WORDS]) } else { Words::Heap(vec![0; total]) };
        let block = match &mut words {
            Words::Inline(block) => &mut block[..total],
            Words::Heap(block) => &mut block[..],
        };
        let mut next = 3 * n;
        for (i, argument) in arguments.iter().enumerate() {
            // Little-endian: the low bytes of the u64 are the value.
            let value = match argument {
                Argument::Buffer { data, sizes, strides } => {
                    block[i] = 1 + next as u64;
                    block[next] = *data as u64;
                    block[next + 1] = *data as u64;
                    block[next + 2] = 0;
                    next += 3;
                    for dim in sizes.iter().chain(strides) {
                        block[next] = *dim as u64;
                        next += 1;
                    }
                    0
                }
                Argument::F32(v) => v.to_bits() as u64,
                Argument::F64(v) => v.to_bits(),
                Argument::F16(bits) | Argument::BF16(bits) => *bits as u64,
                Argument::I64(v) => *v as u64,
                Argument::I32(v) => *v as u32 as u64,
                Argument::I16(v) => *v as u16 as u64,
                Argument::I8(v) => *v as u8 as u64,
                Argument::Bool(v) => *v as u64,
            };
            block[2 * n + i] = value;
        }
        Packed { arguments: n, words }
    }

    /// One pointer per argument, to its value (valid while `self` is borrowed).
    pub fn slots(&mut self) -> &mut [*mut ()] {
        let n = self.arguments;
        let block: &mut [u64] = match &mut self.words {
            Words::Inline(block) => block,
            Words::Heap(block) => block,
        };
        let base = block.as_mut_ptr();
        for i in 0..n {
            let descriptor = block[i];
            if descriptor != 0 {
                block[2 * n + i] = unsafe { base.add(descriptor as usize - 1) } as u64;
            }
            block[n + i] = unsafe { base.add(2 * n + i) } as u64;
        }
        // Pointers and u64 words have one size and alignment on the 64-bit hosts HTP JITs for.
        unsafe { std::slice::from_raw_parts_mut(base.add(n).cast::<*mut ()>(), n) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_point_to_their_descriptors_and_scalars_are_their_bits() {
        for rank in [1usize, 2, 40] {
            let mut data = [0f32; 4];
            let sizes: Vec<i64> = (1..=rank as i64).collect();
            let strides: Vec<i64> = (0..rank as i64).map(|d| 100 + d).collect();
            let arguments = [
                Argument::I32(-2),
                Argument::Buffer { data: data.as_mut_ptr().cast(), sizes: sizes.clone().into(), strides: strides.clone().into() },
                Argument::F32(1.5),
            ];
            let mut packed = Packed::new(&arguments);
            let slots = packed.slots();
            unsafe {
                assert_eq!(*(slots[0] as *const i32), -2);
                assert_eq!(*(slots[2] as *const f32), 1.5);
                let descriptor = *(slots[1] as *const *const i64);
                let words = std::slice::from_raw_parts(descriptor, 3 + 2 * rank);
                assert_eq!(words[0] as usize, data.as_ptr() as usize);
                assert_eq!(words[1] as usize, data.as_ptr() as usize);
                assert_eq!(words[2], 0);
                assert_eq!(&words[3..3 + rank], &sizes[..]);
                assert_eq!(&words[3 + rank..], &strides[..]);
            }
        }
    }
}
