//! Walks a lowered PTO program as it would execute: the orchestration
//! function (`pto.orchestration`) with the call's arguments, and for each
//! `pto.submit` the kernel it names with the task's arguments, counting
//! what [`Metrics`] reports. Control flow (`scf.for`, `scf.if`,
//! `scf.while`), scalar code and kernel-local arrays (`crate::arrays`) are
//! evaluated; tile instructions only move or compute on-chip data, so only
//! their operands' extents are tracked.
//!
//! A cluster task runs its cube kernel once and its vector kernel on both
//! vector cores of the cluster; both take part in every hand-over but only
//! the first stores to GM (the emitted `get_sub_block_id(args) == 0` guard).

use std::collections::HashMap;

use melior::ir::{
    attribute::{FlatSymbolRefAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    BlockRef, OperationRef, RegionLike, ValueLike,
};

use super::{function, scalar, Cores, Metrics};
use crate::dialect::{GlobalTensorType, TileType, ValidSize};
use htp_ir::query::key;
use crate::ops::{PtoOp, ORCHESTRATION_ATTRIBUTE};

/// Which GM buffer a tensor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gm {
    /// The program's tensor argument with this index (among its tensors).
    Argument(usize),
    /// A tensor the runtime allocates (`pto.create_tensor`: a cluster
    /// task's cross-core ring).
    Created,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub gm: Gm,
    pub shape: Vec<i64>,
}

/// A run-time value: a scalar, a GM tensor, a 2-D view of one, or a tile
/// (its valid extents).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Tensor(Tensor),
    View { gm: Gm, rows: i64, cols: i64, element_bytes: i64 },
    Tile { rows: i64, cols: i64, element_bytes: i64 },
}

/// One function activation: its values, its kernel-local arrays (by the
/// key of the `memref.alloca` result), and whether its GM stores are
/// skipped (the second vector core of a cluster).
#[derive(Default)]
struct Frame {
    values: HashMap<usize, Value>,
    arrays: HashMap<usize, Vec<i64>>,
    skip_stores: bool,
}

/// The most trips a `scf.while` may run before the interpreter calls it
/// endless (a search over a nest's iterations runs far fewer).
const MAX_WHILE_TRIPS: u64 = 100_000_000;

impl Frame {
    fn get(&self, value: melior::ir::Value) -> Result<&Value, String> {
        self.values.get(&key(value)).ok_or_else(|| "a value used before it is defined".to_string())
    }

    fn operands(&self, op: OperationRef) -> Result<Vec<Value>, String> {
        op.operands().map(|v| self.get(v).cloned()).collect()
    }

    /// Binds `block`'s arguments to `values`, in order.
    fn bind_arguments(&mut self, block: BlockRef, values: Vec<Value>) -> Result<(), String> {
        if block.argument_count() != values.len() {
            return Err(format!("metrics: a block of {} arguments given {} values", block.argument_count(), values.len()));
        }
        for (i, value) in values.into_iter().enumerate() {
            self.values.insert(key(block.argument(i).map_err(|e| e.to_string())?.into()), value);
        }
        Ok(())
    }

