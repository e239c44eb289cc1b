//! Movers dissolved into the processes they serve, for a target whose
//! cores read and write the program's tensors themselves (CSP → PTO: a
//! vector or cube core moves its own blocks between GM and its buffers, so
//! a process that only moves data has no core to run on and no work to do).
//!
//! A **mover** is a process, run once, whose channel operations are sends
//! of blocks of the program's tensors (loaded, maybe padded) and receives
//! whose tiles are stored straight into them, each under a nest of
//! `scf.for` whose bounds are fixed before the nest (rectangular), and
//! which computes nothing else. A channel it serves is then determined by
//! the tensors alone: its k-th tile is the block the mover moves at the
//! k-th iteration of its nest that names that channel (element).
//!
//! The process at the other end finds that iteration itself. It keeps a
//! cursor per channel element (a kernel-local array of indices, starting at
//! 0); at each transfer it runs the mover's nest on from the cursor
//! (`scf.while` over the nest's iterations, linearised) to the next one
//! whose channel index is its own, moves that block (the mover's load, pad,
//! `set_valid` and store, cloned with the iteration's indices) and leaves
//! the cursor after it. A transfer costs the iterations skipped: for a
//! round-robin deal over `n` workers, `n` steps of integer code.
//!
//! What the channels carry is unchanged (Kahn: each channel's sequence is
//! fixed by its sender), and a dissolved channel blocks no one, so a
//! program the protocol check proved free of deadlock stays so. Of the two
//! ends of a channel at most one is dissolved (a loader feeding a storer
//! leaves the storer to do the copying).

use std::collections::HashMap;

use htp_dialects::ods::{tile, view, TileOp};
use htp_ir::arith::IntPredicate;
use htp_ir::builder::{detach, BodyBuilder, Builder, Emitter, V};
use htp_ir::query::{ancestor_in, defining_op, is_before, key, uses};
use melior::ir::{
    attribute::IntegerAttribute,
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    r#type::{IntegerType, MemRefType},
    Attribute, Block, BlockRef, Operation, OperationRef, Region, RegionLike, Type, ValueLike,
};
use melior::Context;

use crate::ir::{channel_index, integer_attribute, name_of, parts, ChannelType};
use crate::outline::Failure;

/// One channel operation of a mover: a send of a loaded block or a receive
/// whose tile is stored.
struct End<'c> {
    op: OperationRef<'c, 'c>,
    /// Key of the channel (array) value it names.
    channel: usize,
    /// The `scf.for` nest around it inside the process, outermost first.
    loops: Vec<OperationRef<'c, 'c>>,
}

/// A process found to be a mover, with its channel operations.
struct Mover<'c> {
    process: OperationRef<'c, 'c>,
    ends: Vec<End<'c>>,
}

