//! The A2/A3 architecture model (`htp_api::Architecture`): 24 AI cores,
//! each a cluster of one cube core (AIC) and two vector cores (AIV), and
//! the memories tiles live in, with the capacities the `pto` dialect
//! checks (`Location::usable_capacity`, one source for both) —
//! docs/targets/pto-contract.md, section 3.

use htp_api::{Architecture, MemorySpace, ParallelLevel};

use crate::dialect::Location;

/// AI cores (clusters) of an A2/A3 chip.
pub const CLUSTERS: u64 = 24;
/// Vector cores per cluster.
pub const VECTOR_CORES_PER_CLUSTER: u64 = 2;
/// The parallel levels' names (axes of distribution layouts).
pub const CLUSTER: &str = "cluster";
pub const CUBE_CORE: &str = "cube_core";
pub const VECTOR_CORE: &str = "vector_core";
/// What every placement is aligned to (TASSIGN).
const ALIGNMENT: u64 = 32;

pub fn a2a3() -> Architecture {
    let memory = |name, location: Location, description| MemorySpace {
        name,
        bytes: Some(location.usable_capacity() as u64),
        alignment: ALIGNMENT,
        description,
    };
    Architecture {
        levels: vec![
            ParallelLevel { name: CLUSTER, count: CLUSTERS, description: "an AI core: one cube core and two vector cores" },
            ParallelLevel { name: CUBE_CORE, count: 1, description: "AIC: matmuls (L1, L0A/L0B -> L0C)" },
            ParallelLevel { name: VECTOR_CORE, count: VECTOR_CORES_PER_CLUSTER, description: "AIV: vector work in UB" },
        ],
        memories: vec![
            MemorySpace { name: "gm", bytes: None, alignment: ALIGNMENT, description: "global memory (HBM): tensors" },
            memory("ub", Location::Vec, "unified buffer of a vector core (vec tiles; the last 8 KiB are PTO-ISA's)"),
            memory("l1", Location::Mat, "cube core's L1 (mat tiles)"),
            memory("l0a", Location::Left, "left matmul operand (left tiles)"),
            memory("l0b", Location::Right, "right matmul operand (right tiles)"),
            memory("l0c", Location::Acc, "matmul accumulator (acc tiles)"),
        ],
    }
}