    /// `memref.alloca` of a kernel-local array: zeros, as the emitted C++
    /// declares it. (In a loop, each trip gets a fresh one.)
    fn allocate(&mut self, op: OperationRef) -> Result<(), String> {
        let result = op.result(0).map_err(|e| e.to_string())?;
        let (_, length) = crate::arrays::element_and_length(result.r#type()).map_err(|e| format!("metrics: {e}"))?;
        self.arrays.insert(key(result.into()), vec![0; length as usize]);
        Ok(())
    }

    /// `memref.load` or (`store`) `memref.store` of an element of a kernel-local array.
    fn access(&mut self, op: OperationRef, store: bool) -> Result<(), String> {
        let operand = |i: usize| op.operand(i).map_err(|e| e.to_string());
        // load: array, index; store: value, array, index.
        let array = key(operand(usize::from(store))?);
        let index = match self.get(operand(usize::from(store) + 1)?)? {
            Value::Int(index) => *index,
            _ => return Err("metrics: an array element at a non-integer index".into()),
        };
        let stored = if store {
            match self.get(operand(0)?)? {
                Value::Int(value) => Some(*value),
                _ => return Err("metrics: a non-integer stored to an integer array".into()),
            }
        } else {
            None
        };
        let elements = self.arrays.get_mut(&array).ok_or("metrics: an array element read before its memref.alloca ran")?;
        let length = elements.len();
        let element = usize::try_from(index).ok().and_then(|i| elements.get_mut(i)).ok_or_else(|| format!("metrics: element {index} of a kernel-local array of {length}"))?;
        match stored {
            Some(value) => *element = value,
            None => {
                let loaded = Value::Int(*element);
                self.values.insert(key(op.result(0).map_err(|e| e.to_string())?.into()), loaded);
            }
        }
        Ok(())
    }
}

/// Whether `op` (a `memref.load` or `memref.store`) reads or writes a kernel-local array.
fn accesses_local_array(op: OperationRef, store: bool) -> bool {
    htp_ir::query::operand_at(op, usize::from(store)).is_some_and(crate::arrays::is_local_array)
}

struct Machine<'c, 'a> {
    module: OperationRef<'c, 'a>,
    cores: Cores,
    metrics: Metrics,
}

/// Runs the orchestration of `module` once; peaks are left empty.
pub fn run(module: OperationRef, shapes: &[Vec<i64>], scalars: &[f64], cores: Cores) -> Result<Metrics, String> {
    let orchestration = orchestration(module).ok_or("no pto.orchestration function in the module")?;
    let body = orchestration.region(0).map_err(|e| e.to_string())?.first_block().ok_or("an orchestration without a body")?;
    let mut frame = Frame::default();
    let (mut tensors, mut numbers) = (shapes.iter().enumerate(), scalars.iter());
    for index in 0..body.argument_count() {
        let argument = body.argument(index).map_err(|e| e.to_string())?;
        let value = if htp_ir::builder::is_memref(argument.r#type()) {
            let (i, shape) = tensors.next().ok_or("fewer tensor shapes than the program's tensor arguments")?;
            let rank = htp_ir::builder::shape_of(argument.r#type()).len();
            if shape.len() != rank {
                return Err(format!("tensor argument {i} has rank {rank}, got a shape of rank {}", shape.len()));
            }
            Value::Tensor(Tensor { gm: Gm::Argument(i), shape: shape.clone() })
        } else {
            let number = *numbers.next().ok_or("fewer scalars than the program's scalar arguments")?;
            if htp_ir::builder::is_float(argument.r#type()) { Value::Float(number) } else { Value::Int(number as i64) }
        };
        frame.values.insert(key(argument.into()), value);
    }
    if tensors.next().is_some() || numbers.next().is_some() {
        return Err("more arguments than the program takes".into());
    }
    let mut machine = Machine {
        module,
        cores,
        metrics: Metrics { read_bytes: vec![0; shapes.len()], write_bytes: vec![0; shapes.len()], ..Metrics::default() },
    };
    machine.block(&mut frame, unsafe { BlockRef::from_raw(body.to_raw()) }, false)?;
    Ok(machine.metrics)
}

/// The entry orchestration: the `pto.orchestration` function no task or
/// call of the module names (a WSP workload calls its kernels' own).
fn orchestration<'c>(module: OperationRef<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    let mut called = Vec::new();
    module.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        if matches!(name(op).as_str(), "func.call" | "pto.task") {
            if let Some(callee) = symbol(op, "callee") {
                called.push(callee);
            }
        }
        melior::ir::operation::WalkResult::Advance
    });
    let body = module.region(0).ok()?.first_block()?;
    let mut op = body.first_operation();
    let mut entry = None;
    while let Some(current) = op {
        let symbol_name = current.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).unwrap_or_default();
        if current.name().as_string_ref().as_str() == Ok("func.func") && current.attribute(ORCHESTRATION_ATTRIBUTE).is_ok() && !called.contains(&symbol_name) {
            entry = Some(unsafe { OperationRef::from_raw(current.to_raw()) });
        }
        op = current.next_in_block();
    }
    entry
}

