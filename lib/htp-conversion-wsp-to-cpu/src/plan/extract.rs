//! MLIR -> [`Plan`]: the workload function's ops become steps over
//! registers. An op a workload cannot run on the host (tile compute, a
//! store) is an error at its line: compute belongs in kernels.

use std::collections::HashMap;

use htp_dialects::diagnostics::MlirError;
use melior::ir::{
    attribute::{ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::{IntegerType, MemRefType, ShapedTypeLike},
    BlockRef, Module, OperationRef, RegionLike, Type, TypeLike, Value, ValueLike,
};

use super::{Binary, Block, Compare, Element, Function, LoopKind, LoopSite, Mode, Num, Parameter, Plan, Slot, Step, TaskSite};

use htp_model_wsp::ir::{operands, position, symbol};

fn error(op: OperationRef, message: impl Into<String>) -> MlirError {
    MlirError { position: htp_dialects::diagnostics::source_position(op.location()), message: message.into() }
}

/// The number a scalar type holds.
pub fn num_of(ty: Type) -> Option<Num> {
    if ty.is_index() {
        return Some(Num::Int(64));
    }
    if let Ok(integer) = IntegerType::try_from(ty) {
        return Some(Num::Int(integer.width()));
    }
    htp_ir::builder::is_float(ty).then(|| Num::Float(htp_ir::builder::bit_width(ty)))
}

/// The element of a memref type.
pub fn element_of(ty: Type) -> Option<Element> {
    let memref = MemRefType::try_from(ty).ok()?;
    let num = num_of(memref.element())?;
    let bits = match num {
        Num::Int(w) | Num::Float(w) => w,
    };
    Some(Element { num, bytes: ((bits as i64 + 7) / 8).max(1) })
}

/// The plan of the workload `name` in `module`.
pub fn plan(module: &Module, name: &str) -> Result<Plan, Vec<MlirError>> {
    let functions = htp_model_wsp::ir::functions(module.body());
    let workload = *functions.get(name).ok_or_else(|| vec![MlirError { position: None, message: format!("no workload named '{name}'") }])?;
    let mut extractor = Extractor { functions: &functions, helpers: Vec::new(), helper_index: HashMap::new(), tasks: Vec::new(), loops: Vec::new(), channels: Vec::new() };
    let parameters: Vec<Option<Element>> = entry_block(workload).map(|b| (0..b.argument_count()).map(|i| b.argument(i).ok().and_then(|a| element_of(a.r#type()))).collect()).unwrap_or_default();
    // `wsp-infer-access` refuses a task that writes an input; a window is written by peers.
    let written: Vec<i64> = [htp_api::signature::OUTPUTS_ATTRIBUTE, htp_api::signature::WINDOWS_ATTRIBUTE]
        .iter()
        .flat_map(|attribute| htp_api::signature::declared_arguments(workload, attribute))
        .collect();
    let read_only = parameters.iter().enumerate().map(|(i, element)| element.is_some() && !written.contains(&(i as i64))).collect();
    let workload = extractor.function(workload).map_err(|e| vec![e])?;
    Ok(Plan { workload, helpers: extractor.helpers, tasks: extractor.tasks, loops: extractor.loops, parameters, read_only, channels: extractor.channels, names: Vec::new() })
}

fn entry_block<'c, 'a>(function: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    function.region(0).ok()?.first_block()
}

struct Extractor<'m, 'c, 'a> {
    functions: &'m HashMap<String, OperationRef<'c, 'a>>,
    helpers: Vec<Function>,
    helper_index: HashMap<String, usize>,
    tasks: Vec<TaskSite>,
    loops: Vec<LoopSite>,
    channels: Vec<super::Channel>,
}

/// The registers of one function being extracted.
#[derive(Default)]
struct Frame {
    slots: HashMap<usize, Slot>,
    count: usize,
}

impl Frame {
    fn key(value: Value) -> usize {
        value.to_raw().ptr as usize
    }

    fn define(&mut self, value: Value) -> Slot {
        let slot = self.count;
        self.count += 1;
        self.slots.insert(Self::key(value), slot);
        slot
    }

    fn fresh(&mut self) -> Slot {
        self.count += 1;
        self.count - 1
    }

    fn of(&self, op: OperationRef, value: Value) -> Result<Slot, MlirError> {
        self.slots.get(&Self::key(value)).copied().ok_or_else(|| error(op, "internal error: a value used before it is defined"))
    }
}

impl<'m, 'c, 'a> Extractor<'m, 'c, 'a> {
    fn function(&mut self, function: OperationRef<'c, 'a>) -> Result<Function, MlirError> {
        let name = symbol(function).unwrap_or_default();
        let block = entry_block(function).ok_or_else(|| error(function, format!("'{name}' has no body")))?;
        let mut frame = Frame::default();
        let parameters = (0..block.argument_count()).filter_map(|i| block.argument(i).ok()).map(|a| frame.define(a.into())).collect();
        let body = self.block(&mut frame, block)?;
        Ok(Function { name, parameters, body, slots: frame.count })
    }

    fn block(&mut self, frame: &mut Frame, block: BlockRef<'c, 'a>) -> Result<Block, MlirError> {
        let mut steps = Vec::new();
        let mut yields = Vec::new();
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
            if matches!(name.as_str(), "scf.yield" | "func.return" | "wsp.yield") {
                yields = operands(current).into_iter().map(|v| frame.of(current, v)).collect::<Result<_, _>>()?;
                continue;
            }
            self.step(frame, current, &name, &mut steps)?;
        }
        Ok(Block { steps, yields })
    }

    fn nested(&mut self, frame: &mut Frame, op: OperationRef<'c, 'a>, region: usize) -> Result<(Block, Vec<Slot>), MlirError> {
        let block = op.region(region).ok().and_then(|r| r.first_block());
        let Some(block) = block else { return Ok((Block::default(), vec![])) };
        let arguments = (0..block.argument_count()).filter_map(|i| block.argument(i).ok()).map(|a| frame.define(a.into())).collect();
        Ok((self.block(frame, block)?, arguments))
    }

    fn step(&mut self, frame: &mut Frame, op: OperationRef<'c, 'a>, name: &str, steps: &mut Vec<Step>) -> Result<(), MlirError> {
        let inputs: Vec<Value> = operands(op);
        let slot = |i: usize| frame.of(op, inputs[i]);
        let result = |frame: &mut Frame, i: usize| op.result(i).map(|r| frame.define(r.into())).map_err(|_| error(op, "internal error: missing result"));
        let result_num = || op.result(0).ok().and_then(|r| num_of(r.r#type())).ok_or_else(|| error(op, format!("'{name}' on a value a workload cannot hold")));
        if let Some(binary) = binary_of(name) {
            let (a, b, num) = (slot(0)?, slot(1)?, result_num()?);
            steps.push(Step::Binary { dst: result(frame, 0)?, op: binary, a, b, num });
            return Ok(());
        }
        match name {
            "arith.constant" => {
                let value = op.attribute("value").map_err(|_| error(op, "a constant without a value"))?;
                let dst = result(frame, 0)?;
                if let Ok(integer) = IntegerAttribute::try_from(value) {
                    steps.push(Step::Int { dst, value: integer.value() });
                } else if let Ok(float) = FloatAttribute::try_from(value) {
                    steps.push(Step::Float { dst, value: float.value() });
                } else {
                    return Err(error(op, "a workload holds numbers, not tiles or arrays: build tiles inside kernels"));
                }
            }
            "arith.negf" => {
                let (a, num) = (slot(0)?, result_num()?);
                let zero = frame.fresh();
                steps.push(Step::Float { dst: zero, value: 0.0 });
                steps.push(Step::Binary { dst: result(frame, 0)?, op: Binary::SubF, a: zero, b: a, num });
            }
            "arith.cmpi" | "arith.cmpf" => {
                let float = name == "arith.cmpf";
                let predicate = op.attribute("predicate").ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|a| a.value()).unwrap_or(-1);
                let compare = compare_of(float, predicate).ok_or_else(|| error(op, "a comparison a workload does not evaluate"))?;
                let (a, b) = (slot(0)?, slot(1)?);
                steps.push(Step::Compare { dst: result(frame, 0)?, op: compare, a, b, float });
            }
            "arith.select" => {
                let (condition, a, b) = (slot(0)?, slot(1)?, slot(2)?);
                steps.push(Step::Select { dst: result(frame, 0)?, condition, a, b });
            }
            "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.sitofp" | "arith.uitofp"
            | "arith.fptosi" | "arith.fptoui" | "arith.extf" | "arith.truncf" => {
                let from = num_of(inputs[0].r#type()).ok_or_else(|| error(op, "a conversion of a value a workload cannot hold"))?;
                let (a, to) = (slot(0)?, result_num()?);
                let unsigned = matches!(name, "arith.index_castui" | "arith.extui" | "arith.uitofp" | "arith.fptoui");
                steps.push(Step::Convert { dst: result(frame, 0)?, a, from, to, unsigned });
            }
            "memref.load" => {
                let element = element_of(inputs[0].r#type()).ok_or_else(|| error(op, "a read of a tensor of unknown elements"))?;
                let tensor = slot(0)?;
                let indices = (1..inputs.len()).map(slot).collect::<Result<_, _>>()?;
                steps.push(Step::Load { dst: result(frame, 0)?, tensor, indices, element, at: position(op.location()) });
            }
            "memref.expand_shape" => {
                let tensor = slot(0)?;
                let result_type = op.result(0).map(|r| r.r#type()).map_err(|_| error(op, "internal error: missing result"))?;
                let shape = MemRefType::try_from(result_type).map_err(|_| error(op, "expected a tensor"))?;
                let unit = |d: usize| matches!(shape.dim_size(d), Ok(melior::ir::r#type::DimSize::Static(1)));
                let groups = op.attribute("reassociation").ok().and_then(|a| ArrayAttribute::try_from(a).ok()).ok_or_else(|| error(op, "internal error: reassociation"))?;
                let mut sources = vec![None; shape.rank()];
                for source in 0..groups.len() {
                    let group = groups.element(source).ok().and_then(|g| ArrayAttribute::try_from(g).ok()).ok_or_else(|| error(op, "internal error: reassociation"))?;
                    let dims: Vec<usize> = (0..group.len()).filter_map(|i| group.element(i).ok()).filter_map(|d| IntegerAttribute::try_from(d).ok()).map(|d| d.value() as usize).collect();
                    let kept: Vec<usize> = dims.iter().copied().filter(|d| !unit(*d)).collect();
                    let keep = match kept.as_slice() {
                        [] => *dims.last().unwrap_or(&0),
                        [one] => *one,
                        _ => return Err(error(op, "a workload reshapes tensors only by adding unit dimensions")),
                    };
                    sources[keep] = Some(source);
                }
                steps.push(Step::Expand { dst: result(frame, 0)?, tensor, sources });
            }
            "memref.dim" => {
                let (tensor, dim) = (slot(0)?, slot(1)?);
                steps.push(Step::Dim { dst: result(frame, 0)?, tensor, dim });
            }
            "wsp.view" => {
                let rank = MemRefType::try_from(inputs[0].r#type()).map(|m| m.rank()).unwrap_or(0);
                let tensor = slot(0)?;
                let offsets = (1..1 + rank).map(slot).collect::<Result<_, _>>()?;
                let sizes = (1 + rank..inputs.len()).map(slot).collect::<Result<_, _>>()?;
                steps.push(Step::View { dst: result(frame, 0)?, tensor, offsets, sizes, at: position(op.location()) });
            }
            "wsp.cores" => steps.push(Step::Cores { dst: result(frame, 0)? }),
            "wsp.channel" => {
                let ring = op.result(0).map_err(|_| error(op, "internal error: a channel without its ring"))?.r#type();
                let element = element_of(ring).ok_or_else(|| error(op, "a channel of elements a workload cannot hold"))?;
                let name = op.attribute("name").ok().and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).unwrap_or_default();
                self.channels.push(super::Channel { name, sizes: htp_ir::builder::shape_of(ring), element });
                steps.push(Step::Channel { dst: result(frame, 0)?, index: self.channels.len() - 1 });
            }
            "wsp.dense" => {
                let size = slot(0)?;
                steps.push(Step::Dense { dst: result(frame, 0)?, size });
            }
            "wsp.ragged" => {
                let element = element_of(inputs[1].r#type()).ok_or_else(|| error(op, "lengths of unknown elements"))?;
                let (size, lengths) = (slot(0)?, slot(1)?);
                steps.push(Step::Ragged { dst: result(frame, 0)?, size, lengths, element, at: position(op.location()) });
            }
            "wsp.sparse" => {
                let indptr_element = element_of(inputs[1].r#type()).ok_or_else(|| error(op, "indptr of unknown elements"))?;
                let indices_element = element_of(inputs[2].r#type()).ok_or_else(|| error(op, "indices of unknown elements"))?;
                let (rows, indptr, indices) = (slot(0)?, slot(1)?, slot(2)?);
                steps.push(Step::Sparse { dst: result(frame, 0)?, rows, indptr, indices, indptr_element, indices_element, at: position(op.location()) });
            }
            "wsp.element" => {
                let element = element_of(inputs[0].r#type()).ok_or_else(|| error(op, "an element of unknown type"))?;
                let tensor = slot(0)?;
                let indices = (1..inputs.len()).map(slot).collect::<Result<_, _>>()?;
                steps.push(Step::Element { dst: result(frame, 0)?, tensor, indices, element, at: position(op.location()) });
            }
            "scf.for" => {
                let (lower, upper, step) = (slot(0)?, slot(1)?, slot(2)?);
                let initial: Vec<Slot> = (3..inputs.len()).map(slot).collect::<Result<_, _>>()?;
                let (body, arguments) = self.nested(frame, op, 0)?;
                let results = (0..op.result_count()).map(|i| result(frame, i)).collect::<Result<_, _>>()?;
                let carried = initial.into_iter().zip(arguments[1..].iter().copied()).collect();
                steps.push(Step::For { lower, upper, step, iv: arguments[0], carried, body, results });
            }
            "scf.if" => {
                let condition = slot(0)?;
                let (then, _) = self.nested(frame, op, 0)?;
                let (otherwise, _) = self.nested(frame, op, 1)?;
                let results = (0..op.result_count()).map(|i| result(frame, i)).collect::<Result<_, _>>()?;
                steps.push(Step::If { condition, then, otherwise, results });
            }
            "wsp.parallel" | "wsp.sequential" | "wsp.select" => {
                let kind = match name {
                    "wsp.parallel" => LoopKind::Parallel,
                    "wsp.sequential" => LoopKind::Sequential,
                    _ => LoopKind::Select,
                };
                let operands = (0..inputs.len()).map(slot).collect::<Result<_, _>>()?;
                let site = self.loops.len();
                self.loops.push(LoopSite { at: position(op.location()) });
                let (body, indices) = self.nested(frame, op, 0)?;
                steps.push(Step::Loop { kind, operands, indices, body, site });
            }
            "wsp.when" => {
                let predicate = op.attribute("predicate").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).unwrap_or_default();
                let predicate = compare_named(&predicate).ok_or_else(|| error(op, "an unknown predicate"))?;
                let (element, bound) = (slot(0)?, slot(1)?);
                let (body, _) = self.nested(frame, op, 0)?;
                steps.push(Step::When { element, predicate, bound, body });
            }
            "wsp.task" => {
                let site = self.task(frame, op)?;
                steps.push(Step::Task { site });
            }
            "func.call" => {
                let callee = op.attribute("callee").ok().map(|a| a.to_string().trim_start_matches('@').to_string()).unwrap_or_default();
                let function = self.helper(op, &callee)?;
                let arguments = (0..inputs.len()).map(slot).collect::<Result<_, _>>()?;
                let results = (0..op.result_count()).map(|i| result(frame, i)).collect::<Result<_, _>>()?;
                steps.push(Step::Call { function, arguments, results });
            }
            other => {
                return Err(error(
                    op,
                    format!("a workload issues tasks and computes indices; '{other}' belongs in a kernel (call it with wsp.task)"),
                ))
            }
        }
        Ok(())
    }

    /// The index of the helper `name` in the plan's helpers (extracted once).
    fn helper(&mut self, op: OperationRef, name: &str) -> Result<usize, MlirError> {
        if let Some(index) = self.helper_index.get(name) {
            return Ok(*index);
        }
        let function = *self.functions.get(name).ok_or_else(|| error(op, format!("calls '{name}', which is not in the program")))?;
        if function.attribute("htp.kernel").is_ok() {
            return Err(error(op, format!("calls the kernel '{name}' directly: a workload runs kernels as tasks, wsp.task({name}, ...)")));
        }
        // Reserve the index first: a helper may (indirectly) call itself.
        let index = self.helpers.len();
        self.helpers.push(Function::default());
        self.helper_index.insert(name.to_string(), index);
        self.helpers[index] = self.function(function)?;
        Ok(index)
    }

    fn task(&mut self, frame: &mut Frame, op: OperationRef<'c, 'a>) -> Result<usize, MlirError> {
        let kernel = op.attribute("callee").map(|a| a.to_string().trim_start_matches('@').to_string()).map_err(|_| error(op, "a task without a kernel"))?;
        let segments = Some(htp_model_wsp::ir::segments(op)).filter(|s| s.len() == 4).ok_or_else(|| error(op, "internal error: a task without operand segments"))?;
        let inputs = operands(op);
        let slots: Vec<Slot> = inputs.iter().map(|v| frame.of(op, *v)).collect::<Result<_, _>>()?;
        let (keys, rest) = slots.split_at(segments[0]);
        let (arguments, rest) = rest.split_at(segments[1]);
        let (stream, worker) = rest.split_at(segments[2]);
        let access = htp_model_wsp::ir::access(op)
            .map(|modes| {
                modes
                    .iter()
                    .map(|m| match m.as_str() {
                        "in" => Mode::In,
                        "out" => Mode::Out,
                        "inout" => Mode::InOut,
                        _ => Mode::None,
                    })
                    .collect::<Vec<_>>()
            })
            .ok_or_else(|| error(op, "a task without access modes (run wsp-infer-access first)"))?;
        let function = *self.functions.get(&kernel).ok_or_else(|| error(op, format!("no kernel named '{kernel}'")))?;
        let block = entry_block(function).ok_or_else(|| error(op, format!("'{kernel}' has no body")))?;
        let parameters = (0..block.argument_count())
            .filter_map(|i| block.argument(i).ok())
            .map(|argument| {
                let ty = argument.r#type();
                if let (Some(element), Ok(memref)) = (element_of(ty), MemRefType::try_from(ty)) {
                    let dims = (0..memref.rank()).map(|d| match memref.dim_size(d) { Ok(melior::ir::r#type::DimSize::Static(n)) => Some(n as i64), _ => None }).collect();
                    // HTP's only non-identity tensor layout is col_major's `strided<[1, ?...]>`.
                    let column_major = memref.rank() > 1 && unsafe { mlir_sys::mlirAttributeIsAStridedLayout(melior::ir::attribute::AttributeLike::to_raw(&memref.layout())) };
                    Ok(Parameter::Tensor { element, dims, column_major })
                } else {
                    num_of(ty).map(Parameter::Scalar).ok_or_else(|| error(op, format!("'{kernel}' takes a parameter a task cannot pass")))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let site = TaskSite {
            kernel,
            keys: keys.to_vec(),
            arguments: arguments.to_vec(),
            access,
            parameters,
            stream: stream.first().copied(),
            worker: worker.first().copied(),
            at: position(op.location()),
        };
        self.tasks.push(site);
        Ok(self.tasks.len() - 1)
    }
}

fn binary_of(name: &str) -> Option<Binary> {
    if let Some(op) = htp_ir::arith::IntBinary::of(name) {
        return Some(Binary::Int(op));
    }
    Some(match name {
        "arith.addf" => Binary::AddF,
        "arith.subf" => Binary::SubF,
        "arith.mulf" => Binary::MulF,
        "arith.divf" => Binary::DivF,
        "arith.minimumf" | "arith.minnumf" => Binary::MinF,
        "arith.maximumf" | "arith.maxnumf" => Binary::MaxF,
        _ => return None,
    })
}

/// `arith.cmpi` (signed and unsigned) and `arith.cmpf` (ordered and
/// unordered alike: NaN never reaches workload control) predicates.
fn compare_of(float: bool, predicate: i64) -> Option<Compare> {
    use Compare::*;
    if !float {
        return Compare::of(predicate);
    }
    let table: &[Option<Compare>] = &[None, Some(Eq), Some(Sgt), Some(Sge), Some(Slt), Some(Sle), Some(Ne), None, Some(Eq), Some(Sgt), Some(Sge), Some(Slt), Some(Sle), Some(Ne)];
    table.get(usize::try_from(predicate).ok()?).copied().flatten()
}

/// A `wsp.when` predicate by name.
pub fn compare_named(name: &str) -> Option<Compare> {
    Some(match name {
        "eq" => Compare::Eq,
        "ne" => Compare::Ne,
        "lt" => Compare::Slt,
        "le" => Compare::Sle,
        "gt" => Compare::Sgt,
        "ge" => Compare::Sge,
        _ => return None,
    })
}
