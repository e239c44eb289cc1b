//! The `aie.device` of a planned program, written in mlir-aie's syntax
//! (what the backend's dialects parse and verify):
//!
//! - cores in program order, four to a column (rows 2-5), column by
//!   column, so that a pipeline's neighbouring stages share memory (their
//!   FIFO then needs no DMA);
//! - one object FIFO per channel element, of the channel's depth, from
//!   its sender's tile to its receiver's; a loader's or storer's end is a
//!   shim tile, the first with a free DMA channel of that direction from
//!   the column of the core at the other end;
//! - one FIFO per argument cores read whole (depth 1), from a shim to all
//!   of them, acquired once per core;
//! - each core: a loop of its trip count taking one object of each of its
//!   FIFOs per iteration (acquired in the order the process names them,
//!   released after the block function's call);
//! - the runtime sequence: each transfer's window, outputs first, then a
//!   wait on each output.
//!
//! Every op carries the user's location (the channel's, the process's, the
//! operation's), so the verifiers' messages point at the program.

use std::collections::HashMap;

use htp_backend_aie::{
    architecture::Device,
    lower::{bits_of, contiguous_window, host_buffer_type, HostWindow},
};
use htp_pass::Failure;
use melior::ir::{operation::OperationLike, Location};

use crate::plan::{Argument, End, Plan};

/// Rows of compute tiles per column.
const CORE_ROWS: i64 = 4;
/// DMA channels per shim tile and direction.
const SHIM_CHANNELS: usize = 2;

fn symbol(text: &str) -> String {
    let clean: String = text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
        format!("f_{clean}")
    } else {
        clean
    }
}

fn loc(location: Location) -> String {
    location.to_string()
}

