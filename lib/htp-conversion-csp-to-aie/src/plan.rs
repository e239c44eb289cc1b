//! What a CSP program becomes on an AIE array, decided before anything is
//! rewritten (every refusal at the user's line):
//!
//! - a process that only moves data between the program's tensors and
//!   channels (loads sent, or received tiles stored: a loader or a storer)
//!   runs on no core: each channel it feeds or drains becomes a FIFO ending
//!   at a shim tile, moved by one `aiex.npu.dma_memcpy_nd` whose window is
//!   the rows and columns it visits, iteration by iteration (they must step
//!   evenly, and each block must lie inside the tensor: whole blocks);
//! - every other process is a core per replica: one loop, run a static
//!   number of times, whose body's channel operations each take one object
//!   of the channel's FIFO per iteration; tensors it reads outside the
//!   stream of blocks (the same rows every iteration, a weight) are
//!   broadcast whole from a shim; it writes tensors only through channels;
//! - each channel (each element of an array) is one object FIFO of its
//!   depth between its two ends: core to core, shim to core, core to shim.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use htp_ir::builder::{detach, V};
use htp_ir::query::key;
use htp_model_csp::ir::{channel_index, integer_attribute, name_of, string_attribute, ChannelType};
use htp_pass::Failure;
use melior::ir::{
    block::BlockLike,
    operation::OperationLike,
    r#type::{MemRefType, ShapedTypeLike},
    BlockRef, Location, OperationRef, RegionLike, ValueLike,
};

use crate::eval::{depends_on, eval, Env};

/// A program argument as the design moves it.
#[derive(Clone, Debug)]
pub enum Argument {
    /// A static 2-D tensor, `rows x cols` of `element`.
    Tensor { name: String, rows: i64, cols: i64, element: String },
    /// A run-time scalar (f32 or i32): a one-element buffer (D59).
    Scalar { name: String, element: String },
}

impl Argument {
    pub fn name(&self) -> &str {
        match self {
            Argument::Tensor { name, .. } | Argument::Scalar { name, .. } => name,
        }
    }

    pub fn element(&self) -> &str {
        match self {
            Argument::Tensor { element, .. } | Argument::Scalar { element, .. } => element,
        }
    }

    /// Elements of its host buffer.
    pub fn elements(&self) -> i64 {
        match self {
            Argument::Tensor { rows, cols, .. } => rows * cols,
            Argument::Scalar { .. } => 1,
        }
    }

    /// The object type a core reads it whole in.
    pub fn object_type(&self) -> String {
        match self {
            Argument::Tensor { rows, cols, element, .. } => format!("memref<{rows}x{cols}x{element}>"),
            Argument::Scalar { element, .. } => format!("memref<1x1x{element}>"),
        }
    }
}

/// A channel (or array) of the program.
pub struct Channel<'c> {
    pub value: V<'c>,
    pub name: String,
    pub depth: i64,
    pub count: i64,
    pub rows: i64,
    pub cols: i64,
    pub element: String,
    pub location: Location<'c>,
}

impl Channel<'_> {
    pub fn object_type(&self) -> String {
        format!("memref<{}x{}x{}>", self.rows, self.cols, self.element)
    }
}

/// One end of a channel element's FIFO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// A shim tile's DMA (a loader's or storer's transfer).
    Shim,
    /// The core `n` (in [`Plan::cores`]).
    Core(usize),
}

/// A `dma_memcpy_nd` window: offsets, sizes, strides (outermost first), in
/// the argument's elements (the kernel lowering's type).
pub use htp_backend_aie::lower::HostWindow as Window;

/// A host transfer of a loader or storer: argument `argument` into (or
/// out of) the FIFO of channel element `(channel, index)`.
pub struct Transfer<'c> {
    pub channel: usize,
    pub index: i64,
    pub argument: usize,
    pub into_array: bool,
    pub window: Window,
    pub location: Location<'c>,
}

/// A channel operation in a core process's loop body, in order; or a
/// load or store of a tensor's block that changes with the iteration (an
/// implicit channel to a shim: `implicit` is the tensor's argument).
pub struct Operation<'c> {
    pub op: OperationRef<'c, 'c>,
    pub channel: usize,
    pub sends: bool,
    pub implicit: Option<usize>,
}

/// A process that runs on cores (one per replica).
pub struct CoreProcess<'c> {
    pub op: OperationRef<'c, 'c>,
    pub name: String,
    pub nest: Nest<'c>,
    pub operations: Vec<Operation<'c>>,
    /// Arguments read whole (tensors, scalars), in argument order.
    pub wholes: Vec<usize>,
}

/// One core: replica `replica` of core process `process`.
pub struct Core {
    pub process: usize,
    pub replica: i64,
    /// Its loop nest, outermost first.
    pub levels: Vec<Level>,
    /// Per operation of its process, the channel element it names.
    pub elements: Vec<i64>,
}

pub struct Plan<'c> {
    pub arguments: Vec<Argument>,
    /// Where each argument is declared (the parameter).
    pub locations: Vec<Location<'c>>,
    pub channels: Vec<Channel<'c>>,
    pub processes: Vec<CoreProcess<'c>>,
    pub cores: Vec<Core>,
    pub transfers: Vec<Transfer<'c>>,
    /// The ends of each channel element: (channel, index) → (sender, receiver).
    pub ends: HashMap<(usize, i64), (End, End)>,
}

