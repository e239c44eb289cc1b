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
    operation::OperationLike,
    r#type::{IntegerType, MemRefType},
    Attribute, BlockRef, Location, Module, OperationRef, RegionLike, Type, Value, ValueLike,
};
use melior::Context;

use htp_model_csp::ir::{name_of, string_attribute, ChannelType};

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
    let i64_type: Type<'c> = IntegerType::new(context, 64).into();
    declare_private_function(context, module.as_operation(), ACQUIRE_SEND, &[i64_type, i64_type], &[i64_type]);
    declare_private_function(context, module.as_operation(), RELEASE_SEND, &[i64_type, i64_type, i64_type], &[]);
    declare_private_function(context, module.as_operation(), RECV, &[i64_type, i64_type, i64_type], &[]);
    declare_private_function(context, module.as_operation(), ACQUIRE_RECV, &[i64_type, i64_type], &[i64_type]);
    declare_private_function(context, module.as_operation(), RELEASE_RECV, &[i64_type, i64_type, i64_type], &[]);
    let program_name = string_attribute(program, "sym_name").unwrap_or_default();

    // Each channel's first flat index.
    let (channels, processes) = htp_model_csp::ir::parts(program);
    let mut bases = HashMap::new();
    let mut next = 0i64;
    for channel in channels {
        let Some(ty) = channel.result(0).ok().and_then(|r| ChannelType::of(r.r#type())) else { continue };
        let tile = TileType::try_from(ty.element()).map_err(|_| (channel.location(), "a channel of something other than tiles".to_string()))?;
        let depth = htp_model_csp::ir::integer_attribute(channel, "depth").unwrap_or(1).max(1);
        let rows = ty.count() * depth * tile.rows();
        let memref: Type<'c> = MemRefType::new(tile.element_type(), &[rows, tile.cols()], None, None).into();
        let value = channel.result(0).map(Value::from).map_err(|e| (channel.location(), e.to_string()))?;
        bases.insert(key(value), Ring { base: next, index: bases.len(), rows: tile.rows(), memref });
        next += ty.count();
    }
    let mut made = Vec::new();
    for (process, symbol) in processes.iter().zip(htp_model_csp::outline::process_symbols(&program_name, &processes)) {
        Outliner { context, rings: &bases, ring_arguments: Vec::new(), net: None }.process(program, *process, &symbol)?;
        made.push(ProcessFunction { symbol });
    }
    Ok(made)
}

struct Outliner<'c, 'b> {
    context: &'c Context,
    rings: &'b HashMap<usize, Ring<'c>>,
    /// The function's ring arguments, in the channels' order.
    ring_arguments: Vec<V<'c>>,
    net: Option<V<'c>>,
}

impl<'c> Outliner<'c, '_> {
    fn process(mut self, program: OperationRef<'c, 'c>, process: OperationRef<'c, 'c>, symbol: &str) -> Result<OperationRef<'c, 'c>, (Location<'c>, String)> {
        let context = self.context;
        let mut rings: Vec<&Ring<'c>> = self.rings.values().collect();
        rings.sort_by_key(|ring| ring.index);
        // After the program's arguments: the rings, the network, the replica index.
        let mut added: Vec<Type<'c>> = rings.iter().map(|ring| ring.memref).collect();
        added.push(IntegerType::new(context, 64).into());
        added.push(Type::index(context));
        let marker = ("csp.process", StringAttribute::new(context, &string_attribute(process, "name").unwrap_or_default()).into());
        let outlined = htp_model_csp::outline::outline_process(context, program, process, symbol, &added, Some(rings.len() + 1), &[marker])?;
        self.ring_arguments = outlined.added[..rings.len()].to_vec();
        self.net = outlined.added.get(rings.len()).copied();
        self.lower_channels(outlined.function)?;
        Ok(outlined.function)
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
        htp_model_csp::outline::inline_consume(consume, tile, |value| self.copied(&emitter, value, consume))?;
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
        let Some(index) = htp_model_csp::ir::channel_index(op) else { return Ok(base) };
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
