//! Arguments of a JIT-compiled function, packed the way MLIR's C interface
//! (`_mlir_ciface_*`, through `ExecutionEngine::invokePacked`) reads them:
//! one pointer per argument, to the argument's value; a memref's value is a
//! pointer to its descriptor `{allocated, aligned, offset, sizes[r], strides[r]}`.

use htp_api::Argument;

/// Owns every descriptor and scalar while a call runs.
pub(crate) struct Packed {
    /// Memref descriptors, as 8-byte words.
    descriptors: Vec<Vec<i64>>,
    /// Per argument: a pointer to the descriptor, or the scalar's bits.
    values: Vec<u64>,
    slots: Vec<*mut ()>,
}

impl Packed {
    pub fn new(arguments: &[Argument]) -> Self {
        let mut packed = Packed { descriptors: Vec::new(), values: Vec::new(), slots: Vec::new() };
        for argument in arguments {
            let value = match argument {
                Argument::Buffer { data, sizes, strides } => {
                    let mut words = vec![*data as i64, *data as i64, 0];
                    words.extend(sizes);
                    words.extend(strides);
                    // The vector's heap buffer does not move when `descriptors` grows.
                    let address = words.as_ptr() as u64;
                    packed.descriptors.push(words);
                    address
                }
                // Little-endian: the low bytes of the u64 are the value.
                Argument::F32(v) => v.to_bits() as u64,
                Argument::F64(v) => v.to_bits(),
                Argument::F16(bits) | Argument::BF16(bits) => *bits as u64,
                Argument::I64(v) => *v as u64,
                Argument::I32(v) => *v as u32 as u64,
                Argument::I16(v) => *v as u16 as u64,
                Argument::I8(v) => *v as u8 as u64,
                Argument::Bool(v) => *v as u64,
            };
            packed.values.push(value);
        }
        packed.slots = packed.values.iter_mut().map(|v| v as *mut u64 as *mut ()).collect();
        packed
    }

    pub fn slots(&mut self) -> &mut [*mut ()] {
        &mut self.slots
    }
}
