//! A `pto.orchestration` function -> the orchestration C++ source of the
//! `tensormap_and_ringbuffer` runtime: `aicpu_orchestration_entry` reads the
//! callable's tensors and scalars and submits one task per `pto.submit`
//! (dependencies come from the tensors each task reads and writes).

use std::{collections::HashMap, sync::OnceLock};

use melior::ir::{
    block::BlockLike,
    operation::OperationLike,
    OperationRef, RegionLike, ValueLike,
};

use crate::emit::writer::{c_type, op_name, Ops, SourceLines, Writer};
use crate::ods::pto;
use crate::ops::PtoOp;

/// The C++ type of a scalar in the orchestration, which the host compiler
/// builds: it has no `half`/`bfloat16_t`, so 16-bit floats travel as their
/// bits (the orchestration only forwards them; kernels read them back as
/// `half`/`bfloat16_t` from the same bits).
pub fn host_type(ty: melior::ir::Type) -> Result<&'static str, String> {
    match c_type(ty)? {
        "half" | "bfloat16_t" => Ok("uint16_t"),
        other => Ok(other),
    }
}

/// The C++ interface through which a called orchestration function submits
/// its tasks (see [`Orchestration::call_orchestration`]): the caller decides
/// how each task is submitted (it may add dependencies or a dispatch
/// predicate to `args`, count tasks, ...) and submits it.
pub const SUBMITTER_PRELUDE: &str = "// How a called orchestration function submits its tasks: through its caller.
struct HtpSubmitter {
    virtual TaskOutputTensors submit(const MixedKernels &kernels, CoreTaskArgs &args) = 0;
};

// Submits as it is asked to (a call without a caller's policy).
struct HtpDirectSubmitter final : HtpSubmitter {
    TaskOutputTensors submit(const MixedKernels &kernels, CoreTaskArgs &args) override { return rt_submit_task(kernels, args); }
};";

/// The C++ name of the function a called orchestration function `name`
/// becomes: `static void htp_orchestration_<name>(HtpSubmitter &, arguments...)`.
pub fn orchestration_function(name: &str) -> String {
    format!("htp_orchestration_{}", super::names::identifiers(&[name.to_string()])[0])
}

/// The C++ name of a scalar helper function an orchestration calls.
fn helper_function(name: &str) -> String {
    format!("htp_helper_{}", super::names::identifiers(&[name.to_string()])[0])
}

/// The module that holds `op`.
fn module_of(op: OperationRef) -> Option<mlir_sys::MlirOperation> {
    let mut current = unsafe { mlir_sys::mlirOperationGetParentOperation(op.to_raw()) };
    while !current.ptr.is_null() {
        let parent = unsafe { mlir_sys::mlirOperationGetParentOperation(current) };
        if parent.ptr.is_null() {
            return Some(current);
        }
        current = parent;
    }
    None
}

/// The function named `name` in `module`.
fn function_named<'a>(module: mlir_sys::MlirOperation, name: &str) -> Option<OperationRef<'a, 'a>> {
    let module = unsafe { OperationRef::from_raw(module) };
    let mut op = module.region(0).ok()?.first_block()?.first_operation();
    while let Some(current) = op {
        let symbol = current.attribute("sym_name").ok().and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok());
        if symbol.is_some_and(|s| s.value() == name) {
            return Some(unsafe { OperationRef::from_raw(current.to_raw()) });
        }
        op = current.next_in_block();
    }
    None
}

