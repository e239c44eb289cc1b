//! The functional simulator behind the `aie-sim` target (D55): the design
//! the AIE lowering emits, run here on the caller's buffers.
//!
//! Each `aie.core` becomes `func.func @__htp_core_C_R()` holding exactly its
//! body, with the object-FIFO ops rewritten into calls of this module's
//! runtime (`acquire`, `object`, `release`); the block function and its
//! globals come along; MLIR's ExecutionEngine compiles them (the CPU
//! backend's loops → LLVM passes, by name). A run starts one thread per
//! core, per link (the memtile's split/join, forwarding objects) and per
//! host transfer of the runtime sequence (its window copied object by
//! object), all on FIFOs of the design's depth with mlir-aie's
//! acquire/release semantics (a producer waits for free objects, each
//! consumer for objects it has not released). When every thread left is
//! blocked while a core or transfer has not finished, the run stops and
//! reports each FIFO's state and each blocked acquire at its line instead
//! of hanging.

use std::{
    collections::HashMap,
    sync::{Arc, Condvar, Mutex},
};

use htp_api::{Argument, RunError, RunErrorKind};
use htp_dialects::diagnostics::MlirError;
use melior::{
    ir::{
        attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, Identifier, Location, Module, OperationRef, Region, RegionLike, Type, Value, ValueLike,
    },
    Context, ExecutionEngine,
};

/// The loops → LLVM part of the CPU pipeline (htp-backend-cpu's
/// `loops_to_llvm`), for the cores' code.
/// bf16 lowered inline as on the cpu (`htp_pass::portable_floats!`, D62).
const TO_LLVM: &str = concat!(
    "convert-vector-to-scf{full-unroll=true},convert-vector-to-llvm,expand-strided-metadata,lower-affine,convert-scf-to-cf,",
    htp_pass::portable_floats!(),
    ",convert-math-to-llvm,convert-to-llvm,reconcile-unrealized-casts"
);