/// Dissolves the movers of `program` (a `@csp.program`) into their peers;
/// returns the names of the processes dissolved, in program order.
pub fn dissolve_movers<'c>(context: &'c Context, program: OperationRef<'c, 'c>) -> Result<Vec<String>, Failure<'c>> {
    let (channel_ops, processes) = parts(program);
    // Each channel's operations, by the process performing them.
    let mut users: HashMap<usize, Vec<(usize, OperationRef<'c, 'c>)>> = HashMap::new();
    for (index, process) in processes.iter().enumerate() {
        process.walk(WalkOrder::PreOrder, |op| {
            let op = unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) };
            if matches!(name_of(op).as_str(), "csp.send" | "csp.recv" | "csp.consume") {
                if let Ok(channel) = op.operand(0) {
                    users.entry(key(channel)).or_default().push((index, op));
                }
            }
            WalkResult::Advance
        });
    }
    let peer = |channel: usize, of: usize| users.get(&channel).and_then(|ops| ops.iter().map(|(p, _)| *p).find(|p| *p != of));
    let mut dissolved: Vec<Option<Mover<'c>>> = (0..processes.len()).map(|_| None).collect();
    for (index, process) in processes.iter().enumerate() {
        let Some(mover) = mover(*process) else { continue };
        // At most one end of a channel dissolves; a channel with no other end stays.
        let keeps_peers = mover.ends.iter().all(|end| peer(end.channel, index).is_some_and(|p| dissolved[p].is_none()));
        if keeps_peers {
            dissolved[index] = Some(mover);
        }
    }
    let mut names = Vec::new();
    let mut cursors: HashMap<(usize, usize), V<'c>> = HashMap::new();
    for (index, mover) in dissolved.iter().enumerate() {
        let Some(mover) = mover else { continue };
        for end in &mover.ends {
            let Some(peer_index) = peer(end.channel, index) else { continue };
            let peer_ops: Vec<OperationRef<'c, 'c>> =
                users.get(&end.channel).into_iter().flatten().filter(|(p, _)| *p == peer_index).map(|(_, op)| *op).collect();
            let count = end.op.operand(0).ok().and_then(|c| ChannelType::of(c.r#type())).map_or(1, |t| t.count());
            let cursor = match cursors.get(&(peer_index, end.channel)) {
                Some(cursor) => *cursor,
                None => {
                    let cursor = cursor_array(context, processes[peer_index], count)?;
                    cursors.insert((peer_index, end.channel), cursor);
                    cursor
                }
            };
            for op in peer_ops {
                Transfer { context, mover: mover.process, peer: processes[peer_index], end, cursor }.rewrite(op)?;
            }
        }
        names.push(crate::ir::string_attribute(mover.process, "name").unwrap_or_default());
    }
    for mover in dissolved.into_iter().flatten() {
        unsafe { mlir_sys::mlirOperationDestroy(mover.process.to_raw()) };
    }
    for channel in channel_ops {
        let unused = channel.result(0).map(|r| uses(detach(r.into())).is_empty()).unwrap_or(false);
        if unused && !names.is_empty() {
            unsafe { mlir_sys::mlirOperationDestroy(channel.to_raw()) };
        }
    }
    Ok(names)
}

/// `process` as a mover, if it is one.
fn mover<'c>(process: OperationRef<'c, 'c>) -> Option<Mover<'c>> {
    if integer_attribute(process, "replicas").unwrap_or(1) != 1 {
        return None;
    }
    let body = process.region(0).ok()?.first_block()?;
    let body = unsafe { BlockRef::<'c, 'c>::from_raw(body.to_raw()) };
    let mut ends: Vec<End<'c>> = Vec::new();
    let mut moves_only = true;
    process.walk(WalkOrder::PreOrder, |op| {
        let op = unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) };
        if op.to_raw().ptr == process.to_raw().ptr {
            return WalkResult::Advance;
        }
        let name = name_of(op);
        let fits = match name.as_str() {
            "scf.for" => op.result_count() == 0,
            "scf.yield" | "csp.yield" => true,
            "csp.send" => sends_a_block(op),
            "csp.recv" => op.result(0).is_ok_and(|r| stores_only(detach(r.into()))),
            // `y[...] = csp.recv(c)` stores the slot in place: a consume whose body only stores it.
            "csp.consume" => op.result_count() == 0 && received_tile(op).is_some_and(stores_only),
            // Their uses are what the send / receive above check.
            "tile.load" | "tile.pad" | "tile.set_valid" | "tile.store" => true,
            _ => (name.starts_with("arith.") || name == "memref.dim") && op.region_count() == 0 && TileOp::of(op).is_none(),
        };
        if !fits {
            moves_only = false;
            return WalkResult::Interrupt;
        }
        if matches!(name.as_str(), "csp.send" | "csp.recv" | "csp.consume") {
            match (op.operand(0), nest(op, body)) {
                (Ok(channel), Some(loops)) => ends.push(End { op, channel: key(channel), loops }),
                _ => moves_only = false,
            }
        }
        WalkResult::Advance
    });
    // Every load and store belongs to a transfer; each channel is served once.
    let transfers_own_all = process_tile_ops_belong(process);
    let mut channels: Vec<usize> = ends.iter().map(|e| e.channel).collect();
    channels.sort_unstable();
    channels.dedup();
    (moves_only && transfers_own_all && !ends.is_empty() && channels.len() == ends.len()).then_some(Mover { process, ends })
}

