//! What each AIE generation's vector unit takes from a core's code: the
//! lanes per element type, the elementwise ops and row reductions, the
//! casts, and the matrix-multiply shapes — each one mlir-aie's own path
//! (`convert-vector-to-aievec`, `convert-aievec-to-llvm`, then the upstream
//! conversions to LLVM) lowers at the pinned mlir-aie (docs/validation.md,
//! "AIE vector units"). Everything else stays a scalar loop on the core.
//! `tests/aie.rs` holds every entry to the real aie-opt (`HTP_AIE_OPT`):
//! an entry that stops lowering fails there, so the table cannot go stale.
//!
//! The lanes are 512-bit registers (16 x 32-bit, 32 x 16-bit, 64 x 8-bit);
//! bf16 and f16 take 16 lanes, the width at which their ops and their
//! widening to f32 accumulators lower together.

use crate::architecture::Family;

/// One element type's vector ops on one generation.
pub struct ElementOps {
    /// The element type (`f32`, `bf16`, `i8`, ...).
    pub element: &'static str,
    /// Lanes of one vector of it.
    pub lanes: i64,
    /// Elementwise ops (MLIR op names) on vectors of it.
    pub elementwise: &'static [&'static str],
    /// Row reductions (`vector.reduction` kinds) of vectors of it.
    pub reductions: &'static [&'static str],
    /// Whether a scalar broadcast to a vector of it lowers (a row's max
    /// subtracted from its elements; not f16's).
    pub broadcasts: bool,
    /// The divides and math functions among `elementwise` that become an
    /// AIE intrinsic (the others lower to LLVM vector ops the core runs as
    /// a software routine per element: cost_model.rs).
    pub native_functions: &'static [&'static str],
}

/// A generation's vector unit.
pub struct VectorUnit {
    pub generation: &'static str,
    pub elements: &'static [ElementOps],
    /// Casts on vectors: (op, from, to).
    pub casts: &'static [(&'static str, &'static str, &'static str)],
    /// Matrix multiplies (`vector.contract`): (input, accumulator, [M, K, N]),
    /// the native shape of one MAC instruction.
    pub matmuls: &'static [(&'static str, &'static str, [i64; 3])],
}

const CASTS: [(&str, &str, &str); 10] = [
    ("arith.extf", "bf16", "f32"),
    ("arith.extf", "f16", "f32"),
    ("arith.truncf", "f32", "bf16"),
    ("arith.truncf", "f32", "f16"),
    ("arith.sitofp", "i32", "f32"),
    ("arith.fptosi", "f32", "i32"),
    ("arith.extsi", "i8", "i32"),
    ("arith.extsi", "i16", "i32"),
    ("arith.extsi", "i8", "i16"),
    ("arith.trunci", "i32", "i16"),
];

