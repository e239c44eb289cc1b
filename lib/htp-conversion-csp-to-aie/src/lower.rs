//! `csp-to-aie{device=...}`: each `@csp.program` of a module lowered for
//! an AIE target becomes that target's IR, an `aie.device` (docs/csp.md,
//! "CSP on AIE"): the plan (`plan.rs`) decides what runs where, each
//! computing process's loop body becomes the function its cores call
//! (`block.rs`, tile IR the backend lowers), and the device around them is
//! written in mlir-aie's syntax (`design.rs`), parsed, and takes the
//! program's place with the block functions inside it. The protocol
//! (balance, deadlock freedom over the declared depths) was proven by
//! `csp-verify-protocol` before this runs; the backend finishes the design
//! (`htp_backend_aie::finish`).

use htp_backend_aie::architecture::Device;
use htp_model_csp::ir::{name_of, string_attribute};
use htp_pass::Failure;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, OperationRef, RegionLike},
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"csp-to-aie", "builtin.module"> {
        summary: "Make each CSP program an mlir-aie design: computing processes on compute tiles, channels as object FIFOs (core to core, or to a shim moved by the runtime sequence)",
        dialects: [htp_model_csp::handles::csp, htp_backend_aie::handles::aie, htp_backend_aie::handles::aiex, tile, func, scf, arith, memref],
        options: Options {
            #[option("device", default = "npu1", "the mlir-aie device the design is for (npu1, npu2, npu1_2col, ...)")]
            device: String,
        },
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>> {
    let device = Device::from_name(&options.device).map_err(|e| (module.location(), e))?;
    let programs = htp_model_csp::ir::programs(module);
    let [program] = programs.as_slice() else {
        if programs.is_empty() {
            return Ok(());
        }
        return Err((programs[1].location(), "the AIE targets build one design per module, and this is a second CSP program".into()));
    };
    convert(context, *program, device)
}

fn convert<'c>(context: &'c Context, program: OperationRef<'c, 'c>, device: Device) -> Result<(), Failure<'c>> {
    let location = program.location();
    let plan = crate::plan::plan(program)?;
    let program_name = string_attribute(program, "sym_name").unwrap_or_default();
    let process_ops: Vec<OperationRef> = plan.processes.iter().map(|p| p.op).collect();
    let symbols = htp_model_csp::outline::process_symbols(&program_name, &process_ops);
    let text = crate::design::design(&plan, device, &symbols, location)?;
    let mut functions = Vec::new();
    for (process, symbol) in plan.processes.iter().zip(&symbols) {
        functions.push(crate::block::outline(context, program, &plan, process, symbol)?);
    }
    // The design, parsed where the user's locations reach its verifier messages.
    let (parsed, errors) = htp_dialects::diagnostics::collect_errors(context, || Module::parse(context, &text));
    // The verifiers' rules of the hardware (DMA channels, tile memory) at
    // the user's line of the FIFO or core that breaks them.
    let parsed = parsed.ok_or_else(|| match errors.first() {
        Some(error) => {
            let at = error.position.as_ref().map(|p| melior::ir::Location::new(context, &p.file, p.line as usize, p.column as usize)).unwrap_or(location);
            (at, format!("the design does not fit {}: {}", device.name(), error.message))
        }
        None => (location, format!("internal error: the AIE design does not parse:\n{text}")),
    })?;
    let device_op = parsed.body().first_operation().ok_or((location, "internal error: the design has no aie.device".to_string()))?;
    let device_body = device_op.region(0).ok().and_then(|r| r.first_block()).ok_or((location, "internal error: an empty aie.device".to_string()))?;
    // Each declaration gives way to its definition.
    for (function, symbol) in functions.iter().zip(&symbols) {
        let mut op = device_body.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            if name_of(current) == "func.func" && string_attribute(current, "sym_name").as_deref() == Some(symbol.as_str()) {
                unsafe {
                    mlir_sys::mlirOperationMoveBefore(function.to_raw(), current.to_raw());
                    mlir_sys::mlirOperationDestroy(current.to_raw());
                }
                break;
            }
        }
    }
    // The device takes the program's place.
    unsafe {
        mlir_sys::mlirOperationMoveBefore(device_op.to_raw(), program.to_raw());
        mlir_sys::mlirOperationDestroy(program.to_raw());
    }
    drop(parsed);
    Ok(())
}