fn refuse<'c, T>(location: Location<'c>, message: impl Into<String>) -> Result<T, Failure<'c>> {
    Err((location, message.into()))
}

/// A process's loop nest: the loop at the top of its body and the loops
/// each holds alone (besides scalar code), outermost first.
#[derive(Clone)]
pub struct Nest<'c> {
    pub loops: Vec<OperationRef<'c, 'c>>,
    /// The innermost loop's body: one iteration of the process.
    pub body: BlockRef<'c, 'c>,
    /// The loops' induction variables, outermost first.
    pub ivs: Vec<V<'c>>,
}

/// One level of a core's (rectangular) loop nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub lower: i64,
    pub step: i64,
    pub trips: i64,
}

/// The loop nest at the top of a process's body.
fn the_nest<'c>(process: OperationRef<'c, 'c>, name: &str) -> Result<Nest<'c>, Failure<'c>> {
    let body = process.region(0).ok().and_then(|r| r.first_block()).ok_or((process.location(), "a process without a body".to_string()))?;
    let mut found = None;
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let current = unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) };
        match name_of(current).as_str() {
            "scf.for" if found.is_none() => found = Some(current),
            "scf.for" => return refuse(current.location(), format!("the process '{name}' has a second loop: on the AIE targets a process is one loop nest whose iterations each take the same channel objects")),
            "csp.send" | "csp.recv" | "csp.consume" => {
                return refuse(current.location(), format!("this channel operation of the process '{name}' is outside its loop: on the AIE targets a process is one loop nest whose iterations each take the same channel objects"))
            }
            other if current.region_count() > 0 && other != "csp.yield" => {
                return refuse(current.location(), format!("'{other}' outside the process's loop: on the AIE targets a process is one loop nest over its blocks"))
            }
            _ => {}
        }
    }
    let mut the_loop = found.ok_or((process.location(), format!("the process '{name}' has no loop: on the AIE targets a process is one loop nest over its blocks")))?;
    let mut nest = Nest { loops: Vec::new(), body: unsafe { BlockRef::from_raw(body.to_raw()) }, ivs: Vec::new() };
    loop {
        if the_loop.result_count() > 0 {
            return refuse(the_loop.location(), "this loop carries values from one iteration to the next: on the AIE targets each iteration of a process's loop stands alone");
        }
        let block = the_loop.region(0).ok().and_then(|r| r.first_block()).ok_or((the_loop.location(), "a loop without a body".to_string()))?;
        let block: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(block.to_raw()) };
        nest.loops.push(the_loop);
        nest.ivs.push(block.argument(0).map(|a| detach(a.into())).map_err(|e| (the_loop.location(), e.to_string()))?);
        nest.body = block;
        // The nest goes on while a body holds one loop and scalar code only.
        let mut inner = None;
        let mut alone = true;
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            let current = unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) };
            let name = name_of(current);
            let scalar = current.region_count() == 0 && (name.starts_with("arith.") || name == "scf.yield" || name == "memref.dim");
            match name.as_str() {
                "scf.for" if inner.is_none() => inner = Some(current),
                _ if scalar => {}
                _ => alone = false,
            }
        }
        match inner {
            Some(next) if alone => the_loop = next,
            _ => break,
        }
    }
    Ok(nest)
}

/// The environments of the nest's iterations, in order (each binding every
/// induction variable), under `env`; the bounds of each level known then.
fn iterations<'c>(nest: &Nest<'c>, env: &Env) -> Result<Vec<Env>, Failure<'c>> {
    fn level<'c>(nest: &Nest<'c>, depth: usize, env: &Env, out: &mut Vec<Env>) -> Result<(), Failure<'c>> {
        if depth == nest.loops.len() {
            out.push(env.clone());
            return Ok(());
        }
        let (lower, upper, step) = bounds(nest.loops[depth], env)?;
        let mut iv = lower;
        while iv < upper {
            level(nest, depth + 1, &env.with(nest.ivs[depth], iv), out)?;
            iv += step;
            if out.len() > 1 << 20 {
                return refuse(nest.loops[0].location(), "this loop nest runs more than a million iterations: too many for a static AIE design");
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    level(nest, 0, env, &mut out)?;
    Ok(out)
}

/// A loop's (lower, upper, step) under `env`.
fn bounds<'c>(the_loop: OperationRef<'c, 'c>, env: &Env) -> Result<(i64, i64, i64), Failure<'c>> {
    let bound = |i: usize, what: &str| {
        the_loop
            .operand(i)
            .ok()
            .and_then(|v| eval(detach(v), env))
            .ok_or((the_loop.location(), format!("the loop's {what} must be known when the design is built on the AIE targets (give shapes and counts as htp.Const)")))
    };
    let (lower, upper, step) = (bound(0, "start")?, bound(1, "end")?, bound(2, "step")?);
    if step <= 0 {
        return refuse(the_loop.location(), format!("the loop steps by {step}; the AIE targets run loops with a positive step"));
    }
    Ok((lower, upper, step))
}

/// A core's nest levels: each loop's bounds, the same on every iteration
/// of the loops around it (a core runs a rectangular nest).
fn levels<'c>(nest: &Nest<'c>, env: &Env, iterations: &[Env]) -> Result<Vec<Level>, Failure<'c>> {
    let mut levels = Vec::new();
    for &the_loop in &nest.loops {
        let first = iterations.first().cloned().unwrap_or_else(|| env.clone());
        let (lower, upper, step) = bounds(the_loop, &first)?;
        for other in iterations {
            if bounds(the_loop, other)? != (lower, upper, step) {
                return refuse(the_loop.location(), "this loop's bounds change with the loops around it: on the AIE targets a core runs a rectangular loop nest");
            }
        }
        levels.push(Level { lower, step, trips: if upper > lower { (upper - lower + step - 1) / step } else { 0 } });
    }
    Ok(levels)
}

