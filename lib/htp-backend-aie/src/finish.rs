//! The backend's second input form (D69): a module that already holds an
//! `aie.device`, made by a conversion (CSP → AIE builds one from a
//! program's processes and channels). Its cores call functions of the
//! device written in tile IR; finishing it lowers those functions as the
//! kernel path lowers its block function (`lower::lower_block_functions`),
//! gives each core that calls them the stack their temporaries need,
//! verifies the design and reads its static metrics off it.

use std::collections::HashMap;

use htp_api::{KernelSignature, ParamKind};
use htp_dialects::diagnostics::MlirError;
use melior::{
    ir::{
        attribute::{FlatSymbolRefAttribute, IntegerAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
        r#type::{IntegerType, MemRefType, ShapedTypeLike},
        Location, Module, OperationRef, RegionLike, Type, ValueLike,
    },
    Context,
};

use crate::architecture::{COMPUTE_MEMORY, DEFAULT_STACK};
use crate::lower::Design;

fn fail(message: impl Into<String>) -> Vec<MlirError> {
    vec![MlirError { position: None, message: message.into() }]
}

use htp_ir::query::op_name;

/// The module's `aie.device`, if a conversion made one.
pub fn device_of<'c, 'a>(module: &'a Module<'c>) -> Option<OperationRef<'c, 'a>> {
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if op_name(current) == "aie.device" {
            return Some(current);
        }
        op = current.next_in_block();
    }
    None
}

/// Lowers the device's tile-IR functions, sizes the cores' stacks,
/// verifies the design and describes it.
pub fn finish(context: &Context, module: &mut Module, kernel: &KernelSignature, family: crate::architecture::Family) -> Result<Design, Vec<MlirError>> {
    let device = device_of(module).ok_or_else(|| fail("internal error: no aie.device to finish"))?;
    let device_raw = device.to_raw();
    let body = device.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| fail("internal error: an empty aie.device"))?;
    // The functions with bodies leave the device for a module of their own,
    // where the block lowering runs as it does for a kernel.
    let mut functions = Module::new(Location::unknown(context));
    let mut op = body.first_operation();
    let mut first_core = None;
    while let Some(current) = op {
        op = current.next_in_block();
        let name = op_name(current);
        if name == "aie.core" && first_core.is_none() {
            first_core = Some(current.to_raw());
        }
        let defined = current.region(0).ok().and_then(|r| r.first_block()).is_some();
        if (name == "func.func" && defined) || name == "memref.global" {
            unsafe {
                mlir_sys::mlirOperationRemoveFromParent(current.to_raw());
                mlir_sys::mlirBlockAppendOwnedOperation(functions.body().to_raw(), current.to_raw());
            }
        }
    }
    let first_core = first_core.ok_or_else(|| fail("internal error: a design without cores"))?;
    let (stack, cost) = crate::lower::lower_block_functions(context, &mut functions, family)?;
    crate::lower::refuse_run_time_checks(&functions)?;
    let mut op = functions.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), first_core) };
    }
    // Each core's stack: what the block functions' temporaries need (one
    // stack size for all: the largest of them, as a kernel's cores have).
    let device = unsafe { OperationRef::from_raw(device_raw) };
    let i32_type: Type = IntegerType::new(context, 32).into();
    let mut cores = Vec::new();
    device.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "aie.core" {
            cores.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for core in &cores {
        let mut core = unsafe { melior::ir::operation::OperationRefMut::from_raw(*core) };
        core.set_attribute("stack_size", IntegerAttribute::new(i32_type, stack).into());
    }
    strip_htp_attributes(module);
    let (verified, errors) = htp_dialects::diagnostics::collect_errors(context, || module.as_operation().verify());
    if !verified {
        return Err(if errors.is_empty() { fail("the AIE design does not verify") } else { errors });
    }
    let device = device_of(module).ok_or_else(|| fail("internal error: no aie.device"))?;
    let mut metrics = metrics(context, device, stack);
    // A process network's cores run their own code: the costliest one's, per call.
    metrics.extend([("core_vector_ops".into(), cost.vector_ops), ("core_scalar_ops".into(), cost.scalar_ops), ("core_block_compute_cycles".into(), cost.cycles())]);
    let columns = metric(&metrics, "columns") as u32;
    let core_count = metric(&metrics, "cores") as u32;
    let tensors = host_tensors(device, kernel)?;
    Ok(Design { text: module.as_operation().to_string(), cores: core_count, columns, kernel: kernel.name.clone(), metrics, tensors })
}

