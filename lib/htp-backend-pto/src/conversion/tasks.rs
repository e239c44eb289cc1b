//! How a tile kernel becomes pto-runtime tasks: which core runs it, the
//! order and direction of its tensors, and whether its outermost loop is
//! split across tasks (one task per chunk of iterations, submitted by the
//! orchestration function built here).
//!
//! The outer loop is split when its iterations are independent (the
//! target-neutral proof in `htp_transforms::loop_independence`).

use melior::{
    ir::{
        attribute::{FlatSymbolRefAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationRef},
        Block, BlockRef, Location, Operation, Region, RegionLike, Type, ValueLike,
    },
    Context,
};
use std::{collections::HashMap, rc::Rc};

use htp_transforms::distribution::Distribution;

use super::buffer::{Extent, Shape};
use super::split::{Crossing, Split};

use super::cores::Core;
use super::state::{positive_step, At, Failure};
use htp_ir::query::key;
use htp_ir::builder::{detach, Builder, V};
use crate::ods::pto;
use crate::ops::{TileOp, ORCHESTRATION_ATTRIBUTE};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
    InOut,
}

pub struct Plan<'c> {
    /// The program's name; its kernels are `<name>_aiv` / `<name>_aic`.
    pub name: String,
    /// The kernels' cores: one, or the cube and the vector core of a
    /// cluster task (`split`).
    pub cores: Vec<Core>,
    /// The tile kernel's tensor arguments (indices), inputs first, then
    /// outputs, then in-outs: the order the task takes them.
    pub tensors: Vec<usize>,
    pub directions: Vec<Direction>,
    /// The scalar arguments, in order.
    pub scalars: Vec<usize>,
    /// The top-level loop split across tasks (its op pointer), if any.
    pub outer_loop: Option<usize>,
    /// How the outer loop is cut into tasks (`htp.distribution` on it).
    pub distribution: Option<Distribution>,
    /// For a cluster task: who computes what, and the GM ring the tiles
    /// crossing between the cores go through.
    pub split: Option<Rc<Split<'c>>>,
    pub fifo: Option<Fifo>,
}

/// The GM ring of a cluster task's cross-core pipes: an extra output tensor
/// of the task (allocated per task by the runtime), `slots` slots per
/// direction, each the size of the largest tile crossing that way.
#[derive(Clone, Copy, Debug)]
pub struct Fifo {
    /// Its index among the task's tensors (after the outputs).
    pub position: usize,
    /// Each direction's slot size in bytes (0: no pipe that way).
    pub c2v_slot: i64,
    pub v2c_slot: i64,
    /// Each direction's slot count (a CSP channel's depth; 2 for the
    /// hand-overs of a split kernel).
    pub c2v_slots: i64,
    pub v2c_slots: i64,
}

impl Fifo {
    pub const SLOTS: i64 = 2;

    pub fn bytes(&self) -> i64 {
        self.c2v_slots * self.c2v_slot + self.v2c_slots * self.v2c_slot
    }

    /// The kernels' `pto.fifo`: [ring argument, c2v slot bytes, v2c slot bytes, c2v slots, v2c slots].
    pub fn attribute(&self) -> [i64; 5] {
        [self.position as i64, self.c2v_slot, self.v2c_slot, self.c2v_slots, self.v2c_slots]
    }
}

impl Plan<'_> {
    pub fn kernel_name(&self, core: Core) -> String {
        format!("{}_{}", self.name, core.keyword())
    }

    /// The core whose count sizes the tasks: clusters are counted by their
    /// cube cores.
    pub fn task_core(&self) -> Core {
        if self.cores.contains(&Core::Aic) { Core::Aic } else { Core::Aiv }
    }
}

