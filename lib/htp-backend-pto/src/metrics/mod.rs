//! Static code-quality metrics of a lowered PTO module (after the
//! `htp-pto-lowering` pipeline) for one call with concrete shapes and scalar
//! values: the GM bytes each tensor argument is read and written, the
//! synchronisation executed (set/wait flags, barriers), the cross-core
//! hand-overs, and the peak bytes placed in each on-chip memory. Nothing
//! runs on a device: the orchestration and every task's kernel are
//! interpreted over their scalar code (`interpret.rs`, `scalar.rs`), and the
//! data-moving instructions are counted as they would execute.
//!
//! The orchestration reads the number of cores (`pto.available_cores`);
//! [`A2A3_CORES`] is an A2/A3 chip's: 24 AI cores, each a cube core and two
//! vector cores. Core counts only change where tasks split an outer loop,
//! which moves no extra GM bytes but primes and drains each task's flags.

mod interpret;
mod scalar;

use melior::ir::{
    attribute::IntegerAttribute,
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    OperationRef, RegionLike, ValueLike,
};

use crate::dialect::{Location, TileType};
use crate::ods::pto;

/// How many cores of each kind the orchestration may fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cores {
    /// Cube cores (one per cluster).
    pub aic: i64,
    /// Vector cores (two per cluster).
    pub aiv: i64,
}

/// An Ascend A2/A3 chip (910B class), from its architecture model: 24
/// clusters of one AIC and two AIVs.
pub const A2A3_CORES: Cores = Cores {
    aic: crate::architecture::CLUSTERS as i64,
    aiv: (crate::architecture::CLUSTERS * crate::architecture::VECTOR_CORES_PER_CLUSTER) as i64,
};

/// The on-chip memories whose peak use is reported, in report order.
pub const MEMORIES: [Location; 6] = [Location::Vec, Location::Mat, Location::Left, Location::Right, Location::Acc, Location::Bias];

/// What one call of a lowered PTO program does, counted as executed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Tasks submitted (a cluster task counts once).
    pub tasks: i64,
    /// GM bytes read (`pto.tload`, `pto.mgather`) per tensor argument of the
    /// program, in argument order (valid extents x element bytes).
    pub read_bytes: Vec<i64>,
    /// GM bytes written (`pto.tstore`, `pto.mscatter`) per tensor argument.
    pub write_bytes: Vec<i64>,
    pub tloads: i64,
    pub tstores: i64,
    pub mgathers: i64,
    pub mscatters: i64,
    pub set_flags: i64,
    pub wait_flags: i64,
    pub barriers: i64,
    /// Cross-core hand-overs of cluster tasks; on A2/A3 each goes through
    /// the task's GM ring (`ring_bytes` counts both the push and the pop).
    pub tpushes: i64,
    pub tpops: i64,
    pub ring_bytes: i64,
    /// Per memory of [`MEMORIES`]: the highest `addr + size` of any placed
    /// tile in the program's kernels (0 when unused).
    pub peak_bytes: Vec<(Location, i64)>,
}

impl Metrics {
    pub fn gm_read_bytes(&self) -> i64 {
        self.read_bytes.iter().sum()
    }

    pub fn gm_write_bytes(&self) -> i64 {
        self.write_bytes.iter().sum()
    }

    /// Named values, for reports and bindings: totals, then per tensor
    /// argument (`read_bytes.<i>`, `write_bytes.<i>`), then peaks
    /// (`peak_bytes.<memory>`).
    pub fn entries(&self) -> Vec<(String, f64)> {
        let mut list: Vec<(String, f64)> = [
            ("tasks", self.tasks),
            ("gm_read_bytes", self.gm_read_bytes()),
            ("gm_write_bytes", self.gm_write_bytes()),
            ("tloads", self.tloads),
            ("tstores", self.tstores),
            ("mgathers", self.mgathers),
            ("mscatters", self.mscatters),
            ("set_flags", self.set_flags),
            ("wait_flags", self.wait_flags),
            ("barriers", self.barriers),
            ("tpushes", self.tpushes),
            ("tpops", self.tpops),
            ("ring_bytes", self.ring_bytes),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value as f64))
        .collect();
        for (i, bytes) in self.read_bytes.iter().enumerate() {
            list.push((format!("read_bytes.{i}"), *bytes as f64));
        }
        for (i, bytes) in self.write_bytes.iter().enumerate() {
            list.push((format!("write_bytes.{i}"), *bytes as f64));
        }
        for (memory, bytes) in &self.peak_bytes {
            list.push((format!("peak_bytes.{}", memory.as_str()), *bytes as f64));
        }
        list
    }
}

/// The metrics of calling the lowered program in `module` once with tensor
/// arguments of `shapes` and scalar arguments `scalars` (each in argument
/// order; integers and booleans as their numeric values). An op the
/// evaluator does not know is an error naming it.
pub fn evaluate(module: OperationRef, shapes: &[Vec<i64>], scalars: &[f64], cores: Cores) -> Result<Metrics, String> {
    let mut metrics = interpret::run(module, shapes, scalars, cores)?;
    metrics.peak_bytes = peak_bytes(module)?;
    Ok(metrics)
}

/// The highest placed byte of each memory over every kernel of `module`.
pub fn peak_bytes(module: OperationRef) -> Result<Vec<(Location, i64)>, String> {
    let mut peaks: Vec<(Location, i64)> = MEMORIES.iter().map(|m| (*m, 0)).collect();
    let mut failure = None;
    module.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() != Ok(pto::AllocTileOperation::name()) {
            return WalkResult::Advance;
        }
        let Some(tile) = op.result(0).ok().and_then(|r| TileType::try_from(r.r#type()).ok()) else {
            failure = Some("a pto.alloc_tile without a tile result".to_string());
            return WalkResult::Interrupt;
        };
        let Some(addr) = op.attribute("addr").ok().and_then(|a| IntegerAttribute::try_from(a).ok()) else {
            failure = Some("an unplaced pto.alloc_tile (run pto-allocate-tiles first)".to_string());
            return WalkResult::Interrupt;
        };
        if let Some(peak) = peaks.iter_mut().find(|(m, _)| *m == tile.location()) {
            peak.1 = peak.1.max(addr.value() + tile.size_in_bytes());
        }
        WalkResult::Advance
    });
    failure.map_or(Ok(peaks), Err)
}

/// The top-level function of `module` named `name`.
fn function<'c>(module: OperationRef<'c, '_>, name: &str) -> Option<OperationRef<'c, 'c>> {
    let body = module.region(0).ok()?.first_block()?;
    let mut op = body.first_operation();
    while let Some(current) = op {
        let symbol = current.attribute("sym_name").ok().and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok());
        if current.name().as_string_ref().as_str() == Ok("func.func") && symbol.is_some_and(|s| s.value() == name) {
            return Some(unsafe { OperationRef::from_raw(current.to_raw()) });
        }
        op = current.next_in_block();
    }
    None
}

#[cfg(test)]
mod tests;
