//! The state one kernel's conversion shares between the op families:
//! the [`Kernel`] being built (old value -> new value or buffer, the
//! cluster split, in-place and zero-tile bookkeeping) and the [`At`]
//! builder with the PTO ops every family appends ([`PtoOps`]). A leaf of
//! the conversion: `memory`, `vector`, `cube`, ... depend on it, and
//! `kernel.rs` (control flow) on them.

use std::{collections::HashMap, rc::Rc};

use htp_dialects::tile::TileType;
use melior::{
    ir::{operation::OperationLike, Attribute, BlockRef, Location, OperationRef, ValueLike},
    Context,
};

use super::buffer::{Buffer, Shape};
use super::cores::Core;
use super::split::Split;
use crate::ods::pto;
use htp_ir::builder::{parse_type, shape_of, Builder, V};
use htp_ir::query::{defining_op, key};

pub use htp_pass::Failure;

/// Appends ops to a block at one location (the shared append builder, with
/// the PTO-specific helpers below).
pub use htp_ir::builder::BodyBuilder as At;

/// The PTO-specific ops a conversion appends through [`At`].
pub trait PtoOps<'c> {
    /// A PTO instruction: no results, operands in ISA order.
    fn instr(&self, name: &str, operands: &[V<'c>], attributes: &[(&str, Attribute<'c>)]);
    /// A PTO instruction built by its typed builder (`crate::ods::pto`).
    fn instruction(&self, op: impl Into<melior::ir::Operation<'c>>);
    /// `pto.alloc_tile` for `shape`; placement comes later (pto-allocate-tiles).
    fn alloc(&self, shape: Shape<'c>) -> Buffer<'c>;
    /// `pto.tile_view`: the same bytes seen as another tile (other valid
    /// region, pad value or shape), as two TASSIGNs to one address.
    fn view(&self, of: Buffer<'c>, shape: Shape<'c>) -> Buffer<'c>;
}

impl<'c> PtoOps<'c> for At<'c> {
    fn instr(&self, name: &str, operands: &[V<'c>], attributes: &[(&str, Attribute<'c>)]) {
        self.op(name, operands, &[], attributes, vec![]);
    }

    fn instruction(&self, op: impl Into<melior::ir::Operation<'c>>) {
        self.place(op.into());
    }

    fn alloc(&self, shape: Shape<'c>) -> Buffer<'c> {
        let ty = parse_type(self.context, &shape.type_text());
        let value = self.value(pto::AllocTileOperation::name(), &shape.dynamic_valid(), ty);
        Buffer { value, shape }
    }

    fn view(&self, of: Buffer<'c>, shape: Shape<'c>) -> Buffer<'c> {
        let ty = parse_type(self.context, &shape.type_text());
        let mut operands = vec![of.value];
        operands.extend(shape.dynamic_valid());
        let value = self.value(pto::TileViewOperation::name(), &operands, ty);
        Buffer { value, shape }
    }
}

pub struct Kernel<'c> {
    pub context: &'c Context,
    pub core: Core,
    /// Old (tile-level) value -> new value, for everything but tiles.
    pub(super) values: HashMap<usize, V<'c>>,
    /// Old tile value -> its buffer.
    pub(super) buffers: HashMap<usize, Buffer<'c>>,
    /// Old tile value -> the loop-carried buffer its op should write into.
    pub(super) in_place: HashMap<usize, Buffer<'c>>,
    /// Old tile values that are all zeros and were never materialised (cube
    /// accumulators start as "no value yet": the first matmul overwrites).
    pub zeros: HashMap<usize, TileType<'c>>,
    /// Loop-carried accumulators that are zero on the first trip of their
    /// loop: carried buffer -> (loop induction variable, lower bound).
    pub zero_on_entry: HashMap<usize, (V<'c>, V<'c>)>,
    /// Carried accumulators whose loop has not been built yet.
    pub(super) zero_pending: Vec<usize>,
    /// Broadcasts left for their single user to fuse: result -> source buffer.
    pub deferred: HashMap<usize, Buffer<'c>>,
    /// The loop whose bounds become the task's [lo, hi) arguments.
    pub(super) outer_loop: Option<usize>,
    /// For one side of a cluster task: the split, the slot this core pops
    /// into, and (cube) the L0A/L0B tiles each popped matmul operand was
    /// moved to: (old value, place) -> tile.
    pub(super) split: Option<Rc<Split<'c>>>,
    pub(super) slot: Option<Buffer<'c>>,
    pub(super) popped_operands: HashMap<(usize, super::buffer::Place), Buffer<'c>>,
    /// Buffers of `if` tile results whose valid size is only known in the
    /// branch taken: each branch yields its extents as extra results.
    pub(super) ragged_if_results: Vec<usize>,
}