/// Decides how `function` (a tile kernel) runs. A kernel that mixes cube
/// and vector work is split between the cores of a cluster (its matmuls
/// that accumulate onto vector work are rewritten first, see `split.rs`).
pub fn plan<'c>(context: &'c Context, function: OperationRef<'c, '_>, name: &str) -> Result<Plan<'c>, Failure<'c>> {
    let location = function.location();
    let entry = function.region(0).map_err(|e| (location, e.to_string()))?.first_block().ok_or((location, "kernel without a body".to_string()))?;

    super::split::prepare(context, function);
    let (cores, split) = match super::split::work_kinds(function) {
        (true, true) => (vec![Core::Aic, Core::Aiv], Some(Rc::new(super::split::split(function)?))),
        (true, false) => (vec![Core::Aic], None),
        (false, _) => (vec![Core::Aiv], None),
    };

    let mut tensors = Vec::new();
    let mut scalars = Vec::new();
    // An `htp.InOut` output keeps what the kernel does not write: the
    // runtime must copy it in even when the kernel only stores to it.
    let declared_in_out = function
        .attribute("htp.in_outs")
        .ok()
        .and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect::<Vec<i64>>())
        .unwrap_or_default();
    // A communication window is read and written (by the kernel and its peers).
    let windows = htp_api::signature::declared_arguments(function, htp_api::signature::WINDOWS_ATTRIBUTE);
    for index in 0..entry.argument_count() {
        let argument = detach(entry.argument(index).map_err(|e| (location, e.to_string()))?.into());
        if htp_ir::builder::is_memref(argument.r#type()) {
            let direction = match direction(argument) {
                _ if windows.contains(&(index as i64)) => Direction::InOut,
                Direction::Out if declared_in_out.contains(&(index as i64)) => Direction::InOut,
                other => other,
            };
            tensors.push((index, direction));
        } else {
            scalars.push(index);
        }
    }
    tensors.sort_by_key(|(_, d)| *d as u8);
    // The outer loop's spread over the cores the tasks run on (clusters for
    // cube work, vector cores otherwise), as many as are available at run
    // time unless the user gave a grain; `parallel=False` keeps one task.
    let level = if cores.contains(&Core::Aic) { crate::architecture::CLUSTER } else { crate::architecture::VECTOR_CORE };
    // A kernel that communicates runs as one task per chip: its signals
    // count what each chip did once (`comm.rs`).
    let communicates = super::comm::communicates(function);
    if communicates && cores.contains(&Core::Aic) {
        return Err((location, "a kernel that communicates (comm.*) runs on the vector core alone; this one also multiplies matrices: split it into two kernels".to_string()));
    }
    let outer = if communicates { None } else { htp_transforms::distribution::distribute(context, function, level, None)? };
    let distribution = outer.and_then(Distribution::of);
    let outer_loop = outer.filter(|_| distribution.is_some()).map(|outer| outer.to_raw().ptr as usize);
    let fifo = split.as_ref().map(|split| fifo_of(split, &tensors, [Fifo::SLOTS; 2]));
    Ok(Plan {
        name: name.to_string(),
        cores,
        directions: tensors.iter().map(|(_, d)| *d).collect(),
        tensors: tensors.into_iter().map(|(i, _)| i).collect(),
        scalars,
        outer_loop,
        distribution,
        split,
        fifo,
    })
}

/// The GM ring of a cluster task: per direction, slots the size of the
/// largest tile crossing that way, `slots` of them (c2v, v2c).
fn fifo_of(split: &Split, tensors: &[(usize, Direction)], slots: [i64; 2]) -> Fifo {
        let slot = |crossing: Crossing| {
            split
                .crossing_tiles
                .iter()
                .filter(|(c, _)| *c == crossing)
                .map(|(_, tile)| {
                    let whole = [Extent::Static(tile.rows()), Extent::Static(tile.cols())];
                    match crossing {
                        // A matmul operand may cross to the cube as whole fractals (`Kernel::cross`).
                        Crossing::VectorToCube => {
                            let fractals = Shape::crossing_operand(*tile, super::buffer::Place::Vec, super::buffer::Layout::Nd);
                            Shape::vec_for(*tile, whole).size_in_bytes().max(tile.size_in_bytes()).max(fractals.size_in_bytes())
                        }
                        // A result crosses in its accumulator's element.
                        Crossing::CubeToVector => Shape::vec_of(*tile, super::buffer::accumulator_element(*tile), whole).size_in_bytes(),
                    }
                })
                .max()
                .unwrap_or(0)
        };
        let position = tensors.iter().filter(|(_, d)| *d != Direction::InOut).count();
        Fifo { position, c2v_slot: slot(Crossing::CubeToVector), v2c_slot: slot(Crossing::VectorToCube), c2v_slots: slots[0], v2c_slots: slots[1] }
}