/// `parameters`: the callable's argument names in order; `func_ids`: the
/// kernel function name -> its func_id in the package.
///
/// The entry may call other functions of the module (`func.call`, or an op
/// emitter through [`Orchestration::call_orchestration`]): each one called
/// becomes a `static` C++ function before the entry (an orchestration
/// function takes an `HtpSubmitter &` first and submits through it; a
/// scalar helper returns its one result), and op emitters may add top-level
/// C++ ([`Orchestration::require_prelude`]) and lines at the start of the
/// entry ([`Orchestration::preamble_once`]). An orchestration that uses none
/// of these is written as before.
pub fn emit(function: OperationRef, parameters: &[String], func_ids: &HashMap<String, usize>, lines: SourceLines, banner: &str) -> Result<String, String> {
    let mut state = Orchestration::new(func_ids, module_of(function));
    let mut w = Writer::new(lines);
    let body = function.region(0).map_err(|e| e.to_string())?.first_block().ok_or("an orchestration without a body")?;
    let count = body.argument_count();
    w.line("extern \"C\" {");
    w.line("");
    w.open("__attribute__((visibility(\"default\"))) PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs &orch_args) {");
    w.line("(void)orch_args;");
    w.line(&format!("return PTO2OrchestrationConfig{{.expected_arg_count = {count}}};"));
    w.close("}");
    w.line("");
    w.open("__attribute__((visibility(\"default\"))) void aicpu_orchestration_entry(const ChipTaskArgs &orch_args) {");
    let (mut tensors, mut scalars) = (0, 0);
    for index in 0..count {
        let argument = body.argument(index).map_err(|e| e.to_string())?;
        let name = parameters.get(index).cloned().unwrap_or_else(|| format!("arg{index}"));
        let ty = argument.r#type();
        if htp_ir::builder::is_memref(ty) {
            w.line(&format!("const ChipTensor &{name} = orch_args.tensor({tensors}).ref();"));
            tensors += 1;
        } else {
            let c = host_type(ty)?;
            w.line(&format!("const {c} {name} = from_u64<{c}>(orch_args.scalar({scalars}));"));
            scalars += 1;
        }
        w.reserve(&name);
        w.bind(argument.into(), name);
    }
    let preamble_at = w.out.len();
    w.block(body, &mut state)?;
    w.close("}");
    w.line("");
    w.line("}  // extern \"C\"");
    let mut entry = w.out;
    let preamble: String = state.preamble.iter().map(|(_, line)| format!("    {line}\n")).collect();
    entry.insert_str(preamble_at, &preamble);

    // The called functions, each written once (callees first: C++ declares before use).
    let mut functions: Vec<String> = Vec::new();
    let mut written = std::collections::HashSet::new();
    while let Some(name) = state.pending.pop() {
        if !written.insert(name.clone()) {
            continue;
        }
        let callee = state.module.and_then(|m| function_named(m, &name)).ok_or_else(|| format!("the orchestration calls '{name}', which is not in the module"))?;
        functions.push(state.function(callee, &name, lines)?);
    }
    functions.reverse();

    let mut out = String::new();
    let mut top = Writer::new(lines);
    top.line(banner);
    top.line("#include <stddef.h>");
    top.line("#include <stdint.h>");
    top.line("#include <algorithm>");
    top.line("#include \"pto_orchestration_api.h\"");
    top.line("");
    out.push_str(&top.out);
    for (_, text) in &state.prelude {
        out.push_str(text.trim_end());
        out.push_str("\n\n");
    }
    for text in functions {
        out.push_str(&text);
        out.push('\n');
    }
    out.push_str(&entry);
    Ok(out)
}

/// What an op emitter sees of the orchestration being written: the
/// kernels' func_ids and the tasks submitted so far, and what it may add
/// around the op's own C++ (top-level C++, lines at the start of the entry,
/// calls of other orchestration functions).
pub struct Orchestration<'a> {
    /// The kernel function name -> its func_id in the package.
    pub func_ids: &'a HashMap<String, usize>,
    /// Tasks submitted so far.
    pub tasks: usize,
    /// Named blocks of top-level C++, in the order first required.
    prelude: Vec<(String, String)>,
    /// Lines at the start of the entry's body, by key.
    preamble: Vec<(String, String)>,
    /// Functions called and not yet written.
    pending: Vec<String>,
    /// In a called orchestration function: the submitter its tasks go through.
    submitter: Option<String>,
    /// In a called scalar helper: it returns its results.
    returns: bool,
    module: Option<mlir_sys::MlirOperation>,
}