/// Removes HTP's discardable attributes (`htp.distribution` on a loop of a
/// kernel run whole on one core, ...) from a design: mlir-aie's tools do
/// not know HTP's dialects and refuse to parse their attributes.
pub fn strip_htp_attributes(module: &Module) {
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let names: Vec<String> = (0..unsafe { mlir_sys::mlirOperationGetNumAttributes(op.to_raw()) })
            .filter_map(|i| {
                let named = unsafe { mlir_sys::mlirOperationGetAttribute(op.to_raw(), i) };
                let name = unsafe { melior::StringRef::from_raw(mlir_sys::mlirIdentifierStr(named.name)) };
                name.as_str().ok().filter(|n| n.starts_with("htp.")).map(str::to_string)
            })
            .collect();
        for name in names {
            unsafe { mlir_sys::mlirOperationRemoveAttributeByName(op.to_raw(), melior::StringRef::new(&name).to_raw()) };
        }
        WalkResult::Advance
    });
}

fn metric(metrics: &[(String, f64)], name: &str) -> f64 {
    metrics.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap_or(0.0)
}

/// The runtime sequence's arguments as the host program's buffers, named
/// and directed by the program's signature (its parameters in order; a
/// run-time scalar is a one-element buffer, D59).
fn host_tensors(device: OperationRef, kernel: &KernelSignature) -> Result<Vec<crate::host::HostTensor>, Vec<MlirError>> {
    let mut sequence = None;
    device.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "aie.runtime_sequence" {
            sequence = Some(op.to_raw());
        }
        WalkResult::Advance
    });
    let sequence = unsafe { OperationRef::from_raw(sequence.ok_or_else(|| fail("internal error: a design without a runtime sequence"))?) };
    let block = sequence.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| fail("internal error: an empty runtime sequence"))?;
    let outputs = kernel.outputs();
    let mut tensors = Vec::new();
    for param in &kernel.params {
        let Some(index) = param.arg_index else { continue };
        let argument = block.argument(index).map_err(|_| fail(format!("internal error: the runtime sequence lacks argument {index}")))?;
        let memref = MemRefType::try_from(argument.r#type()).map_err(|_| fail("internal error: a runtime sequence argument that is not a memref"))?;
        let elements = htp_ir::builder::shape_of(memref.into()).iter().product::<i64>();
        tensors.push(crate::host::HostTensor {
            name: param.name.clone(),
            element: memref.element().to_string(),
            elements,
            host_elements: elements,
            output: outputs.contains(&index),
            scalar: matches!(param.kind, ParamKind::Scalar { .. }),
            argument: Some(index),
            parts: Vec::new(),
            object_bytes: 0,
            runs: None,
            checks: Vec::new(),
        });
    }
    Ok(tensors)
}

