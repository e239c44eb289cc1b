//! `pto-insert-sync`: makes a placed PTO kernel correct on hardware whose
//! pipes (MTE2 loads, V vector, MTE1 L1->L0, M cube, FIX L0C out, MTE3
//! stores) run concurrently, by inserting `pto.set_flag`/`pto.wait_flag`
//! pairs and `pto.barrier <v>` exactly where two instructions touch
//! overlapping bytes (a tile's address range, or a GM tensor) and at least
//! one writes. The CPU simulation runs instructions one at a time, so it
//! cannot catch a missing flag: this pass is the only guard, and its
//! placement is tested in lit.
//!
//! Each block is a sequence of items (instructions, or loops/ifs summarised
//! by everything inside them). Walking it, an access that conflicts with an
//! earlier one on another pipe gets a flag: set right after the earlier
//! item, waited for right before the later one; on the same pipe only V
//! needs ordering (a barrier). An item synchronised that way is ordered for
//! that destination pipe from then on. A conflict needs no flag (or
//! barrier) of its own when transitive order implies it: if the earlier
//! access was already waited for by an item of pipe R, and this item waits
//! for a later item of R anyway, that wait covers it. A loop body is walked a second time
//! against what its previous iteration left unsynchronised: such back-edge
//! flags are set in the body after the producer and waited for before the
//! consumer, primed once before the loop and drained once after it, so sets
//! and waits always pair up. Event ids are given per pipe pair so that no
//! two flags that can be outstanding at once share one (EVENT_ID7 is left to
//! the runtime's end-of-kernel sync).

use std::collections::HashMap;

use crate::dialect::{Location as TileLocation, TileType};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::IntegerType,
        BlockRef, Location, Operation, OperationRef, RegionLike, ValueLike,
    },
    Context,
};

use htp_ir::builder::{detach, named, parse_attribute, V};
use htp_ir::query::{op_key, preorder_positions};
use crate::dialect::root_alloc;
use crate::ods::pto;
use crate::ops::{PtoOp, CORE_ATTRIBUTE};

htp_pass::pass! {
    pub DEFINITION = Pass<"pto-insert-sync", "func.func"> {
        summary: "Insert PTO pipe synchronisation (set/wait flags, V barriers) between conflicting instructions",
        dialects: [crate::handles::pto],
        options: Options {
            #[option("transitive-order", default = "true", "omit a flag or barrier that transitive order already implies (false: one per conflict, for debugging synchronisation)")]
            transitive_order: bool,
        },
        run: run,
    }
}

/// Synchronises a `pto.core` kernel (other functions are left alone).
fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>, options: &Options) -> Result<(), htp_pass::Failure<'c>> {
    if function.attribute(CORE_ATTRIBUTE).is_err() {
        return Ok(());
    }
    let mut state = Sync { context, flags: Vec::new(), transitive: options.transitive_order };
    let location = function.location();
    let body = function.region(0).map_err(|e| (location, e.to_string()))?.first_block().ok_or((location, "a kernel without a body".to_string()))?;
    let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
    state.block(body).and_then(|_| state.assign_event_ids(function)).map_err(|message| (function.location(), message))
}

/// The hardware pipes, as the `pto` dialect spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipe {
    S,
    V,
    Mte1,
    Mte2,
    Mte3,
    M,
    Fix,
}

impl Pipe {
    fn keyword(self) -> &'static str {
        match self {
            Pipe::S => "s",
            Pipe::V => "v",
            Pipe::Mte1 => "mte1",
            Pipe::Mte2 => "mte2",
            Pipe::Mte3 => "mte3",
            Pipe::M => "m",
            Pipe::Fix => "fix",
        }
    }
}

/// What an access touches: a byte range of an on-chip memory, or a whole
/// GM tensor (tensors are distinct kernel arguments).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Resource {
    Tile { memory: TileLocation, begin: i64, end: i64 },
    Tensor(usize),
}

