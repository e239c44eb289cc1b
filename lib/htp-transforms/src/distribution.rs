//! How a kernel's outer loop is spread over a target's parallel hardware,
//! as an Axe layout of its iteration space (`htp.distribution` on the
//! `scf.for`, and on the kernel once outlined): the loop's trips `t` in
//! `[0, T)` have two parts, the outer on a parallel level of the target's
//! architecture model (`cluster`, `vector_core`, `core`), the inner on the
//! sequential axis `iter`:
//!
//! ```mlir
//! #layout.axe<[24@cluster:1, ?@iter:1]>    // 24 blocks of consecutive trips, one per cluster
//! #layout.axe<[?@core:1, ?@iter:1]>        // blocks over the cores there are at run time
//! #layout.axe<[?@vector_core:1, 4@iter:1]> // tasks of 4 trips (the user's grain), as many as it takes
//! ```
//!
//! A `?` is solved at run time: with a static grain the unit count is
//! `ceil(T / grain)`; with both `?` the units are what the level offers
//! then (the CPU's pool, in a few chunks per thread; PTO's available
//! cores). The distribution is made by [`distribute`] (the pass
//! `tile-distribute-outer-loop`, or a backend's conversion with its own
//! level) from the user's intent on the loop (`htp.range(..., grain=G)` sets
//! [`GRAIN`], `parallel=False` sets [`SERIAL`]); backends read it with
//! [`Distribution::of`] to size their chunks or tasks.

use htp_dialects::layout::{Axe, Part, DYNAMIC};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationMutLike},
        Location, OperationRef, RegionLike,
    },
    Context,
};

use crate::loop_independence::{independent_outer_loop, iterations_independent};

/// The attribute holding a loop's (or an outlined kernel's) distribution.
pub const ATTRIBUTE: &str = "htp.distribution";
/// The user's grain (`htp.range(..., grain=G)`): trips per task, an i64.
pub const GRAIN: &str = "htp.grain";
/// The user asked for the loop to stay on one unit (`parallel=False`).
pub const SERIAL: &str = "htp.serial";
/// The sequential axis: trips one unit runs in order.
pub const ITERATIONS: &str = "iter";

/// A loop's trips over a parallel level: `units` blocks (None: known at
/// run time) of `grain` trips each (None: `ceil(T / units)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    pub level: String,
    pub units: Option<i64>,
    pub grain: Option<i64>,
}

fn extent(value: Option<i64>) -> i64 {
    value.unwrap_or(DYNAMIC)
}

fn known(extent: i64) -> Option<i64> {
    (extent != DYNAMIC).then_some(extent)
}

impl Distribution {
    /// The Axe layout of the iteration space.
    pub fn to_axe(&self) -> Axe {
        Axe {
            dims: vec![vec![
                Part { extent: extent(self.units), axis: self.level.clone(), stride: 1 },
                Part { extent: extent(self.grain), axis: ITERATIONS.into(), stride: 1 },
            ]],
            replicas: Vec::new(),
            offset: 0,
        }
    }

    /// The distribution an Axe layout describes, if it is one (one
    /// dimension: a part on a parallel level, then one on `iter`).
    pub fn from_axe(axe: &Axe) -> Option<Distribution> {
        let [parts] = axe.dims.as_slice() else { return None };
        let [unit, trips] = parts.as_slice() else { return None };
        let parallel = unit.axis != ITERATIONS && unit.axis != htp_dialects::layout::MEMORY;
        (parallel && trips.axis == ITERATIONS && unit.stride == 1 && trips.stride == 1 && axe.replicas.is_empty() && axe.offset == 0)
            .then(|| Distribution { level: unit.axis.clone(), units: known(unit.extent), grain: known(trips.extent) })
    }

    /// The distribution on `op` (a loop, or a kernel whose loop was outlined).
    pub fn of(op: OperationRef) -> Option<Distribution> {
        op.attribute(ATTRIBUTE).ok().and_then(Axe::from_attribute).as_ref().and_then(Distribution::from_axe)
    }

    /// Puts this distribution on `op`.
    pub fn attach(&self, context: &Context, op: OperationRef) -> Result<(), String> {
        let attribute = self.to_axe().to_attribute(context).ok_or_else(|| format!("{self:?} is not a valid Axe layout"))?;
        unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) }.set_discardable_attribute(ATTRIBUTE, attribute);
        Ok(())
    }

    /// Chunks of a loop of `trips` trips: (count, trips per chunk), given
    /// the units the level has at run time (`available`) when the layout
    /// leaves them open.
    pub fn chunks(&self, trips: i64, available: i64) -> (i64, i64) {
        if trips <= 0 {
            return (0, 0);
        }
        // In i128: trip counts near i64::MAX must not overflow.
        let trips = trips as i128;
        let per_chunk = match self.grain {
            Some(grain) => grain.max(1) as i128,
            None => {
                let units = self.units.unwrap_or(available).max(1) as i128;
                (trips + units - 1) / units
            }
        };
        (((trips + per_chunk - 1) / per_chunk) as i64, per_chunk as i64)
    }
}