/// A core's `vector.contract` of narrow inputs into a wider accumulator
/// (bf16 into f32, i8 into i32: one MAC instruction on the core) takes its
/// inputs widened on the host, where MLIR lowers contractions of one
/// element type only.
fn widen_contractions(module: &Module) {
    for contract in htp_ir::query::ops_named(module.as_operation(), "vector.contract") {
        let Some(accumulator) = htp_ir::query::operand_at(contract, 2) else { continue };
        let wide = htp_ir::builder::element_of(accumulator.r#type());
        for index in 0..2 {
            let Some(input) = htp_ir::query::operand_at(contract, index) else { continue };
            let narrow = htp_ir::builder::element_of(input.r#type());
            if narrow == wide {
                continue;
            }
            let shape = htp_ir::builder::shape_of(input.r#type());
            let ty = Type::vector(&shape.iter().map(|&d| d as u64).collect::<Vec<_>>(), wide);
            let name = if htp_ir::builder::is_float(wide) { "arith.extf" } else { "arith.extsi" };
            let widen = melior::ir::operation::OperationBuilder::new(name, contract.location()).add_operands(&[input]).add_results(&[ty]).build().expect("a cast");
            let block = contract.block().expect("an op in a block");
            let widen = block.insert_operation_before(contract, widen);
            unsafe { mlir_sys::mlirOperationSetOperand(contract.to_raw(), index as isize, widen.result(0).expect("a result").to_raw()) };
        }
    }
}

/// One end of a FIFO: its producer, or its consumer number `c`.
#[derive(Clone, Copy, Debug)]
struct End {
    fifo: usize,
    consumer: Option<usize>,
}

#[derive(Clone, Debug)]
struct FifoInfo {
    name: String,
    depth: u64,
    /// Elements per object and bytes per element.
    elements: usize,
    element_bytes: usize,
    /// (rows, columns) of the element memref (a 1-D one: one row).
    shape: (i64, i64),
    producer: (i64, i64),
    consumers: Vec<(i64, i64)>,
}

#[derive(Clone, Debug)]
struct Link {
    ins: Vec<usize>,
    outs: Vec<usize>,
    src_offsets: Vec<i64>,
    dst_offsets: Vec<i64>,
}

#[derive(Clone, Debug)]
struct Transfer {
    argument: usize,
    fifo: usize,
    /// Bytes of one of the host buffer's elements (the window's unit; a
    /// FIFO of 64-bit elements is moved from a buffer of 32-bit words).
    element_bytes: usize,
    offsets: [i64; 4],
    sizes: [i64; 4],
    strides: [i64; 4],
}

/// A compiled simulation: the JIT'd cores and the design's structure.
pub struct Simulation {
    engine: ExecutionEngine,
    cores: Vec<String>,
    fifos: Vec<FifoInfo>,
    ends: Vec<End>,
    links: Vec<Link>,
    transfers: Vec<Transfer>,
    /// The source line of each acquire (by site number), for reports.
    sites: Vec<String>,
    /// The runtime sequence's buffers as the host program fills them from
    /// the kernel's arguments: each an argument, padded to whole blocks for
    /// every core when the design moves more (`HostTensor::host_elements`),
    /// or a pack of several (D85). Empty: the arguments themselves.
    host: Vec<crate::host::HostTensor>,
}

// The engine is only used under RUN (one run at a time) and its code is
// reentrant per thread.
unsafe impl Send for Simulation {}
unsafe impl Sync for Simulation {}

use htp_ir::query::op_name;

fn fail(message: impl Into<String>) -> Vec<MlirError> {
    vec![MlirError { position: None, message: message.into() }]
}

fn ptr(value: Value) -> usize {
    value.to_raw().ptr as usize
}

fn symbol_text(attribute: Attribute) -> String {
    attribute.to_string().trim_start_matches('@').trim_matches('"').to_string()
}

fn list(attribute: Attribute) -> Vec<String> {
    let text = attribute.to_string();
    text.trim_start_matches('[').trim_end_matches(']').split(',').map(|s| s.trim().trim_start_matches('@').trim_matches('"').to_string()).filter(|s| !s.is_empty()).collect()
}

fn int(attribute: Attribute) -> i64 {
    IntegerAttribute::try_from(attribute).map(|a| a.value()).unwrap_or(0)
}

/// `func.call @name(operands) : ... -> results`.
fn call<'c>(context: &'c Context, name: &str, operands: &[Value<'c, '_>], results: &[Type<'c>], at: Location<'c>) -> melior::ir::Operation<'c> {
    OperationBuilder::new("func.call", at)
        .add_attributes(&[(Identifier::new(context, "callee"), htp_ir::builder::parse_attribute(context, &format!("@{name}")))])
        .add_operands(operands)
        .add_results(results)
        .build()
        .expect("a valid func.call")
}

/// Builds the simulation of `design` (the text of a verified design).
pub fn build(context: &Context, design: &str) -> Result<Simulation, Vec<MlirError>> {
    // The ops built below, whatever the design happened to load.
    for dialect in ["func", "arith", "memref"] {
        context.get_or_load_dialect(dialect);
    }
    let module = Module::parse(context, design).ok_or_else(|| fail("internal error: the design does not parse for the simulator"))?;
    let device = module.body().first_operation().ok_or_else(|| fail("internal error: no aie.device"))?;
    let device_body = device.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| fail("internal error: an empty device"))?;
    let location = Location::unknown(context);
    let i64_type: Type = IntegerType::new(context, 64).into();

    // The design's structure.
    let mut tiles: HashMap<usize, (i64, i64)> = HashMap::new();
    let mut fifos: Vec<FifoInfo> = Vec::new();
    let mut fifo_index: HashMap<String, usize> = HashMap::new();
    let mut links = Vec::new();
    let mut cores = Vec::new();
    let mut transfers = Vec::new();
    let mut op = device_body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        match op_name(current).as_str() {
            "aie.tile" => {
                let coordinates = (int(current.attribute("col").unwrap()), int(current.attribute("row").unwrap()));
                tiles.insert(ptr(current.result(0).unwrap().into()), coordinates);
            }
            "aie.objectfifo" => {
                let name = StringAttribute::try_from(current.attribute("sym_name").unwrap()).unwrap().value().to_string();
                let memref = crate::finish::fifo_object(context, current).ok_or_else(|| fail("internal error: a FIFO element type"))?;
                let dims = htp_ir::builder::shape_of(memref.into());
                let elements = dims.iter().product::<i64>() as usize;
                let shape = if dims.len() == 2 { (dims[0], dims[1]) } else { (1, elements as i64) };
                let element_bytes = crate::finish::element_bytes(memref) as usize;
                let tile = |i: usize| tiles[&ptr(current.operand(i).unwrap())];
                let consumers = (1..current.operand_count()).map(tile).collect();
                fifo_index.insert(name.clone(), fifos.len());
                fifos.push(FifoInfo { name, depth: int(current.attribute("elemNumber").unwrap()) as u64, elements, element_bytes, shape, producer: tile(0), consumers });
            }
            "aie.objectfifo.link" => {
                let names = |attribute: &str| list(current.attribute(attribute).unwrap()).iter().map(|n| fifo_index[n]).collect::<Vec<_>>();
                let offsets = |attribute: &str| list(current.attribute(attribute).unwrap()).iter().map(|n| n.parse::<i64>().unwrap_or(0)).collect::<Vec<_>>();
                links.push(Link { ins: names("fifoIns"), outs: names("fifoOuts"), src_offsets: offsets("src_offsets"), dst_offsets: offsets("dst_offsets") });
            }
            "aie.core" => cores.push((current, tiles[&ptr(current.operand(0).unwrap())])),
            "aie.runtime_sequence" => {
                let body = current.region(0).ok().and_then(|r| r.first_block()).unwrap();
                let mut inner = body.first_operation();
                while let Some(transfer) = inner {
                    inner = transfer.next_in_block();
                    if op_name(transfer) != "aiex.npu.dma_memcpy_nd" {
                        continue;
                    }
                    let argument = unsafe { mlir_sys::mlirBlockArgumentGetArgNumber(transfer.operand(0).unwrap().to_raw()) } as usize;
                    let array = |name: &str| {
                        let a = DenseI64ArrayAttribute::try_from(transfer.attribute(name).unwrap()).unwrap();
                        [0, 1, 2, 3].map(|i| a.element(i).unwrap_or(0))
                    };
                    let fifo = fifo_index[&symbol_text(transfer.attribute("metadata").unwrap())];
                    let host = transfer.operand(0).ok().and_then(|v| melior::ir::r#type::MemRefType::try_from(v.r#type()).ok()).ok_or_else(|| fail("internal error: a host buffer's type"))?;
                    let element_bytes = crate::finish::element_bytes(host) as usize;
                    transfers.push(Transfer { argument, fifo, element_bytes, offsets: array("static_offsets"), sizes: array("static_sizes"), strides: array("static_strides") });
                }
            }
            _ => {}
        }
    }

    // The ends: each FIFO's producer, then its consumers.
    let mut ends = Vec::new();
    let mut end_of: HashMap<(usize, Option<usize>), usize> = HashMap::new();
    for (index, fifo) in fifos.iter().enumerate() {
        for consumer in std::iter::once(None).chain((0..fifo.consumers.len()).map(Some)) {
            end_of.insert((index, consumer), ends.len());
            ends.push(End { fifo: index, consumer });
        }
    }

    // Declarations of the runtime, one `object` function per memref type.
    let mut declarations = String::from(
        "func.func private @htp_aie_sim_acquire(i64, i64, i64)\nfunc.func private @htp_aie_sim_release(i64, i64)\n",
    );
    let mut object_functions: Vec<String> = Vec::new();
    let mut sites = Vec::new();
    let mut core_names = Vec::new();
    let module_body = module.body();
    for (core, (col, row)) in &cores {
        let name = format!("__htp_core_{col}_{row}");
        let region = Region::new();
        let function = OperationBuilder::new("func.func", core.location())
            .add_attributes(&[
                (Identifier::new(context, "sym_name"), StringAttribute::new(context, &name).into()),
                (Identifier::new(context, "function_type"), TypeAttribute::new(melior::ir::r#type::FunctionType::new(context, &[], &[]).into()).into()),
            ])
            .add_regions([region])
            .build()
            .map_err(|e| fail(e.to_string()))?;
        let function = module_body.insert_operation_before(device, function);
        unsafe { mlir_sys::mlirRegionTakeBody(function.region(0).unwrap().to_raw(), core.region(0).unwrap().to_raw()) };
        core_names.push(name);
        // aie.end → func.return.
        let body = function.region(0).unwrap();
        let mut block = body.first_block();
        while let Some(current) = block {
            if let Some(last) = current.terminator().filter(|t| op_name(*t) == "aie.end") {
                current.insert_operation_before(last, OperationBuilder::new("func.return", last.location()).build().unwrap());
                unsafe { mlir_sys::mlirOperationDestroy(last.to_raw()) };
            }
            block = current.next_in_region();
        }
        // The FIFO ops → calls of the runtime.
        let function_ref: OperationRef = unsafe { OperationRef::from_raw(function.to_raw()) };
        let end_for = |op: OperationRef| -> usize {
            let fifo = fifo_index[&symbol_text(op.attribute("objFifo_name").unwrap())];
            let port = int(op.attribute("port").unwrap());
            let consumer = (port == 1).then(|| fifos[fifo].consumers.iter().position(|t| t == &(*col, *row)).expect("verified"));
            end_of[&(fifo, consumer)]
        };
        let constant = |block: melior::ir::BlockRef, before: OperationRef, value: i64| -> Value {
            let op = block.insert_operation_before(before, melior::dialect::arith::constant(context, IntegerAttribute::new(i64_type, value).into(), location));
            unsafe { Value::from_raw(op.result(0).unwrap().to_raw()) }
        };
        for access in htp_ir::query::ops_named(function_ref, "aie.objectfifo.subview.access") {
            let acquire = htp_ir::query::defining_op(htp_ir::builder::detach(access.operand(0).unwrap())).expect("verified");
            let block = access.block().unwrap();
            let end = constant(block, access, end_for(acquire) as i64);
            let index = constant(block, access, int(access.attribute("index").unwrap()));
            let result_type = access.result(0).unwrap().r#type();
            let type_text = result_type.to_string();
            let number = object_functions.iter().position(|t| t == &type_text).unwrap_or_else(|| {
                object_functions.push(type_text.clone());
                object_functions.len() - 1
            });
            let replacement = block.insert_operation_before(access, call(context, &format!("htp_aie_sim_object_{number}"), &[end, index], &[result_type], access.location()));
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(access.result(0).unwrap().to_raw(), replacement.result(0).unwrap().to_raw());
                mlir_sys::mlirOperationDestroy(access.to_raw());
            }
        }
        for acquire in htp_ir::query::ops_named(function_ref, "aie.objectfifo.acquire") {
            let block = acquire.block().unwrap();
            let end = constant(block, acquire, end_for(acquire) as i64);
            let size = constant(block, acquire, int(acquire.attribute("size").unwrap()));
            let site = constant(block, acquire, sites.len() as i64);
            let place = htp_dialects::diagnostics::source_position(acquire.location()).map(|p| p.to_string()).unwrap_or_else(|| "?".into());
            sites.push(format!("the core of ({col}, {row}) acquiring {} object(s) of @{} ({place})", int(acquire.attribute("size").unwrap()), symbol_text(acquire.attribute("objFifo_name").unwrap())));
            block.insert_operation_before(acquire, call(context, "htp_aie_sim_acquire", &[end, size, site], &[], acquire.location()));
            unsafe { mlir_sys::mlirOperationDestroy(acquire.to_raw()) };
        }
        for release in htp_ir::query::ops_named(function_ref, "aie.objectfifo.release") {
            let block = release.block().unwrap();
            let end = constant(block, release, end_for(release) as i64);
            let size = constant(block, release, int(release.attribute("size").unwrap()));
            block.insert_operation_before(release, call(context, "htp_aie_sim_release", &[end, size], &[], release.location()));
            unsafe { mlir_sys::mlirOperationDestroy(release.to_raw()) };
        }
    }
    for (number, ty) in object_functions.iter().enumerate() {
        declarations += &format!("func.func private @htp_aie_sim_object_{number}(i64, i64) -> {ty} attributes {{llvm.emit_c_interface}}\n");
    }
    // The device's functions and globals (the block function) move to the
    // module; the rest of the device (tiles, FIFOs, sequence) goes.
    let mut op = device_body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = op_name(current);
        if name == "func.func" || name == "memref.global" {
            unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), device.to_raw()) };
        }
    }
    let declared = Module::parse(context, &declarations).ok_or_else(|| fail("internal error: runtime declarations"))?;
    let mut op = declared.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), device.to_raw()) };
    }
    unsafe { mlir_sys::mlirOperationDestroy(device.to_raw()) };
    let mut module = module;
    let (verified, errors) = htp_dialects::diagnostics::collect_errors(context, || module.as_operation().verify());
    if !verified {
        return Err(if errors.is_empty() { fail("internal error: the simulator's module does not verify") } else { errors });
    }
    widen_contractions(&module);
    htp_pass::dump::run_pipeline_collecting(context, &mut module, TO_LLVM, "the AIE simulator's lowering of the cores")?;
    let engine = ExecutionEngine::new(&module, 2, &[], false, false);
    htp_pass::jit::register_float_conversions(&engine);
    unsafe {
        engine.register_symbol("htp_aie_sim_acquire", acquire as *mut ());
        engine.register_symbol("htp_aie_sim_release", release as *mut ());
        for number in 0..object_functions.len() {
            engine.register_symbol(&format!("_mlir_ciface_htp_aie_sim_object_{number}"), object as *mut ());
        }
    }
    Ok(Simulation { engine, cores: core_names, fifos, ends, links, transfers, sites, host: Vec::new() })
}