/// AIE2 (AIE-ML: npu1, Phoenix / Hawk Point). f32 has no vector max, min
/// or compare; f16 no vector multiply, exp or broadcast; i8 no vector select.
pub const AIE2: VectorUnit = VectorUnit {
    generation: "aie2",
    elements: &[
        ElementOps { element: "f32", lanes: 16, elementwise: &["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "math.exp", "math.absf", "math.sqrt", "math.rsqrt", "math.log", "math.tanh", "math.erf"], reductions: &["add"], broadcasts: true, native_functions: &[] },
        ElementOps {
            element: "bf16",
            lanes: 16,
            elementwise: &["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "arith.maximumf", "arith.minimumf", "math.exp", "math.absf", "math.sqrt", "math.rsqrt", "math.log", "math.tanh", "math.erf", "arith.cmpf", "arith.select"],
            reductions: &["add", "maximumf", "minimumf"],
            broadcasts: true, native_functions: &["math.exp", "math.rsqrt"],
        },
        ElementOps { element: "f16", lanes: 16, elementwise: &["arith.addf", "arith.subf", "arith.divf", "arith.negf", "arith.maximumf", "arith.minimumf", "math.absf", "math.sqrt", "math.log", "math.tanh", "math.erf", "arith.cmpf", "arith.select"], reductions: &[], broadcasts: false, native_functions: &[] },
        ElementOps { element: "i32", lanes: 16, elementwise: &["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.maxsi", "arith.minsi", "arith.cmpi", "arith.select"], reductions: &["maxsi", "minsi"], broadcasts: true, native_functions: &[] },
        ElementOps { element: "i16", lanes: 32, elementwise: &["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.maxsi", "arith.minsi", "arith.cmpi", "arith.select"], reductions: &["maxsi", "minsi"], broadcasts: true, native_functions: &[] },
        ElementOps { element: "i8", lanes: 64, elementwise: &["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.maxsi", "arith.minsi"], reductions: &["maxsi", "minsi"], broadcasts: true, native_functions: &[] },
    ],
    casts: &CASTS,
    matmuls: &[("bf16", "f32", [4, 8, 4]), ("i8", "i32", [4, 8, 8])],
};

/// AIE2P (npu2, Strix). Its aievec path has no f32, i32 or i16 vector
/// multiply and no f32 max, min or compare.
pub const AIE2P: VectorUnit = VectorUnit {
    generation: "aie2p",
    elements: &[
        ElementOps { element: "f32", lanes: 16, elementwise: &["arith.addf", "arith.subf", "arith.divf", "arith.negf", "math.exp", "math.absf", "math.sqrt", "math.rsqrt", "math.log", "math.tanh", "math.erf"], reductions: &["add"], broadcasts: true, native_functions: &["arith.divf", "math.rsqrt"] },
        ElementOps {
            element: "bf16",
            lanes: 16,
            elementwise: &["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "arith.maximumf", "arith.minimumf", "math.exp", "math.absf", "math.sqrt", "math.log", "math.tanh", "math.erf", "arith.cmpf", "arith.select"],
            reductions: &["add", "maximumf", "minimumf"],
            broadcasts: true, native_functions: &["math.exp", "math.tanh"],
        },
        ElementOps { element: "f16", lanes: 16, elementwise: &["arith.addf", "arith.subf", "arith.divf", "arith.negf", "arith.maximumf", "arith.minimumf", "math.exp", "math.absf", "math.sqrt", "math.rsqrt", "math.log", "math.tanh", "math.erf", "arith.cmpf", "arith.select"], reductions: &["add"], broadcasts: false, native_functions: &[] },
        ElementOps { element: "i32", lanes: 16, elementwise: &["arith.addi", "arith.subi", "arith.divsi", "arith.maxsi", "arith.minsi", "arith.cmpi", "arith.select"], reductions: &["maxsi", "minsi"], broadcasts: true, native_functions: &[] },
        ElementOps { element: "i16", lanes: 32, elementwise: &["arith.addi", "arith.subi", "arith.divsi", "arith.maxsi", "arith.minsi", "arith.cmpi", "arith.select"], reductions: &["maxsi", "minsi"], broadcasts: true, native_functions: &[] },
        ElementOps { element: "i8", lanes: 64, elementwise: &["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.maxsi", "arith.minsi"], reductions: &["maxsi", "minsi"], broadcasts: true, native_functions: &[] },
    ],
    casts: &CASTS,
    // Not bf16: aievec lowers AIE2P's bf16 matmul through block floating
    // point (bfp16, a shared exponent per 8 values), whose products differ
    // from bf16's; a bf16 matmul stays exact, in scalar loops, there.
    matmuls: &[("i8", "i32", [8, 8, 8])],
};

impl VectorUnit {
    /// The vector unit of `generation` (`aie2`, `aie2p`).
    pub fn named(generation: &str) -> Option<&'static VectorUnit> {
        [&AIE2, &AIE2P].into_iter().find(|unit| unit.generation == generation)
    }

    /// The vector unit of a device family.
    pub fn of(family: Family) -> &'static VectorUnit {
        match family {
            Family::Npu1 => &AIE2,
            Family::Npu2 => &AIE2P,
        }
    }

    /// The ops on vectors of `element`, if it has vectors at all.
    pub fn element(&self, element: &str) -> Option<&ElementOps> {
        self.elements.iter().find(|e| e.element == element)
    }

    /// Whether `op` (an elementwise op name) takes vectors of `element`.
    pub fn takes(&self, op: &str, element: &str) -> bool {
        self.element(element).is_some_and(|e| e.elementwise.contains(&op))
    }

    /// Whether a cast `op` from `from` to `to` takes vectors.
    pub fn casts(&self, op: &str, from: &str, to: &str) -> bool {
        self.casts.contains(&(op, from, to))
    }

    /// The native matmul shape of `input` into `accumulator`.
    pub fn matmul(&self, input: &str, accumulator: &str) -> Option<[i64; 3]> {
        self.matmuls.iter().find(|(i, a, _)| *i == input && *a == accumulator).map(|(_, _, shape)| *shape)
    }
}

/// Whether `op` is a divide, a remainder or a math function other than
/// `absf`: the ops an AIE has an instruction for only where a generation's
/// `native_functions` say so (elsewhere a software routine).
pub fn is_divide_or_function(op: &str) -> bool {
    matches!(op, "arith.divf" | "arith.divsi" | "arith.divui" | "arith.remf" | "arith.remsi") || (op.starts_with("math.") && op != "math.absf")
}

/// The generation of a family's cores, by mlir-aie's name (`aie-target`).
pub fn generation(family: Family) -> &'static str {
    VectorUnit::of(family).generation
}