/// The user's grain on a loop, if any.
pub fn grain(op: OperationRef) -> Option<i64> {
    op.attribute(GRAIN).ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|a| a.value())
}

/// Whether the user kept a loop on one unit.
pub fn serial(op: OperationRef) -> bool {
    op.attribute(SERIAL).is_ok()
}

/// Distributes the outer loop of `kernel` (a `func.func`) over `level`
/// (`units` of them, None: as many as there are at run time), honouring the
/// user's grain and `parallel=False`; returns the loop it distributed. A
/// loop the user gave a grain that cannot be distributed (not the kernel's
/// one outer loop, or iterations that depend on each other) is an error at
/// that loop.
pub fn distribute<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    level: &str,
    units: Option<i64>,
) -> Result<Option<OperationRef<'c, 'a>>, (Location<'c>, String)> {
    let Some(entry) = kernel.region(0).ok().and_then(|r| r.first_block()) else { return Ok(None) };
    let outer = independent_outer_loop(entry);
    // A grain anywhere else is a request HTP cannot honour.
    let mut refused = None;
    kernel.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if refused.is_none() && grain(op).is_some() && outer.is_none_or(|o| o.to_raw().ptr != op.to_raw().ptr) {
            let why = if op.parent_operation().is_some_and(|p| p.to_raw().ptr == kernel.to_raw().ptr) && iterations_independent(op) {
                "it is not the kernel's only top-level loop (with no store, kernel-local array, or tile read from a tensor it stores around it)"
            } else if op.parent_operation().is_some_and(|p| p.to_raw().ptr == kernel.to_raw().ptr) {
                "its iterations are not independent (each store must write the slice its iteration's index selects, \
                 no tensor it stores may also be loaded, no htp.scatter may write rows its data chooses, and no scalar \
                 state — memref.store, scf.while — may pass between them)"
            } else {
                "only a kernel's outermost loop is distributed"
            };
            refused = Some((op.to_raw(), format!("htp.range(..., grain=...) asks to distribute this loop over cores, but {why}")));
        }
        melior::ir::operation::WalkResult::Advance
    });
    if let Some((op, message)) = refused {
        // Safe: the op is inside `kernel`, which outlives this call.
        return Err((unsafe { OperationRef::from_raw(op) }.location(), message));
    }
    let Some(outer) = outer else { return Ok(None) };
    if serial(outer) {
        return Ok(None);
    }
    if Distribution::of(outer).is_some() {
        return Ok(Some(outer));
    }
    // With a grain the task count follows from the trips (`?`).
    let grain = grain(outer);
    let distribution = Distribution { level: level.into(), units: if grain.is_some() { None } else { units }, grain };
    distribution.attach(context, outer).map_err(|message| (outer.location(), message))?;
    Ok(Some(outer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_round_trip_through_axe_layouts() {
        let blocks = Distribution { level: "cluster".into(), units: Some(24), grain: None };
        let tasks = Distribution { level: "vector_core".into(), units: None, grain: Some(4) };
        for d in [&blocks, &tasks] {
            assert_eq!(Distribution::from_axe(&d.to_axe()).as_ref(), Some(d));
        }
        let context = htp_dialects::new_context();
        let text = blocks.to_axe().to_attribute(&context).unwrap().to_string();
        assert_eq!(text, "#layout.axe<[24@cluster:1, ?@iter:1]>");
        // A tile layout is not a distribution.
        assert_eq!(Distribution::from_axe(&Axe::row_major(16, 64)), None);
    }

    #[test]
    fn chunks_follow_the_static_parts() {
        let blocks = Distribution { level: "core".into(), units: Some(4), grain: None };
        assert_eq!(blocks.chunks(10, 99), (4, 3));
        let open = Distribution { level: "core".into(), units: None, grain: None };
        assert_eq!(open.chunks(10, 2), (2, 5));
        let grain = Distribution { level: "core".into(), units: None, grain: Some(4) };
        assert_eq!(grain.chunks(10, 2), (3, 4));
        assert_eq!(grain.chunks(0, 2), (0, 0));
    }
}
