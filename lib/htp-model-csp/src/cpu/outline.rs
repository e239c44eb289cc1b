//! CSP → cpu: each process of a `@csp.program` becomes a function of its
//! own that the cpu backend compiles like a kernel, taking the program's
//! arguments, the run's network (an `i64` handle) and its replica index.
//! Each channel's ring (the network's memory, `count * depth` slots) is a
//! memref argument too. Channel operations become calls of the network
//! (`host.rs`): a send acquires a slot, stores the tile into it in place
//! and releases it; a receive copies the next element into a fresh buffer
//! and loads the tile from it (a fresh buffer per receive, so a tile still
//! in use is never overwritten by the next one). The program function is
//! removed: the layer (`runner.rs`) runs it.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use htp_ir::builder::{declare_private_function, detach, Builder, Emitter, V};
use htp_ir::query::{key, ops_named};
use melior::ir::{
    attribute::{DenseI32ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute},
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    r#type::{IntegerType, MemRefType},
    Attribute, BlockRef, Location, Module, OperationRef, RegionLike, Type, Value, ValueLike,
};
use melior::Context;

use crate::ir::{name_of, string_attribute, ChannelType};

/// The symbols of the network's entry points (`host.rs`).
pub const ACQUIRE_SEND: &str = "htpCspAcquireSend";
pub const RELEASE_SEND: &str = "htpCspReleaseSend";
pub const RECV: &str = "htpCspRecv";
pub const ACQUIRE_RECV: &str = "htpCspAcquireRecv";
pub const RELEASE_RECV: &str = "htpCspReleaseRecv";

/// A declared channel (or array) as process code addresses it.
struct Ring<'c> {
    /// Its first flat channel.
    base: i64,
    /// Its position among the program's channels (and ring arguments).
    index: usize,
    /// A slot's rows (slots are whole tiles, one after another).
    rows: i64,
    /// `memref<(count * depth * rows) x cols x T>`.
    memref: Type<'c>,
}

/// A process function made from the program.
#[derive(Clone, Debug)]
pub struct ProcessFunction {
    pub symbol: String,
}

/// Makes one function per process of `program` (placed before it in
/// `module`) and returns them in order; `program` itself is left for the
/// caller to remove.
pub fn outline<'c>(context: &'c Context, module: &Module<'c>, program: OperationRef<'c, '_>) -> Result<Vec<ProcessFunction>, (Location<'c>, String)> {
    let program = unsafe { OperationRef::from_raw(program.to_raw()) };
    let Some(body) = program.region(0).ok().and_then(|r| r.first_block()) else { return Ok(vec![]) };
    let body = unsafe { BlockRef::<'c, 'c>::from_raw(body.to_raw()) };
    let i64_type: Type<'c> = IntegerType::new(context, 64).into();
    declare_private_function(context, module.as_operation(), ACQUIRE_SEND, &[i64_type, i64_type], &[i64_type]);
    declare_private_function(context, module.as_operation(), RELEASE_SEND, &[i64_type, i64_type, i64_type], &[]);
    declare_private_function(context, module.as_operation(), RECV, &[i64_type, i64_type, i64_type], &[]);
    declare_private_function(context, module.as_operation(), ACQUIRE_RECV, &[i64_type, i64_type], &[i64_type]);
    declare_private_function(context, module.as_operation(), RELEASE_RECV, &[i64_type, i64_type, i64_type], &[]);
    let program_name = string_attribute(program, "sym_name").unwrap_or_default();

    // Each channel's first flat index.
    let mut bases = HashMap::new();
    let mut next = 0i64;
    let mut processes = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let current = unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) };
        match name_of(current).as_str() {
            "csp.channel" => {
                let Some(ty) = current.result(0).ok().and_then(|r| ChannelType::of(r.r#type())) else { continue };
                let tile = TileType::try_from(ty.element()).map_err(|_| (current.location(), "a channel of something other than tiles".to_string()))?;
                let depth = crate::ir::integer_attribute(current, "depth").unwrap_or(1).max(1);
                let rows = ty.count() * depth * tile.rows();
                let memref: Type<'c> = MemRefType::new(tile.element_type(), &[rows, tile.cols()], None, None).into();
                let value = current.result(0).map(Value::from).map_err(|e| (current.location(), e.to_string()))?;
                bases.insert(key(value), Ring { base: next, index: bases.len(), rows: tile.rows(), memref });
                next += ty.count();
            }
            "csp.process" => processes.push(current),
            _ => {}
        }
    }
    let mut made = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for process in processes {
        let name = string_attribute(process, "name").unwrap_or_default();
        let mut symbol = format!("{program_name}__{}", sanitize(&name));
        while taken.contains(&symbol) {
            symbol.push('_');
        }
        taken.push(symbol.clone());
        Outliner { context, program_body: body, rings: &bases, ring_arguments: Vec::new(), net: None, clones: HashMap::new() }.process(module, program, process, &symbol)?;
        made.push(ProcessFunction { symbol });
    }
    Ok(made)
}

