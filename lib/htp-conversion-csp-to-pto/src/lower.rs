//! `csp-to-pto`: each `@csp.program` of a module lowered for PTO first
//! loses its loaders and storers (`htp_model_csp::dissolve`: the processes
//! they serve move their own blocks). When no channel is left between the
//! remaining processes and there are several of them or replicas, each
//! replica is a task of its own (`tasks.rs`). Otherwise the program becomes
//! the kernels of one cluster task. An A2/A3 cluster is one cube core and
//! (as HTP uses it) one vector core program, joined by two one-way pipes
//! (cube → vector, vector → cube), so a program runs there when:
//!
//! - it has at most two processes, none replicated: one that multiplies
//!   matrices (the cube process: matmuls and the loads, pads, transposes and
//!   stores around them) and one that does not (the vector process);
//! - its channels are single (no arrays) and go between those two;
//! - channels that share a direction are received in the order they are
//!   sent (the pipe is one FIFO per direction): the same sequence of
//!   transfers, under the same loops and branches, on both sides.
//!
//! Each process is outlined into a tile kernel (`pto.cluster` = the
//! program, `pto.core`), its sends and receives become `pto.cluster_send` /
//! `pto.cluster_recv` of the channel's direction, a consume a receive with
//! its body inlined (the tile is moved out of the pipe's slot at once, so
//! the slot is freed before the body rather than after: never later than
//! the program asked). A direction's pipe has as many slots as its
//! channels' depths add up to (`pto.cluster_slots`). The protocol itself
//! (balance, deadlock freedom over those depths) was proven by
//! `csp-verify-protocol` before this runs.

use std::collections::HashMap;

use htp_backend_pto::conversion::Core;
use htp_backend_pto::ops::{TileOp, CLUSTER_ATTRIBUTE, CLUSTER_SLOTS_ATTRIBUTE, CORE_ATTRIBUTE};
use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_ir::query::{key, ops_named};
use htp_model_csp::ir::{integer_attribute, name_of, position, string_attribute, ChannelType};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{DenseI64ArrayAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        Attribute, BlockRef, OperationRef, RegionLike, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"csp-to-pto", "builtin.module"> {
        summary: "Make each CSP program one PTO cluster task: its cube and vector processes as kernels of one core each, its channels the cluster's pipes",
        dialects: [htp_model_csp::handles::csp, htp_backend_pto::handles::pto, tile, func, scf, arith, memref],
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    for program in htp_model_csp::ir::programs(module) {
        convert(context, program)?;
    }
    Ok(())
}

struct Process<'c> {
    op: OperationRef<'c, 'c>,
    name: String,
    core: Core,
}

struct Channel<'c> {
    op: OperationRef<'c, 'c>,
    name: String,
    depth: i64,
    /// The core of the process that sends on it, once known.
    sender: Option<Core>,
}