fn name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

fn symbol(op: OperationRef, attribute: &str) -> Option<String> {
    op.attribute(attribute).ok().and_then(|a| FlatSymbolRefAttribute::try_from(a).ok()).map(|s| s.value().to_string())
}

/// A dimension of a type: static, or the next of the op's size operands.
fn extent(size: ValidSize, dynamic: &mut dyn Iterator<Item = &Value>) -> Result<i64, String> {
    match size {
        ValidSize::Static(n) => Ok(n),
        ValidSize::Dynamic => match dynamic.next() {
            Some(Value::Int(n)) => Ok(*n),
            _ => Err("a `?` size without its index operand".into()),
        },
    }
}

fn element_bytes(ty: melior::ir::Type) -> i64 {
    (htp_ir::builder::bit_width(ty) as i64 + 7) / 8
}

impl<'c, 'a> Machine<'c, 'a> {
    /// Runs `block`; returns what its terminator yields.
    fn block(&mut self, frame: &mut Frame, block: BlockRef, kernel: bool) -> Result<Vec<Value>, String> {
        let mut op = block.first_operation();
        while let Some(current) = op {
            let current: OperationRef = unsafe { OperationRef::from_raw(current.to_raw()) };
            let n = name(current);
            match n.as_str() {
                // A `while` loop's before region ends in its condition, then the values it forwards.
                "scf.yield" | "scf.condition" => return frame.operands(current),
                "func.return" => return Ok(vec![]),
                "scf.for" => self.for_loop(frame, current, kernel)?,
                "scf.if" => self.if_else(frame, current, kernel)?,
                "scf.while" => self.while_loop(frame, current, kernel)?,
                crate::arrays::ALLOCA => frame.allocate(current)?,
                crate::arrays::LOAD if accesses_local_array(current, false) => frame.access(current, false)?,
                crate::arrays::STORE if accesses_local_array(current, true) => frame.access(current, true)?,
                _ if scalar::handles(&n) => {
                    let operands = frame.operands(current)?;
                    let value = scalar::evaluate(current, &n, &operands).map_err(|e| format!("metrics: {e}"))?;
                    let result = current.result(0).map_err(|e| e.to_string())?;
                    frame.values.insert(key(result.into()), value);
                }
                "memref.load" if !kernel => {
                    return Err("metrics: the orchestration reads tensor elements (a ragged or sparse axis, wsp.read, a guard's data): its tasks depend on the data, which static metrics do not have".into())
                }
                "memref.load" => {
                    return Err("metrics: the kernel reads tensor elements (`lens[b]`): its work depends on the data, which static metrics do not have".into())
                }
                _ => {
                    let kind = PtoOp::of(current).ok_or_else(|| format!("metrics: unsupported op {n} in {}", if kernel { "a kernel" } else { "an orchestration" }))?;
                    if kernel {
                        self.instruction(frame, current, kind)?
                    } else {
                        self.orchestration_op(frame, current, kind)?
                    }
                }
            }
            op = current.next_in_block();
        }
        Ok(vec![])
    }

    fn for_loop(&mut self, frame: &mut Frame, op: OperationRef, kernel: bool) -> Result<(), String> {
        let operands = frame.operands(op)?;
        let (lower, upper, step) = match &operands[..] {
            [Value::Int(l), Value::Int(u), Value::Int(s), ..] => (*l, *u, *s),
            _ => return Err("metrics: scf.for with non-integer bounds".into()),
        };
        if step <= 0 {
            return Err(format!("metrics: scf.for with step {step}"));
        }
        let body = op.region(0).map_err(|e| e.to_string())?.first_block().ok_or("scf.for without a body")?;
        let body: BlockRef = unsafe { BlockRef::from_raw(body.to_raw()) };
        let mut carried: Vec<Value> = operands[3..].to_vec();
        let mut iv = lower;
        while iv < upper {
            frame.values.insert(key(body.argument(0).map_err(|e| e.to_string())?.into()), Value::Int(iv));
            for (i, value) in carried.iter().enumerate() {
                frame.values.insert(key(body.argument(i + 1).map_err(|e| e.to_string())?.into()), value.clone());
            }
            carried = self.block(frame, body, kernel)?;
            iv += step;
        }
        for (i, value) in carried.into_iter().enumerate() {
            frame.values.insert(key(op.result(i).map_err(|e| e.to_string())?.into()), value);
        }
        Ok(())
    }