// ---------------------------------------------------------------------------
// The run: FIFOs, threads, deadlock detection.
// ---------------------------------------------------------------------------

struct FifoState {
    objects: Vec<Vec<u64>>,
    produced: u64,
    consumed: Vec<u64>,
}

struct State {
    fifos: Vec<FifoState>,
    /// Threads that must finish (cores, transfers) and those that run
    /// until the others are done (links).
    workers: usize,
    daemons: usize,
    blocked: usize,
    blocked_sites: Vec<String>,
    deadlock: bool,
    /// Bumped by every release (see `Run::acquire`).
    epoch: u64,
}

struct Run {
    sim: *const Simulation,
    state: Mutex<State>,
    wake: Condvar,
}

unsafe impl Send for Run {}
unsafe impl Sync for Run {}

/// The run in progress (one at a time: the JIT'd code reaches it through
/// the runtime functions, which take no context).
static CURRENT: Mutex<Option<Arc<Run>>> = Mutex::new(None);
static ONE_RUN: Mutex<()> = Mutex::new(());

fn current() -> Arc<Run> {
    CURRENT.lock().unwrap().clone().expect("a simulation is running")
}

impl Run {
    fn sim(&self) -> &Simulation {
        unsafe { &*self.sim }
    }

    /// Waits until `end` can hold `n` objects; false when the run deadlocked
    /// (or, for a link, when the cores and transfers are done).
    ///
    /// A waiter counts as blocked only within the epoch it registered in:
    /// every release starts a new epoch (anything waiting may now proceed,
    /// so it must look again), and the run is deadlocked when every thread
    /// still running is blocked in the current epoch.
    fn acquire(&self, end: usize, n: u64, site: &str) -> bool {
        let End { fifo, consumer } = self.sim().ends[end];
        let depth = self.sim().fifos[fifo].depth;
        let mut state = self.state.lock().unwrap();
        let mut registered: Option<u64> = None;
        loop {
            let current = registered == Some(state.epoch);
            if state.deadlock || state.workers == 0 {
                if current {
                    state.blocked -= 1;
                }
                return false;
            }
            let f = &state.fifos[fifo];
            let ready = match consumer {
                None => f.produced + n - f.consumed.iter().copied().min().unwrap_or(f.produced) <= depth,
                Some(c) => f.produced - f.consumed[c] >= n,
            };
            if ready {
                if current {
                    state.blocked -= 1;
                    let position = state.blocked_sites.iter().position(|s| s == site).unwrap();
                    state.blocked_sites.remove(position);
                }
                return true;
            }
            if !current {
                state.blocked += 1;
                state.blocked_sites.push(site.to_string());
                registered = Some(state.epoch);
            }
            if state.blocked == state.workers + state.daemons {
                state.deadlock = true;
                self.wake.notify_all();
                return false;
            }
            state = self.wake.wait(state).unwrap();
        }
    }