impl<'a> Orchestration<'a> {
    fn new(func_ids: &'a HashMap<String, usize>, module: Option<mlir_sys::MlirOperation>) -> Self {
        Orchestration { func_ids, tasks: 0, prelude: Vec::new(), preamble: Vec::new(), pending: Vec::new(), submitter: None, returns: false, module }
    }

    /// Adds the top-level C++ `text` under `name` before the orchestration's
    /// functions (once: the same name again is a no-op).
    pub fn require_prelude(&mut self, name: &str, text: &str) {
        if !self.prelude.iter().any(|(n, _)| n == name) {
            self.prelude.push((name.to_string(), text.to_string()));
        }
    }

    /// Adds `line` at the start of the entry's body, once per `key`
    /// (a declaration every op of the entry may use). Returns whether it was new.
    pub fn preamble_once(&mut self, key: &str, line: &str) -> bool {
        if self.preamble.iter().any(|(k, _)| k == key) {
            return false;
        }
        self.preamble.push((key.to_string(), line.to_string()));
        true
    }

    /// The shapes of the tensor parameters of the module's function `name`
    /// (empty for a scalar; `ShapedType::kDynamic`, negative, where dynamic).
    pub fn parameter_shapes(&self, name: &str) -> Vec<Vec<i64>> {
        let Some(block) = self.module.and_then(|m| function_named(m, name)).and_then(|f| f.region(0).ok()).and_then(|r| r.first_block()) else { return Vec::new() };
        (0..block.argument_count())
            .filter_map(|i| block.argument(i).ok())
            .map(|a| if htp_ir::builder::is_memref(a.r#type()) { htp_ir::builder::shape_of(a.r#type()) } else { Vec::new() })
            .collect()
    }

    /// Whether the op being written is in a called orchestration function
    /// (its tasks go through the caller's submitter).
    pub fn in_called_function(&self) -> bool {
        self.submitter.is_some() || self.returns
    }

    /// The `pto.orchestration` function `callee` of the module: writes
    /// `htp_orchestration_<callee>(submitter, arguments...)`, a call of the C++
    /// function it becomes (written once, before the entry). `submitter`
    /// names an `HtpSubmitter` (a subclass the caller defines in its
    /// prelude, or `HtpDirectSubmitter`); `arguments` are C++ expressions:
    /// `ChipTensor`s (views of the caller's tensors, say) and scalars, in
    /// the callee's parameter order.
    pub fn call_orchestration(&mut self, w: &mut Writer, callee: &str, submitter: &str, arguments: &[String]) -> Result<(), String> {
        let function = self.module.and_then(|m| function_named(m, callee)).ok_or_else(|| format!("no orchestration function named '{callee}'"))?;
        if function.attribute(crate::ops::ORCHESTRATION_ATTRIBUTE).is_err() {
            return Err(format!("'{callee}' is not an orchestration function"));
        }
        self.require_prelude("htp-submitter", SUBMITTER_PRELUDE);
        self.pending.push(callee.to_string());
        let mut all = vec![submitter.to_string()];
        all.extend(arguments.iter().cloned());
        w.line(&format!("{}({});", orchestration_function(callee), all.join(", ")));
        Ok(())
    }

    /// `func.call`: of an orchestration function (through the direct
    /// submitter, or this function's own), or of a scalar helper.
    fn call(&mut self, w: &mut Writer, op: OperationRef) -> Result<(), String> {
        let callee = op.attribute("callee").map_err(|e| e.to_string())?.to_string().trim_start_matches('@').to_string();
        let arguments: Vec<String> = op.operands().map(|v| w.name(v)).collect::<Result<_, _>>()?;
        let function = self.module.and_then(|m| function_named(m, &callee)).ok_or_else(|| format!("calls '{callee}', which is not in the module"))?;
        if function.attribute(crate::ops::ORCHESTRATION_ATTRIBUTE).is_ok() {
            let submitter = match &self.submitter {
                Some(submitter) => submitter.clone(),
                None => {
                    self.require_prelude("htp-submitter", SUBMITTER_PRELUDE);
                    self.preamble_once("htp-direct-submitter", "HtpDirectSubmitter htp_direct;");
                    "htp_direct".to_string()
                }
            };
            return self.call_orchestration(w, &callee, &submitter, &arguments);
        }
        if function.attribute(crate::ops::CORE_ATTRIBUTE).is_ok() {
            return Err(format!("an orchestration submits the kernel '{callee}' as a task; it cannot call it"));
        }
        self.pending.push(callee.clone());
        let call = format!("{}({})", helper_function(&callee), arguments.join(", "));
        match op.result_count() {
            0 => w.line(&format!("{call};")),
            1 => {
                let result = op.result(0).map_err(|e| e.to_string())?;
                let name = w.fresh("called");
                w.line(&format!("const {} {name} = {call};", c_type(result.r#type())?));
                w.bind(result.into(), name);
            }
            n => return Err(format!("'{callee}' returns {n} values; an orchestration calls helpers of at most one result")),
        }
        Ok(())
    }

    /// The C++ of the called function `function` (its own names).
    fn function(&mut self, function: OperationRef, name: &str, lines: SourceLines) -> Result<String, String> {
        let body = function.region(0).map_err(|e| e.to_string())?.first_block().ok_or_else(|| format!("'{name}' has no body"))?;
        let infos = super::package::arguments_of(function, &|_, _| None)?;
        let names = super::names::identifiers(&infos.iter().map(|a| a.name.clone()).collect::<Vec<_>>());
        let mut w = Writer::new(lines);
        let orchestration = function.attribute(crate::ops::ORCHESTRATION_ATTRIBUTE).is_ok();
        let mut parameters = Vec::new();
        if orchestration {
            parameters.push("HtpSubmitter &htp_submitter".to_string());
            w.reserve("htp_submitter");
        }
        for index in 0..body.argument_count() {
            let argument = body.argument(index).map_err(|e| e.to_string())?;
            let name = names[index].clone();
            if htp_ir::builder::is_memref(argument.r#type()) {
                parameters.push(format!("const ChipTensor &{name}"));
            } else {
                parameters.push(format!("const {} {name}", host_type(argument.r#type())?));
            }
            w.reserve(&name);
            w.bind(argument.into(), name);
        }
        let function_type = function
            .attribute("function_type")
            .ok()
            .and_then(|a| melior::ir::attribute::TypeAttribute::try_from(a).ok())
            .and_then(|t| melior::ir::r#type::FunctionType::try_from(t.value()).ok())
            .ok_or_else(|| format!("'{name}' has no function type"))?;
        let result_types = (0..function_type.result_count()).map(|i| function_type.result(i).map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?;
        let returned = match result_types.as_slice() {
            [] => "void",
            [one] if !orchestration => c_type(*one)?,
            _ => return Err(format!("'{name}' returns {} values; an orchestration calls functions of at most one result", result_types.len())),
        };
        let cpp = if orchestration { orchestration_function(name) } else { helper_function(name) };
        w.open(&format!("static {returned} {cpp}({}) {{", parameters.join(", ")));
        let (submitter, returns) = (self.submitter.take(), self.returns);
        self.submitter = orchestration.then(|| "htp_submitter".to_string());
        self.returns = !orchestration;
        let written = w.block(body, self);
        self.submitter = submitter;
        self.returns = returns;
        written?;
        w.close("}");
        Ok(w.out)
    }
}

/// Writes the orchestration C++ of one op (its results bound in the writer).
pub type OpEmitter = fn(&mut Orchestration, &mut Writer, OperationRef) -> Result<(), String>;

/// The orchestration writer's ops: the backend's own (`pto` ops, keyed by
/// their ODS names) and the upstream ops an orchestration reads tensors
/// with. A programming model reaches the orchestration by producing these
/// ops (its conversion), not by writing C++ (D70).
fn emitters() -> &'static HashMap<String, OpEmitter> {
    static EMITTERS: OnceLock<HashMap<String, OpEmitter>> = OnceLock::new();
    EMITTERS.get_or_init(|| {
        use super::schedule;
        let own: [(PtoOp, OpEmitter); 11] = [
            (PtoOp::AvailableCores, available_cores),
            (PtoOp::Submit, submit),
            (PtoOp::CreateTensor, create_tensor),
            (PtoOp::Schedule, schedule::schedule),
            (PtoOp::Scope, schedule::scope),
            (PtoOp::Ordered, schedule::ordered),
            (PtoOp::OrderBarrier, schedule::order_barrier),
            (PtoOp::Guard, schedule::guard),
            (PtoOp::AllocTensor, schedule::alloc_tensor),
            (PtoOp::TensorView, schedule::tensor_view),
            (PtoOp::Task, schedule::task),
        ];
        let mut table: HashMap<String, OpEmitter> = own.into_iter().map(|(kind, emitter)| (kind.name().to_string(), emitter)).collect();
        table.insert("memref.load".to_string(), load);
        table.insert("memref.expand_shape".to_string(), expand_shape);
        table
    })
}

/// The orchestration emitter of the op named `name`.
fn op_emitter(name: &str) -> Option<OpEmitter> {
    emitters().get(name).copied()
}

impl Ops for Orchestration<'_> {
    fn dim(&self, tensor: &str, dim: i64) -> String {
        format!("{tensor}.shapes[{dim}]")
    }

    fn op(&mut self, w: &mut Writer, op: OperationRef) -> Result<bool, String> {
        let name = op_name(op);
        if name == "func.return" {
            if self.returns && op.operand_count() == 1 {
                let value = w.name(op.operand(0).map_err(|e| e.to_string())?)?;
                w.line(&format!("return {value};"));
            }
            return Ok(true);
        }
        if name == "func.call" {
            self.call(w, op)?;
            return Ok(true);
        }
        let Some(emitter) = op_emitter(&name) else { return Ok(false) };
        emitter(self, w, op)?;
        Ok(true)
    }
}

/// `memref.expand_shape` of a tensor (a 1-D tensor seen as `1 x N`): the
/// same elements, `ChipTensor::reshape`d to the result's dimensions (a
/// contiguous tensor: the call's arguments are).
fn expand_shape(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let source = w.name(op.operand(0).map_err(|e| e.to_string())?)?;
    let mut dynamic = (1..op.operand_count()).map(|i| op.operand(i).map_err(|e| e.to_string()).and_then(|v| w.name(v)));
    let result = op.result(0).map_err(|e| e.to_string())?;
    let shape = htp_ir::builder::shape_of(result.r#type());
    let dims: Vec<String> = shape
        .iter()
        .map(|&d| if d >= 0 { Ok(d.to_string()) } else { dynamic.next().ok_or_else(|| "an expand_shape without its output sizes".to_string())?.map(|s| format!("static_cast<uint32_t>({s})")) })
        .collect::<Result<_, String>>()?;
    let name = w.fresh("reshaped");
    w.line(&format!("const uint32_t {name}_shape[{}] = {{{}}};", dims.len(), dims.join(", ")));
    w.line(&format!("const ChipTensor {name} = {source}.reshape({name}_shape, {});", dims.len()));
    w.bind(result.into(), name);
    Ok(())
}

/// `memref.load` of a tensor argument: the element, read in the
/// orchestration (`get_tensor_data`: at once for an input of the call,
/// after its producer task for a tensor a task writes).
fn load(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let tensor = w.name(op.operand(0).map_err(|e| e.to_string())?)?;
    let indices: Vec<String> = (1..op.operand_count()).map(|i| w.name(op.operand(i).map_err(|e| e.to_string())?)).collect::<Result<_, _>>()?;
    let result = op.result(0).map_err(|e| e.to_string())?;
    let c = c_type(result.r#type())?;
    if matches!(c, "half" | "bfloat16_t") {
        return Err("an orchestration reads integer and f32 elements, not 16-bit floats".into());
    }
    let at = index_array(w, &indices);
    let rank = indices.len().max(1);
    let name = w.fresh("element");
    w.line(&format!("const {c} {name} = get_tensor_data<{c}>({tensor}, {rank}, {at});"));
    w.bind(result.into(), name);
    Ok(())
}

/// The C++ array of an element's `indices` (as `uint32_t`; `{0}` for none),
/// declared; its name (`get_tensor_data`, a guard's element).
pub(crate) fn index_array(w: &mut Writer, indices: &[String]) -> String {
    let at = w.fresh("at");
    let cast: Vec<String> = indices.iter().map(|i| format!("static_cast<uint32_t>({i})")).collect();
    w.line(&format!("const uint32_t {at}[{}] = {{{}}};", indices.len().max(1), if cast.is_empty() { "0".to_string() } else { cast.join(", ") }));
    at
}

/// `pto.available_cores`: the cores (clusters) the runtime offers, at least one.
fn available_cores(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let cores = htp_dialects::ods::view::<pto::AvailableCoresOperation>(op).ok_or("not a pto.available_cores")?;
    let core = cores.core().map_err(|e| e.to_string())?;
    let call = if core.value() == "aic" { "rt_available_cluster_count()" } else { "rt_available_aiv_count()" };
    let name = w.fresh("cores");
    w.line(&format!("const int64_t {name} = std::max<int64_t>(1, static_cast<int64_t>({call}));"));
    w.bind(cores.count().map_err(|e| e.to_string())?.into(), name);
    Ok(())
}

/// pto-runtime's `DataType` of an element type (what a `TensorCreateInfo`
/// is made with); the C++ type of any other.
pub fn data_type(element: melior::ir::Type) -> Result<&'static str, String> {
    Ok(match c_type(element)? {
        "float" => "FLOAT32",
        "half" => "FLOAT16",
        "bfloat16_t" => "BFLOAT16",
        "int32_t" => "INT32",
        "int16_t" => "INT16",
        "int8_t" => "INT8",
        "int64_t" => "INT64",
        "uint8_t" => "UINT8",
        "uint16_t" => "UINT16",
        "uint32_t" => "UINT32",
        "uint64_t" => "UINT64",
        other => return Err(format!("{other} elements (pto-runtime allocates no such tensor)")),
    })
}

/// `pto.create_tensor`: a GM tensor the runtime allocates for the task it is passed to.
fn create_tensor(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let created = htp_dialects::ods::view::<pto::CreateTensorOperation>(op).ok_or("not a pto.create_tensor")?;
    let result = created.result().map_err(|e| e.to_string())?;
    let ty = result.r#type();
    let shape = htp_ir::builder::shape_of(ty);
    let dtype = data_type(htp_ir::builder::element_of(ty)).map_err(|other| format!("{} of {other}", PtoOp::CreateTensor.name()))?;
    let name = w.fresh("created");
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    w.line(&format!("uint32_t {name}_shape[{}] = {{{}}};", shape.len(), dims.join(", ")));
    w.line(&format!("TensorCreateInfo {name}({name}_shape, {}, DataType::{dtype});", shape.len()));
    w.bind(result.into(), name);
    Ok(())
}

/// `pto.submit`: a task's arguments (inputs, outputs, in-outs, scalars) and
/// its submission, of one kernel or of a cluster's cube + vector kernels.
fn submit(state: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let task = htp_dialects::ods::view::<pto::SubmitOperation>(op).ok_or("not a pto.submit")?;
    let error = |e: melior::Error| e.to_string();
    let callee = task.callee().map_err(error)?.value().to_string();
    let func_id = *state.func_ids.get(&callee).ok_or_else(|| format!("no kernel named {callee}"))?;
    let core = if callee.ends_with("_aic") { "aic" } else { "aiv" };
    let args = w.fresh("task");
    state.tasks += 1;
    w.line(&format!("CoreTaskArgs {args};"));
    let groups = [(task.ins().map_err(error)?.collect::<Vec<_>>(), "add_input"), (task.outs().map_err(error)?.collect(), "add_output"), (task.inouts().map_err(error)?.collect(), "add_inout")];
    for (tensors, method) in groups {
        for tensor in tensors {
            let tensor = w.name(tensor)?;
            w.line(&format!("{args}.{method}({tensor});"));
        }
    }
    for value in task.scalars().map_err(error)? {
        let name = w.name(value)?;
        let c = host_type(value.r#type())?;
        w.line(&format!("{args}.add_scalar(static_cast<{c}>({name}));"));
    }
    let aiv = match task.aiv_callee() {
        Ok(aiv) => {
            let aiv = aiv.value().to_string();
            Some((*state.func_ids.get(&aiv).ok_or_else(|| format!("no kernel named {aiv}"))?, aiv))
        }
        Err(_) => None,
    };
    match (aiv, state.submitter.clone()) {
        // A cluster: the cube kernel and the vector kernel on both vector cores.
        (Some((aiv_id, aiv)), submitter) => {
            let kernels = w.fresh("cluster");
            w.line(&format!("MixedKernels {kernels};"));
            w.line(&format!("{kernels}.aic_kernel_id = {func_id};  // {callee}"));
            w.line(&format!("{kernels}.aiv0_kernel_id = {aiv_id};  // {aiv}"));
            w.line(&format!("{kernels}.aiv1_kernel_id = {aiv_id};"));
            match submitter {
                Some(submitter) => w.line(&format!("{submitter}.submit({kernels}, {args});")),
                None => w.line(&format!("rt_submit_task({kernels}, {args});")),
            }
        }
        (None, None) => w.line(&format!("rt_submit_{core}_task({func_id}, {args});  // {callee}")),
        // In a called orchestration function: through the caller's submitter.
        (None, Some(submitter)) => {
            let kernels = w.fresh("kernels");
            w.line(&format!("MixedKernels {kernels};"));
            w.line(&format!("{kernels}.{core}{}_kernel_id = {func_id};  // {callee}", if core == "aiv" { "0" } else { "" }));
            w.line(&format!("{submitter}.submit({kernels}, {args});"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orchestration(context: &melior::Context, text: &str) -> Result<String, String> {
        let module = melior::ir::Module::parse(context, text).expect("parses");
        let function = module.body().first_operation().expect("a function");
        let lines = |_: &str, _: u32| None;
        emit(function, &["n".to_string()], &HashMap::new(), &lines, "// test")
    }

    #[test]
    fn an_op_without_an_emitter_is_an_error_naming_it() {
        let context = crate::new_context().expect("the PTO backend registers");
        context.set_allow_unregistered_dialects(true);
        let error = orchestration(&context, "func.func @k(%n: index) attributes {pto.orchestration} {\n  \"test.orchestration_op\"(%n) : (index) -> ()\n  return\n}").expect_err("no emitter");
        assert!(error.contains("test.orchestration_op"), "{error}");
    }

    #[test]
    fn a_schedule_declares_its_submitter_and_scopes_use_it() {
        let context = crate::new_context().expect("the PTO backend registers");
        let cpp = orchestration(
            &context,
            r#"
func.func @k(%n: index) attributes {pto.orchestration} {
  pto.schedule window 64 lanes -1 dispatch "round_robin"
  pto.scope "w.py:3:5" {
    pto.ordered {
      pto.order_barrier
    }
  }
  return
}"#,
        )
        .expect("emits");
        assert!(cpp.contains("htp_schedule::Schedule htp_schedule(64, std::max<int64_t>(1, rt_available_cluster_count()));  // the schedule: round_robin"), "{cpp}");
        assert!(cpp.contains("namespace htp_schedule {"), "{cpp}");
        for line in ["htp_schedule.open_scope(\"w.py:3:5\");", "htp_schedule.begin_order();", "htp_schedule.next_iteration();", "htp_schedule.end_order();", "htp_schedule.close_scope();"] {
            assert!(cpp.contains(line), "{line}\n{cpp}");
        }
    }
}