impl Resource {
    fn overlaps(&self, other: &Resource) -> bool {
        match (self, other) {
            (Resource::Tile { memory: a, begin: b0, end: e0 }, Resource::Tile { memory: b, begin: b1, end: e1 }) => {
                a == b && b0 < e1 && b1 < e0
            }
            (Resource::Tensor(a), Resource::Tensor(b)) => a == b,
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Access {
    pipe: Pipe,
    write: bool,
    resource: Resource,
}

/// An access not yet ordered before later work, with the item that made it
/// and the pipes it has been ordered before so far: (pipe, position of the
/// first item of that pipe it is ordered before; [`LATER_ITERATION`] when
/// that item is in a later iteration of the loop).
#[derive(Clone)]
struct Pending<'c> {
    access: Access,
    item: OperationRef<'c, 'c>,
    position: usize,
    ordered_before: Vec<(Pipe, usize)>,
}

/// The position of a waiting item in the next iteration of a loop body:
/// after every item of the previous one.
const LATER_ITERATION: usize = usize::MAX;

impl Pending<'_> {
    fn is_ordered_before(&self, pipe: Pipe) -> bool {
        self.ordered_before.iter().any(|(p, _)| *p == pipe)
    }

    /// Whether waiting for the item of pipe `pipe` at `position` (and so for
    /// everything that pipe ran before it) also waits for this access: it
    /// is ordered before an item of `pipe` no later than `position`.
    fn covered_by(&self, pipe: Pipe, position: usize) -> bool {
        pipe != self.access.pipe && self.ordered_before.iter().any(|(p, waiter)| *p == pipe && *waiter <= position)
    }
}

/// One flag: its ops (set, wait, and for back-edge flags the priming set
/// and draining wait), which all get the same event id.
struct Flag<'c> {
    pair: (Pipe, Pipe),
    ops: Vec<OperationRef<'c, 'c>>,
}

struct Sync<'c> {
    context: &'c Context,
    flags: Vec<Flag<'c>>,
    /// The `transitive-order` option: skip what transitive order implies.
    transitive: bool,
}