fn convert<'c>(context: &'c Context, program: OperationRef<'c, 'c>) -> Result<(), Failure<'c>> {
    let program_name = string_attribute(program, "sym_name").unwrap_or_default();
    // Loaders and storers: the cores move their own blocks.
    htp_model_csp::dissolve::dissolve_movers(context, program)?;
    let (channel_ops, process_ops) = htp_model_csp::ir::parts(program);
    let replicated = process_ops.iter().any(|p| integer_attribute(*p, "replicas").unwrap_or(1) > 1);
    if channel_ops.is_empty() && (replicated || process_ops.len() > 1) {
        return crate::tasks::split(context, program, &process_ops);
    }
    let mut channels: HashMap<usize, Channel<'c>> = HashMap::new();
    for current in channel_ops {
        let value = current.result(0).map(|r| detach(r.into())).map_err(|e| (current.location(), e.to_string()))?;
        let count = ChannelType::of(value.r#type()).map_or(1, |t| t.count());
        if count > 1 {
            return Err((
                current.location(),
                format!(
                    "an array of {count} channels joins replicated processes to a process that computes, and a PTO cluster runs one cube and one vector process: on PTO replicas are tasks of their own, which exchange tiles only with loaders and storers (processes that just move blocks of the program's tensors)"
                ),
            ));
        }
        let name = string_attribute(current, "name").unwrap_or_default();
        channels.insert(key(value), Channel { op: current, name, depth: integer_attribute(current, "depth").unwrap_or(1).max(1), sender: None });
    }
    let mut processes: Vec<Process<'c>> = Vec::new();
    for current in process_ops.iter().copied() {
        let name = string_attribute(current, "name").unwrap_or_default();
        let replicas = integer_attribute(current, "replicas").unwrap_or(1);
        if replicas > 1 {
            return Err((
                current.location(),
                format!("the process '{name}' runs {replicas} replicas and talks to a process that computes, and a PTO cluster runs each process once (one cube core, one vector core): on PTO replicas are tasks of their own, which exchange tiles only with loaders and storers"),
            ));
        }
        let core = core_of(current)?;
        if let Some(other) = processes.iter().find(|p| p.core == core) {
            let work = if core == Core::Aic { "multiply matrices" } else { "do vector work only" };
            return Err((
                current.location(),
                format!(
                    "the processes '{}' and '{name}' both {work}: on PTO a program is one cluster, one cube process (its matmuls) and one vector process",
                    other.name
                ),
            ));
        }
        processes.push(Process { op: current, name, core });
    }
    // Who sends on each channel: its direction.
    for process in &processes {
        process.op.walk(WalkOrder::PreOrder, |inner| {
            if name_of(unsafe { OperationRef::from_raw(inner.to_raw()) }) == "csp.send" {
                if let Some(channel) = inner.operand(0).ok().and_then(|c| channels.get_mut(&key(c))) {
                    channel.sender = Some(process.core);
                }
            }
            WalkResult::Advance
        });
    }
    let mut slots = [0i64; 2];
    for channel in channels.values() {
        match channel.sender {
            Some(Core::Aic) => slots[0] += channel.depth,
            Some(Core::Aiv) => slots[1] += channel.depth,
            None => {}
        }
    }
    check_orders(&processes, &channels)?;

    let slots_attribute: Attribute = DenseI64ArrayAttribute::new(context, &slots).into();
    let symbols = htp_model_csp::outline::process_symbols(&program_name, &process_ops);
    for (process, symbol) in processes.iter().zip(symbols) {
        let mut attributes: Vec<(&str, Attribute<'c>)> = vec![
            ("htp.kernel", Attribute::unit(context)),
            (CLUSTER_ATTRIBUTE, StringAttribute::new(context, &program_name).into()),
            (CORE_ATTRIBUTE, StringAttribute::new(context, process.core.keyword()).into()),
            (CLUSTER_SLOTS_ATTRIBUTE, slots_attribute),
        ];
        for name in [htp_api::signature::OUTPUTS_ATTRIBUTE, htp_api::signature::IN_OUTS_ATTRIBUTE] {
            if let Ok(value) = program.attribute(name) {
                attributes.push((name, value));
            }
        }
        let outlined = htp_model_csp::outline::outline_process(context, program, process.op, &symbol, &[], None, &attributes)?;
        transfers(context, outlined.function, &channels)?;
    }
    unsafe { mlir_sys::mlirOperationDestroy(program.to_raw()) };
    Ok(())
}

/// The cube process is the one that multiplies matrices; it may compute
/// nothing the cube core cannot (at the op's line).
fn core_of<'c>(process: OperationRef<'c, 'c>) -> Result<Core, Failure<'c>> {
    let mut matmul = false;
    process.walk(WalkOrder::PreOrder, |op| {
        matmul |= TileOp::of(op) == Some(TileOp::Matmul);
        WalkResult::Advance
    });
    if !matmul {
        return Ok(Core::Aiv);
    }
    let mut vector_work = None;
    process.walk(WalkOrder::PreOrder, |op| {
        if let Some(kind) = TileOp::of(op).filter(|k| !htp_backend_pto::conversion::runs_on_cube(*k)) {
            vector_work = Some((op.location().to_raw(), kind.name()));
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    match vector_work {
        Some((location, op)) => Err((
            unsafe { melior::ir::Location::from_raw(location) },
            format!(
                "this process multiplies matrices, so on PTO it runs on the cube core, which computes matmuls only ('{op}' is vector work): send the tile to the vector process"
            ),
        )),
        None => Ok(Core::Aic),
    }
}

/// The transfers of one direction in a process, with the loops and
/// branches around them: what the other side must mirror when several
/// channels share the direction's pipe.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Transfer(usize),
    Loop(Vec<Step>),
    Branch(Vec<Step>, Vec<Step>),
}

fn trace(block: BlockRef, sends: bool, channels: &[usize]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut op = block.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = name_of(current);
        let channel = current.operand(0).ok().map(|c| key(c)).filter(|c| channels.contains(c));
        match name.as_str() {
            "csp.send" if sends => steps.extend(channel.map(Step::Transfer)),
            "csp.recv" if !sends => steps.extend(channel.map(Step::Transfer)),
            "csp.consume" => {
                if !sends {
                    steps.extend(channel.map(Step::Transfer));
                }
                if let Some(inner) = current.region(0).ok().and_then(|r| r.first_block()) {
                    steps.extend(trace(inner, sends, channels));
                }
            }
            "scf.for" | "scf.while" => {
                let inner: Vec<Step> = (0..current.region_count())
                    .filter_map(|i| current.region(i).ok().and_then(|r| r.first_block()))
                    .flat_map(|b| trace(b, sends, channels))
                    .collect();
                if !inner.is_empty() {
                    steps.push(Step::Loop(inner));
                }
            }
            "scf.if" => {
                let branch = |i: usize| current.region(i).ok().and_then(|r| r.first_block()).map(|b| trace(b, sends, channels)).unwrap_or_default();
                let (then, otherwise) = (branch(0), branch(1));
                if !then.is_empty() || !otherwise.is_empty() {
                    steps.push(Step::Branch(then, otherwise));
                }
            }
            _ => {
                for i in 0..current.region_count() {
                    if let Some(inner) = current.region(i).ok().and_then(|r| r.first_block()) {
                        steps.extend(trace(inner, sends, channels));
                    }
                }
            }
        }
    }
    steps
}

/// Channels sharing a direction are received in the order they are sent.
fn check_orders<'c>(processes: &[Process<'c>], channels: &HashMap<usize, Channel<'c>>) -> Result<(), Failure<'c>> {
    for sender in processes {
        let shared: Vec<usize> = channels.iter().filter(|(_, c)| c.sender == Some(sender.core)).map(|(k, _)| *k).collect();
        if shared.len() < 2 {
            continue;
        }
        let Some(receiver) = processes.iter().find(|p| p.core != sender.core) else { continue };
        let block = |p: &Process<'c>| p.op.region(0).ok().and_then(|r| r.first_block());
        let (Some(sent), Some(received)) = (block(sender), block(receiver)) else { continue };
        if trace(sent, true, &shared) != trace(received, false, &shared) {
            let mut names: Vec<&str> = shared.iter().filter_map(|k| channels.get(k)).map(|c| c.name.as_str()).collect();
            names.sort();
            let first = shared.iter().filter_map(|k| channels.get(k)).map(|c| c.op).next().map_or_else(String::new, position);
            return Err((
                receiver.op.location(),
                format!(
                    "the channels '{}' share the cluster's {} pipe, which delivers tiles in the order they were sent: the process '{}' must receive them in the order, and under the same loops and branches, that the process '{}' sends them (channels declared at {first})",
                    names.join("', '"),
                    sender.core.sends(),
                    receiver.name,
                    sender.name
                ),
            ));
        }
    }
    Ok(())
}