/// A tile's rows and columns, for a tile type.
fn tile_shape(ty: melior::ir::Type) -> Option<(i64, i64)> {
    TileType::try_from(ty).ok().map(|t| (t.rows(), t.cols()))
}

/// Whether the process only moves data: loads that are sent, received
/// tiles that are stored, and the index arithmetic around them.
fn moves_only(body: BlockRef) -> bool {
    let mut only = true;
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = name_of(current);
        let fine = match name.as_str() {
            "tile.load" | "tile.store" | "tile.pad" | "tile.set_valid" | "csp.send" | "csp.recv" | "scf.yield" | "csp.yield" => true,
            "csp.consume" => current.region(0).ok().and_then(|r| r.first_block()).is_some_and(moves_only),
            _ => name.starts_with("arith.") && (0..current.result_count()).all(|i| current.result(i).is_ok_and(|r| tile_shape(r.r#type()).is_none())),
        };
        only &= fine;
    }
    only
}

/// The op defining `value`, through `tile.pad` / `tile.set_valid`.
fn through_padding<'c>(value: V<'c>) -> V<'c> {
    let mut value = value;
    while let Some(op) = htp_ir::query::defining_op(value) {
        if !matches!(name_of(op).as_str(), "tile.pad" | "tile.set_valid") {
            break;
        }
        match op.operand(0) {
            Ok(inner) => value = detach(inner),
            Err(_) => break,
        }
    }
    value
}

