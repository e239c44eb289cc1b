//! The `wsp` programming model: what `wsp.<name>(...)` means inside an
//! `@wsp.workload` function. Axes (`dense`, `ragged`, `sparse`), loop
//! constructors (`parallel`, `seq`, `select`), the block `when`, tasks
//! (`task`), and reads of input tensors (`read`) and of elements tasks
//! compute (`element`, for `when` conditions).

use htp_api::models::{
    arguments_of, results_of, Construct, ConstructSite, LoopBody, LoopConstructor, ModelIr, ModelType, ModelValue, ProgrammingModel,
    TensorView, ViewExtent,
};
use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute, StringAttribute},
    operation::{OperationLike, OperationResult},
    r#type::{MemRefType, ShapedTypeLike},
    Attribute, Type, TypeLike, ValueLike,
};

use crate::pipe::constructs as pipe;
use crate::AxisKind;

/// The model, as registered.
pub static WSP: ProgrammingModel = ProgrammingModel {
    name: crate::MODEL_NAME,
    namespace: "wsp",
    description: "workloads of kernel tasks over dense, ragged and sparse iteration spaces, dispatched by a schedule (docs/wsp.md)",
    entry_decorator: "workload",
    dialects: &["wsp", "scf", "arith", "memref"],
    rules: &["wsp"],
    constructs: &[
        Construct { name: "dense", summary: "an axis of n elements: wsp.dense(n)", lower: dense },
        Construct { name: "ragged", summary: "n elements, element i of lengths[i] positions: wsp.ragged(n, lengths)", lower: ragged },
        Construct { name: "sparse", summary: "a CSR axis: wsp.sparse(rows, indptr, indices)", lower: sparse },
        Construct { name: "task", summary: "a kernel called as a task on views: wsp.task(k, x[i:i + 16, :], ..., keys=(i,))", lower: task },
        Construct { name: "read", summary: "an element of an input tensor, read as the workload runs: wsp.read(lengths, b)", lower: read },
        Construct { name: "cores", summary: "how many tasks can run at once where the workload runs: wsp.cores()", lower: cores },
        Construct { name: "element", summary: "an element a task may compute, read when the tasks it guards run: wsp.when(wsp.element(c, e) > 0)", lower: element },
        Construct { name: "channel", summary: "a pipe's channel, a ring of depth tensors: wsp.channel(f32, (16, 64), depth=2, name=\"staged\")", lower: pipe::channel },
        Construct { name: "send", summary: "a task filling a channel's next slot, its kernel's last argument: wsp.send(c, load, x[i:i + 16, :])", lower: pipe::send },
    ],
    loops: &[
        LoopConstructor { name: "parallel", summary: "for i, j in wsp.parallel(A, B): independent iterations over the product of axes", lower: parallel },
        LoopConstructor { name: "seq", summary: "for i in wsp.seq(A): each iteration's tasks after the previous iteration's", lower: sequential },
        LoopConstructor { name: "select", summary: "for e in wsp.select(n, predicate): the i < n whose predicate[i] is not zero", lower: select },
    ],
    blocks: &[
        LoopConstructor { name: "when", summary: "with wsp.when(wsp.element(t, i) > v): tasks issued only when it holds", lower: when },
        LoopConstructor { name: "pipe", summary: "with wsp.pipe(): processes that iterate together, handing tensors over channels", lower: pipe::pipe },
        LoopConstructor { name: "process", summary: "with wsp.process(name=\"load\"): one process of a pipe, a chain of tasks", lower: pipe::process },
        LoopConstructor { name: "produce", summary: "with wsp.produce(c) as slot: tasks writing the channel's next slot", lower: pipe::produce },
        LoopConstructor { name: "consume", summary: "with wsp.consume(c) as t: tasks reading the channel's oldest filled slot", lower: pipe::consume },
    ],
    types: &[ModelType { name: "Axis", summary: "an iteration-space axis (a parameter of a helper a workload calls)", matches: is_axis }],
    pipeline: Some("wsp-lower-pipes,wsp-infer-access"),
    python: Some(include_str!("../python/schedule.py")),
};

/// `operandSegmentSizes` of an op with variadic operand groups.
fn segments_of<'c>(site: &ConstructSite<'c, '_>, sizes: &[i32]) -> Attribute<'c> {
    melior::ir::attribute::DenseI32ArrayAttribute::new(site.context, sizes).into()
}