/// The plan of a cluster program written one tile kernel per core
/// (`functions`, each marked `pto.cluster = name` and `pto.core`, all of
/// the program's signature): one cluster task, each kernel on its core,
/// tiles crossing at the program's `pto.cluster_send`/`cluster_recv` over
/// pipes of `slots` (c2v, v2c) slots.
pub fn cluster_plan<'c>(context: &'c Context, functions: &[(OperationRef<'c, '_>, Core)], name: &str, slots: [i64; 2]) -> Result<Plan<'c>, Failure<'c>> {
    let (first, _) = *functions.first().ok_or_else(|| (Location::unknown(context), format!("cluster program '{name}' without kernels")))?;
    let location = first.location();
    let entry_of = |function: OperationRef<'c, '_>| {
        function.region(0).ok().and_then(|r| r.first_block()).map(|b| unsafe { BlockRef::<'c, 'c>::from_raw(b.to_raw()) }).ok_or((function.location(), "kernel without a body".to_string()))
    };
    let entries = functions.iter().map(|(f, _)| entry_of(*f)).collect::<Result<Vec<_>, _>>()?;
    let count = entries[0].argument_count();
    if entries.iter().any(|e| e.argument_count() != count) {
        return Err((location, format!("the kernels of cluster program '{name}' take different arguments")));
    }
    let declared_in_out = htp_api::signature::declared_arguments(first, "htp.in_outs");
    let (mut tensors, mut scalars) = (Vec::new(), Vec::new());
    for index in 0..count {
        let argument = |entry: &BlockRef<'c, 'c>| entry.argument(index).map(|a| detach(a.into())).map_err(|e| (location, e.to_string()));
        if !htp_ir::builder::is_memref(argument(&entries[0])?.r#type()) {
            scalars.push(index);
            continue;
        }
        // Loaded or stored by any of the kernels.
        let (mut loaded, mut stored) = (false, false);
        for entry in &entries {
            // A kernel that does not touch the tensor says nothing of it.
            if htp_ir::query::uses(argument(entry)?).is_empty() {
                continue;
            }
            let (l, s) = match direction(argument(entry)?) {
                Direction::In => (true, false),
                Direction::Out => (false, true),
                Direction::InOut => (true, true),
            };
            (loaded, stored) = (loaded || l, stored || s);
        }
        let direction = match (loaded, stored) {
            _ if stored && declared_in_out.contains(&(index as i64)) => Direction::InOut,
            (_, false) => Direction::In,
            (false, true) => Direction::Out,
            (true, true) => Direction::InOut,
        };
        tensors.push((index, direction));
    }
    tensors.sort_by_key(|(_, d)| *d as u8);
    let mut cores: Vec<Core> = functions.iter().map(|(_, c)| *c).collect();
    cores.sort_by_key(|c| *c != Core::Aic);
    let split = Rc::new(super::split::explicit(functions)?);
    // A direction no tile takes still declares a slot (of no bytes).
    let fifo = (cores.len() > 1).then(|| fifo_of(&split, &tensors, slots.map(|s| s.max(1))));
    Ok(Plan {
        name: name.to_string(),
        cores,
        directions: tensors.iter().map(|(_, d)| *d).collect(),
        tensors: tensors.into_iter().map(|(i, _)| i).collect(),
        scalars,
        outer_loop: None,
        distribution: None,
        split: fifo.is_some().then_some(split),
        fifo,
    })
}