pub fn plan<'c>(program: OperationRef<'c, 'c>) -> Result<Plan<'c>, Failure<'c>> {
    let body = program.region(0).ok().and_then(|r| r.first_block()).ok_or((program.location(), "a program without a body".to_string()))?;
    let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };

    // The arguments: static 2-D tensors of 8-, 16-, 32- or 64-bit elements; f32/i32/i64 scalars
    // (64-bit ones move as the words of an i32 host buffer: `Window::in_host_words`).
    let mut arguments = Vec::new();
    let mut locations = Vec::new();
    let mut argument_of: HashMap<usize, usize> = HashMap::new();
    for index in 0..body.argument_count() {
        let argument = body.argument(index).map_err(|e| (program.location(), e.to_string()))?;
        argument_of.insert(key(argument.into()), index);
        let location = htp_ir::query::value_location(argument.into());
        locations.push(location);
        let name = htp_backend_aie::lower::location_name(location).unwrap_or_else(|| format!("arg{index}"));
        let ty = argument.r#type();
        let Ok(memref) = MemRefType::try_from(ty) else {
            let element = ty.to_string();
            if !["f32", "i32", "i64"].contains(&element.as_str()) {
                return refuse(location, format!("'{name}' is a scalar of type {element}; the aie targets take run-time scalars of f32, i32 and i64 (32-bit words the shim DMA moves)"));
            }
            arguments.push(Argument::Scalar { name, element });
            continue;
        };
        let shape = htp_ir::builder::shape_of(ty);
        if shape.len() != 2 || shape.iter().any(|&d| d < 0) {
            return refuse(location, format!("'{name}' has type {ty}; the aie targets need 2-D tensors of static shape (give dimensions as htp.Const)"));
        }
        let bits = htp_ir::builder::bit_width(memref.element());
        if ![8, 16, 32, 64].contains(&bits) {
            return refuse(location, format!("'{name}' holds {}; the aie targets move 8-, 16-, 32- and 64-bit elements", memref.element()));
        }
        arguments.push(Argument::Tensor { name, rows: shape[0], cols: shape[1], element: memref.element().to_string() });
    }

    let (channel_ops, process_ops) = htp_model_csp::ir::parts(program);
    let mut channels = Vec::new();
    let mut channel_of: HashMap<usize, usize> = HashMap::new();
    for op in channel_ops {
        let value = op.result(0).map(|r| detach(r.into())).map_err(|e| (op.location(), e.to_string()))?;
        let ty = ChannelType::of(value.r#type()).ok_or((op.location(), "a channel without a channel type".to_string()))?;
        let (rows, cols) = tile_shape(ty.element()).ok_or((op.location(), format!("a channel of {}: on the AIE targets channels carry tiles", ty.element())))?;
        let element = TileType::try_from(ty.element()).map(|t| t.element_type().to_string()).unwrap_or_default();
        let name = string_attribute(op, "name").unwrap_or_default();
        channel_of.insert(key(value), channels.len());
        channels.push(Channel { value, name, depth: integer_attribute(op, "depth").unwrap_or(1).max(1), count: ty.count(), rows, cols, element, location: op.location() });
    }

    let mut plan = Plan { arguments, locations, channels, processes: Vec::new(), cores: Vec::new(), transfers: Vec::new(), ends: HashMap::new() };
    let mut senders: HashMap<(usize, i64), (End, Location<'c>)> = HashMap::new();
    let mut receivers: HashMap<(usize, i64), (End, Location<'c>)> = HashMap::new();
    for process in process_ops {
        let name = string_attribute(process, "name").unwrap_or_default();
        let replicas = integer_attribute(process, "replicas").unwrap_or(1).max(1);
        let nest = the_nest(process, &name)?;
        let replica_argument = process.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.argument(0).ok()).map(|a| detach(a.into()));
        let mover = moves_only(nest.body);
        let core_process = plan.processes.len();
        if !mover {
            let operations = core_operations(&mut plan, &channel_of, &argument_of, process, &nest, &name, replicas)?;
            let wholes = whole_arguments(&plan, &argument_of, process, &operations);
            plan.processes.push(CoreProcess { op: process, name: name.clone(), nest: nest.clone(), operations, wholes });
        }
        for replica in 0..replicas {
            let env = match replica_argument {
                Some(argument) => Env::default().with(argument, replica),
                None => Env::default(),
            };
            let iterations = iterations(&nest, &env)?;
            if mover {
                let sites = mover_sites(&channel_of, &argument_of, nest.body)?;
                let visits = visit(&plan, &sites, &iterations, replica)?;
                add_transfers(&mut plan, visits, &mut senders, &mut receivers)?;
                continue;
            }
            // A replica with nothing to do takes no core (and no FIFO ends).
            if iterations.is_empty() {
                continue;
            }
            let levels = levels(&nest, &env, &iterations)?;
            let core = plan.cores.len();
            let mut elements = Vec::new();
            let implicit: Vec<Site<'c>> = plan.processes[core_process].operations.iter().filter_map(implicit_site).collect();
            let visits = visit(&plan, &implicit, &iterations, replica)?;
            // The core's end of its implicit channels; the shim's end is each visit's transfer.
            for site in &implicit {
                let slot = if site.into_array { &mut receivers } else { &mut senders };
                slot.insert((site.channel, replica), (End::Core(core), site.op.location()));
            }
            add_transfers(&mut plan, visits, &mut senders, &mut receivers)?;
            for operation in &plan.processes[core_process].operations {
                if operation.implicit.is_some() {
                    elements.push(replica);
                    continue;
                }
                let index = match channel_index(operation.op) {
                    None => 0,
                    Some(value) => {
                        let value = detach(value);
                        if nest.ivs.iter().any(|iv| depends_on(value, *iv)) {
                            return refuse(operation.op.location(), "on the AIE targets a core takes the same channel every iteration (its replica's own, `at=w`): this index changes with the loop");
                        }
                        eval(value, &env).ok_or((operation.op.location(), "this channel index must be known when the design is built on the AIE targets".to_string()))?
                    }
                };
                let channel = &plan.channels[operation.channel];
                if index < 0 || index >= channel.count {
                    return refuse(operation.op.location(), format!("replica {replica} names element {index} of '{}', which has {}", channel.name, channel.count));
                }
                let slot = if operation.sends { &mut senders } else { &mut receivers };
                if let Some((end, other)) = slot.get(&(operation.channel, index)) {
                    if *end != End::Core(core) {
                        let role = if operation.sends { "sends on" } else { "receives from" };
                        return refuse(operation.op.location(), format!("a second process {role} '{}' (the first at {}): a FIFO has one producer and one consumer", channel_label(channel, index), htp_dialects::diagnostics::position_text(*other)));
                    }
                }
                // A core may take several objects of one FIFO per iteration (all acquired
                // together): the channel's depth must hold them.
                let taken = 1 + elements.iter().zip(&plan.processes[core_process].operations).filter(|(e, o)| **e == index && o.channel == operation.channel && o.sends == operation.sends).count() as i64;
                if taken > channel.depth {
                    return refuse(
                        operation.op.location(),
                        format!("this is object {taken} of '{}' a core takes per iteration, more than its depth {}: on the AIE targets a core holds an iteration's objects together; declare depth={taken} or more", channel_label(channel, index), channel.depth),
                    );
                }
                slot.insert((operation.channel, index), (End::Core(core), operation.op.location()));
                elements.push(index);
            }
            plan.cores.push(Core { process: core_process, replica, levels, elements });
        }
    }

    // Every channel element in use has a sender and a receiver, not both shims.
    for (&(channel, index), &(sender, at)) in &senders {
        let Some(&(receiver, _)) = receivers.get(&(channel, index)) else {
            return refuse(at, format!("nothing receives from '{}'", channel_label(&plan.channels[channel], index)));
        };
        if sender == End::Shim && receiver == End::Shim {
            return refuse(
                plan.channels[channel].location,
                format!("'{}' joins two processes that only move data (a tensor copied to a tensor): on the AIE targets a channel has a core at one end at least", channel_label(&plan.channels[channel], index)),
            );
        }
        plan.ends.insert((channel, index), (sender, receiver));
    }
    if let Some((&(channel, index), &(_, at))) = receivers.iter().find(|(k, _)| !senders.contains_key(k)) {
        return refuse(at, format!("nothing sends on '{}'", channel_label(&plan.channels[channel], index)));
    }
    acyclic(&plan)?;
    Ok(plan)
}

/// `name` or `name[i]` for an element of an array.
pub fn channel_label(channel: &Channel, index: i64) -> String {
    if channel.count > 1 {
        format!("{}[{index}]", channel.name)
    } else {
        channel.name.clone()
    }
}

/// The channel operations at the top of a core process's loop body, and
/// the loads and stores of tensor blocks that change with the iteration
/// there (each an implicit channel of depth 2 to a shim, one per replica,
/// added to the plan's channels).
#[allow(clippy::too_many_arguments)]
fn core_operations<'c>(
    plan: &mut Plan<'c>,
    channel_of: &HashMap<usize, usize>,
    argument_of: &HashMap<usize, usize>,
    process: OperationRef<'c, 'c>,
    nest: &Nest<'c>,
    name: &str,
    replicas: i64,
) -> Result<Vec<Operation<'c>>, Failure<'c>> {
    let (the_loop, loop_body) = (nest.loops[0], nest.body);
    let varies = |v: V<'c>| nest.ivs.iter().any(|iv| depends_on(v, *iv));
    let mut found: Vec<(OperationRef<'c, 'c>, Option<usize>, Option<usize>, bool)> = Vec::new();
    let mut problem: Option<Failure<'c>> = None;
    process.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if problem.is_some() {
            return melior::ir::operation::WalkResult::Interrupt;
        }
        let op = unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) };
        let op_name = name_of(op);
        let top = at_top(op, loop_body);
        match op_name.as_str() {
            "csp.send" | "csp.recv" | "csp.consume" => {
                if !top {
                    problem = Some((op.location(), format!("this channel operation of '{name}' is under a branch or an inner loop: on the AIE targets a core takes each of its channel objects once per iteration of its loop")));
                } else if let Some(&channel) = op.operand(0).ok().and_then(|c| channel_of.get(&key(c))) {
                    found.push((op, Some(channel), None, op_name == "csp.send"));
                }
            }
            "tile.store" => {
                if let Some(&argument) = op.operand(1).ok().and_then(|m| argument_of.get(&key(m))) {
                    if top {
                        found.push((op, None, Some(argument), true));
                    } else {
                        problem = Some((op.location(), format!("the process '{name}' writes a tensor under a branch or an inner loop: on the AIE targets a core writes each block it sends out once per iteration of its loop")));
                    }
                }
            }
            "tile.load" => {
                let rows_change = (1..op.operand_count()).any(|i| op.operand(i).is_ok_and(|v| varies(detach(v))));
                if let Some(&argument) = op.operand(0).ok().and_then(|m| argument_of.get(&key(m))).filter(|_| rows_change) {
                    if top {
                        found.push((op, None, Some(argument), false));
                    } else {
                        problem = Some((op.location(), format!("the process '{name}' reads a tensor at places that change with its loop under a branch or an inner loop: on the AIE targets a core takes each block streamed to it once per iteration of its loop (or reads the tensor whole)")));
                    }
                }
            }
            _ => {}
        }
        melior::ir::operation::WalkResult::Advance
    });
    if let Some(problem) = problem {
        return Err(problem);
    }
    if found.is_empty() {
        return refuse(the_loop.location(), format!("the process '{name}' computes without channels or tensor blocks: on the AIE targets a core's work reaches the program's tensors through channels"));
    }
    let mut operations = Vec::new();
    for (op, channel, argument, sends) in found {
        let channel = match (channel, argument) {
            (Some(channel), _) => channel,
            (None, Some(argument)) => {
                // The block's tile: a load's result, a store's value.
                let tile = if sends { op.operand(0).ok().map(|v| v.r#type()) } else { op.result(0).ok().map(|r| r.r#type()) };
                let (rows, cols) = tile.and_then(tile_shape).ok_or((op.location(), "a block without a tile type".to_string()))?;
                let element = plan.arguments[argument].element().to_string();
                let value = op.operand(if sends { 1 } else { 0 }).map(detach).map_err(|e| (op.location(), e.to_string()))?;
                let channel_name = format!("{}_{}", plan.arguments[argument].name(), name);
                plan.channels.push(Channel { value, name: channel_name, depth: 2, count: replicas, rows, cols, element, location: op.location() });
                plan.channels.len() - 1
            }
            (None, None) => continue,
        };
        operations.push(Operation { op, channel, sends, implicit: argument });
    }
    Ok(operations)
}

/// Whether `op` runs once per iteration of the loop whose body is
/// `loop_body`: in it, or in the body of a consume that is.
fn at_top(op: OperationRef, loop_body: BlockRef) -> bool {
    let Some(block) = op.block() else { return false };
    if block == loop_body {
        return true;
    }
    match block.parent_operation() {
        Some(parent) if name_of(parent) == "csp.consume" => at_top(parent, loop_body),
        _ => false,
    }
}

/// The arguments a core process reads whole: tensors it loads (other than
/// its streamed blocks), scalars it uses.
fn whole_arguments<'c>(plan: &Plan<'c>, argument_of: &HashMap<usize, usize>, process: OperationRef<'c, 'c>, operations: &[Operation<'c>]) -> Vec<usize> {
    let streamed: Vec<usize> = operations.iter().filter(|o| o.implicit.is_some()).map(|o| o.op.to_raw().ptr as usize).collect();
    let mut wholes: Vec<usize> = Vec::new();
    process.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if streamed.contains(&(op.to_raw().ptr as usize)) {
            return melior::ir::operation::WalkResult::Advance;
        }
        for i in 0..op.operand_count() {
            if let Some(&argument) = op.operand(i).ok().and_then(|v| argument_of.get(&key(v))) {
                let used = match &plan.arguments[argument] {
                    Argument::Tensor { .. } => name_of(unsafe { OperationRef::from_raw(op.to_raw()) }) == "tile.load",
                    Argument::Scalar { .. } => true,
                };
                if used && !wholes.contains(&argument) {
                    wholes.push(argument);
                }
            }
        }
        melior::ir::operation::WalkResult::Advance
    });
    wholes.sort();
    wholes
}