    fn release(&self, end: usize, n: u64) {
        let End { fifo, consumer } = self.sim().ends[end];
        let mut state = self.state.lock().unwrap();
        if state.deadlock {
            return;
        }
        match consumer {
            None => state.fifos[fifo].produced += n,
            Some(c) => state.fifos[fifo].consumed[c] += n,
        }
        state.epoch += 1;
        state.blocked = 0;
        state.blocked_sites.clear();
        self.wake.notify_all();
    }

    /// The object `index` of `end`'s current window (its ring slot).
    fn object(&self, end: usize, index: u64) -> *mut u64 {
        let End { fifo, consumer } = self.sim().ends[end];
        let depth = self.sim().fifos[fifo].depth;
        let mut state = self.state.lock().unwrap();
        let f = &mut state.fifos[fifo];
        let base = match consumer {
            None => f.produced,
            Some(c) => f.consumed[c],
        };
        f.objects[((base + index) % depth) as usize].as_mut_ptr()
    }

    fn finish(&self, worker: bool) {
        let mut state = self.state.lock().unwrap();
        if worker {
            state.workers -= 1;
        } else {
            state.daemons -= 1;
        }
        if state.workers > 0 && state.blocked == state.workers + state.daemons && !state.deadlock {
            state.deadlock = true;
        }
        // Links wake to see whether the workers are done.
        self.wake.notify_all();
    }

}