/// The tile a receive (its result) or a consume (its body's slot) gives.
fn received_tile<'c>(op: OperationRef<'c, 'c>) -> Option<V<'c>> {
    match name_of(op).as_str() {
        "csp.recv" => op.result(0).ok().map(|r| detach(r.into())),
        "csp.consume" => op.region(0).ok()?.first_block()?.argument(0).ok().map(|a| detach(a.into())),
        _ => None,
    }
}

/// A send of `tile.load` (maybe through `tile.pad`): a block of a tensor.
fn sends_a_block(send: OperationRef) -> bool {
    // verifier: csp.send's value is its last operand
    let Some(value) = send.operand(send.operand_count() - 1).ok().map(detach) else { return false };
    let Some(mut op) = defining_op(value) else { return false };
    if TileOp::of(op) == Some(TileOp::Pad) {
        match op.operand(0).ok().and_then(|v| defining_op(detach(v))) {
            Some(inner) => op = inner,
            None => return false,
        }
    }
    TileOp::of(op) == Some(TileOp::Load)
}

/// Whether a received tile is only stored (maybe through `set_valid`).
fn stores_only(value: V) -> bool {
    let users = uses(value);
    !users.is_empty()
        && users.iter().all(|user| match TileOp::of(*user) {
            Some(TileOp::Store) => view::<tile::StoreOperation>(*user).is_some_and(|s| s.value().is_ok_and(|v| key(v) == key(value))),
            Some(TileOp::SetValid) => user.result(0).is_ok_and(|r| stores_only(detach(r.into()))),
            _ => false,
        })
}

/// Every load / pad of the process feeds a send and every set_valid /
/// store takes a received tile: nothing else is computed or written.
fn process_tile_ops_belong(process: OperationRef) -> bool {
    let mut belongs = true;
    process.walk(WalkOrder::PreOrder, |op| {
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        let ok = match TileOp::of(op) {
            None => true,
            Some(TileOp::Load) | Some(TileOp::Pad) => op.result(0).is_ok_and(|r| {
                uses(detach(r.into())).iter().all(|u| name_of(*u) == "csp.send" || (TileOp::of(*u) == Some(TileOp::Pad) && sends_tile(*u)))
            }),
            Some(TileOp::SetValid) | Some(TileOp::Store) => op.operand(0).ok().map(detach).is_some_and(|value| match defining_op(value) {
                Some(d) => name_of(d) == "csp.recv" || TileOp::of(d) == Some(TileOp::SetValid),
                // The slot of a consume.
                None => htp_ir::query::block_argument_owner(value).is_some_and(|o| name_of(o) == "csp.consume"),
            }),
            Some(_) => false,
        };
        if !ok {
            belongs = false;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    belongs
}

fn sends_tile(pad: OperationRef) -> bool {
    pad.result(0).is_ok_and(|r| uses(detach(r.into())).iter().all(|u| name_of(*u) == "csp.send"))
}

/// The `scf.for` loops between `op` and the process body `body`,
/// outermost first, when they are all loops and no bound depends on an
/// induction variable of the nest (rectangular).
fn nest<'c>(op: OperationRef<'c, 'c>, body: BlockRef<'c, 'c>) -> Option<Vec<OperationRef<'c, 'c>>> {
    let mut loops = Vec::new();
    let mut current = op;
    loop {
        let block = current.block()?;
        if block.to_raw().ptr == body.to_raw().ptr {
            break;
        }
        let parent = block.parent_operation()?;
        let parent = unsafe { OperationRef::<'c, 'c>::from_raw(parent.to_raw()) };
        if name_of(parent) != "scf.for" {
            return None;
        }
        loops.push(parent);
        current = parent;
    }
    loops.reverse();
    let inductions: Vec<usize> =
        loops.iter().filter_map(|l| l.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.argument(0).ok()).map(|a| key(a.into()))).collect();
    let rectangular = loops.iter().all(|the_loop| (0..3).all(|i| the_loop.operand(i).is_ok_and(|bound| !depends_on(detach(bound), &inductions, 0))));
    rectangular.then_some(loops)
}

/// Whether `value` is computed from any of the values `inductions` (keys).
fn depends_on(value: V, inductions: &[usize], depth: usize) -> bool {
    if inductions.contains(&key(value)) {
        return true;
    }
    let Some(op) = defining_op(value) else { return false };
    // Deeper than any index arithmetic a user writes: taken as dependent (the mover stays).
    depth > 64 || (0..op.operand_count()).any(|i| op.operand(i).is_ok_and(|o| depends_on(detach(o), inductions, depth + 1)))
}


/// A cursor per element of a channel array, at the top of `process`,
/// each starting at 0: `memref<count x index>` (a kernel-local array).
fn cursor_array<'c>(context: &'c Context, process: OperationRef<'c, 'c>, count: i64) -> Result<V<'c>, Failure<'c>> {
    let location = process.location();
    let body = process.region(0).ok().and_then(|r| r.first_block()).ok_or((location, "a process without a body".to_string()))?;
    let body = unsafe { BlockRef::<'c, 'c>::from_raw(body.to_raw()) };
    let first = body.first_operation().ok_or((location, "a process without a terminator".to_string()))?;
    let first = unsafe { OperationRef::<'c, 'c>::from_raw(first.to_raw()) };
    let at = Emitter { context, block: body, anchor: first, location };
    let index = Type::index(context);
    let array: Type<'c> = MemRefType::new(index, &[count], None, None).into();
    let segments = htp_ir::builder::parse_attribute(context, "array<i32: 0, 0>");
    let cursor = at.value_with("memref.alloca", &[], array, &[("operandSegmentSizes", segments)]);
    let zero = at.index(0);
    for element in 0..count {
        let element = at.index(element);
        at.op("memref.store", &[zero, cursor, element], &[], &[], vec![]);
    }
    Ok(cursor)
}

