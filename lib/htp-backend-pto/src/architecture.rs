//! The A2/A3 architecture model (`htp_api::Architecture`): 24 AI cores,
//! each a cluster of one cube core (AIC) and two vector cores (AIV), and
//! the memories tiles live in, with the capacities the `pto` dialect
//! checks (`Location::usable_capacity`, one source for both) —
//! docs/targets/pto-contract.md, section 3. The same clusters as a tile
//! array (`htp_api::TileArray`): one column per cluster, its cube core in
//! row 0 and its vector cores in rows 1 and 2, each core kind with its
//! memories.

use htp_api::{Architecture, DmaChannels, MemorySpace, ParallelLevel, TileArray, TileKind};

use crate::dialect::Location;

/// AI cores (clusters) of an A2/A3 chip.
pub const CLUSTERS: u64 = 24;
/// Vector cores per cluster.
pub const VECTOR_CORES_PER_CLUSTER: u64 = 2;
/// The parallel levels' names (axes of distribution layouts).
pub const CLUSTER: &str = "cluster";
pub const CUBE_CORE: &str = "cube_core";
pub const VECTOR_CORE: &str = "vector_core";
/// The core kinds of the tile array.
pub const AIC: &str = "aic";
pub const AIV: &str = "aiv";
/// What every placement is aligned to (TASSIGN).
const ALIGNMENT: u64 = 32;

pub fn a2a3() -> Architecture {
    let memory = |name, location: Location, description| MemorySpace {
        name,
        bytes: Some(location.usable_capacity() as u64),
        alignment: ALIGNMENT,
        description,
    };
    let cube = vec![
        memory("l1", Location::Mat, "cube core's L1 (mat tiles)"),
        memory("l0a", Location::Left, "left matmul operand (left tiles)"),
        memory("l0b", Location::Right, "right matmul operand (right tiles)"),
        memory("l0c", Location::Acc, "matmul accumulator (acc tiles)"),
    ];
    let vector = vec![memory("ub", Location::Vec, "unified buffer of a vector core (vec tiles; the last 8 KiB are PTO-ISA's)")];
    // The cores reach GM and each other through their MTE pipes and
    // cross-core FIFOs, not as DMA channels or locks of this model.
    let core = |name, description, memories| TileKind { name, description, computes: true, memories, dma: DmaChannels::default(), locks: 0 };
    let array = TileArray {
        columns: CLUSTERS as u32,
        rows: vec![AIC, AIV, AIV],
        kinds: vec![
            core(AIC, "a cube core (AIC): matmuls (L1, L0A/L0B -> L0C)", cube),
            core(AIV, "a vector core (AIV): vector work in UB", vector),
        ],
        neighbours: vec![],
        exceptions: vec![],
    };
    Architecture {
        array: Some(array),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clusters_as_a_tile_array_agree_with_the_levels() {
        let model = a2a3();
        let array = model.array.as_ref().unwrap();
        array.validate().unwrap();
        assert_eq!(array.tiles(AIV).len() as u64, model.units(VECTOR_CORE).unwrap());
        assert_eq!(array.tiles(AIC).len() as u64, model.units(CUBE_CORE).unwrap());
        let aiv = array.kind(AIV).unwrap();
        assert_eq!(aiv.memories[0].bytes, model.memory("ub").unwrap().bytes);
    }
}