/// The design's text; `symbols` names each core process's block function.
pub fn design<'c>(plan: &Plan<'c>, device: Device, symbols: &[String], program: Location<'c>) -> Result<String, Failure<'c>> {
    let capacity = device.columns as i64 * CORE_ROWS;
    if plan.cores.len() as i64 > capacity {
        let process = &plan.processes[plan.cores[capacity as usize].process];
        return Err((
            process.op.location(),
            format!("the program runs {} cores (a core per replica of each computing process), more than the {} compute tiles of {}", plan.cores.len(), capacity, device.name()),
        ));
    }
    let slots = placement(plan);
    let place = |core: usize| ((slots[core] as i64) / CORE_ROWS, 2 + (slots[core] as i64) % CORE_ROWS);
    let tile = |(c, r): (i64, i64)| format!("%tile_{c}_{r}");
    let mut s = format!("module {{\n  aie.device({}) {{\n", device.name());
    for core in (0..plan.cores.len()).map(|k| slots.iter().position(|&slot| slot == k).unwrap_or(k)) {
        let (c, r) = place(core);
        s += &format!("    {} = aie.tile({c}, {r}) {}\n", tile((c, r)), loc(program));
    }

    // Shim channels: (column, into the array) → FIFOs using them.
    let mut shims: HashMap<(i64, bool), usize> = HashMap::new();
    let mut shim_tiles: Vec<i64> = Vec::new();
    let mut take_shim = |near: i64, into_array: bool, at: Location<'c>| -> Result<String, Failure<'c>> {
        let columns = device.columns as i64;
        let order = (0..columns).map(|d| (near + d) % columns);
        for column in order {
            let used = shims.entry((column, into_array)).or_insert(0);
            if *used < SHIM_CHANNELS {
                *used += 1;
                if !shim_tiles.contains(&column) {
                    shim_tiles.push(column);
                }
                return Ok(format!("%shim_{column}"));
            }
        }
        let direction = if into_array { "into" } else { "out of" };
        Err((at, format!("the program moves more tensors {direction} the array than the shim tiles of {} have DMA channels ({} each way per column)", device.name(), SHIM_CHANNELS)))
    };

    let mut names: Vec<String> = Vec::new();
    let mut unique = |wanted: String| {
        let mut name = wanted;
        while names.contains(&name) {
            name.push('_');
        }
        names.push(name.clone());
        name
    };

    // Channel FIFOs, in channel order, element by element.
    let mut fifo_of: HashMap<(usize, i64), String> = HashMap::new();
    let mut fifos = String::new();
    for (channel_number, channel) in plan.channels.iter().enumerate() {
        for index in 0..channel.count {
            let Some(&(sender, receiver)) = plan.ends.get(&(channel_number, index)) else { continue };
            let name = unique(symbol(&if channel.count > 1 { format!("{}_{index}", channel.name) } else { channel.name.clone() }));
            let core_column = |end: End| match end {
                End::Core(core) => Some(place(core).0),
                End::Shim => None,
            };
            let near = core_column(sender).or(core_column(receiver)).unwrap_or(0);
            let end = |end: End, into_array: bool, take: &mut dyn FnMut(i64, bool, Location<'c>) -> Result<String, Failure<'c>>| match end {
                End::Core(core) => Ok(tile(place(core))),
                End::Shim => take(near, into_array, channel.location),
            };
            let producer = end(sender, true, &mut take_shim)?;
            let consumer = end(receiver, false, &mut take_shim)?;
            fifos += &format!(
                "    aie.objectfifo @{name}({producer}, {{{consumer}}}, {} : i32) : !aie.objectfifo<{}> {}\n",
                channel.depth,
                channel.object_type(),
                loc(channel.location)
            );
            fifo_of.insert((channel_number, index), name);
        }
    }
    // Broadcasts: each argument cores read whole, to every such core.
    let mut broadcast_of: HashMap<usize, String> = HashMap::new();
    let mut broadcast_transfers: Vec<(usize, String)> = Vec::new();
    for (argument_number, argument) in plan.arguments.iter().enumerate() {
        let readers: Vec<usize> = (0..plan.cores.len()).filter(|&k| plan.processes[plan.cores[k].process].wholes.contains(&argument_number)).collect();
        let Some(&first) = readers.first() else { continue };
        let name = unique(symbol(argument.name()));
        let shim = take_shim(place(first).0, true, plan.processes[plan.cores[first].process].op.location())?;
        let consumers: Vec<String> = readers.iter().map(|&k| tile(place(k))).collect();
        fifos += &format!("    aie.objectfifo @{name}({shim}, {{{}}}, 1 : i32) : !aie.objectfifo<{}> {}\n", consumers.join(", "), argument.object_type(), loc(plan.locations[argument_number]));
        broadcast_of.insert(argument_number, name.clone());
        broadcast_transfers.push((argument_number, name));
    }
    let mut shim_tiles = shim_tiles;
    shim_tiles.sort();
    for column in &shim_tiles {
        s += &format!("    %shim_{column} = aie.tile({column}, 0) {}\n", loc(program));
    }
    s += &fifos;

    // The block functions, declared (the conversion puts the definitions in their place).
    for (process, symbol) in plan.processes.iter().zip(symbols) {
        let types = crate::block::parameter_types(plan, process);
        s += &format!("    func.func private @{symbol}({})\n", types.join(", "));
    }

    // The cores.
    for (number, core) in plan.cores.iter().enumerate() {
        let process = &plan.processes[core.process];
        let at = loc(process.op.location());
        s += &format!("    %core_{number} = aie.core({}) {{\n", tile(place(number)));
        s += "      %c0 = arith.constant 0 : index\n      %c1 = arith.constant 1 : index\n";
        s += &format!("      %replica = arith.constant {} : index\n", core.replica);
        let mut values = Vec::new();
        let mut types = Vec::new();
        let mut wholes = String::new();
        for (k, &argument) in process.wholes.iter().enumerate() {
            let ty = plan.arguments[argument].object_type();
            let fifo = &broadcast_of[&argument];
            s += &format!("      %w{k}_s = aie.objectfifo.acquire @{fifo}(Consume, 1) : !aie.objectfifosubview<{ty}> {at}\n");
            s += &format!("      %w{k} = aie.objectfifo.subview.access %w{k}_s[0] : !aie.objectfifosubview<{ty}> -> {ty} {at}\n");
            wholes += &format!("      aie.objectfifo.release @{fifo}(Consume, 1) {at}\n");
        }
        // The nest, level by level: `%ivN = lower + jN * step`.
        let mut indent = String::from("      ");
        let mut ivs = Vec::new();
        for (depth, level) in core.levels.iter().enumerate() {
            s += &format!(
                "{indent}%trips{depth} = arith.constant {} : index\n{indent}%lower{depth} = arith.constant {} : index\n{indent}%step{depth} = arith.constant {} : index\n",
                level.trips, level.lower, level.step
            );
            s += &format!("{indent}scf.for %j{depth} = %c0 to %trips{depth} step %c1 {{\n");
            indent.push_str("  ");
            s += &format!("{indent}%s{depth} = arith.muli %j{depth}, %step{depth} : index\n{indent}%iv{depth} = arith.addi %lower{depth}, %s{depth} : index\n");
            ivs.push(format!("%iv{depth}"));
        }
        // One acquire per FIFO end, of every object the iteration takes there (in the order the
        // process first names each), each operation its own object of the subview.
        let mut releases = String::new();
        let mut taken: Vec<((String, &str), usize, usize)> = Vec::new();
        let counts = |fifo: &str, port: &str| {
            process.operations.iter().zip(&core.elements).filter(|(o, e)| fifo_of[&(o.channel, **e)] == fifo && (if o.sends { "Produce" } else { "Consume" }) == port).count()
        };
        for (k, (operation, index)) in process.operations.iter().zip(&core.elements).enumerate() {
            let channel = &plan.channels[operation.channel];
            let ty = channel.object_type();
            let fifo = fifo_of[&(operation.channel, *index)].clone();
            let port = if operation.sends { "Produce" } else { "Consume" };
            let here = loc(operation.op.location());
            let (subview, object) = match taken.iter_mut().find(|(key, _, _)| key.0 == fifo && key.1 == port) {
                Some((_, subview, next)) => {
                    *next += 1;
                    (*subview, *next)
                }
                None => {
                    let n = counts(&fifo, port);
                    s += &format!("{indent}%o{k}_s = aie.objectfifo.acquire @{fifo}({port}, {n}) : !aie.objectfifosubview<{ty}> {here}\n");
                    releases += &format!("{indent}aie.objectfifo.release @{fifo}({port}, {n}) {here}\n");
                    taken.push(((fifo.clone(), port), k, 0));
                    (k, 0)
                }
            };
            s += &format!("{indent}%o{k} = aie.objectfifo.subview.access %o{subview}_s[{object}] : !aie.objectfifosubview<{ty}> -> {ty} {here}\n");
            values.push(format!("%o{k}"));
            types.push(ty);
        }
        for (k, &argument) in process.wholes.iter().enumerate() {
            values.push(format!("%w{k}"));
            types.push(plan.arguments[argument].object_type());
        }
        let index_types = vec!["index"; ivs.len() + 1].join(", ");
        s += &format!(
            "{indent}func.call @{}({}, {}, %replica) : ({}, {index_types}) -> () {}\n",
            symbols[core.process],
            values.join(", "),
            ivs.join(", "),
            types.join(", "),
            loc(process.nest.loops[0].location())
        );
        s += &releases;
        for _ in &core.levels {
            indent.truncate(indent.len() - 2);
            s += &format!("{indent}}}\n");
        }
        s += &wholes;
        s += "      aie.end\n    }\n";
    }

    // The runtime sequence: the program's arguments as flat host buffers.
    let arguments: Vec<String> = plan.arguments.iter().enumerate().map(|(i, a)| format!("%arg{i}: {}", host_buffer_type(a.elements(), a.element()))).collect();
    s += &format!("    aie.runtime_sequence({}) {{\n", arguments.join(", "));
    let mut id = 0;
    let mut waits = String::new();
    let outputs = plan.transfers.iter().filter(|t| !t.into_array);
    let inputs = plan.transfers.iter().filter(|t| t.into_array);
    for transfer in outputs.chain(inputs) {
        let argument = &plan.arguments[transfer.argument];
        let fifo = &fifo_of[&(transfer.channel, transfer.index)];
        let window = transfer.window.in_host_words(bits_of(argument.element()));
        let token = if transfer.into_array { "" } else { ", issue_token = true" };
        s += &format!(
            "      aiex.npu.dma_memcpy_nd(%arg{}{window}) {{id = {id} : i64{token}, metadata = @{fifo}}} : {} {}\n",
            transfer.argument,
            host_buffer_type(argument.elements(), argument.element()),
            loc(transfer.location)
        );
        if !transfer.into_array {
            waits += &format!("      aiex.npu.dma_wait {{symbol = @{fifo}}} {}\n", loc(transfer.location));
        }
        id += 1;
    }
    for (argument, fifo) in &broadcast_transfers {
        let a = &plan.arguments[*argument];
        let bits = bits_of(a.element());
        let window = match a {
            Argument::Tensor { .. } => contiguous_window(a.elements(), bits),
            Argument::Scalar { .. } => HostWindow { offsets: [0; 4], sizes: [1; 4], strides: [0, 0, 0, 1] },
        }
        .in_host_words(bits);
        s += &format!("      aiex.npu.dma_memcpy_nd(%arg{argument}{window}) {{id = {id} : i64, metadata = @{fifo}}} : {} {}\n", host_buffer_type(a.elements(), a.element()), loc(plan.locations[*argument]));
        id += 1;
    }
    s += &waits;
    s += "    }\n  }\n}\n";
    Ok(s)
}

/// Each core's slot (column-major over the compute tiles): cores in
/// program order, each followed by the chain of cores it sends to that are
/// not placed yet, so that a pipeline's stages land on neighbouring tiles
/// and their FIFOs share memory.
fn placement(plan: &Plan) -> Vec<usize> {
    let count = plan.cores.len();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut elements: Vec<_> = plan.ends.iter().collect();
    elements.sort_by_key(|(element, _)| **element);
    for (_, &(sender, receiver)) in elements {
        if let (End::Core(from), End::Core(to)) = (sender, receiver) {
            next[from].push(to);
        }
    }
    let mut slots = vec![usize::MAX; count];
    let mut taken = 0;
    for start in 0..count {
        let mut current = Some(start);
        while let Some(core) = current.filter(|&c| slots[c] == usize::MAX) {
            slots[core] = taken;
            taken += 1;
            current = next[core].iter().copied().find(|&n| slots[n] == usize::MAX);
        }
    }
    slots
}