    /// Runs `scf.while`: the before region on the carried values; while the
    /// condition it ends in holds, the after region on the values it
    /// forwards, whose yield is carried to the next trip. The forwarded
    /// values of the last trip are the results.
    fn while_loop(&mut self, frame: &mut Frame, op: OperationRef, kernel: bool) -> Result<(), String> {
        let region = |i: usize| -> Result<BlockRef, String> {
            let block = op.region(i).map_err(|e| e.to_string())?.first_block().ok_or("metrics: scf.while without its two regions")?;
            Ok(unsafe { BlockRef::from_raw(block.to_raw()) })
        };
        let (before, after) = (region(0)?, region(1)?);
        let mut carried = frame.operands(op)?;
        for _ in 0..MAX_WHILE_TRIPS {
            frame.bind_arguments(before, carried)?;
            let mut forwarded = self.block(frame, before, kernel)?;
            let go_on = match forwarded.first() {
                Some(Value::Int(condition)) => *condition != 0,
                _ => return Err("metrics: scf.while whose condition is not an integer".into()),
            };
            forwarded.remove(0);
            if !go_on {
                for (i, value) in forwarded.into_iter().enumerate() {
                    frame.values.insert(key(op.result(i).map_err(|e| e.to_string())?.into()), value);
                }
                return Ok(());
            }
            frame.bind_arguments(after, forwarded)?;
            carried = self.block(frame, after, kernel)?;
        }
        Err(format!("metrics: a `while` loop ran {MAX_WHILE_TRIPS} trips without ending"))
    }

    fn if_else(&mut self, frame: &mut Frame, op: OperationRef, kernel: bool) -> Result<(), String> {
        let condition = match frame.get(op.operand(0).map_err(|e| e.to_string())?)? {
            Value::Int(c) => *c != 0,
            _ => return Err("metrics: scf.if on a non-integer".into()),
        };
        let region = op.region(if condition { 0 } else { 1 }).map_err(|e| e.to_string())?;
        let yielded = match region.first_block() {
            Some(block) => self.block(frame, unsafe { BlockRef::from_raw(block.to_raw()) }, kernel)?,
            None => vec![],
        };
        for (i, value) in yielded.into_iter().enumerate() {
            frame.values.insert(key(op.result(i).map_err(|e| e.to_string())?.into()), value);
        }
        Ok(())
    }

