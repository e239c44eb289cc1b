//! A static cycle model of a design (docs/targets/aie.md, "Cycle model"):
//! what a core's block function issues, counted off the lowered code with
//! its loops' trip counts, and what the DMAs move, against the rates AMD
//! documents per AIE generation. It estimates; it does not simulate.
//!
//! * A core is VLIW: per cycle one vector instruction, one scalar one, two
//!   loads and one store (AM020, "AIE-ML Processor": 2 x 256-bit loads,
//!   1 x 256-bit store). Its cycles for one block are the busiest of those
//!   slots.
//! * A matmul instruction (`vector.contract` of the unit's MAC shape) does
//!   `M x K x N` MACs at the generation's MACs per cycle.
//! * A row reduction of a vector is `log2(lanes)` shift-and-combine steps
//!   (what `convert-vector-to-aievec` emits), two instructions each.
//! * What has no AIE instruction — scalar and vector divides, `exp`, `log`,
//!   `sqrt` and the other functions outside the table's native ones (AM020:
//!   AIE-ML dropped the scalar non-linear functions) — runs as a software
//!   routine on the scalar unit: [`EMULATED_CYCLES`] per element.
//! * Each DMA channel moves 4 bytes a cycle (a 32-bit stream, AM020's
//!   "Tile stream interface"); a core reads its inputs on 2 channels and
//!   writes on 2, a shim tile the same per column. FIFOs of depth 2 overlap
//!   a block's transfer with the previous block's compute.

use melior::ir::{block::BlockLike, operation::OperationLike, r#type::TypeLike, BlockRef, OperationRef, RegionLike, Type, ValueLike};

use crate::vector_units::VectorUnit;

/// Cycles of one element of an op the hardware does not have (a software
/// routine on the scalar unit; an assumption of the model, not a figure of
/// AMD's).
pub const EMULATED_CYCLES: f64 = 20.0;
/// Bytes a DMA channel moves per cycle.
pub const DMA_BYTES_PER_CYCLE: f64 = 4.0;

/// What one call of a block function issues.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoreCost {
    /// Vector instructions (MACs, elementwise ops, reduction steps).
    pub vector_ops: f64,
    /// Scalar instructions on data (not the loops' index arithmetic),
    /// emulated functions counted per element.
    pub scalar_ops: f64,
    /// Multiply-accumulates done by MAC instructions.
    pub macs: f64,
    /// Loads and stores (vector or scalar).
    pub loads: f64,
    pub stores: f64,
    /// Cycles of the vector slot (MAC instructions at their rate).
    vector_cycles: f64,
    /// Cycles of the scalar slot (emulated routines included).
    scalar_cycles: f64,
}

impl CoreCost {
    /// The block's cycles: the busiest VLIW slot.
    pub fn cycles(&self) -> f64 {
        self.vector_cycles.max(self.scalar_cycles).max(self.loads / 2.0).max(self.stores)
    }

    fn add(&mut self, other: &CoreCost, times: f64) {
        self.vector_ops += other.vector_ops * times;
        self.scalar_ops += other.scalar_ops * times;
        self.macs += other.macs * times;
        self.loads += other.loads * times;
        self.stores += other.stores * times;
        self.vector_cycles += other.vector_cycles * times;
        self.scalar_cycles += other.scalar_cycles * times;
    }

    /// The costlier of two (the branches of an `scf.if`, two functions).
    pub fn max(self, other: CoreCost) -> CoreCost {
        if other.cycles() > self.cycles() {
            other
        } else {
            self
        }
    }
}

/// MACs per cycle of the generation's MAC instruction for `input` (AM020:
/// AIE-ML does 128 bf16 and 256 int8 MACs a cycle; AIE2P's 8x8x8 int8 MAC
/// 512), the peak a design's MACs are measured against.
pub fn macs_per_cycle(unit: &VectorUnit, input: &str) -> f64 {
    match (unit.generation, input) {
        ("aie2", "bf16") => 128.0,
        ("aie2", "i8") => 256.0,
        ("aie2p", "i8") => 512.0,
        // AIE2P's bf16 peak is its block-float MAC's (512), which exact bf16 does not use.
        ("aie2p", "bf16") => 512.0,
        _ => 1.0,
    }
}

/// The cost of one call of `function` (a lowered block function) on `unit`.
pub fn function_cost(function: OperationRef, unit: &VectorUnit) -> CoreCost {
    function.region(0).ok().and_then(|r| r.first_block()).map(|b| block_cost(b, unit)).unwrap_or_default()
}