/// What a finished design uses, read off its ops: cores and columns, FIFOs
/// (core to core, through shared memory, with their objects), host bytes
/// through the shims, and per compute tile the worst of its data memory
/// (stack, then objects at 32-byte alignment, as the verifier places them),
/// locks (a producer and a consumer lock per FIFO end) and DMA buffer
/// descriptors (one per object of each FIFO end that does not share memory).
pub fn metrics(context: &Context, device: OperationRef, stack: i64) -> Vec<(String, f64)> {
    #[derive(Default)]
    struct Tile {
        memory: i64,
        locks: i64,
        descriptors: i64,
        inputs: i64,
        outputs: i64,
    }
    let body = device.region(0).ok().and_then(|r| r.first_block());
    let mut coordinates: HashMap<usize, (i64, i64)> = HashMap::new();
    let mut tiles: HashMap<(i64, i64), Tile> = HashMap::new();
    let (mut fifos, mut objects, mut core_to_core, mut shared, mut cores, mut bytes_in, mut bytes_out) = (0, 0, 0, 0, 0, 0i64, 0i64);
    let mut columns: Vec<i64> = Vec::new();
    let int = |op: OperationRef, name: &str| op.attribute(name).ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|i| i.value()).unwrap_or(0);
    let tile_of = |coordinates: &HashMap<usize, (i64, i64)>, op: OperationRef, i: usize| op.operand(i).ok().and_then(|v| coordinates.get(&(v.to_raw().ptr as usize)).copied());
    // Per FIFO: whether a shim produces it (its transfers move host bytes into the array).
    let mut from_shim: HashMap<String, bool> = HashMap::new();
    let mut sequence = None;
    let mut op = body.and_then(|b| b.first_operation());
    while let Some(current) = op {
        op = current.next_in_block();
        match op_name(current).as_str() {
            "aie.tile" => {
                if let Ok(result) = current.result(0) {
                    coordinates.insert(result.to_raw().ptr as usize, (int(current, "col"), int(current, "row")));
                }
            }
            "aie.core" => {
                cores += 1;
                if let Some((col, _)) = tile_of(&coordinates, current, 0) {
                    if !columns.contains(&col) {
                        columns.push(col);
                    }
                }
            }
            "aie.objectfifo" => {
                fifos += 1;
                let depth = int(current, "elemNumber");
                let bytes = fifo_object(context, current).map(|m| htp_ir::builder::shape_of(m.into()).iter().product::<i64>() * element_bytes(m)).unwrap_or(0);
                objects += depth;
                let Some(producer) = tile_of(&coordinates, current, 0) else { continue };
                if let Some(name) = current.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) {
                    from_shim.insert(name.value().to_string(), producer.1 == 0);
                }
                let consumers: Vec<(i64, i64)> = (1..current.operand_count()).filter_map(|i| tile_of(&coordinates, current, i)).collect();
                let compute = |t: (i64, i64)| t.1 >= 2;
                if compute(producer) && consumers.iter().all(|c| compute(*c)) {
                    core_to_core += 1;
                }
                let sharing = consumers.len() == 1 && crate::architecture::shares_memory(consumers[0], producer);
                if sharing {
                    shared += 1;
                    let place = if crate::architecture::reaches(consumers[0], producer) { producer } else { consumers[0] };
                    let tile = tiles.entry(place).or_default();
                    tile.memory += depth * ((bytes + 31) / 32 * 32);
                    tiles.entry(producer).or_default().locks += 2;
                    tiles.entry(consumers[0]).or_default().locks += 2;
                    continue;
                }
                for (end, output) in std::iter::once((producer, true)).chain(consumers.iter().map(|c| (*c, false))) {
                    let tile = tiles.entry(end).or_default();
                    tile.memory += depth * ((bytes + 31) / 32 * 32);
                    tile.locks += 2;
                    tile.descriptors += depth;
                    if output {
                        tile.outputs += 1;
                    } else {
                        tile.inputs += 1;
                    }
                }
            }
            "aie.runtime_sequence" => sequence = Some(current),
            _ => {}
        }
    }
    // Host bytes each way, from the transfers' windows and their FIFOs' direction.
    if let Some(sequence) = sequence {
        sequence.walk(WalkOrder::PreOrder, |inner| {
            if op_name(inner) == "aiex.npu.dma_memcpy_nd" {
                let sizes = inner.attribute("static_sizes").ok().and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok());
                let elements: i64 = sizes.map(|s| (0..s.len()).filter_map(|i| s.element(i).ok()).product()).unwrap_or(0);
                let element_size = inner.operand(0).ok().and_then(|v| MemRefType::try_from(v.r#type()).ok()).map(element_bytes).unwrap_or(4);
                let into_array = inner
                    .attribute("metadata")
                    .ok()
                    .and_then(|a| FlatSymbolRefAttribute::try_from(a).ok())
                    .and_then(|s| from_shim.get(s.value()).copied())
                    .unwrap_or(true);
                if into_array {
                    bytes_in += elements * element_size;
                } else {
                    bytes_out += elements * element_size;
                }
            }
            WalkResult::Advance
        });
    }
    let compute: Vec<&Tile> = tiles.iter().filter(|(t, _)| t.1 >= 2).map(|(_, v)| v).collect();
    let worst = |f: fn(&Tile) -> i64| compute.iter().map(|t| f(t)).max().unwrap_or(0) as f64;
    vec![
        ("cores".into(), cores as f64),
        ("columns".into(), columns.len() as f64),
        ("fifos".into(), fifos as f64),
        ("core_to_core_fifos".into(), core_to_core as f64),
        ("shared_memory_fifos".into(), shared as f64),
        ("fifo_objects".into(), objects as f64),
        ("shim_bytes_in".into(), bytes_in as f64),
        ("shim_bytes_out".into(), bytes_out as f64),
        ("core_memory_bytes".into(), worst(|t| t.memory) + stack as f64),
        ("core_memory_capacity".into(), COMPUTE_MEMORY as f64),
        ("core_stack_bytes".into(), stack.max(DEFAULT_STACK as i64) as f64),
        ("core_locks".into(), worst(|t| t.locks)),
        ("core_dma_descriptors".into(), worst(|t| t.descriptors)),
        ("core_dma_inputs".into(), worst(|t| t.inputs)),
        ("core_dma_outputs".into(), worst(|t| t.outputs)),
    ]
}

/// Bytes of one element of `memref`.
pub fn element_bytes(memref: MemRefType) -> i64 {
    (htp_ir::builder::bit_width(memref.element()) as u64).div_ceil(8) as i64
}

/// The object type of an `aie.objectfifo` (its `!aie.objectfifo<memref<...>>`'s memref).
pub(crate) fn fifo_object<'c>(context: &'c Context, fifo: OperationRef) -> Option<MemRefType<'c>> {
    let element = melior::ir::attribute::TypeAttribute::try_from(fifo.attribute("elemType").ok()?).ok()?.value().to_string();
    let inner = element.strip_prefix("!aie.objectfifo<")?.strip_suffix('>')?;
    MemRefType::try_from(htp_ir::builder::parse_type(context, inner)).ok()
}
