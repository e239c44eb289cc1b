//! A `pto.orchestration` function -> the orchestration C++ source of the
//! `tensormap_and_ringbuffer` runtime: `aicpu_orchestration_entry` reads the
//! callable's tensors and scalars and submits one task per `pto.submit`
//! (dependencies come from the tensors each task reads and writes).

use std::collections::HashMap;

use melior::ir::{
    attribute::{FlatSymbolRefAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    OperationRef, RegionLike, ValueLike,
};

use crate::emit::writer::{c_type, op_name, Ops, SourceLines, Writer};

/// The C++ type of a scalar in the orchestration, which the host compiler
/// builds: it has no `half`/`bfloat16_t`, so 16-bit floats travel as their
/// bits (the orchestration only forwards them; kernels read them back as
/// `half`/`bfloat16_t` from the same bits).
fn host_type(ty: melior::ir::Type) -> Result<&'static str, String> {
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
    let body = function.region(0).unwrap().first_block().unwrap();
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
        let argument = body.argument(index).unwrap();
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
    let mut ops = OrchestrationOps { func_ids, tasks: 0 };
    w.block(body, &mut ops)?;
    w.close("}");
    w.line("");
    w.line("}  // extern \"C\"");
    Ok(w.out)
}

struct OrchestrationOps<'a> {
    func_ids: &'a HashMap<String, usize>,
    tasks: usize,
}

impl Ops for OrchestrationOps<'_> {
    fn dim(&self, tensor: &str, dim: i64) -> String {
        format!("{tensor}.shapes[{dim}]")
    }

    fn op(&mut self, w: &mut Writer, op: OperationRef) -> Result<bool, String> {
        match op_name(op).as_str() {
            "func.return" => Ok(true),
            "pto.available_cores" => {
                let core = StringAttribute::try_from(op.attribute("core").map_err(|e| e.to_string())?).map_err(|_| "core")?;
                let call = if core.value() == "aic" { "rt_available_cluster_count()" } else { "rt_available_aiv_count()" };
                let name = w.fresh("cores");
                w.line(&format!("const int64_t {name} = std::max<int64_t>(1, static_cast<int64_t>({call}));"));
                w.bind(op.result(0).unwrap().into(), name);
                Ok(true)
            }
            "pto.submit" => {
                self.submit(w, op)?;
                Ok(true)
            }
            // A GM tensor the runtime allocates for the task it is passed to.
            "pto.create_tensor" => {
                let ty = op.result(0).unwrap().r#type();
                let shape = htp_ir::builder::shape_of(ty);
                let dtype = match c_type(htp_ir::builder::element_of(ty))? {
                    "float" => "FLOAT32",
                    "half" => "FLOAT16",
                    "int32_t" => "INT32",
                    other => return Err(format!("pto.create_tensor of {other} elements")),
                };
                let name = w.fresh("created");
                let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
                w.line(&format!("uint32_t {name}_shape[{}] = {{{}}};", shape.len(), dims.join(", ")));
                w.line(&format!("TensorCreateInfo {name}({name}_shape, {}, DataType::{dtype});", shape.len()));
                w.bind(op.result(0).unwrap().into(), name);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

impl OrchestrationOps<'_> {
    fn submit(&mut self, w: &mut Writer, op: OperationRef) -> Result<(), String> {
        let callee = FlatSymbolRefAttribute::try_from(op.attribute("callee").map_err(|e| e.to_string())?).map_err(|_| "callee")?.value().to_string();
        let func_id = *self.func_ids.get(&callee).ok_or_else(|| format!("no kernel named {callee}"))?;
        let segments = melior::ir::attribute::DenseI32ArrayAttribute::try_from(op.attribute("operandSegmentSizes").map_err(|e| e.to_string())?)
            .map_err(|_| "segments")?;
        let segment = |i: usize| segments.element(i).unwrap_or(0) as usize;
        let core = if callee.ends_with("_aic") { "aic" } else { "aiv" };
        let args = w.fresh("task");
        self.tasks += 1;
        w.line(&format!("CoreTaskArgs {args};"));
        let mut operand = 0;
        for (count, method) in [(segment(0), "add_input"), (segment(1), "add_output"), (segment(2), "add_inout")] {
            for _ in 0..count {
                let tensor = w.name(op.operand(operand).unwrap())?;
                w.line(&format!("{args}.{method}({tensor});"));
                operand += 1;
            }
        }
        for _ in 0..segment(3) {
            let value = op.operand(operand).unwrap();
            let name = w.name(value)?;
            let c = host_type(value.r#type())?;
            w.line(&format!("{args}.add_scalar(static_cast<{c}>({name}));"));
            operand += 1;
        }
        match op.attribute("aiv_callee").ok().and_then(|a| FlatSymbolRefAttribute::try_from(a).ok()) {
            // A cluster: the cube kernel and the vector kernel on both vector cores.
            Some(aiv) => {
                let aiv = aiv.value().to_string();
                let aiv_id = *self.func_ids.get(&aiv).ok_or_else(|| format!("no kernel named {aiv}"))?;
                let kernels = w.fresh("cluster");
                w.line(&format!("MixedKernels {kernels};"));
                w.line(&format!("{kernels}.aic_kernel_id = {func_id};  // {callee}"));
                w.line(&format!("{kernels}.aiv0_kernel_id = {aiv_id};  // {aiv}"));
                w.line(&format!("{kernels}.aiv1_kernel_id = {aiv_id};"));
                w.line(&format!("rt_submit_task({kernels}, {args});"));
            }
            None => w.line(&format!("rt_submit_{core}_task({func_id}, {args});  // {callee}")),
        }
        Ok(())
    }
}