/// A symbol made of a process's name.
fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

struct Outliner<'c, 'b> {
    context: &'c Context,
    program_body: BlockRef<'c, 'c>,
    rings: &'b HashMap<usize, Ring<'c>>,
    /// The function's ring arguments, in the channels' order.
    ring_arguments: Vec<V<'c>>,
    net: Option<V<'c>>,
    /// Program values (arguments, shared integer code) → the function's.
    clones: HashMap<usize, V<'c>>,
}

impl<'c> Outliner<'c, '_> {
    fn process(mut self, module: &Module<'c>, program: OperationRef<'c, 'c>, process: OperationRef<'c, 'c>, symbol: &str) -> Result<OperationRef<'c, 'c>, (Location<'c>, String)> {
        let context = self.context;
        let location = process.location();
        let mut arguments: Vec<(Type<'c>, Location<'c>)> = (0..self.program_body.argument_count())
            .filter_map(|i| self.program_body.argument(i).ok())
            .map(|a| (a.r#type(), location))
            .collect();
        let count = arguments.len();
        let mut rings: Vec<&Ring<'c>> = self.rings.values().collect();
        rings.sort_by_key(|ring| ring.index);
        arguments.extend(rings.iter().map(|ring| (ring.memref, location)));
        let count = count + rings.len();
        arguments.push((IntegerType::new(context, 64).into(), location));
        arguments.push((Type::index(context), location));
        let marker = ("csp.process", StringAttribute::new(context, &string_attribute(process, "name").unwrap_or_default()).into());
        let (function, entry) = htp_ir::builder::function(context, location, symbol, &arguments, marker);
        let function = module.body().insert_operation_before(program, function);
        let function = unsafe { OperationRef::<'c, 'c>::from_raw(function.to_raw()) };
        let returns = htp_ir::builder::BodyBuilder { context, block: entry, location };
        let ret = unsafe { OperationRef::<'c, 'c>::from_raw(returns.op("func.return", &[], &[], &[], vec![]).to_raw()) };
        for i in 0..count {
            if let (Ok(old), Ok(new)) = (self.program_body.argument(i), entry.argument(i)) {
                self.clones.insert(key(old.into()), detach(new.into()));
            }
        }
        self.ring_arguments = (count - rings.len()..count).filter_map(|i| entry.argument(i).ok()).map(|a| detach(a.into())).collect();
        self.net = entry.argument(count).ok().map(|a| detach(a.into()));
        let replica = entry.argument(count + 1).ok().map(|a| detach(a.into()));

        // The process's body moves into the function (its yield stays).
        let Some(block) = process.region(0).ok().and_then(|r| r.first_block()) else { return Ok(function) };
        if let (Ok(old), Some(new)) = (block.argument(0), replica) {
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
        }
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            if name_of(current) == "csp.yield" {
                continue;
            }
            unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), ret.to_raw()) };
        }
        self.remap(function, entry)?;
        self.lower_channels(function)?;
        Ok(function)
    }

    /// Points every use of a program value in `function` at the function's
    /// own: its arguments, or clones of the program's shared integer code
    /// (placed at the top of `entry`, dependencies first).
    fn remap(&mut self, function: OperationRef<'c, 'c>, entry: BlockRef<'c, 'c>) -> Result<(), (Location<'c>, String)> {
        let mut uses = Vec::new();
        function.walk(WalkOrder::PreOrder, |op| {
            for i in 0..op.operand_count() {
                if let Ok(value) = op.operand(i) {
                    uses.push((unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) }, i, unsafe { Value::<'c, 'c>::from_raw(value.to_raw()) }));
                }
            }
            WalkResult::Advance
        });
        let anchor = entry.first_operation().map(|o| unsafe { OperationRef::<'c, 'c>::from_raw(o.to_raw()) });
        for (op, i, value) in uses {
            if let Some(mapped) = self.map(value, anchor)? {
                unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), i as isize, mapped.to_raw()) };
            }
        }
        Ok(())
    }

    /// The function's value for program value `value`, if it is one.
    fn map(&mut self, value: V<'c>, anchor: Option<OperationRef<'c, 'c>>) -> Result<Option<V<'c>>, (Location<'c>, String)> {
        if let Some(mapped) = self.clones.get(&key(value)) {
            return Ok(Some(*mapped));
        }
        let Some(defining) = htp_ir::query::defining_op(value) else { return Ok(None) };
        let in_program = defining.block().is_some_and(|b| b.to_raw().ptr == self.program_body.to_raw().ptr);
        if !in_program || name_of(defining) == "csp.channel" {
            return Ok(None);
        }
        let Some(anchor) = anchor else { return Ok(None) };
        let clone = unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(defining.to_raw())) };
        let clone = anchor.block().map(|b| b.insert_operation_before(anchor, clone)).ok_or((defining.location(), "no block to place a copy in".to_string()))?;
        let clone = unsafe { OperationRef::<'c, 'c>::from_raw(clone.to_raw()) };
        for i in 0..clone.operand_count() {
            let Ok(operand) = clone.operand(i) else { continue };
            if let Some(mapped) = self.map(detach(operand), Some(clone))? {
                unsafe { mlir_sys::mlirOperationSetOperand(clone.to_raw(), i as isize, mapped.to_raw()) };
            }
        }
        for i in 0..defining.result_count() {
            if let (Ok(old), Ok(new)) = (defining.result(i), clone.result(i)) {
                self.clones.insert(key(old.into()), detach(new.into()));
            }
        }
        Ok(self.clones.get(&key(value)).copied())
    }

    /// Rewrites every consume (inlined), send and receive of `function`.
    fn lower_channels(&self, function: OperationRef<'c, 'c>) -> Result<(), (Location<'c>, String)> {
        // Collected once, outer first: inlining a consume moves the ops of
        // its body (an inner consume among them) without destroying them.
        for consume in ops_named(function, "csp.consume") {
            self.inline_consume(consume)?;
        }
        for op in ops_named(function, "csp.send").into_iter().chain(ops_named(function, "csp.recv")) {
            let emitter = self.emitter(op)?;
            let id = self.channel_id(&emitter, op)?;
            if name_of(op) == "csp.send" {
                let value = op.operand(op.operand_count() - 1).map(detach).map_err(|e| (op.location(), e.to_string()))?;
                self.send_in_place(&emitter, op, id, value)?;
            } else {
                let result = op.result(0).map(|r| detach(r.into())).map_err(|e| (op.location(), e.to_string()))?;
                let tile = self.receive(&emitter, id, result.r#type(), op)?;
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), tile.to_raw()) };
            }
            unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        }
        Ok(())
    }

    fn emitter(&self, op: OperationRef<'c, 'c>) -> Result<Emitter<'c, 'c>, (Location<'c>, String)> {
        let block = op.block().ok_or((op.location(), "a channel operation outside a block".to_string()))?;
        Ok(Emitter { context: self.context, block: unsafe { BlockRef::from_raw(block.to_raw()) }, anchor: op, location: op.location() })
    }

    /// `with csp.consume(c) as t: body` → `slot = acquire; t = load of the
    /// slot, in place; body; release` (the carried values flow straight
    /// through). A tile the body gives out (a carried value it computed) is
    /// copied before the release: it may still read the slot lazily (a
    /// fused elementwise chain), and the sender refills the slot after.
    fn inline_consume(&self, consume: OperationRef<'c, 'c>) -> Result<(), (Location<'c>, String)> {
        let emitter = self.emitter(consume)?;
        let id = self.channel_id(&emitter, consume)?;
        let Some(body) = consume.region(0).ok().and_then(|r| r.first_block()) else { return Ok(()) };
        let element = body.argument(0).map(|a| a.r#type()).map_err(|e| (consume.location(), e.to_string()))?;
        let (tile, slot) = self.load_in_place(&emitter, consume, id, element)?;
        let first_init = 1 + crate::ir::channel_index(consume).is_some() as usize;
        for i in 0..body.argument_count() {
            let Ok(argument) = body.argument(i) else { continue };
            let value = if i == 0 { Some(tile) } else { consume.operand(first_init + i - 1).ok().map(detach) };
            if let Some(value) = value {
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), value.to_raw()) };
            }
        }
        let mut op = body.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            if name_of(current) == "csp.yield" {
                for i in 0..current.operand_count() {
                    let (Ok(result), Ok(value)) = (consume.result(i), current.operand(i)) else { continue };
                    let value = detach(value);
                    let carried_in = consume.operand(first_init + i).ok().is_some_and(|init| key(init) == key(value));
                    let value = if carried_in { value } else { self.copied(&emitter, value, consume)? };
                    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), value.to_raw()) };
                }
                continue;
            }
            unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), consume.to_raw()) };
        }
        self.call_network(&emitter, consume, RELEASE_RECV, &[id, slot], None)?;
        unsafe { mlir_sys::mlirOperationDestroy(consume.to_raw()) };
        Ok(())
    }

    /// The next element of channel `id` as a tile loaded from its ring slot
    /// in place, and the slot (`-1` when the network stopped: the bounds
    /// check skips the load).
    fn load_in_place(&self, emitter: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>, id: V<'c>, tile_type: Type<'c>) -> Result<(V<'c>, V<'c>), (Location<'c>, String)> {
        let (memory, slot, row) = self.acquire(emitter, op, id, ACQUIRE_RECV)?;
        Ok((self.load_tile(emitter, memory, row, tile_type), slot))
    }

    /// Acquires the next slot of `op`'s channel with `entry`: the ring, the
    /// slot (`i64`, as the release takes it) and the row it starts at.
    fn acquire(&self, emitter: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>, id: V<'c>, entry: &str) -> Result<(V<'c>, V<'c>, V<'c>), (Location<'c>, String)> {
        let (memory, rows) = self.ring_of(op)?;
        let i64_type: Type<'c> = IntegerType::new(self.context, 64).into();
        let slot = self.call_network(emitter, op, entry, &[id], Some(i64_type))?.ok_or((op.location(), "an acquire without a slot".to_string()))?;
        let index = emitter.value("arith.index_cast", &[slot], Type::index(self.context));
        let row = emitter.value("arith.muli", &[index, emitter.index(rows)], Type::index(self.context));
        Ok((memory, slot, row))
    }

    /// `func.call @<entry>(net, operands...)`, its result when it has one.
    fn call_network(&self, emitter: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>, entry: &str, operands: &[V<'c>], result: Option<Type<'c>>) -> Result<Option<V<'c>>, (Location<'c>, String)> {
        let net = self.net.ok_or((op.location(), "a process function without its network argument".to_string()))?;
        let mut all = vec![net];
        all.extend_from_slice(operands);
        let callee: Attribute<'c> = FlatSymbolRefAttribute::new(self.context, entry).into();
        let call = emitter.op("func.call", &all, result.as_slice(), &[("callee", callee)], vec![]);
        Ok(call.result(0).ok().map(|r| detach(r.into())))
    }

    /// A tile of `tile_type` loaded from `memory`, from row `row`.
    fn load_tile(&self, emitter: &Emitter<'c, 'c>, memory: V<'c>, row: V<'c>, tile_type: Type<'c>) -> V<'c> {
        let segments: Attribute<'c> = DenseI32ArrayAttribute::new(self.context, &[1, 2, 0]).into();
        emitter.value_with("tile.load", &[memory, row, emitter.index(0)], tile_type, &[("operandSegmentSizes", segments)])
    }

    /// A tile value copied into a buffer of its own and loaded back (a
    /// store is done where it stands; later reads see the buffer). Other
    /// values pass as they are.
    fn copied(&self, emitter: &Emitter<'c, 'c>, value: V<'c>, op: OperationRef<'c, 'c>) -> Result<V<'c>, (Location<'c>, String)> {
        if TileType::try_from(value.r#type()).is_err() {
            return Ok(value);
        }
        let buffer = self.buffer(emitter, value.r#type(), op)?;
        emitter.op("tile.store", &[value, buffer, emitter.index(0), emitter.index(0)], &[], &[], vec![]);
        Ok(self.load_tile(emitter, buffer, emitter.index(0), value.r#type()))
    }

    /// The ring argument of the channel `op` talks on, and a slot's rows.
    fn ring_of(&self, op: OperationRef<'c, 'c>) -> Result<(V<'c>, i64), (Location<'c>, String)> {
        let channel = op.operand(0).map_err(|e| (op.location(), e.to_string()))?;
        let ring = self.rings.get(&key(channel)).ok_or((op.location(), "uses a channel the program did not make with csp.channel".to_string()))?;
        let memory = *self.ring_arguments.get(ring.index).ok_or((op.location(), "a channel without its ring".to_string()))?;
        Ok((memory, ring.rows))
    }

    /// A send: the tile stored straight into the slot the network gives,
    /// then the slot released (`-1` when the network stopped: the bounds
    /// check skips the store, the release sends nothing).
    fn send_in_place(&self, emitter: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>, id: V<'c>, value: V<'c>) -> Result<(), (Location<'c>, String)> {
        let (memory, slot, row) = self.acquire(emitter, op, id, ACQUIRE_SEND)?;
        emitter.op("tile.store", &[value, memory, row, emitter.index(0)], &[], &[], vec![]);
        self.call_network(emitter, op, RELEASE_SEND, &[id, slot], None)?;
        Ok(())
    }

    /// The flat channel number (an `i64`) an op talks on.
    fn channel_id(&self, emitter: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>) -> Result<V<'c>, (Location<'c>, String)> {
        let channel = op.operand(0).map_err(|e| (op.location(), e.to_string()))?;
        let base = self.rings.get(&key(channel)).ok_or((op.location(), "uses a channel the program did not make with csp.channel".to_string()))?.base;
        let i64_type: Type<'c> = IntegerType::new(self.context, 64).into();
        let base = emitter.constant(IntegerAttribute::new(i64_type, base).into(), i64_type);
        let Some(index) = crate::ir::channel_index(op) else { return Ok(base) };
        let index = emitter.value("arith.index_cast", &[index], i64_type);
        Ok(emitter.value("arith.addi", &[base, index], i64_type))
    }

    /// A fresh buffer holding one tile of `tile_type`.
    fn buffer(&self, emitter: &Emitter<'c, 'c>, tile_type: Type<'c>, op: OperationRef<'c, 'c>) -> Result<V<'c>, (Location<'c>, String)> {
        let tile = TileType::try_from(tile_type).map_err(|_| (op.location(), "a channel of something other than tiles".to_string()))?;
        let memref: Type<'c> = MemRefType::new(tile.element_type(), &[tile.rows(), tile.cols()], None, None).into();
        let segments: Attribute<'c> = DenseI32ArrayAttribute::new(self.context, &[0, 0]).into();
        Ok(emitter.value_with("memref.alloc", &[], memref, &[("operandSegmentSizes", segments)]))
    }

    /// The next element of channel `id`, copied by the network into a
    /// fresh buffer (`htpCspRecv(net, id, address)`) and loaded as a tile.
    fn receive(&self, emitter: &Emitter<'c, 'c>, id: V<'c>, tile_type: Type<'c>, op: OperationRef<'c, 'c>) -> Result<V<'c>, (Location<'c>, String)> {
        let buffer = self.buffer(emitter, tile_type, op)?;
        let i64_type: Type<'c> = IntegerType::new(self.context, 64).into();
        let address = emitter.value("memref.extract_aligned_pointer_as_index", &[buffer], Type::index(self.context));
        let address = emitter.value("arith.index_cast", &[address], i64_type);
        self.call_network(emitter, op, RECV, &[id, address], None)?;
        Ok(self.load_tile(emitter, buffer, emitter.index(0), tile_type))
    }
}
