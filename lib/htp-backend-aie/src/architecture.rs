//! The NPU devices as `htp_api::Architecture`s: mlir-aie's target model at
//! the pin of docs/targets/aie-contract.md (AIETargetModel.h/.cpp), the
//! same numbers the `aie` dialect's verifiers check (dialects/aie/
//! AIEDialect.cpp, `DeviceModel`; a test here holds them equal).
//!
//! Every NPU column is a shim tile (row 0: the interface to host memory,
//! no data memory), a memtile (row 1: 512 KiB) and four compute tiles (rows
//! 2-5: a core and 64 KiB of data memory). NPU1 (Phoenix/Hawk Point, AIE2)
//! has 4 columns, NPU2 (Strix, AIE2P) 8; `npu1_Ncol`/`npu2_Ncol` are their
//! first N columns.

use htp_api::{Architecture, Direction, DmaChannels, MemorySpace, NeighbourAccess, ParallelLevel, TileArray, TileKind};

const KIB: u64 = 1024;

/// The NPU families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Phoenix / Hawk Point: AIE2 (AIE-ML), 4 columns.
    Npu1,
    /// Strix: AIE2P, 8 columns.
    Npu2,
}

/// A device `aie.device(...)` names: a whole NPU or its first columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    pub family: Family,
    pub columns: u32,
}

/// Rows of every NPU column, row 0 first.
pub const ROWS: [&str; 6] = ["shim", "memory", "compute", "compute", "compute", "compute"];
/// Data memory of a compute tile (`getLocalMemorySize`).
pub const COMPUTE_MEMORY: u64 = 64 * KIB;
/// Data memory of a memtile (`getMemTileSize`).
pub const MEMTILE_MEMORY: u64 = 512 * KIB;
/// The stack mlir-aie reserves at the bottom of a core's memory by default.
pub const DEFAULT_STACK: u64 = 1024;

impl Device {
    /// Every device name mlir-aie knows for NPUs, in its enum's order.
    pub const NAMES: [&'static str; 12] = [
        "npu1", "npu1_1col", "npu1_2col", "npu1_3col", "npu2", "npu2_1col", "npu2_2col", "npu2_3col", "npu2_4col", "npu2_5col", "npu2_6col",
        "npu2_7col",
    ];

    /// The device of `name` (`npu1`, `npu2_3col`, ...).
    pub fn from_name(name: &str) -> Result<Device, String> {
        let (family, full, rest) = if let Some(rest) = name.strip_prefix("npu1") {
            (Family::Npu1, 4, rest)
        } else if let Some(rest) = name.strip_prefix("npu2") {
            (Family::Npu2, 8, rest)
        } else {
            return Err(Self::unknown(name));
        };
        let columns = if rest.is_empty() {
            full
        } else {
            let count: u32 = rest.strip_prefix('_').and_then(|r| r.strip_suffix("col")).and_then(|n| n.parse().ok()).ok_or_else(|| Self::unknown(name))?;
            if count == 0 || count >= full {
                return Err(Self::unknown(name));
            }
            count
        };
        Ok(Device { family, columns })
    }

    fn unknown(name: &str) -> String {
        format!("unknown AIE device '{name}' (mlir-aie's NPU devices: {})", Self::NAMES.join(", "))
    }

    /// The name mlir-aie spells the device with.
    pub fn name(&self) -> String {
        let (family, full) = match self.family {
            Family::Npu1 => ("npu1", 4),
            Family::Npu2 => ("npu2", 8),
        };
        if self.columns == full {
            family.to_string()
        } else {
            format!("{family}_{}col", self.columns)
        }
    }

    /// The array: shim, memtile and compute tiles with their memories, DMA
    /// channels per direction and locks (AIE2TargetModel), and which
    /// neighbours' memories a core addresses (`isLegalMemAffinity`: west,
    /// north and south compute tiles; east is its own on AIE-ML).
    pub fn tile_array(&self) -> TileArray {
        let data = |bytes, alignment, description| MemorySpace { name: "data", bytes: Some(bytes), alignment, description };
        TileArray {
            columns: self.columns,
            rows: ROWS.to_vec(),
            kinds: vec![
                TileKind {
                    name: "shim",
                    description: "shim NOC tile: DMA between host memory and the array's streams (no data memory)",
                    computes: false,
                    memories: vec![],
                    dma: DmaChannels { input: 2, output: 2 },
                    locks: 16,
                },
                TileKind {
                    name: "memory",
                    description: "memtile: 512 KiB shared by its DMAs (object FIFOs split and joined here)",
                    computes: false,
                    memories: vec![data(MEMTILE_MEMORY, 4, "memtile memory")],
                    dma: DmaChannels { input: 6, output: 6 },
                    locks: 64,
                },
                TileKind {
                    name: "compute",
                    description: "compute tile: a VLIW vector core and 64 KiB of data memory (the stack first)",
                    computes: true,
                    memories: vec![data(COMPUTE_MEMORY, 32, "data memory (L1)")],
                    dma: DmaChannels { input: 2, output: 2 },
                    locks: 16,
                },
            ],
            neighbours: vec![NeighbourAccess { from: "compute", to: "compute", directions: vec![Direction::West, Direction::North, Direction::South] }],
            exceptions: vec![],
        }
    }

    /// The whole model a target reports: columns of four cores, host
    /// memory, and the tile array.
    pub fn architecture(&self) -> Architecture {
        Architecture {
            levels: vec![
                ParallelLevel { name: "column", count: self.columns as u64, description: "NPU columns (a shim tile, a memtile, four compute tiles each)" },
                ParallelLevel { name: "core", count: 4, description: "compute tiles of a column (rows 2-5)" },
            ],
            memories: vec![MemorySpace { name: "host", bytes: None, alignment: 4, description: "host memory the shim DMAs move (DDR)" }],
            array: Some(self.tile_array()),
        }
    }
}

/// Whether the core of compute tile `core` (col, row) reaches the data
/// memory of compute tile `memory` (mlir-aie's AIE2 memory affinity, as the
/// `aie` verifier has it): its own, west, north and south.
pub fn reaches(core: (i64, i64), memory: (i64, i64)) -> bool {
    let compute = |t: (i64, i64)| t.1 >= 2;
    compute(core) && compute(memory) && (memory == core || memory == (core.0 - 1, core.1) || memory == (core.0, core.1 + 1) || memory == (core.0, core.1 - 1))
}

/// Whether a FIFO between `a` and `b` lies in memory both reach (no DMA).
pub fn shares_memory(a: (i64, i64), b: (i64, i64)) -> bool {
    reaches(a, b) || reaches(b, a)
}