fn name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// The byte range of the buffer a tile value is.
fn tile_resource(value: V) -> Result<Resource, String> {
    let alloc = root_alloc(value).ok_or("a tile that is not a pto.alloc_tile buffer")?;
    let tile = TileType::try_from(detach(alloc.result(0).map_err(|e| e.to_string())?.into()).r#type()).map_err(|_| "not a tile")?;
    let begin = alloc
        .attribute("addr")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map(|a| a.value())
        .ok_or("pto-insert-sync needs placed tiles: run pto-allocate-tiles first")?;
    Ok(Resource::Tile { memory: tile.location(), begin, end: begin + tile.size_in_bytes() })
}

fn tensor_resource(view: V) -> Result<Resource, String> {
    let op = htp_ir::query::defining_op(view).ok_or("a GM view that is not a pto.global_view")?;
    Ok(Resource::Tensor(op.operand(0).map_err(|e| e.to_string())?.to_raw().ptr as usize))
}

fn location_of(value: V) -> Result<TileLocation, String> {
    Ok(TileType::try_from(value.r#type()).map_err(|_| "not a tile")?.location())
}

/// The pipe an instruction runs on and what it reads and writes
/// (PTO-ISA's `OpPipeEntry` table); `None` for scalar work.
fn accesses(op: OperationRef) -> Result<Vec<Access>, String> {
    // `pto.tile_view` names bytes another tile already holds: no instruction.
    let Some(kind) = PtoOp::of(op).filter(|kind| kind.is_tile_instruction()) else {
        return Ok(vec![]);
    };
    let operand = |i: usize| op.operand(i).map(detach).map_err(|e| e.to_string());
    let tile = |i: usize, pipe: Pipe, write: bool| -> Result<Access, String> {
        Ok(Access { pipe, write, resource: tile_resource(operand(i)?)? })
    };
    use PtoOp::*;
    Ok(match kind {
        TLoad => {
            let pipe = Pipe::Mte2;
            vec![tile(0, pipe, true)?, Access { pipe, write: false, resource: tensor_resource(operand(1)?)? }]
        }
        MGather => {
            let pipe = Pipe::Mte2;
            vec![tile(0, pipe, true)?, Access { pipe, write: false, resource: tensor_resource(operand(1)?)? }, tile(2, pipe, false)?]
        }
        // A GM write of UB rows by DMA, as TSTORE (PTO-ISA's table says
        // PIPE_V: A2/A3's MSCATTER waits for V and MTE2 before it reads the
        // indices and for its own MTE3 copies before it returns).
        MScatter => {
            let pipe = Pipe::Mte3;
            vec![Access { pipe, write: true, resource: tensor_resource(operand(0)?)? }, tile(1, pipe, false)?, tile(2, pipe, false)?]
        }
        TStore => {
            let pipe = if location_of(operand(1)?)? == TileLocation::Acc { Pipe::Fix } else { Pipe::Mte3 };
            vec![Access { pipe, write: true, resource: tensor_resource(operand(0)?)? }, tile(1, pipe, false)?]
        }
        TMov | TExtract => {
            let pipe = match (location_of(operand(1)?)?, location_of(operand(0)?)?) {
                (TileLocation::Mat, _) => Pipe::Mte1,
                (TileLocation::Acc, _) => Pipe::Fix,
                _ => Pipe::V,
            };
            vec![tile(0, pipe, true)?, tile(1, pipe, false)?]
        }
        // Cross-core pipes: a push reads its tile on the pipe that stores it
        // to the GM ring (FIX from L0C, MTE3 from UB); a pop writes its tile
        // on MTE2. The cores' hand-over itself is the pipe's own flags.
        TPush => {
            let pipe = if location_of(operand(0)?)? == TileLocation::Acc { Pipe::Fix } else { Pipe::Mte3 };
            vec![tile(0, pipe, false)?]
        }
        TPop => vec![tile(0, Pipe::Mte2, true)?],
        TFree => vec![],
        // TCI stores its indices one by one from the scalar unit (PTO-ISA's
        // OpPipeEntry: PIPE_S), so vector work reading them waits for S.
        TCi => vec![tile(0, Pipe::S, true)?],
        TMatmul | TMatmulAcc => {
            let mut list = vec![tile(0, Pipe::M, true)?, tile(1, Pipe::M, false)?, tile(2, Pipe::M, false)?];
            if kind == TMatmulAcc {
                list.push(tile(0, Pipe::M, false)?);
            }
            list
        }
        _ => {
            // Vector instructions (and TFILLPAD, which runs on MTE2 for L1 tiles):
            // the first tile operand is written, the others read, except the
            // scratch (`tmp`, always last) of the ops that take one, which
            // the instruction writes.
            let pipe = if kind == TFillPad && location_of(operand(0)?)? == TileLocation::Mat { Pipe::Mte2 } else { Pipe::V };
            let scratch = matches!(kind, TRowSum | TRowMax | TRowMin | TRowArgMax | TRowArgMin | TSel | TTrans | TGather);
            let tiles: Vec<usize> = (0..op.operand_count()).filter(|&i| operand(i).is_ok_and(|v| TileType::try_from(v.r#type()).is_ok())).collect();
            let mut list = Vec::new();
            for (position, &i) in tiles.iter().enumerate() {
                let written = position == 0 || (scratch && position + 1 == tiles.len());
                list.push(tile(i, pipe, written)?);
            }
            list
        }
    })
}

/// Everything an item does, including inside its regions.
fn summary(op: OperationRef) -> Result<Vec<Access>, String> {
    let mut all = Vec::new();
    let mut failure = None;
    op.walk(WalkOrder::PreOrder, |inner| {
        match accesses(inner) {
            Ok(list) => all.extend(list),
            Err(e) => failure = Some(e),
        }
        WalkResult::Advance
    });
    failure.map_or(Ok(all), Err)
}

fn conflicts(a: &Access, b: &Access) -> bool {
    (a.write || b.write) && a.resource.overlaps(&b.resource)
}

impl<'c> Sync<'c> {
    fn build(&self, op_name: &str, location: Location<'c>, attributes: &[(&str, &str)], id: bool) -> Operation<'c> {
        let mut list: Vec<_> = attributes.iter().map(|(n, a)| (named(self.context, n), parse_attribute(self.context, a))).collect();
        if id {
            let ty = IntegerType::new(self.context, 32).into();
            list.push((named(self.context, "event_id"), IntegerAttribute::new(ty, 0).into()));
        }
        OperationBuilder::new(op_name, location).add_attributes(&list).build().expect("valid sync op")
    }

    fn flag_op(&self, op_name: &str, pair: (Pipe, Pipe), location: Location<'c>) -> Operation<'c> {
        let src = format!("#pto<pipe {}>", pair.0.keyword());
        let dst = format!("#pto<pipe {}>", pair.1.keyword());
        self.build(op_name, location, &[("src_pipe", &src), ("dst_pipe", &dst)], true)
    }

    fn barrier(&self, location: Location<'c>) -> Operation<'c> {
        self.build(pto::BarrierOperation::name(), location, &[("pipe", "#pto<pipe v>")], false)
    }

    /// `pto.barrier <all>`: every pipe drained.
    fn full_barrier(&self, location: Location<'c>) -> Operation<'c> {
        self.build(pto::BarrierOperation::name(), location, &[("pipe", "#pto<pipe all>")], false)
    }

    /// Synchronises one block (and, recursively, the blocks inside it).
    fn block(&mut self, block: BlockRef<'c, 'c>) -> Result<Vec<Pending<'c>>, String> {
        let items = items_of(block);
        let mut pending: Vec<Pending<'c>> = Vec::new();
        for (position, &item) in items.iter().enumerate() {
            // Communication with other chips is a full barrier: every pipe
            // drained before it (what the kernel wrote has landed when a
            // peer is told) and after it (nothing after a wait starts early).
            if is_comm_barrier(item) {
                block.insert_operation_before(item, self.full_barrier(item.location()));
                block.insert_operation_after(item, self.full_barrier(item.location()));
                pending.clear();
                continue;
            }
            let list = summary(item)?;
            self.order(block, &mut pending, item, position, &list, None)?;
            for region in item.regions() {
                let mut inner = region.first_block();
                while let Some(b) = inner {
                    let b: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(b.to_raw()) };
                    let left = self.block(b)?;
                    if name(item) == "scf.for" {
                        self.back_edge(item, b, left)?;
                    }
                    inner = b.next_in_region();
                }
            }
            pending.extend(list.into_iter().map(|access| Pending { access, item, position, ordered_before: vec![] }));
        }
        Ok(pending)
    }

    /// Orders `item`'s accesses after the conflicting `pending` ones. With
    /// `back_edge = Some(loop)`, the pending accesses are the previous
    /// iteration's and flags are primed before and drained after `loop`.
    fn order(
        &mut self,
        block: BlockRef<'c, 'c>,
        pending: &mut [Pending<'c>],
        item: OperationRef<'c, 'c>,
        item_position: usize,
        list: &[Access],
        back_edge: Option<OperationRef<'c, 'c>>,
    ) -> Result<(), String> {
        let location = item.location();
        let mut pipes: Vec<Pipe> = Vec::new();
        for access in list {
            if !pipes.contains(&access.pipe) {
                pipes.push(access.pipe);
            }
        }
        for q in pipes {
            let mine: Vec<&Access> = list.iter().filter(|a| a.pipe == q).collect();
            // For each producing pipe, the latest conflicting pending access.
            let mut latest: HashMap<Pipe, usize> = HashMap::new();
            for (index, entry) in pending.iter().enumerate() {
                if entry.is_ordered_before(q) || !mine.iter().any(|a| conflicts(&entry.access, a)) {
                    continue;
                }
                let slot = latest.entry(entry.access.pipe).or_insert(index);
                if pending[*slot].position <= entry.position {
                    *slot = index;
                }
            }
            let mut producers: Vec<(Pipe, usize)> = latest.into_iter().collect();
            producers.sort_by_key(|(p, _)| p.keyword());
            // A producer another one's wait covers is waited for through it
            // (soundly even when that one is covered in turn: coverage
            // follows completion order, so it cannot go round).
            let waits: Vec<(Pipe, usize)> = producers.iter().map(|&(p, index)| (p, pending[index].position)).collect();
            for (p, index) in producers {
                let producer = pending[index].item;
                let position = pending[index].position;
                let covered = self.transitive && waits.iter().any(|&(r, at)| pending[index].covered_by(r, at));
                if covered {
                    // Nothing to insert; still ordered before q from here on.
                } else if p == q {
                    if p == Pipe::V {
                        block.insert_operation_before(item, self.barrier(location));
                    }
                } else {
                    let set = self.flag_op(pto::SetFlagOperation::name(), (p, q), location);
                    let set = block.insert_operation_after(producer, set);
                    let wait = block.insert_operation_before(item, self.flag_op(pto::WaitFlagOperation::name(), (p, q), location));
                    let mut ops = vec![detach_op(set), detach_op(wait)];
                    if let Some(loop_op) = back_edge {
                        let outer = loop_op.block().ok_or("a loop outside a block")?;
                        let prime = outer.insert_operation_before(loop_op, self.flag_op(pto::SetFlagOperation::name(), (p, q), location));
                        let drain = outer.insert_operation_after(loop_op, self.flag_op(pto::WaitFlagOperation::name(), (p, q), location));
                        ops.push(detach_op(prime));
                        ops.push(detach_op(drain));
                    }
                    self.flags.push(Flag { pair: (p, q), ops });
                }
                let waiter = if back_edge.is_some() { LATER_ITERATION } else { item_position };
                for entry in pending.iter_mut() {
                    if entry.access.pipe == p && entry.position <= position && !entry.is_ordered_before(q) {
                        entry.ordered_before.push((q, waiter));
                    }
                }
            }
        }
        Ok(())
    }

    /// The loop body against its own previous iteration.
    fn back_edge(&mut self, loop_op: OperationRef<'c, 'c>, body: BlockRef<'c, 'c>, mut left: Vec<Pending<'c>>) -> Result<(), String> {
        for item in items_of(body) {
            // Nothing of the previous iteration is pending past a full barrier.
            if is_comm_barrier(item) {
                break;
            }
            let list = summary(item)?;
            self.order(body, &mut left, item, LATER_ITERATION, &list, Some(loop_op))?;
        }
        Ok(())
    }

    /// Gives each flag an event id no other flag of its pipe pair holds
    /// while it is outstanding (greedy interval colouring in program order).
    fn assign_event_ids(&mut self, function: OperationRef<'c, '_>) -> Result<(), String> {
        let order = preorder_positions(function);
        let mut spans: Vec<(usize, usize, usize)> = self
            .flags
            .iter()
            .enumerate()
            .map(|(i, flag)| {
                let positions = flag.ops.iter().map(|op| order[&op_key(*op)]);
                let (first, last) = positions.fold((usize::MAX, 0), |(first, last), p| (first.min(p), last.max(p)));
                (first, last, i)
            })
            .collect();
        spans.sort();
        let mut active: Vec<(usize, (Pipe, Pipe), i64)> = Vec::new(); // (end, pair, id)
        let ty = IntegerType::new(self.context, 32).into();
        for (start, end, index) in spans {
            active.retain(|(finish, _, _)| *finish > start);
            let pair = self.flags[index].pair;
            let id = (0..7)
                .find(|id| !active.iter().any(|(_, p, taken)| *p == pair && taken == id))
                .ok_or("more than 7 flags of one pipe pair outstanding at once")?;
            active.push((end, pair, id));
            for op in &self.flags[index].ops {
                let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
                op.set_inherent_attribute("event_id", IntegerAttribute::new(ty, id).into());
            }
        }
        Ok(())
    }
}

/// A communication op that is a full barrier (`PtoOp::is_comm_barrier`).
fn is_comm_barrier(op: OperationRef) -> bool {
    PtoOp::of(op).is_some_and(PtoOp::is_comm_barrier)
}

fn detach_op<'c>(op: OperationRef<'c, '_>) -> OperationRef<'c, 'c> {
    unsafe { OperationRef::from_raw(op.to_raw()) }
}

/// The ops of a block, terminator excluded.
fn items_of<'c>(block: BlockRef<'c, 'c>) -> Vec<OperationRef<'c, 'c>> {
    let mut items = Vec::new();
    let mut op = block.first_operation();
    while let Some(current) = op {
        let current = detach_op(current);
        if !matches!(name(current).as_str(), "scf.yield" | "func.return") {
            items.push(current);
        }
        op = current.next_in_block();
    }
    items
}