/// The rewriting of one peer's operations on one dissolved channel.
struct Transfer<'c, 'e> {
    context: &'c Context,
    mover: OperationRef<'c, 'c>,
    /// The process at the other end.
    peer: OperationRef<'c, 'c>,
    end: &'e End<'c>,
    cursor: V<'c>,
}

impl<'c> Transfer<'c, '_> {
    /// `op` (the peer's receive, consume or send on the channel) becomes
    /// the mover's block transfer at the next iteration of its nest that
    /// names `op`'s channel element.
    fn rewrite(&self, op: OperationRef<'c, 'c>) -> Result<(), Failure<'c>> {
        let location = op.location();
        let block = op.block().ok_or((location, "a channel operation outside a block".to_string()))?;
        let at = Emitter { context: self.context, block: unsafe { BlockRef::from_raw(block.to_raw()) }, anchor: op, location };
        let index = Type::index(self.context);
        let element = match channel_index(op) {
            Some(i) => detach(i),
            None => at.index(0),
        };
        let start = at.value("memref.load", &[self.cursor, element], index);
        let geometry = self.geometry(&at)?;
        let found = match channel_index(self.end.op) {
            Some(named) => self.search(&at, &geometry, start, detach(named), element)?,
            None => start,
        };
        let one = at.index(1);
        let next = at.value("arith.addi", &[found, one], index);
        at.op("memref.store", &[next, self.cursor, element], &[], &[], vec![]);
        let mut map = self.point(&at, &geometry, found)?;
        match name_of(op).as_str() {
            "csp.recv" | "csp.consume" => {
                // verifier: csp.send's value is its last operand
                let sent = self.end.op.operand(self.end.op.operand_count() - 1).map(detach).map_err(|e| (location, e.to_string()))?;
                let block_value = self.clone_value(&at, sent, &mut map)?;
                if name_of(op) == "csp.recv" {
                    let result = op.result(0).map(|r| detach(r.into())).map_err(|e| (location, e.to_string()))?;
                    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), block_value.to_raw()) };
                } else {
                    crate::outline::inline_consume(op, block_value, Ok)?;
                }
            }
            _ => {
                // The peer sends: the mover's store of what it received, with this tile.
                let value = op.operand(op.operand_count() - 1).map(detach).map_err(|e| (location, e.to_string()))?;
                let received = received_tile(self.end.op).ok_or((location, "internal error: a storer's end without a tile".to_string()))?;
                map.insert(key(received), value);
                self.clone_users(&at, received, &mut map)?;
            }
        }
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        Ok(())
    }

    /// Each loop of the nest: (lower bound, step, trips, trips made ≥ 1 to
    /// divide by), and the nest's iterations in all.
    fn geometry(&self, at: &Emitter<'c, '_>) -> Result<Geometry<'c>, Failure<'c>> {
        let index = Type::index(self.context);
        let mut map = HashMap::new();
        let (zero, one) = (at.index(0), at.index(1));
        let mut total = one;
        let mut loops = Vec::new();
        for the_loop in &self.end.loops {
            let bound = |i: usize| the_loop.operand(i).map(detach).map_err(|e| (the_loop.location(), e.to_string()));
            let lower = self.clone_value(at, bound(0)?, &mut map)?;
            let upper = self.clone_value(at, bound(1)?, &mut map)?;
            let step = self.clone_value(at, bound(2)?, &mut map)?;
            let span = at.value("arith.subi", &[upper, lower], index);
            let trips = at.value("arith.ceildivsi", &[span, step], index);
            let trips = at.value("arith.maxsi", &[trips, zero], index);
            let divisor = at.value("arith.maxsi", &[trips, one], index);
            total = at.value("arith.muli", &[total, trips], index);
            let induction = the_loop.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.argument(0).ok()).map(|a| key(a.into()));
            loops.push(LoopGeometry { lower, step, divisor, induction: induction.unwrap_or(0) });
        }
        Ok(Geometry { loops, total })
    }

    /// The first iteration from `start` on whose channel index (`named`,
    /// the mover's) is `element`: `scf.while` over the linearised nest.
    fn search(&self, at: &Emitter<'c, '_>, geometry: &Geometry<'c>, start: V<'c>, named: V<'c>, element: V<'c>) -> Result<V<'c>, Failure<'c>> {
        let (context, location) = (self.context, at.location);
        let index = Type::index(context);
        let i1: Type<'c> = IntegerType::new(context, 1).into();
        let before = Block::new(&[(index, location)]);
        let after = Block::new(&[(index, location)]);
        {
            let head = BodyBuilder::for_block(context, &before, location);
            let t = detach(before.argument(0).map_err(|e| (location, e.to_string()))?.into());
            let mut map = self.point(&head, geometry, t)?;
            let channel = self.clone_value(&head, named, &mut map)?;
            let more = cmpi(&head, IntPredicate::Slt, t, geometry.total);
            let other = cmpi(&head, IntPredicate::Ne, channel, element);
            let go_on = head.value("arith.andi", &[more, other], i1);
            head.op("scf.condition", &[go_on, t], &[], &[], vec![]);
        }
        {
            let tail = BodyBuilder::for_block(context, &after, location);
            let t = detach(after.argument(0).map_err(|e| (location, e.to_string()))?.into());
            let one = tail.index(1);
            let next = tail.value("arith.addi", &[t, one], index);
            tail.op("scf.yield", &[next], &[], &[], vec![]);
        }
        let (before_region, after_region) = (Region::new(), Region::new());
        before_region.append_block(before);
        after_region.append_block(after);
        let search = at.op("scf.while", &[start], &[index], &[], vec![before_region, after_region]);
        search.result(0).map(|r| detach(r.into())).map_err(|e| (location, e.to_string()))
    }

    /// The nest's induction variables at linear iteration `t` (innermost
    /// fastest), as a map from the mover's induction variables.
    fn point<B: Builder<'c>>(&self, at: &B, geometry: &Geometry<'c>, t: V<'c>) -> Result<HashMap<usize, V<'c>>, Failure<'c>> {
        let index = Type::index(self.context);
        let mut map = HashMap::new();
        let mut rest = t;
        for the_loop in geometry.loops.iter().rev() {
            let digit = at.value("arith.remsi", &[rest, the_loop.divisor], index);
            rest = at.value("arith.divsi", &[rest, the_loop.divisor], index);
            let offset = at.value("arith.muli", &[digit, the_loop.step], index);
            let induction = at.value("arith.addi", &[the_loop.lower, offset], index);
            map.insert(the_loop.induction, induction);
        }
        Ok(map)
    }

    /// `value` of the mover, computed where `at` builds: the mover's ops it
    /// depends on cloned (their operands mapped through `map`), the
    /// program's values used as they are.
    fn clone_value<B: Builder<'c>>(&self, at: &B, value: V<'c>, map: &mut HashMap<usize, V<'c>>) -> Result<V<'c>, Failure<'c>> {
        if let Some(mapped) = map.get(&key(value)) {
            return Ok(*mapped);
        }
        let location = at.location();
        let Some(def) = defining_op(value) else {
            let in_mover = value_block_inside(value, self.mover);
            return if in_mover { Err((location, "internal error: a mover's block argument with no value".to_string())) } else { Ok(value) };
        };
        // The program's scalar code after the peer process would not dominate it: cloned too.
        let mover_body = self.mover.region(0).ok().and_then(|r| r.first_block()).map(|b| unsafe { BlockRef::<'c, 'c>::from_raw(b.to_raw()) });
        let in_mover = mover_body.is_some_and(|b| ancestor_in(def, b).is_some());
        let program_code_after = !in_mover
            && def.block().is_some_and(|b| self.peer.block().is_some_and(|p| p.to_raw().ptr == b.to_raw().ptr))
            && !is_before(def, self.peer)
            && name_of(def) != "csp.channel";
        if !in_mover && !program_code_after {
            return Ok(value);
        }
        let clone = self.clone_op(at, def, map)?;
        map.get(&key(value)).copied().or_else(|| clone.result(0).ok().map(|r| detach(r.into()))).ok_or((location, "internal error: a clone without the value".to_string()))
    }

    /// A copy of `op` placed by `at`, its operands mapped (and cloned where
    /// they are the mover's); records its results in `map`.
    fn clone_op<B: Builder<'c>>(&self, at: &B, op: OperationRef<'c, 'c>, map: &mut HashMap<usize, V<'c>>) -> Result<OperationRef<'c, 'c>, Failure<'c>> {
        let mut operands = Vec::new();
        for i in 0..op.operand_count() {
            let operand = op.operand(i).map(detach).map_err(|e| (op.location(), e.to_string()))?;
            operands.push(self.clone_value(at, operand, map)?);
        }
        let copy = unsafe { Operation::<'c>::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) };
        let placed = at.place(copy);
        let placed = unsafe { OperationRef::<'c, 'c>::from_raw(placed.to_raw()) };
        for (i, operand) in operands.iter().enumerate() {
            unsafe { mlir_sys::mlirOperationSetOperand(placed.to_raw(), i as isize, operand.to_raw()) };
        }
        for i in 0..op.result_count() {
            if let (Ok(old), Ok(new)) = (op.result(i), placed.result(i)) {
                map.insert(key(old.into()), detach(new.into()));
            }
        }
        Ok(placed)
    }

    /// The mover's uses of the tile it received (`set_valid`, `store`),
    /// cloned with `map` (which maps the received tile to the peer's).
    fn clone_users(&self, at: &Emitter<'c, '_>, received: V<'c>, map: &mut HashMap<usize, V<'c>>) -> Result<(), Failure<'c>> {
        for user in uses(received) {
            self.clone_op(at, user, map)?;
            if let Ok(result) = user.result(0) {
                self.clone_users(at, detach(result.into()), map)?;
            }
        }
        Ok(())
    }
}

/// Whether block argument `value` belongs to a block inside `process`.
fn value_block_inside(value: V, process: OperationRef) -> bool {
    htp_ir::query::block_argument_owner(value).is_some_and(|parent| htp_ir::query::is_within(parent, process))
}

struct LoopGeometry<'c> {
    lower: V<'c>,
    step: V<'c>,
    divisor: V<'c>,
    /// Key of the loop's induction variable.
    induction: usize,
}

struct Geometry<'c> {
    loops: Vec<LoopGeometry<'c>>,
    total: V<'c>,
}

fn cmpi<'c, B: Builder<'c>>(at: &B, predicate: IntPredicate, a: V<'c>, b: V<'c>) -> V<'c> {
    let context = at.context();
    let i1: Type<'c> = IntegerType::new(context, 1).into();
    let i64_type: Type<'c> = IntegerType::new(context, 64).into();
    let code: Attribute<'c> = IntegerAttribute::new(i64_type, predicate.code()).into();
    at.value_with("arith.cmpi", &[a, b], i1, &[("predicate", code)])
}