/// Where a site's channel element comes from.
#[derive(Clone, Copy)]
enum SiteIndex<'c> {
    /// A single channel.
    Single,
    /// `at=`: an index computed per iteration.
    At(V<'c>),
    /// The replica's own (an implicit channel of a replicated core).
    Replica,
}

/// A transfer's block, once per iteration: a load sent (or a core's
/// streamed load), or a received tile stored (or a core's streamed store).
struct Site<'c> {
    op: OperationRef<'c, 'c>,
    channel: usize,
    index: SiteIndex<'c>,
    argument: usize,
    row: V<'c>,
    column: V<'c>,
    into_array: bool,
    valid: Vec<(usize, Extent<'c>)>,
}

/// A valid extent of a block's tile: known, or computed per iteration.
#[derive(Clone, Copy)]
enum Extent<'c> {
    Known(i64),
    Computed(V<'c>),
}

/// The valid rows and columns (dimension, extent) a load's tile or a
/// stored tile declares: the whole tile unless it is cut.
fn valid_extents<'c>(op: OperationRef<'c, 'c>, load: bool) -> Vec<(usize, Extent<'c>)> {
    let (tile, owner, first) = if load {
        (op.result(0).ok().map(|r| r.r#type()), Some(op), 3)
    } else {
        let value = op.operand(0).ok().map(detach);
        let set_valid = value.and_then(htp_ir::query::defining_op).filter(|s| name_of(*s) == "tile.set_valid");
        (value.map(|v| v.r#type()), set_valid, 1)
    };
    let Some(tile) = tile.and_then(|t| TileType::try_from(t).ok()) else { return Vec::new() };
    let mut next = first;
    let mut extents = Vec::new();
    for dim in 0..2 {
        match tile.valid_size(dim as u32) {
            htp_dialects::tile::ValidSize::Static(n) => extents.push((dim, Extent::Known(n))),
            htp_dialects::tile::ValidSize::Dynamic => {
                if let Some(value) = owner.and_then(|o| o.operand(next).ok()) {
                    extents.push((dim, Extent::Computed(detach(value))));
                }
                next += 1;
            }
        }
    }
    extents
}

/// The site of a core's streamed load or store.
fn implicit_site<'c>(operation: &Operation<'c>) -> Option<Site<'c>> {
    let argument = operation.implicit?;
    let op = operation.op;
    let load = !operation.sends;
    let (row, column) = if load { (1, 2) } else { (2, 3) };
    Some(Site {
        op,
        channel: operation.channel,
        index: SiteIndex::Replica,
        argument,
        row: op.operand(row).ok().map(detach)?,
        column: op.operand(column).ok().map(detach)?,
        into_array: load,
        valid: valid_extents(op, load),
    })
}

/// The sites of a process that only moves data.
fn mover_sites<'c>(channel_of: &HashMap<usize, usize>, argument_of: &HashMap<usize, usize>, loop_body: BlockRef<'c, 'c>) -> Result<Vec<Site<'c>>, Failure<'c>> {
    let mut sites: Vec<Site<'c>> = Vec::new();
    let mut problem: Option<Failure<'c>> = None;
    let Some(loop_op) = loop_body.parent_operation().map(|o| unsafe { OperationRef::<'c, 'c>::from_raw(o.to_raw()) }) else { return Ok(sites) };
    let index_of = |op: OperationRef<'c, 'c>| channel_index(op).map(|v| SiteIndex::At(detach(v))).unwrap_or(SiteIndex::Single);
    loop_op.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        let op = unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) };
        if problem.is_some() {
            return melior::ir::operation::WalkResult::Interrupt;
        }
        let top = at_top(op, loop_body);
        match name_of(op).as_str() {
            "csp.send" => {
                let Some(&channel) = op.operand(0).ok().and_then(|c| channel_of.get(&key(c))) else { return melior::ir::operation::WalkResult::Advance };
                let value = op.operand(op.operand_count() - 1).map(detach).ok();
                let load = value.map(through_padding).and_then(htp_ir::query::defining_op).filter(|l| name_of(*l) == "tile.load");
                let place = load.and_then(|l| Some((l, *argument_of.get(&key(l.operand(0).ok()?))?, detach(l.operand(1).ok()?), detach(l.operand(2).ok()?))));
                match place {
                    Some((load, argument, row, column)) if top => sites.push(Site { op, channel, index: index_of(op), argument, row, column, into_array: true, valid: valid_extents(load, true) }),
                    _ => problem = Some((op.location(), "on the AIE targets a process that only moves data sends tiles loaded from the program's tensors, each once per iteration of its loop".to_string())),
                }
            }
            "tile.store" => {
                let value = op.operand(0).map(detach).ok().map(through_padding);
                let argument = op.operand(1).ok().and_then(|m| argument_of.get(&key(m)).copied());
                // The stored tile: a receive's result or a consume's slot.
                let source = value.and_then(|v| {
                    if let Some(recv) = htp_ir::query::defining_op(v).filter(|r| name_of(*r) == "csp.recv") {
                        return Some(recv);
                    }
                    let argument = melior::ir::block::BlockArgument::try_from(unsafe { melior::ir::Value::from_raw(v.to_raw()) }).ok()?;
                    let owner = argument.owner().parent_operation()?;
                    (name_of(owner) == "csp.consume" && argument.argument_number() == 0).then(|| unsafe { OperationRef::<'c, 'c>::from_raw(owner.to_raw()) })
                });
                let place = op.operand(2).ok().zip(op.operand(3).ok()).map(|(r, c)| (detach(r), detach(c)));
                match (source, argument, place) {
                    (Some(source), Some(argument), Some((row, column))) if top => {
                        let Some(&channel) = source.operand(0).ok().and_then(|c| channel_of.get(&key(c))) else { return melior::ir::operation::WalkResult::Advance };
                        sites.push(Site { op, channel, index: index_of(source), argument, row, column, into_array: false, valid: valid_extents(op, false) });
                    }
                    _ => problem = Some((op.location(), "on the AIE targets a process that only moves data stores received tiles into the program's tensors, each once per iteration of its loop".to_string())),
                }
            }
            _ => {}
        }
        melior::ir::operation::WalkResult::Advance
    });
    match problem {
        Some(problem) => Err(problem),
        None => Ok(sites),
    }
}