extern "C" fn acquire(end: i64, n: i64, site: i64) {
    let run = current();
    let site = run.sim().sites.get(site as usize).cloned().unwrap_or_default();
    run.acquire(end as usize, n as u64, &site);
}

extern "C" fn release(end: i64, n: i64) {
    current().release(end as usize, n as u64);
}

#[repr(C)]
struct Descriptor2 {
    allocated: *mut u64,
    aligned: *mut u64,
    offset: i64,
    sizes: [i64; 2],
    strides: [i64; 2],
}

/// `_mlir_ciface_htp_aie_sim_object_N(result, end, index)`: every object
/// memref is 2-D and row-major (the design's FIFO element types).
extern "C" fn object(result: *mut Descriptor2, end: i64, index: i64) {
    let run = current();
    let sim = run.sim();
    let fifo = &sim.fifos[sim.ends[end as usize].fifo];
    let data = run.object(end as usize, index as u64);
    let (rows, cols) = fifo.shape;
    unsafe {
        *result = Descriptor2 { allocated: data, aligned: data, offset: 0, sizes: [rows, cols], strides: [cols, 1] };
    }
}


impl Simulation {
    /// Fills the runtime sequence's buffers (`tensors`, in its order) from
    /// the kernel's arguments at each run as the host program does: padded
    /// with zeros to the sequence's size, or packed (D85); outputs go back.
    pub fn use_host_tensors(&mut self, tensors: &[crate::host::HostTensor]) {
        self.host = tensors.to_vec();
    }