fn block_cost(block: BlockRef, unit: &VectorUnit) -> CoreCost {
    let mut cost = CoreCost::default();
    let mut op = block.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
        match name.as_str() {
            "scf.for" => {
                if let Some(body) = current.region(0).ok().and_then(|r| r.first_block()) {
                    cost.add(&block_cost(body, unit), trips(current));
                }
            }
            "scf.if" => {
                let branch = |i: usize| current.region(i).ok().and_then(|r| r.first_block()).map(|b| block_cost(b, unit)).unwrap_or_default();
                cost.add(&branch(0).max(branch(1)), 1.0);
            }
            _ => cost.add(&op_cost(current, &name, unit), 1.0),
        }
    }
    cost
}

/// The trip count of an `scf.for`: from its constant bounds, or, for a
/// ragged block's `min(rest, size)` bound, the size.
fn trips(the_loop: OperationRef) -> f64 {
    let bound = |i: usize| {
        let value = htp_ir::query::operand_at(the_loop, i)?;
        htp_ir::query::constant_int(value).or_else(|| {
            let op = htp_ir::query::defining_op(value)?;
            let name = op.name().as_string_ref().as_str().ok()?.to_string();
            (name == "arith.minsi" || name == "arith.minui" || name == "affine.min")
                .then(|| (0..op.operand_count()).filter_map(|k| htp_ir::query::operand_at(op, k).and_then(htp_ir::query::constant_int)).min())
                .flatten()
        })
    };
    match (bound(0), bound(1), bound(2)) {
        (Some(lower), Some(upper), Some(step)) if step > 0 => ((upper - lower).max(0) as f64 / step as f64).ceil(),
        _ => 1.0,
    }
}

/// What one op issues.
fn op_cost(op: OperationRef, name: &str, unit: &VectorUnit) -> CoreCost {
    let mut cost = CoreCost::default();
    let result = htp_ir::query::result_at(op, 0).map(|v| v.r#type());
    let operand = htp_ir::query::operand_at(op, 0).map(|v| v.r#type());
    let vector = result.is_some_and(|t| t.is_vector()) || operand.is_some_and(|t| t.is_vector());
    let element = |ty: Option<Type>| ty.map(|t| htp_ir::builder::scalar_of(t).to_string()).unwrap_or_default();
    let lanes = result.filter(|t| t.is_vector()).map(|t| htp_ir::builder::shape_of(t).iter().product::<i64>() as f64).unwrap_or(1.0);
    match name {
        "vector.load" | "vector.transfer_read" | "memref.load" => cost.loads = 1.0,
        "vector.store" | "vector.transfer_write" | "memref.store" => cost.stores = 1.0,
        "vector.contract" => {
            let shape = |i: usize| htp_ir::query::operand_at(op, i).map(|v| htp_ir::builder::shape_of(v.r#type())).unwrap_or_default();
            let (lhs, rhs) = (shape(0), shape(1));
            let macs = lhs.iter().product::<i64>() as f64 * rhs.last().copied().unwrap_or(1) as f64;
            cost.vector_ops = 1.0;
            cost.macs = macs;
            cost.vector_cycles = macs / macs_per_cycle(unit, &element(operand));
        }
        "vector.reduction" => {
            let width = operand.map(|t| htp_ir::builder::shape_of(t).iter().product::<i64>()).unwrap_or(1).max(2) as f64;
            cost.vector_ops = 2.0 * width.log2();
            cost.vector_cycles = cost.vector_ops;
        }
        // Moving values between registers and lanes: the permute network, folded into its users.
        "vector.broadcast" | "vector.extract" | "vector.insert" | "vector.shape_cast" | "vector.from_elements" | "vector.to_elements" | "vector.splat" => {}
        _ if name.starts_with("arith.") || name.starts_with("math.") => {
            let index = result.is_some_and(|t| t.to_string() == "index") || name == "arith.constant" || name == "arith.index_cast";
            if index {
                return cost;
            }
            if emulated(name, &element(result), vector, unit) {
                cost.scalar_ops = lanes;
                cost.scalar_cycles = lanes * EMULATED_CYCLES;
            } else if vector {
                cost.vector_ops = 1.0;
                cost.vector_cycles = 1.0;
            } else {
                cost.scalar_ops = 1.0;
                cost.scalar_cycles = 1.0;
            }
        }
        _ => {}
    }
    cost
}

/// Whether `op` on `element` has no AIE instruction (a software routine).
fn emulated(op: &str, element: &str, vector: bool, unit: &VectorUnit) -> bool {
    crate::vector_units::is_divide_or_function(op) && !(vector && unit.element(element).is_some_and(|e| e.native_functions.contains(&op)))
}