/// Per channel element a transfer feeds or drains: its tensor, direction,
/// where it was written, and the blocks it visits in order.
struct Visits<'c> {
    element: (usize, i64),
    argument: usize,
    into_array: bool,
    location: Location<'c>,
    places: Vec<(i64, i64)>,
}

/// The blocks `sites` visit over one replica's iterations.
fn visit<'c>(plan: &Plan<'c>, sites: &[Site<'c>], iterations: &[Env], replica: i64) -> Result<Vec<Visits<'c>>, Failure<'c>> {
    let mut visits: Vec<Visits<'c>> = Vec::new();
    for env in iterations {
        for site in sites {
            let known = |v: V<'c>| eval(v, env).ok_or((site.op.location(), "on the AIE targets the rows and columns a transfer moves must be known when the design is built (give shapes as htp.Const)".to_string()));
            let index = match site.index {
                SiteIndex::Single => 0,
                SiteIndex::At(v) => known(v)?,
                SiteIndex::Replica => replica,
            };
            let channel = &plan.channels[site.channel];
            if index < 0 || index >= channel.count {
                return refuse(site.op.location(), format!("element {index} of '{}', which has {}", channel.name, channel.count));
            }
            for &(dim, extent) in &site.valid {
                let valid = match extent {
                    Extent::Known(n) => n,
                    Extent::Computed(v) => known(v)?,
                };
                let (full, what) = if dim == 0 { (channel.rows, "rows") } else { (channel.cols, "columns") };
                if valid != full {
                    return refuse(
                        site.op.location(),
                        format!("this block is cut by the tensor's edge ({valid} of its {full} {what}): the AIE targets move whole blocks; make the tensor's {what} a multiple of {full}"),
                    );
                }
            }
            let place = (known(site.row)?, known(site.column)?);
            match visits.iter_mut().find(|v| v.element == (site.channel, index)) {
                Some(visit) if visit.argument != site.argument || visit.into_array != site.into_array => {
                    return refuse(site.op.location(), format!("'{}' carries blocks of two tensors: on the AIE targets a channel fed by a process that only moves data is one transfer of one tensor", channel_label(channel, index)));
                }
                Some(visit) => visit.places.push(place),
                None => visits.push(Visits { element: (site.channel, index), argument: site.argument, into_array: site.into_array, location: site.op.location(), places: vec![place] }),
            }
        }
    }
    Ok(visits)
}