/// In if the kernel only loads the tensor, out if it only stores (or
/// scatters into) it.
fn direction(tensor: V) -> Direction {
    let (mut loaded, mut stored) = (false, false);
    let mut users = htp_ir::query::uses(tensor);
    while let Some(user) = users.pop() {
        match user.name().as_string_ref().as_str() {
            // A tensor is a store's or a scatter's destination, never its value.
            _ if matches!(TileOp::of(user), Some(TileOp::Store | TileOp::Scatter)) => stored = true,
            // A 1-D tensor's `1 x N` view: its users are the tensor's.
            Ok("memref.expand_shape") => users.extend(user.results().flat_map(|result| htp_ir::query::uses(detach(result.into())))),
            _ => loaded = true,
        }
    }
    match (loaded, stored) {
        (_, false) => Direction::In,
        (false, true) => Direction::Out,
        (true, true) => Direction::InOut,
    }
}

/// The orchestration function: takes the kernel's arguments in their
/// original order and submits the kernel's tasks (one per chunk of the
/// outer loop, chunks sized so the available cores share the loop).
pub fn orchestration<'c>(context: &'c Context, function: OperationRef<'c, '_>, name: &str, plan: &Plan<'c>) -> Result<Operation<'c>, Failure<'c>> {
    let location = function.location();
    let fail = |message: String| (location, message);
    let entry = function.region(0).map_err(|e| fail(e.to_string()))?.first_block().ok_or_else(|| fail("kernel without a body".into()))?;
    let old_arguments: Vec<V<'c>> = (0..entry.argument_count())
        .map(|i| entry.argument(i).map(|argument| detach(argument.into())).map_err(|e| fail(e.to_string())))
        .collect::<Result<_, _>>()?;
    // Arguments keep their locations (and so the names the front end gave them).
    let arguments: Vec<(Type, Location)> =
        old_arguments.iter().map(|&argument| (argument.r#type(), htp_ir::query::value_location(argument))).collect();
    let marker = (ORCHESTRATION_ATTRIBUTE, htp_ir::builder::parse_attribute(context, "unit"));
    let (orchestration, block) = htp_ir::builder::function(context, location, name, &arguments, marker);
    let mut values: HashMap<usize, V<'c>> = HashMap::new();
    let new_argument = |i: usize| block.argument(i).map(|a| detach(a.into())).map_err(|e| fail(e.to_string()));
    for (i, old) in old_arguments.iter().enumerate() {
        values.insert(key(*old), new_argument(i)?);
    }
    let at = At { context, block, location };
    let tensors: Vec<V> = plan.tensors.iter().map(|&i| new_argument(i)).collect::<Result<_, _>>()?;
    let scalars: Vec<V> = plan.scalars.iter().map(|&i| new_argument(i)).collect::<Result<_, _>>()?;

    match plan.outer_loop {
        None => submit(&at, plan, &tensors, &scalars),
        Some(outer) => {
            // The scalar code before the loop that computes its bounds (each
            // task's kernel replays all of it: 1-D tensors' `1 x N` views,
            // tiles loaded before the loop, `independent_outer_loop`).
            let mut before = Vec::new();
            let mut op = entry.first_operation();
            let mut outer_op = None;
            while let Some(current) = op {
                if current.to_raw().ptr as usize == outer {
                    outer_op = Some(unsafe { OperationRef::from_raw(current.to_raw()) });
                    break;
                }
                before.push(unsafe { OperationRef::from_raw(current.to_raw()) });
                op = current.next_in_block();
            }
            let outer_op = outer_op.ok_or_else(|| fail("the planned loop is not in the kernel's body".into()))?;
            let mut needed: std::collections::HashSet<usize> = std::collections::HashSet::new();
            let mut pending: Vec<V> = outer_op.operands().take(3).map(detach).collect();
            while let Some(value) = pending.pop() {
                if let Some(def) = htp_ir::query::defining_op(value) {
                    if def.block().is_some_and(|b| b.to_raw().ptr == entry.to_raw().ptr) && needed.insert(htp_ir::query::op_key(def)) {
                        pending.extend(def.operands().map(detach));
                    }
                }
            }
            for current in before.into_iter().filter(|op| needed.contains(&htp_ir::query::op_key(*op))) {
                let clone = unsafe { mlir_sys::mlirOperationClone(current.to_raw()) };
                for (i, operand) in current.operands().enumerate() {
                    let new = *values.get(&key(detach(operand))).ok_or((location, "loop bound from outside".to_string()))?;
                    unsafe { mlir_sys::mlirOperationSetOperand(clone, i as isize, new.to_raw()) };
                }
                let placed = block.append_operation(unsafe { Operation::from_raw(clone) });
                for (old, new) in current.results().zip(placed.results()) {
                    values.insert(key(detach(old.into())), detach(new.into()));
                }
            }
            let bound = |i: usize| values[&key(detach(outer_op.operand(i).unwrap()))]; // verifier: scf.for has lower, upper and step operands
            let (lower, upper, step) = (bound(0), bound(1), bound(2));
            let at = At { location: outer_op.location(), ..at };
            let (upper, step) = positive_step(&at, lower, upper, step);
            let index = Type::index(context);
            let span = at.value("arith.subi", &[upper, lower], index);
            let trips = at.value("arith.ceildivsi", &[span, step], index);
            let per_task = match plan.distribution.as_ref().and_then(|d| d.grain) {
                // The user's grain: tasks of that many iterations.
                Some(grain) => at.index(grain),
                // Blocks over the level's units: static, or the cores
                // available at run time.
                None => {
                    let cores = match plan.distribution.as_ref().and_then(|d| d.units) {
                        Some(units) => at.index(units),
                        None => at.value_with(
                            pto::AvailableCoresOperation::name(),
                            &[],
                            index,
                            &[("core", StringAttribute::new(context, plan.task_core().keyword()).into())],
                        ),
                    };
                    let per_core = at.value("arith.ceildivsi", &[trips, cores], index);
                    let one = at.index(1);
                    at.value("arith.maxsi", &[per_core, one], index)
                }
            };
            let chunk = at.value("arith.muli", &[per_task, step], index);

            let body_region = Region::new();
            let body = body_region.append_block(Block::new(&[(index, at.location)]));
            let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
            let inner = At { block: body, ..at };
            let lo = detach(body.argument(0).map_err(|e| fail(e.to_string()))?.into());
            let end = inner.value("arith.addi", &[lo, chunk], index);
            let hi = inner.value("arith.minsi", &[end, upper], index);
            let mut task_scalars = scalars.clone();
            task_scalars.extend([lo, hi]);
            submit(&inner, plan, &tensors, &task_scalars);
            inner.op("scf.yield", &[], &[], &[], vec![]);
            at.op("scf.for", &[lower, upper, chunk], &[], &[], vec![body_region]);
        }
    }
    at.op("func.return", &[], &[], &[], vec![]);
    // The distribution it submits tasks by, for readers of the IR.
    if let Some(distribution) = &plan.distribution {
        distribution.attach(context, unsafe { OperationRef::from_raw(orchestration.to_raw()) }).map_err(|message| (location, message))?;
    }

    Ok(orchestration)
}

/// `pto.submit` of the plan's kernel(s). A cluster task also gets its GM
/// ring, a fresh `pto.create_tensor` per task, as its last output.
fn submit<'c>(at: &At<'c>, plan: &Plan, tensors: &[V<'c>], scalars: &[V<'c>]) {
    let count = |d: Direction| plan.directions.iter().filter(|&&x| x == d).count() as i32;
    let mut operands = tensors.to_vec();
    let mut outputs = count(Direction::Out);
    if let Some(fifo) = plan.fifo {
        let ring = at.value(pto::CreateTensorOperation::name(), &[], htp_ir::builder::parse_type(at.context, &format!("memref<{}xf32>", fifo.bytes() / 4)));
        operands.insert(fifo.position, ring);
        outputs += 1;
    }
    let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(
        at.context,
        &[count(Direction::In), outputs, count(Direction::InOut), scalars.len() as i32],
    );
    operands.extend_from_slice(scalars);
    let mut attributes = vec![
        ("callee", FlatSymbolRefAttribute::new(at.context, &plan.kernel_name(plan.cores[0])).into()),
        ("operandSegmentSizes", segments.into()),
    ];
    if plan.cores.len() > 1 {
        attributes.push(("aiv_callee", FlatSymbolRefAttribute::new(at.context, &plan.kernel_name(Core::Aiv)).into()));
    }
    at.op(pto::SubmitOperation::name(), &operands, &[], &attributes, vec![]);
}