    /// The tile a link forwards at: the producer of its outputs.
    fn link_tile(&self, link: &Link) -> (i64, i64) {
        self.fifos[link.outs[0]].producer
    }

    fn end(&self, fifo: usize, consumer: Option<usize>) -> usize {
        self.ends.iter().position(|e| e.fifo == fifo && e.consumer == consumer).expect("every end is listed")
    }

    /// Runs the design on the kernel's buffers (`arguments`: the runtime
    /// sequence's, in order).
    pub fn run(&self, arguments: &[Argument]) -> Result<(), RunError> {
        let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
        // Run-time scalars travel as one-element tensors (D59): their words,
        // alive for the run.
        // An i64 scalar is a word pair; the others, one word.
        let words: Vec<Box<u64>> = arguments
            .iter()
            .map(|a| match a {
                Argument::F32(v) => Box::new(v.to_bits() as u64),
                Argument::I64(v) => Box::new(*v as u64),
                Argument::I32(v) => Box::new(*v as u32 as u64),
                // A 16- or 8-bit scalar: the word's first element (little-endian).
                Argument::F16(bits) | Argument::BF16(bits) => Box::new(*bits as u64),
                Argument::I16(v) => Box::new(*v as u16 as u64),
                Argument::I8(v) => Box::new(*v as u8 as u64),
                _ => Box::new(0),
            })
            .collect();
        let buffers: Vec<usize> = arguments
            .iter()
            .zip(&words)
            .map(|(a, word)| match a {
                Argument::Buffer { data, .. } => Ok(*data as usize),
                Argument::F32(_) | Argument::I64(_) | Argument::I32(_) | Argument::F16(_) | Argument::BF16(_) | Argument::I16(_) | Argument::I8(_) => Ok(&**word as *const u64 as usize),
                _ => Err(RunError::new(RunErrorKind::InvalidValue, "the aie-sim target takes tensors and f32, f16, bf16, i64, i32, i16 and i8 scalars")),
            })
            .collect::<Result<_, _>>()?;
        // The sequence's buffers: an argument as it is, or staged (padded with zeros, or packed).
        let given = buffers;
        let mut buffers = given.clone();
        let mut staged: Vec<(&crate::host::HostTensor, Vec<u8>)> = Vec::new();
        if !self.host.is_empty() {
            buffers.clear();
            for tensor in &self.host {
                let bytes = (crate::lower::bits_of(&tensor.element) / 8) as usize;
                let mut stage = vec![0u8; tensor.host_elements as usize * bytes];
                match tensor.argument {
                    Some(argument) => {
                        let address = *given.get(argument).ok_or_else(|| RunError::new(RunErrorKind::InvalidValue, format!("the design reads argument {} of {}", argument + 1, given.len())))?;
                        if tensor.host_elements <= tensor.elements {
                            buffers.push(address);
                            continue;
                        }
                        for (from, to, count) in tensor.copies() {
                            unsafe { std::ptr::copy_nonoverlapping((address + from) as *const u8, stage.as_mut_ptr().add(to), count) };
                        }
                    }
                    None => {
                        let objects = tensor.host_elements / tensor.object_bytes.max(1);
                        for part in &tensor.parts {
                            let address = *given.get(part.argument).ok_or_else(|| RunError::new(RunErrorKind::InvalidValue, format!("the design reads argument {} of {}", part.argument + 1, given.len())))?;
                            for (from, to, count) in part.copies(objects, tensor.object_bytes) {
                                unsafe { std::ptr::copy_nonoverlapping((address + from) as *const u8, stage.as_mut_ptr().add(to), count) };
                            }
                        }
                    }
                }
                buffers.push(stage.as_mut_ptr() as usize);
                staged.push((tensor, stage));
            }
        }
        let state = State {
            fifos: self
                .fifos
                .iter()
                .map(|f| FifoState {
                    objects: (0..f.depth).map(|_| vec![0u64; (f.elements * f.element_bytes).div_ceil(8)]).collect(),
                    produced: 0,
                    consumed: vec![0; f.consumers.len()],
                })
                .collect(),
            // A thread per core and per shim channel (its transfers in order).
            workers: self.cores.len() + {
                let mut fifos: Vec<usize> = self.transfers.iter().map(|t| t.fifo).collect();
                fifos.sort_unstable();
                fifos.dedup();
                fifos.len()
            },
            daemons: self.links.len(),
            blocked: 0,
            blocked_sites: Vec::new(),
            deadlock: false,
            epoch: 0,
        };
        let run = Arc::new(Run { sim: self as *const Simulation, state: Mutex::new(state), wake: Condvar::new() });
        *CURRENT.lock().unwrap() = Some(run.clone());
        let mut functions = Vec::new();
        for name in &self.cores {
            match htp_pass::jit::lookup_or_explain(&self.engine, name) {
                Ok(address) => functions.push(address as usize),
                Err(why) => {
                    *CURRENT.lock().unwrap() = None;
                    return Err(RunError::new(RunErrorKind::Failed, format!("error: the simulated code of core '{name}' cannot run here: {why}")));
                }
            }
        }
        std::thread::scope(|scope| {
            for link in &self.links {
                let run = run.clone();
                scope.spawn(move || {
                    self.forward(&run, link);
                    run.finish(false);
                });
            }
            // Transfers on one FIFO (one shim channel) run one after the other in
            // the runtime sequence's order, as the channel's buffer descriptors do:
            // broadcasts sharing a FIFO fill its objects in their order.
            let mut channels: Vec<(usize, Vec<&Transfer>)> = Vec::new();
            for transfer in &self.transfers {
                match channels.iter_mut().find(|(fifo, _)| *fifo == transfer.fifo) {
                    Some((_, queue)) => queue.push(transfer),
                    None => channels.push((transfer.fifo, vec![transfer])),
                }
            }
            for (_, queue) in channels {
                let run = run.clone();
                let buffers = &buffers;
                scope.spawn(move || {
                    for transfer in &queue {
                        if let Some(buffer) = buffers.get(transfer.argument).copied() {
                            self.transfer(&run, transfer, buffer as *mut u8);
                        }
                    }
                    run.finish(true);
                });
            }
            for function in &functions {
                let run = run.clone();
                let function = *function;
                scope.spawn(move || {
                    let core: extern "C" fn() = unsafe { std::mem::transmute(function) };
                    core();
                    run.finish(true);
                });
            }
        });
        *CURRENT.lock().unwrap() = None;
        let state = run.state.lock().unwrap();
        if !state.deadlock {
            // The outputs back from their staged buffers: a padded one's rows, a pack's parts.
            for (tensor, stage) in staged.iter().filter(|(t, _)| t.output) {
                match tensor.argument {
                    Some(argument) => {
                        for (from, to, count) in tensor.copies() {
                            unsafe { std::ptr::copy_nonoverlapping(stage.as_ptr().add(to), (given[argument] + from) as *mut u8, count) };
                        }
                    }
                    None => {
                        let objects = tensor.host_elements / tensor.object_bytes.max(1);
                        for part in &tensor.parts {
                            for (from, to, count) in part.copies(objects, tensor.object_bytes) {
                                unsafe { std::ptr::copy_nonoverlapping(stage.as_ptr().add(to), (given[part.argument] + from) as *mut u8, count) };
                            }
                        }
                    }
                }
            }
            // The blocks' status (D96): the first block's failed site is the call's error.
            for (tensor, stage) in staged.iter().filter(|(t, _)| !t.checks.is_empty()) {
                let failed = stage.chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]])).find(|&w| w != 0);
                if let Some(code) = failed {
                    return Err(match tensor.checks.get(code as usize - 1) {
                        Some((kind, message)) => RunError::new(kind.run_error(), message.clone()),
                        None => RunError::new(RunErrorKind::Failed, format!("error: a run-time check failed (site {})", code - 1)),
                    });
                }
            }
            return Ok(());
        }
        let mut report = String::from("deadlock in the AIE design: every core and transfer still running waits on a FIFO\n  waiting:\n");
        for site in &state.blocked_sites {
            report += &format!("    {site}\n");
        }
        report += "  FIFOs (objects released by the producer; by each consumer):\n";
        for (info, fifo) in self.fifos.iter().zip(&state.fifos) {
            report += &format!("    @{}: depth {}, produced {}, consumed {:?}\n", info.name, info.depth, fifo.produced, fifo.consumed);
        }
        Err(RunError::new(RunErrorKind::Failed, report.trim_end().to_string()))
    }

    /// A link's memtile: each input object split into the outputs (or the
    /// inputs joined into each output object), until the workers are done.
    fn forward(&self, run: &Run, link: &Link) {
        let at = self.link_tile(link);
        let consumer_end = |fifo: usize| self.end(fifo, Some(self.fifos[fifo].consumers.iter().position(|t| *t == at).expect("verified link")));
        let site = |what: &str| format!("the memtile ({}, {}) forwarding @{what}", at.0, at.1);
        loop {
            if link.ins.len() == 1 {
                let input = link.ins[0];
                let in_end = consumer_end(input);
                if !run.acquire(in_end, 1, &site(&self.fifos[input].name)) {
                    return;
                }
                let source = run.object(in_end, 0) as *const u8;
                for (k, &output) in link.outs.iter().enumerate() {
                    let out_end = self.end(output, None);
                    if !run.acquire(out_end, 1, &site(&self.fifos[output].name)) {
                        return;
                    }
                    let info = &self.fifos[output];
                    let offset = link.dst_offsets.get(k).copied().unwrap_or(0) as usize * info.element_bytes;
                    unsafe { std::ptr::copy_nonoverlapping(source.add(offset), run.object(out_end, 0) as *mut u8, info.elements * info.element_bytes) };
                    run.release(out_end, 1);
                }
                run.release(in_end, 1);
            } else {
                let output = link.outs[0];
                let out_end = self.end(output, None);
                if !run.acquire(out_end, 1, &site(&self.fifos[output].name)) {
                    return;
                }
                let target = run.object(out_end, 0) as *mut u8;
                for (k, &input) in link.ins.iter().enumerate() {
                    let in_end = consumer_end(input);
                    if !run.acquire(in_end, 1, &site(&self.fifos[input].name)) {
                        return;
                    }
                    let info = &self.fifos[input];
                    let offset = link.src_offsets.get(k).copied().unwrap_or(0) as usize * info.element_bytes;
                    unsafe { std::ptr::copy_nonoverlapping(run.object(in_end, 0) as *const u8, target.add(offset), info.elements * info.element_bytes) };
                    run.release(in_end, 1);
                }
                run.release(out_end, 1);
            }
        }
    }

    /// One `aiex.npu.dma_memcpy_nd`: the window's elements, in order, object
    /// by object, from the host buffer into the FIFO (the shim produces it)
    /// or out of it (the shim consumes it).
    fn transfer(&self, run: &Run, transfer: &Transfer, buffer: *mut u8) {
        let info = &self.fifos[transfer.fifo];
        let into_array = info.producer.1 == 0;
        let end = if into_array {
            self.end(transfer.fifo, None)
        } else {
            self.end(transfer.fifo, Some(info.consumers.iter().position(|t| t.1 == 0).expect("verified: a shim end")))
        };
        let [o0, o1, o2, o3] = transfer.offsets;
        let [s0, s1, s2, s3] = transfer.sizes;
        let [t0, t1, t2, t3] = transfer.strides;
        let base = o0 * t0 + o1 * t1 + o2 * t2 + o3 * t3;
        let mut indices = Vec::with_capacity((s0 * s1 * s2 * s3) as usize);
        for i0 in 0..s0 {
            for i1 in 0..s1 {
                for i2 in 0..s2 {
                    for i3 in 0..s3 {
                        indices.push((base + i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3) as usize);
                    }
                }
            }
        }
        let bytes = transfer.element_bytes;
        let what = if into_array { format!("the host transfer into @{}", info.name) } else { format!("the host transfer out of @{}", info.name) };
        for chunk in indices.chunks(info.elements * info.element_bytes / bytes) {
            if !run.acquire(end, 1, &what) {
                return;
            }
            let object = run.object(end, 0) as *mut u8;
            for (j, &index) in chunk.iter().enumerate() {
                unsafe {
                    if into_array {
                        std::ptr::copy_nonoverlapping(buffer.add(index * bytes), object.add(j * bytes), bytes);
                    } else {
                        std::ptr::copy_nonoverlapping(object.add(j * bytes), buffer.add(index * bytes), bytes);
                    }
                }
            }
            run.release(end, 1);
        }
    }
}

