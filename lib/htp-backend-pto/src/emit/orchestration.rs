//! A `pto.orchestration` function -> the orchestration C++ source of the
//! `tensormap_and_ringbuffer` runtime: `aicpu_orchestration_entry` reads the
//! callable's tensors and scalars and submits one task per `pto.submit`
//! (dependencies come from the tensors each task reads and writes).

use std::{
    collections::HashMap,
    sync::{OnceLock, RwLock},
};

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

/// `parameters`: the callable's argument names in order; `func_ids`: the
/// kernel function name -> its func_id in the package.
pub fn emit(function: OperationRef, parameters: &[String], func_ids: &HashMap<String, usize>, lines: SourceLines, banner: &str) -> Result<String, String> {
    let mut w = Writer::new(lines);
    w.line(banner);
    w.line("#include <stddef.h>");
    w.line("#include <stdint.h>");
    w.line("#include <algorithm>");
    w.line("#include \"pto_orchestration_api.h\"");
    w.line("");
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
    let mut ops = Orchestration { func_ids, tasks: 0 };
    w.block(body, &mut ops)?;
    w.close("}");
    w.line("");
    w.line("}  // extern \"C\"");
    Ok(w.out)
}

/// What an op emitter sees of the orchestration being written: the
/// kernels' func_ids and the tasks submitted so far.
pub struct Orchestration<'a> {
    /// The kernel function name -> its func_id in the package.
    pub func_ids: &'a HashMap<String, usize>,
    /// Tasks submitted so far.
    pub tasks: usize,
}

/// Writes the orchestration C++ of one op (its results bound in the writer).
pub type OpEmitter = fn(&mut Orchestration, &mut Writer, OperationRef) -> Result<(), String>;

fn emitters() -> &'static RwLock<HashMap<String, OpEmitter>> {
    static EMITTERS: OnceLock<RwLock<HashMap<String, OpEmitter>>> = OnceLock::new();
    EMITTERS.get_or_init(|| {
        let own: [(PtoOp, OpEmitter); 3] =
            [(PtoOp::AvailableCores, available_cores), (PtoOp::Submit, submit), (PtoOp::CreateTensor, create_tensor)];
        RwLock::new(own.into_iter().map(|(kind, emitter)| (kind.name().to_string(), emitter)).collect())
    })
}

/// Registers the orchestration emitter of the op named `name` (a full op
/// name, `dialect.op`): the orchestration writer calls it for each such op.
/// Registering the same emitter again is a no-op; another one for a name
/// already taken is an error.
pub fn register_op_emitter(name: &str, emitter: OpEmitter) -> Result<(), String> {
    let mut emitters = emitters().write().map_err(|_| "the orchestration emitter registry is poisoned".to_string())?;
    match emitters.get(name) {
        Some(existing) if std::ptr::fn_addr_eq(*existing, emitter) => Ok(()),
        Some(_) => Err(format!("an orchestration emitter for '{name}' is already registered")),
        None => {
            emitters.insert(name.to_string(), emitter);
            Ok(())
        }
    }
}

/// The orchestration emitter registered for the op named `name`.
pub fn op_emitter(name: &str) -> Option<OpEmitter> {
    emitters().read().ok()?.get(name).copied()
}

impl Ops for Orchestration<'_> {
    fn dim(&self, tensor: &str, dim: i64) -> String {
        format!("{tensor}.shapes[{dim}]")
    }

    fn op(&mut self, w: &mut Writer, op: OperationRef) -> Result<bool, String> {
        let name = op_name(op);
        if name == "func.return" {
            return Ok(true);
        }
        let Some(emitter) = op_emitter(&name) else { return Ok(false) };
        emitter(self, w, op)?;
        Ok(true)
    }
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

/// `pto.create_tensor`: a GM tensor the runtime allocates for the task it is passed to.
fn create_tensor(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
    let created = htp_dialects::ods::view::<pto::CreateTensorOperation>(op).ok_or("not a pto.create_tensor")?;
    let result = created.result().map_err(|e| e.to_string())?;
    let ty = result.r#type();
    let shape = htp_ir::builder::shape_of(ty);
    let dtype = match c_type(htp_ir::builder::element_of(ty))? {
        "float" => "FLOAT32",
        "half" => "FLOAT16",
        "int32_t" => "INT32",
        other => return Err(format!("{} of {other} elements", PtoOp::CreateTensor.name())),
    };
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
    match task.aiv_callee() {
        // A cluster: the cube kernel and the vector kernel on both vector cores.
        Ok(aiv) => {
            let aiv = aiv.value().to_string();
            let aiv_id = *state.func_ids.get(&aiv).ok_or_else(|| format!("no kernel named {aiv}"))?;
            let kernels = w.fresh("cluster");
            w.line(&format!("MixedKernels {kernels};"));
            w.line(&format!("{kernels}.aic_kernel_id = {func_id};  // {callee}"));
            w.line(&format!("{kernels}.aiv0_kernel_id = {aiv_id};  // {aiv}"));
            w.line(&format!("{kernels}.aiv1_kernel_id = {aiv_id};"));
            w.line(&format!("rt_submit_task({kernels}, {args});"));
        }
        Err(_) => w.line(&format!("rt_submit_{core}_task({func_id}, {args});  // {callee}")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_op(_: &mut Orchestration, w: &mut Writer, op: OperationRef) -> Result<(), String> {
        w.line(&format!("test_op_called({});", op.operand_count()));
        Ok(())
    }

    #[test]
    fn a_registered_op_emitter_writes_its_cpp() {
        let context = crate::new_context().expect("the PTO backend registers");
        context.set_allow_unregistered_dialects(true);
        let module = melior::ir::Module::parse(
            &context,
            r#"
func.func @k(%n: index) attributes {pto.orchestration} {
  "test.orchestration_op"(%n) : (index) -> ()
  return
}"#,
        )
        .expect("parses");
        let function = module.body().first_operation().expect("a function");
        let lines = |_: &str, _: u32| None;
        let func_ids = HashMap::new();
        let without = emit(function, &["n".to_string()], &func_ids, &lines, "// test").expect_err("no emitter yet");
        assert!(without.contains("test.orchestration_op"), "{without}");
        register_op_emitter("test.orchestration_op", test_op).expect("registers");
        register_op_emitter("test.orchestration_op", test_op).expect("the same emitter again");
        let cpp = emit(function, &["n".to_string()], &func_ids, &lines, "// test").expect("emits");
        assert!(cpp.contains("test_op_called(1);"), "{cpp}");
        assert!(register_op_emitter(PtoOp::Submit.name(), test_op).is_err());
    }
}