    fn orchestration_op(&mut self, frame: &mut Frame, op: OperationRef, kind: PtoOp) -> Result<(), String> {
        let result = match kind {
            PtoOp::AvailableCores => {
                let core = op.attribute("core").ok().and_then(|a| StringAttribute::try_from(a).ok()).ok_or_else(|| format!("{} without a core", kind.name()))?;
                Some(Value::Int(if core.value() == "aic" { self.cores.aic } else { self.cores.aiv }))
            }
            PtoOp::CreateTensor => {
                let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
                Some(Value::Tensor(Tensor { gm: Gm::Created, shape: htp_ir::builder::shape_of(ty) }))
            }
            PtoOp::Submit => {
                self.submit(frame, op)?;
                None
            }
            // Scheduled tasks (D70): the schedule adds dependencies, not work.
            PtoOp::Schedule => None,
            // Every guarded task is counted as dispatched (its predicate reads data).
            PtoOp::Scope | PtoOp::Ordered | PtoOp::Guard => {
                let body = op.region(0).map_err(|e| e.to_string())?.first_block().ok_or_else(|| format!("{} without a body", kind.name()))?;
                self.block(frame, unsafe { BlockRef::from_raw(body.to_raw()) }, false)?;
                None
            }
            // The barrier is a (dummy) task of its own.
            PtoOp::OrderBarrier => {
                self.metrics.tasks += 1;
                None
            }
            PtoOp::AllocTensor => {
                let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
                Some(Value::Tensor(Tensor { gm: Gm::Created, shape: htp_ir::builder::shape_of(ty) }))
            }
            PtoOp::TensorView => {
                let operands = frame.operands(op)?;
                let Some(Value::Tensor(source)) = operands.first() else { return Err(format!("{} of a non-tensor", kind.name())) };
                let rank = htp_ir::builder::shape_of(op.result(0).map_err(|e| e.to_string())?.r#type()).len();
                let sizes = operands[operands.len() - rank..]
                    .iter()
                    .map(|v| match v {
                        Value::Int(n) => Ok((*n).max(0)),
                        _ => Err(format!("{} with a non-integer size", kind.name())),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Some(Value::Tensor(Tensor { gm: source.gm, shape: sizes }))
            }
            PtoOp::Task => {
                let arguments = frame.operands(op)?;
                let callee = symbol(op, "callee").ok_or_else(|| format!("{} without a callee", kind.name()))?;
                let count = op.attribute("operandSegmentSizes").ok().and_then(|a| melior::ir::attribute::DenseI32ArrayAttribute::try_from(a).ok()).and_then(|a| a.element(0).ok()).unwrap_or(0) as usize;
                self.call(&callee, &arguments[..count.min(arguments.len())], false, false)?;
                None
            }
            other => return Err(format!("metrics: unsupported op {} in an orchestration", other.name())),
        };
        if let Some(value) = result {
            frame.values.insert(key(op.result(0).map_err(|e| e.to_string())?.into()), value);
        }
        Ok(())
    }

    fn submit(&mut self, frame: &mut Frame, op: OperationRef) -> Result<(), String> {
        let arguments = frame.operands(op)?;
        let callee = symbol(op, "callee").ok_or_else(|| format!("{} without a callee", PtoOp::Submit.name()))?;
        self.metrics.tasks += 1;
        match symbol(op, "aiv_callee") {
            Some(vector) => {
                self.call(&callee, &arguments, false, true)?;
                self.call(&vector, &arguments, false, true)?;
                self.call(&vector, &arguments, true, true)?;
            }
            None => self.call(&callee, &arguments, false, true)?,
        }
        Ok(())
    }

    /// A kernel run by a task (`kernel`: its instructions are counted), or
    /// an orchestration a `pto.task` calls: `callee` on `arguments`.
    fn call(&mut self, callee: &str, arguments: &[Value], skip_stores: bool, kernel: bool) -> Result<(), String> {
        let function = function(self.module, callee).ok_or_else(|| format!("metrics: no function named {callee}"))?;
        let body = function.region(0).map_err(|e| e.to_string())?.first_block().ok_or_else(|| format!("{callee} without a body"))?;
        if body.argument_count() != arguments.len() {
            return Err(format!("metrics: {callee} takes {} arguments, the task passes {}", body.argument_count(), arguments.len()));
        }
        let mut frame = Frame { skip_stores, ..Frame::default() };
        for (i, value) in arguments.iter().enumerate() {
            frame.values.insert(key(body.argument(i).map_err(|e| e.to_string())?.into()), value.clone());
        }
        self.block(&mut frame, unsafe { BlockRef::from_raw(body.to_raw()) }, kernel)?;
        Ok(())
    }

    /// A kernel's `pto` op: tiles and views are recorded, data movement and
    /// synchronisation counted, on-chip compute passed over.
    fn instruction(&mut self, frame: &mut Frame, op: OperationRef, kind: PtoOp) -> Result<(), String> {
        use PtoOp::*;
        let operands = frame.operands(op)?;
        let m = &mut self.metrics;
        let n = kind.name();
        match kind {
            AllocTile | TileView => {
                let result = op.result(0).map_err(|e| e.to_string())?;
                let tile = TileType::try_from(result.r#type()).map_err(|_| format!("{n} without a tile type"))?;
                let skip = usize::from(kind == TileView);
                let mut sizes = operands.get(skip..).unwrap_or(&[]).iter();
                let value = Value::Tile {
                    rows: extent(tile.valid_size(0), &mut sizes)?,
                    cols: extent(tile.valid_size(1), &mut sizes)?,
                    element_bytes: element_bytes(tile.element_type()),
                };
                frame.values.insert(key(result.into()), value);
            }
            GlobalView => {
                let result = op.result(0).map_err(|e| e.to_string())?;
                let view = GlobalTensorType::try_from(result.r#type()).map_err(|_| format!("{n} without a gtensor type"))?;
                let Some(Value::Tensor(tensor)) = operands.first() else { return Err(format!("{n} of a non-tensor")) };
                // Operands: the source, one offset per source dimension, then the `?` sizes.
                let mut sizes = operands.get(1 + tensor.shape.len()..).unwrap_or(&[]).iter();
                let value = Value::View {
                    gm: tensor.gm,
                    rows: extent(view.size(0), &mut sizes)?,
                    cols: extent(view.size(1), &mut sizes)?,
                    element_bytes: element_bytes(view.element_type()),
                };
                frame.values.insert(key(result.into()), value);
            }
            TLoad => {
                m.tloads += 1;
                let (gm, bytes) = view_bytes(operands.get(1))?;
                add(&mut m.read_bytes, gm, bytes);
            }
            MGather => {
                // One table row per index: the destination's valid rows.
                m.mgathers += 1;
                let (gm, cols, element) = match operands.get(1) {
                    Some(Value::View { gm, cols, element_bytes, .. }) => (*gm, *cols, *element_bytes),
                    _ => return Err(format!("{n} without a GM table")),
                };
                let rows = match operands.first() {
                    Some(Value::Tile { rows, .. }) => *rows,
                    _ => return Err(format!("{n} without a destination tile")),
                };
                add(&mut m.read_bytes, gm, rows * cols * element);
            }
            MScatter => {
                // One table row per valid index: the source's valid rows.
                m.mscatters += 1;
                let (gm, cols, element) = match operands.first() {
                    Some(Value::View { gm, cols, element_bytes, .. }) => (*gm, *cols, *element_bytes),
                    _ => return Err(format!("{n} without a GM table")),
                };
                let rows = match operands.get(1) {
                    Some(Value::Tile { rows, .. }) => *rows,
                    _ => return Err(format!("{n} without a source tile")),
                };
                add(&mut m.write_bytes, gm, rows * cols * element);
            }
            TStore => {
                if !frame.skip_stores {
                    m.tstores += 1;
                    let (gm, bytes) = view_bytes(operands.first())?;
                    add(&mut m.write_bytes, gm, bytes);
                }
            }
            TPush | TPop => {
                if kind == TPush { m.tpushes += 1 } else { m.tpops += 1 }
                match operands.first() {
                    Some(Value::Tile { rows, cols, element_bytes }) => m.ring_bytes += rows * cols * element_bytes,
                    _ => return Err(format!("{n} without a tile")),
                }
            }
            SetFlag => m.set_flags += 1,
            WaitFlag => m.wait_flags += 1,
            Barrier => m.barriers += 1,
            TFree => {}
            // Metrics are those of one chip alone: rank 0 of a group of 1.
            CommRank | CommSize => {
                let result = op.result(0).map_err(|e| e.to_string())?;
                frame.values.insert(key(result.into()), Value::Int(i64::from(kind == CommSize)));
            }
            AvailableCores | Submit | CreateTensor => return Err(format!("metrics: {n} in a kernel")),
            // Every other instruction computes on tiles already on chip.
            _ => {}
        }
        Ok(())
    }
}

fn view_bytes(view: Option<&Value>) -> Result<(Gm, i64), String> {
    match view {
        Some(Value::View { gm, rows, cols, element_bytes }) => Ok((*gm, rows * cols * element_bytes)),
        _ => Err("a GM transfer without a pto.global_view".into()),
    }
}

/// Counts `bytes` against an argument tensor (transfers of created tensors
/// are the cross-core rings', counted by the pushes and pops).
fn add(per_tensor: &mut [i64], gm: Gm, bytes: i64) {
    if let Gm::Argument(i) = gm {
        if let Some(total) = per_tensor.get_mut(i) {
            *total += bytes;
        }
    }
}