/// The channel operations of an outlined process as cluster hand-overs.
fn transfers<'c>(context: &'c Context, function: OperationRef<'c, 'c>, channels: &HashMap<usize, Channel<'c>>) -> Result<(), Failure<'c>> {
    let direction = |op: OperationRef<'c, 'c>| -> Result<&'static str, Failure<'c>> {
        let channel = op.operand(0).ok().and_then(|c| channels.get(&key(c))).ok_or((op.location(), "a channel the program did not make".to_string()))?;
        let sender = channel.sender.ok_or((op.location(), format!("the channel '{}' has no sending process", channel.name)))?;
        Ok(sender.sends())
    };
    let dir_attribute = |dir: &str| htp_backend_pto::conversion::attrs::cross_core(context, dir);
    // Consumes first, outer first (inlining moves inner ones without destroying them).
    for consume in ops_named(function, "csp.consume") {
        let dir = direction(consume)?;
        let at = emitter(context, consume)?;
        let body = consume.region(0).ok().and_then(|r| r.first_block()).ok_or((consume.location(), "a consume without a body".to_string()))?;
        let element = body.argument(0).map(|a| a.r#type()).map_err(|e| (consume.location(), e.to_string()))?;
        let received = at.value_with("pto.cluster_recv", &[], element, &[("dir", dir_attribute(dir))]);
        htp_model_csp::outline::inline_consume(consume, received, Ok)?;
        unsafe { mlir_sys::mlirOperationDestroy(consume.to_raw()) };
    }
    for op in ops_named(function, "csp.send").into_iter().chain(ops_named(function, "csp.recv")) {
        let dir = dir_attribute(direction(op)?);
        let at = emitter(context, op)?;
        if name_of(op) == "csp.send" {
            // verifier: csp.send's value is its last operand
            let value = op.operand(op.operand_count() - 1).map(detach).map_err(|e| (op.location(), e.to_string()))?;
            at.op("pto.cluster_send", &[value], &[], &[("dir", dir)], vec![]);
        } else {
            let result: V<'c> = op.result(0).map(|r| detach(r.into())).map_err(|e| (op.location(), e.to_string()))?;
            let received = at.value_with("pto.cluster_recv", &[], result.r#type(), &[("dir", dir)]);
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), received.to_raw()) };
        }
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    Ok(())
}

fn emitter<'c>(context: &'c Context, op: OperationRef<'c, 'c>) -> Result<Emitter<'c, 'c>, Failure<'c>> {
    let block = op.block().ok_or((op.location(), "a channel operation outside a block".to_string()))?;
    Ok(Emitter { context, block: unsafe { BlockRef::from_raw(block.to_raw()) }, anchor: op, location: op.location() })
}