impl<'c> Kernel<'c> {
    /// The valid extents of an old tile value in this kernel's terms, traced
    /// to the scalars they come from (`split::valid_sources`).
    pub fn traced_valid(&self, old: V<'c>) -> Option<[super::buffer::Extent<'c>; 2]> {
        let sources = super::split::valid_sources(old)?;
        let mut valid = [super::buffer::Extent::Static(0); 2];
        for (extent, source) in valid.iter_mut().zip(sources) {
            *extent = match source {
                super::split::ValidSource::Static(n) => super::buffer::Extent::Static(n),
                super::split::ValidSource::Value(v) => super::buffer::Extent::Dynamic(self.value(v).ok()?),
            };
        }
        Some(valid)
    }

    /// Whether this kernel computes `op` (always, unless it is one side of
    /// a cluster task).
    pub(super) fn runs(&self, op: OperationRef<'c, 'c>) -> bool {
        self.split.as_ref().is_none_or(|s| s.op_on(op, self.core))
    }

    /// Whether this kernel holds the loop-carried tile `value`.
    pub(super) fn holds(&self, value: V<'c>) -> bool {
        self.split.as_ref().is_none_or(|s| s.carried_on(value, self.core))
    }

    pub fn at(&self, block: BlockRef<'c, 'c>, location: Location<'c>) -> At<'c> {
        At { context: self.context, block, location }
    }

    /// The new value for an old non-tile value.
    /// Whether this kernel is one side of a cluster task (tiles cross
    /// between the cores with shapes both sides agree on).
    pub fn is_cluster(&self) -> bool {
        self.split.is_some()
    }

    pub fn value(&self, old: V<'c>) -> Result<V<'c>, String> {
        self.values.get(&key(old)).copied().ok_or_else(|| "a value defined outside the kernel".to_string())
    }

    /// The GM tensor and offsets a tile load or store addresses: a 1-D
    /// tensor, which the front end views as `1 x N` (`memref.expand_shape`),
    /// is addressed directly (rank 1, the column offset only), since a
    /// `pto.global_view` takes a rank-1 source as one row.
    pub fn gm_tensor(&self, old: V<'c>, indices: &[V<'c>]) -> Result<(V<'c>, Vec<V<'c>>), String> {
        if let Some(source) = unit_row_view(old) {
            let column = indices.get(1).ok_or("a 1-D view without a column offset")?;
            return Ok((self.value(source)?, vec![self.value(*column)?]));
        }
        Ok((self.value(old)?, indices.iter().map(|i| self.value(*i)).collect::<Result<_, _>>()?))
    }

    /// The buffer holding an old tile value.
    pub fn buffer(&self, old: V<'c>) -> Result<Buffer<'c>, String> {
        self.buffers.get(&key(old)).copied().ok_or_else(|| "a tile this target cannot hold here".to_string())
    }

    pub fn bind(&mut self, old: V<'c>, buffer: Buffer<'c>) {
        self.buffers.insert(key(old), buffer);
    }

    /// The buffer an op's tile result goes to: the loop-carried buffer when
    /// it may be updated in place, else a new one of `shape`.
    pub fn destination(&self, at: &At<'c>, result: V<'c>, shape: Shape<'c>) -> Buffer<'c> {
        match self.in_place.get(&key(result)) {
            Some(carried) => *carried,
            None => at.alloc(shape),
        }
    }
}

/// A loop's (upper bound, step) with a run-time step that is not positive
/// made harmless: zero trips (upper := lower, step := 1) instead of a loop
/// that never ends or a division by zero in the task split. (The CPU reports
/// it, `tile-check-bounds`; a PTO kernel has no channel for that yet.)
pub fn positive_step<'c>(at: &At<'c>, lower: V<'c>, upper: V<'c>, step: V<'c>) -> (V<'c>, V<'c>) {
    if defining_op(step).is_some_and(|d| d.name().as_string_ref().as_str() == Ok("arith.constant")) {
        return (upper, step);
    }
    let (_, upper, step) = at.zero_trips_unless_positive(lower, upper, step);
    (upper, step)
}

/// The 1-D tensor `view` is the `1 x N` view of (`memref.expand_shape`), if it is one.
pub fn unit_row_view<'c>(view: V<'c>) -> Option<V<'c>> {
    let op = defining_op(view)?;
    if op.name().as_string_ref().as_str() != Ok("memref.expand_shape") {
        return None;
    }
    let source = htp_ir::query::operand_at(op, 0)?;
    let expanded = shape_of(view.r#type());
    (shape_of(source.r#type()).len() == 1 && expanded.len() == 2 && expanded[0] == 1).then_some(source)
}