fn is_axis(ty: Type) -> bool {
    AxisKind::of(ty).is_some()
}

fn constant<'c>(site: &ConstructSite<'c, '_>, attribute: Attribute<'c>, ty: Type<'c>) -> Result<ModelIr<'c>, String> {
    Ok(site.emit("arith.constant", &[], &[ty], &[("value", attribute)])?[0])
}

/// An `index` from a Python int or a run-time integer.
fn index<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>, what: &str) -> Result<ModelIr<'c>, String> {
    site.index(value)?.ok_or_else(|| format!("{what} must be an integer"))
}

/// A whole tensor argument (a parameter of the workload).
fn tensor<'c>(value: &ModelValue<'c>, what: &str) -> Result<ModelIr<'c>, String> {
    match value {
        ModelValue::Value(v) if v.r#type().is_mem_ref() => Ok(*v),
        _ => Err(format!("{what} must be a tensor parameter of the workload (the whole tensor, not a block of it)")),
    }
}

fn dense<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [size] = site.positional else { return Err("takes the number of elements: wsp.dense(n)".into()) };
    let size = index(site, size, "the size")?;
    Ok(ModelValue::Value(site.emit("wsp.dense", &[size], &[AxisKind::Dense.r#type(site.context)], &[])?[0]))
}

fn ragged<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [size, lengths] = site.positional else { return Err("takes the number of elements and their lengths: wsp.ragged(n, lengths)".into()) };
    let size = index(site, size, "the size")?;
    let lengths = tensor(lengths, "the lengths")?;
    Ok(ModelValue::Value(site.emit("wsp.ragged", &[size, lengths], &[AxisKind::Ragged.r#type(site.context)], &[])?[0]))
}

fn sparse<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [rows, indptr, indices] = site.positional else { return Err("takes rows, indptr and indices: wsp.sparse(n, indptr, indices)".into()) };
    let rows = index(site, rows, "the number of rows")?;
    let (indptr, indices) = (tensor(indptr, "indptr")?, tensor(indices, "indices")?);
    Ok(ModelValue::Value(site.emit("wsp.sparse", &[rows, indptr, indices], &[AxisKind::Sparse.r#type(site.context)], &[])?[0]))
}

/// The tensor and the indices of `wsp.read(t, i, ...)` / `wsp.element(t, i, ...)`.
fn element_address<'c>(site: &ConstructSite<'c, '_>, what: &str) -> Result<(ModelIr<'c>, Vec<ModelIr<'c>>), String> {
    let Some((first, rest)) = site.positional.split_first() else { return Err(format!("takes a tensor and one index per dimension: {what}(t, i, ...)")) };
    let tensor = tensor(first, "the first argument")?;
    let memref = MemRefType::try_from(tensor.r#type()).map_err(|_| "expected a tensor")?;
    let rank = memref.rank();
    let mut indices = Vec::new();
    // A 1-D tensor is a 1xN matrix in a workload (as in kernels): one index.
    if rank == 2 && rest.len() == 1 && matches!(memref.dim_size(0), Ok(melior::ir::r#type::DimSize::Static(1))) {
        indices.push(index(site, &ModelValue::Int(0), "an index")?);
    } else if rest.len() != rank {
        return Err(format!("takes one index per dimension of the rank-{rank} tensor, got {}", rest.len()));
    }
    for i in rest {
        indices.push(index(site, i, "an index")?);
    }
    Ok((tensor, indices))
}

fn element_type(tensor: ModelIr) -> Result<Type, String> {
    Ok(MemRefType::try_from(tensor.r#type()).map_err(|_| "expected a tensor")?.element())
}

fn cores<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    if !site.positional.is_empty() || !site.keywords.is_empty() {
        return Err("takes no arguments: wsp.cores()".into());
    }
    Ok(ModelValue::Value(site.emit("wsp.cores", &[], &[Type::index(site.context)], &[])?[0]))
}

fn read<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let (tensor, indices) = element_address(site, "wsp.read")?;
    let element = element_type(tensor)?;
    if !element.is_integer() && !element.is_index() {
        return Err("reads integers (lengths, offsets, counts): the tensor's elements are not integers".into());
    }
    let mut operands = vec![tensor];
    operands.extend(indices);
    let value = site.emit("memref.load", &operands, &[element], &[])?[0];
    let index = Type::index(site.context);
    if element == index {
        return Ok(ModelValue::Value(value));
    }
    Ok(ModelValue::Value(site.emit("arith.index_cast", &[value], &[index], &[])?[0]))
}

fn element<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let (tensor, indices) = element_address(site, "wsp.element")?;
    let element = element_type(tensor)?;
    let mut operands = vec![tensor];
    operands.extend(indices);
    Ok(ModelValue::Value(site.emit("wsp.element", &operands, &[element], &[])?[0]))
}

/// A task argument for the kernel parameter of type `parameter`: a block
/// of a tensor becomes a `wsp.view`, a whole tensor passes as it is, a
/// Python number becomes a constant of the parameter's type, a run-time
/// integer (a loop index) is converted to the parameter's integer type.
/// What cannot fill the parameter is an error naming it.
fn task_argument<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>, parameter: Type<'c>, what: &str) -> Result<ModelIr<'c>, String> {
    let context = site.context;
    let is_int = |t: Type| t.is_integer() || t.is_index();
    let argument = match value {
        ModelValue::View(view) => view_of(site, view)?,
        ModelValue::Value(v) if v.r#type() == parameter => *v,
        ModelValue::Value(v) if is_int(v.r#type()) && is_int(parameter) => {
            let cast = if v.r#type().is_index() || parameter.is_index() {
                "arith.index_cast"
            } else if htp_ir::builder::bit_width(v.r#type()) < htp_ir::builder::bit_width(parameter) {
                "arith.extsi"
            } else {
                "arith.trunci"
            };
            site.emit(cast, &[*v], &[parameter], &[])?[0]
        }
        ModelValue::Value(v) => *v,
        ModelValue::Int(n) if is_int(parameter) => constant(site, IntegerAttribute::new(parameter, *n).into(), parameter)?,
        ModelValue::Int(n) if htp_ir::builder::is_float(parameter) => constant(site, FloatAttribute::new(context, parameter, *n as f64).into(), parameter)?,
        ModelValue::Float(f) if htp_ir::builder::is_float(parameter) => constant(site, FloatAttribute::new(context, parameter, *f).into(), parameter)?,
        ModelValue::Bool(b) if is_int(parameter) => constant(site, IntegerAttribute::new(parameter, *b as i64).into(), parameter)?,
        ModelValue::Int(_) | ModelValue::Float(_) | ModelValue::Bool(_) => {
            return Err(format!("{what} takes a {parameter}, got a Python {}", match value { ModelValue::Int(_) => "int", ModelValue::Float(_) => "float", _ => "bool" }))
        }
        _ => return Err("a task takes blocks of tensors (x[i:i + 16, :]), tensors and scalars".into()),
    };
    check_argument(argument.r#type(), parameter, what)?;
    Ok(argument)
}

/// The rules `wsp.task`'s verifier holds, checked here so that a mistake is
/// reported at the user's call.
fn check_argument(given: Type, parameter: Type, what: &str) -> Result<(), String> {
    let (Ok(view), Ok(tensor)) = (MemRefType::try_from(given), MemRefType::try_from(parameter)) else {
        return if given == parameter { Ok(()) } else { Err(format!("{what} takes a {parameter}, got a {given}")) };
    };
    if view.element() != tensor.element() {
        return Err(format!("{what} holds {}, the view holds {}", tensor.element(), view.element()));
    }
    if view.rank() != tensor.rank() {
        return Err(format!("{what} is a rank-{} tensor, the view has rank {}", tensor.rank(), view.rank()));
    }
    use melior::ir::r#type::DimSize::Static;
    for d in 0..view.rank() {
        if let (Ok(Static(a)), Ok(Static(b))) = (view.dim_size(d), tensor.dim_size(d)) {
            if a != b {
                return Err(format!("{what} has {b} elements in dimension {d}, the view {a}"));
            }
        }
    }
    Ok(())
}

/// The parameter types of the kernel `name`, lowered before the workload.
pub(crate) fn kernel_parameters<'c>(site: &ConstructSite<'c, '_>, name: &str) -> Result<Vec<Type<'c>>, String> {
    // Kernels are lowered before workloads: one missing is a helper (inlined
    // where it is called, never a function of its own) or a kernel that
    // failed to compile (its errors are reported too).
    let function = site.function(name).ok_or_else(|| {
        format!("'{name}' is not a compiled @htp.kernel: a task runs an @htp.kernel (a kernel that failed to compile has its own errors above)")
    })?;
    if function.attribute("htp.kernel").is_err() {
        return Err(format!("'{name}' is not an @htp.kernel: a task runs a kernel"));
    }
    let ty = function.attribute("function_type").ok().and_then(|a| melior::ir::attribute::TypeAttribute::try_from(a).ok()).map(|t| t.value());
    let function_type = ty.and_then(|t| melior::ir::r#type::FunctionType::try_from(t).ok()).ok_or_else(|| format!("'{name}' has no signature"))?;
    Ok((0..function_type.input_count()).filter_map(|i| function_type.input(i).ok()).collect())
}

/// `wsp.view` of the block `view` names: its last two dimensions (the one
/// dimension of a 1-D tensor), valid extents as sizes.
fn view_of<'c>(site: &ConstructSite<'c, '_>, view: &TensorView<'c>) -> Result<ModelIr<'c>, String> {
    let tensor_type = MemRefType::try_from(view.tensor.r#type()).map_err(|_| "expected a tensor")?;
    let rank = tensor_type.rank();
    let extents: Vec<ViewExtent> = if rank == 1 { vec![view.valid[1]] } else { view.valid.to_vec() };
    let mut sizes = Vec::new();
    let mut dims = Vec::new();
    for extent in extents {
        match extent {
            ViewExtent::Static(n) => {
                sizes.push(index(site, &ModelValue::Int(n), "a size")?);
                dims.push(n);
            }
            ViewExtent::Dynamic(v) => {
                sizes.push(v);
                dims.push(i64::MIN); // ShapedType::kDynamic
            }
        }
    }
    let result: Type = MemRefType::new(tensor_type.element(), &dims, None, None).into();
    let mut operands = view.offsets.clone();
    if operands.len() != rank {
        return Err(format!("a block of a rank-{rank} tensor needs {rank} offsets, got {}", operands.len()));
    }
    operands.insert(0, view.tensor);
    operands.extend(sizes.iter().copied());
    let segments = segments_of(site, &[1, rank as i32, sizes.len() as i32]);
    Ok(site.emit("wsp.view", &operands, &[result], &[("operandSegmentSizes", segments)])?[0])
}

pub(crate) fn task<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let Some((ModelValue::Function(kernel), arguments)) = site.positional.split_first() else {
        return Err("takes the kernel first: wsp.task(kernel, arguments..., keys=(i, j))".into());
    };
    let (mut keys, mut stream, mut worker) = (Vec::new(), None, None);
    for (name, value) in site.keywords {
        match (name.as_str(), value) {
            ("keys", ModelValue::Tuple(items)) => {
                for item in items {
                    keys.push(index(site, item, "a key")?);
                }
            }
            ("keys", single) => keys.push(index(site, single, "a key")?),
            ("stream", value) => stream = Some(index(site, value, "the stream")?),
            ("worker", value) => worker = Some(index(site, value, "the worker")?),
            (other, _) => return Err(format!("takes no keyword '{other}' (keys=, stream=, worker=)")),
        }
    }
    let parameters = kernel_parameters(site, kernel)?;
    if parameters.len() != arguments.len() {
        return Err(format!("passes {} arguments to '{kernel}', which takes {}", arguments.len(), parameters.len()));
    }
    let arguments = arguments
        .iter()
        .zip(&parameters)
        .enumerate()
        .map(|(i, (a, p))| task_argument(site, a, *p, &format!("argument #{i} of '{kernel}'")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut operands = keys.clone();
    operands.extend(arguments.iter().copied());
    operands.extend(stream);
    operands.extend(worker);
    let callee = Attribute::parse(site.context, &format!("@{kernel}")).ok_or("cannot name the kernel")?;
    let segments = segments_of(site, &[keys.len() as i32, arguments.len() as i32, stream.is_some() as i32, worker.is_some() as i32]);
    site.emit("wsp.task", &operands, &[], &[("callee", callee), ("operandSegmentSizes", segments)])?;
    Ok(ModelValue::None)
}

/// A wsp loop's body: the block's arguments are the indices; nothing is
/// carried (tasks communicate through tensors).
fn body<'c>(site: &ConstructSite<'c, '_>, name: &str, operands: &[ModelIr<'c>], indices: usize) -> Result<LoopBody<'c>, String> {
    if !site.carried.is_empty() {
        return Err("a wsp loop cannot change variables of the workload (tasks communicate through tensors)".into());
    }
    let index = Type::index(site.context);
    let (_, block) = site.emit_loop(name, operands, &[], &[], &vec![index; indices])?;
    Ok(LoopBody { block, target: arguments_of(block), carried: vec![], results: vec![], terminator: Some("wsp.yield") })
}

/// An axis from an axis value or a size (a dense axis).
fn axis<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>) -> Result<(ModelIr<'c>, AxisKind), String> {
    if let ModelValue::Value(v) = value {
        if let Some(kind) = AxisKind::of(v.r#type()) {
            return Ok((*v, kind));
        }
    }
    let size = index(site, value, "an axis (wsp.dense/ragged/sparse, or a size)")?;
    Ok((site.emit("wsp.dense", &[size], &[AxisKind::Dense.r#type(site.context)], &[])?[0], AxisKind::Dense))
}

fn parallel<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    if site.positional.is_empty() {
        return Err("takes one or more axes: wsp.parallel(A, B)".into());
    }
    let axes = site.positional.iter().map(|a| axis(site, a)).collect::<Result<Vec<_>, _>>()?;
    let indices = axes.iter().map(|(_, kind)| kind.indices()).sum();
    let operands: Vec<ModelIr> = axes.iter().map(|(v, _)| *v).collect();
    body(site, "wsp.parallel", &operands, indices)
}

fn sequential<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    let [one] = site.positional else { return Err("takes one axis: wsp.seq(A)".into()) };
    let (value, kind) = axis(site, one)?;
    body(site, "wsp.sequential", &[value], kind.indices())
}

fn select<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    let [size, predicate] = site.positional else { return Err("takes a size and a predicate tensor: wsp.select(n, counts)".into()) };
    let size = index(site, size, "the size")?;
    let predicate = tensor(predicate, "the predicate")?;
    body(site, "wsp.select", &[size, predicate], 1)
}

/// `arith.cmpi`'s predicates by number, as `wsp.when` names them (signed
/// and unsigned alike: elements are counts and lengths).
const CMPI: [&str; 10] = ["eq", "ne", "lt", "le", "gt", "ge", "lt", "le", "gt", "ge"];
/// `arith.cmpf`'s ordered predicates (1..=6) and unordered (8..=13).
const CMPF: [&str; 16] = ["", "eq", "gt", "ge", "lt", "le", "ne", "", "eq", "gt", "ge", "lt", "le", "ne", "", ""];

/// The predicate that holds for (b, a) when `name` holds for (a, b).
fn swapped(name: &str) -> &'static str {
    match name {
        "lt" => "gt",
        "le" => "ge",
        "gt" => "lt",
        "ge" => "le",
        "eq" => "eq",
        _ => "ne",
    }
}

fn defined_by<'c>(value: ModelIr<'c>, name: &str) -> bool {
    OperationResult::try_from(value).is_ok_and(|r| r.owner().name().as_string_ref().as_str() == Ok(name))
}

/// The `wsp.element` `value` is, or is an integer cast of (the front end
/// casts an i32 element to compare it with an index).
fn element_behind<'c>(value: ModelIr<'c>) -> Option<ModelIr<'c>> {
    if defined_by(value, "wsp.element") {
        return Some(value);
    }
    let cast = OperationResult::try_from(value).ok()?.owner();
    let name = cast.name().as_string_ref().as_str().ok()?.to_string();
    if !matches!(name.as_str(), "arith.index_cast" | "arith.extsi" | "arith.sitofp") {
        return None;
    }
    let source = cast.operand(0).ok()?;
    let source: ModelIr<'c> = unsafe { melior::ir::Value::from_raw(source.to_raw()) };
    defined_by(source, "wsp.element").then_some(source)
}

/// Erases `op` when its results have no uses; whether it did.
fn erase_if_unused(op: melior::ir::OperationRef) -> bool {
    let unused = (0..op.result_count()).all(|i| op.result(i).is_ok_and(|r| htp_ir::query::uses(htp_ir::builder::detach(r.into())).is_empty()));
    if unused {
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    unused
}

/// `bound` as a value of type `ty` (the element's): integers converted.
fn same_type<'c>(site: &ConstructSite<'c, '_>, bound: ModelIr<'c>, ty: Type<'c>) -> Result<ModelIr<'c>, String> {
    let from = bound.r#type();
    if from == ty {
        return Ok(bound);
    }
    let is_int = |t: Type| t.is_integer() || t.is_index();
    if !(is_int(from) && is_int(ty)) {
        return Err(format!("compares a {ty} element with a {from} value: convert the value (htp.{ty}(...))"));
    }
    let cast = if from.is_index() || ty.is_index() {
        "arith.index_cast"
    } else if htp_ir::builder::bit_width(from) < htp_ir::builder::bit_width(ty) {
        "arith.extsi"
    } else {
        "arith.trunci"
    };
    Ok(site.emit(cast, &[bound], &[ty], &[])?[0])
}

fn when<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    const USAGE: &str = "takes a comparison of a wsp.element with a value: wsp.when(wsp.element(counts, e) > 0)";
    let [ModelValue::Value(condition)] = site.positional else { return Err(USAGE.into()) };
    let (element, predicate, bound, comparison) = if defined_by(*condition, "wsp.element") {
        let element_type = condition.r#type();
        let zero: Attribute = if element_type.is_integer() || element_type.is_index() {
            IntegerAttribute::new(element_type, 0).into()
        } else {
            FloatAttribute::new(site.context, element_type, 0.0).into()
        };
        (*condition, "ne", constant(site, zero, element_type)?, None)
    } else {
        let compare = OperationResult::try_from(*condition).map_err(|_| USAGE)?.owner();
        let table: &[&str] = match compare.name().as_string_ref().as_str() {
            Ok("arith.cmpi") => &CMPI,
            Ok("arith.cmpf") => &CMPF,
            _ => return Err(USAGE.into()),
        };
        let number = compare.attribute("predicate").ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|a| a.value()).ok_or(USAGE)?;
        let name = table.get(number as usize).copied().filter(|n| !n.is_empty()).ok_or("this comparison cannot guard tasks")?;
        let (lhs, rhs) = (compare.operand(0).map_err(|e| e.to_string())?, compare.operand(1).map_err(|e| e.to_string())?);
        let (lhs, rhs): (ModelIr, ModelIr) = unsafe { (melior::ir::Value::from_raw(lhs.to_raw()), melior::ir::Value::from_raw(rhs.to_raw())) };
        if let Some(element) = element_behind(lhs) {
            (element, name, same_type(site, rhs, element.r#type())?, Some(compare))
        } else if let Some(element) = element_behind(rhs) {
            (element, swapped(name), same_type(site, lhs, element.r#type())?, Some(compare))
        } else {
            return Err(USAGE.into());
        }
    };
    if !site.carried.is_empty() {
        return Err("a wsp.when block cannot change variables of the workload (tasks communicate through tensors)".into());
    }
    let predicate_attribute = StringAttribute::new(site.context, predicate).into();
    let (op, block) = site.emit_loop("wsp.when", &[element, bound], &[], &[("predicate", predicate_attribute)], &[])?;
    // The comparison (and the cast of the element it compared) were only
    // the condition's spelling: the when op holds it. Nothing may read an
    // element but a guard, so they go.
    if let Some(compare) = comparison {
        let operands: Vec<ModelIr> = (0..compare.operand_count()).filter_map(|i| compare.operand(i).ok()).map(|v| unsafe { melior::ir::Value::from_raw(v.to_raw()) }).collect();
        if erase_if_unused(compare) {
            for operand in operands {
                if let Ok(cast) = OperationResult::try_from(operand) {
                    if element_behind(operand).is_some() && !defined_by(operand, "wsp.element") {
                        erase_if_unused(cast.owner());
                    }
                }
            }
        }
    }
    let _ = results_of(op);
    Ok(LoopBody { block, target: vec![], carried: vec![], results: vec![], terminator: Some("wsp.yield") })
}