/// A shim transfer per visited channel element (the shim its end).
fn add_transfers<'c>(
    plan: &mut Plan<'c>,
    visits: Vec<Visits<'c>>,
    senders: &mut HashMap<(usize, i64), (End, Location<'c>)>,
    receivers: &mut HashMap<(usize, i64), (End, Location<'c>)>,
) -> Result<(), Failure<'c>> {
    for Visits { element: (channel, index), argument, into_array, location, places } in visits {
        let slot = if into_array { &mut *senders } else { &mut *receivers };
        if slot.contains_key(&(channel, index)) {
            let role = if into_array { "sends on" } else { "receives from" };
            return refuse(location, format!("a second process {role} '{}': a FIFO has one producer and one consumer", channel_label(&plan.channels[channel], index)));
        }
        slot.insert((channel, index), (End::Shim, location));
        let window = window(&plan.arguments[argument], &plan.channels[channel], &places).map_err(|why| (location, why))?;
        plan.transfers.push(Transfer { channel, index, argument, into_array, window, location });
    }
    Ok(())
}

/// The shim DMA window visiting `places` (each a block's top-left corner)
/// of `argument` in order, one channel object per place: blocks a constant
/// step apart, or groups of them a constant step apart (a loop nest's
/// blocks: `sizes [groups, blocks, rows, columns]`).
fn window(argument: &Argument, channel: &Channel, places: &[(i64, i64)]) -> Result<Window, String> {
    let Argument::Tensor { rows, cols, element, name } = argument else { return Err("a transfer of a scalar".into()) };
    let (b, w, c) = (channel.rows, channel.cols, *cols);
    let bits = htp_backend_aie::lower::bits_of(element);
    let most = htp_backend_aie::lower::inner_elements(bits);
    for &(r, col) in places {
        if r < 0 || col < 0 || r + b > *rows || col + w > c {
            return Err(format!("the block at row {r}, column {col} of '{name}' ({rows} x {c}) does not lie inside it: the AIE targets move whole blocks"));
        }
    }
    let k = places.len() as i64;
    let (r0, c0) = places[0];
    let base = r0 * c + c0;
    // Each block's first element, from the first block's.
    let d: Vec<i64> = places.iter().map(|&(r, col)| (r - r0) * c + (col - c0)).collect();
    let step = if k > 1 { d[1] } else { b * c };
    let uneven = || format!("the blocks of '{name}' this channel carries are not evenly spaced (nor groups of them): the AIE targets move them with one shim transfer, which steps evenly");
    let backwards = || format!("the blocks of '{name}' this channel carries go backwards: a shim transfer steps forwards");
    let divisor = htp_backend_aie::lower::divisor_at_most;
    let (groups, group_step, blocks) = match (1..k as usize).find(|&i| d[i] != i as i64 * step) {
        None => (1, 0, k),
        Some(j) => {
            let j = j as i64;
            if k % j != 0 {
                return Err(uneven());
            }
            let group_step = d[j as usize];
            if d.iter().enumerate().any(|(i, &x)| x != (i as i64 / j) * group_step + (i as i64 % j) * step) {
                return Err(uneven());
            }
            if group_step < 0 {
                return Err(backwards());
            }
            (k / j, group_step, j)
        }
    };
    if step < 0 {
        return Err(backwards());
    }
    let window = if groups == 1 && w == c && step == b * c {
        // Contiguous blocks: the whole span in 32-bit-word chunks.
        let elements = k * b * c;
        let inner = htp_backend_aie::lower::inner_size(elements, bits);
        let rest = elements / inner;
        let middle = divisor(rest, 1023);
        Window { offsets: [0, 0, 0, base], sizes: [1, rest / middle, middle, inner], strides: [0, middle * inner, inner, 1] }
    } else if w == c {
        // Whole rows, blocks apart: each object contiguous.
        let inner = htp_backend_aie::lower::inner_size(b * c, bits);
        Window { offsets: [0, 0, 0, base], sizes: [groups, blocks, b * c / inner, inner], strides: [group_step, step, inner, 1] }
    } else {
        Window { offsets: [0, 0, 0, base], sizes: [groups, blocks, b, w], strides: [group_step, step, c, 1] }
    };
    let [repeat, outer, middle, inner] = window.sizes;
    if (inner * bits) % 32 != 0 || inner > most || middle > 1023 || outer > 1023 || repeat > 64 {
        return Err(format!(
            "a shim transfer cannot visit these blocks of '{name}' ({k} blocks of {b} x {w}): its dimensions hold at most 1023 32-bit words innermost, 1023 steps in the next two and 64 repeats outermost, whole words; take blocks of whole rows or fewer blocks"
        ));
    }
    Ok(window)
}

/// The processes' channels form no cycle: a core holds the objects it took
/// for the whole iteration, which a cycle of them could turn into a wait
/// the program itself never makes.
fn acyclic<'c>(plan: &Plan<'c>) -> Result<(), Failure<'c>> {
    let process_of = |end: End| match end {
        End::Core(core) => Some(plan.cores[core].process),
        End::Shim => None,
    };
    let count = plan.processes.len();
    let mut edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); count];
    for (&(channel, _), &(sender, receiver)) in &plan.ends {
        if let (Some(from), Some(to)) = (process_of(sender), process_of(receiver)) {
            edges[from].push((to, channel));
        }
    }
    // Depth-first search for a back edge.
    fn visit(node: usize, edges: &[Vec<(usize, usize)>], state: &mut [u8], path: &mut Vec<(usize, usize)>) -> Option<Vec<(usize, usize)>> {
        state[node] = 1;
        for &(next, channel) in &edges[node] {
            path.push((node, channel));
            if state[next] == 1 {
                let start = path.iter().position(|(n, _)| *n == next).unwrap_or(0);
                return Some(path[start..].to_vec());
            }
            if state[next] == 0 {
                if let Some(cycle) = visit(next, edges, state, path) {
                    return Some(cycle);
                }
            }
            path.pop();
        }
        state[node] = 2;
        None
    }
    let mut state = vec![0u8; count];
    for start in 0..count {
        if state[start] != 0 {
            continue;
        }
        if let Some(cycle) = visit(start, &edges, &mut state, &mut Vec::new()) {
            let names: Vec<String> = cycle.iter().map(|(p, c)| format!("'{}' --{}-->", plan.processes[*p].name, plan.channels[*c].name)).collect();
            let (first, channel) = cycle[0];
            return refuse(
                plan.channels[channel].location,
                format!(
                    "the cores' channels form a cycle ({} '{}'): on the AIE targets a core holds the objects it takes for its whole iteration, so a cycle is not lowered (run this program on the cpu target)",
                    names.join(" "),
                    plan.processes[first].name
                ),
            );
        }
    }
    Ok(())
}
