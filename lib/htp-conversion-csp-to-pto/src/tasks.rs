//! A CSP program whose processes (after its movers dissolved) no longer
//! talk to each other — replicated workers, independent processes — is a
//! set of PTO tasks, one per process replica, run at once on whatever
//! cores are free:
//!
//! - before lowering (`split`): each process becomes a tile kernel of its
//!   own (`<program>__<process>`, taking the program's arguments and, when
//!   replicated, its replica index), which the backend lowers as any kernel
//!   (a vector, cube or cluster task); the program's body becomes the calls
//!   of those kernels — `scf.for` over the replicas around `func.call` —
//!   and the program is marked [`TASKS_ATTRIBUTE`];
//! - before emission (`csp-tasks-to-pto`, once the kernels are
//!   orchestrations): each call a `pto.task` under the program's
//!   `pto.schedule`, the program the package's entry orchestration.

use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_model_csp::ir::{integer_attribute, position, string_attribute};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{ArrayAttribute, FlatSymbolRefAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        Attribute, Block, BlockRef, OperationRef, Region, RegionLike, Type, TypeLike, ValueLike,
    },
    Context,
};

/// Marks a program that `split` made a set of tasks.
pub const TASKS_ATTRIBUTE: &str = "csp.tasks";

/// Splits `program` (its channels all gone) into a kernel per process and
/// calls of them.
pub fn split<'c>(context: &'c Context, program: OperationRef<'c, 'c>, processes: &[OperationRef<'c, 'c>]) -> Result<(), Failure<'c>> {
    let program_name = string_attribute(program, "sym_name").unwrap_or_default();
    let index = Type::index(context);
    let mut kernel_attributes: Vec<(&str, Attribute<'c>)> = vec![("htp.kernel", Attribute::unit(context))];
    for name in [htp_api::signature::OUTPUTS_ATTRIBUTE, htp_api::signature::IN_OUTS_ATTRIBUTE] {
        if let Ok(value) = program.attribute(name) {
            kernel_attributes.push((name, value));
        }
    }
    let symbols = htp_model_csp::outline::process_symbols(&program_name, processes);
    let mut calls = Vec::new();
    for (process, symbol) in processes.iter().zip(symbols) {
        let replicas = integer_attribute(*process, "replicas").unwrap_or(1);
        let added: Vec<Type<'c>> = if replicas > 1 { vec![index] } else { vec![] };
        htp_model_csp::outline::outline_process(context, program, *process, &symbol, &added, (replicas > 1).then_some(0), &kernel_attributes)?;
        calls.push((symbol, replicas, process.location()));
    }

    // The program's body: the calls, and its return.
    let location = program.location();
    let body = program.region(0).ok().and_then(|r| r.first_block()).ok_or((location, "a program without a body".to_string()))?;
    let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
    let terminator = body.terminator().ok_or((location, "a program without a return".to_string()))?;
    let terminator: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(terminator.to_raw()) };
    // Later ops first: each is used only by ops after it, or by none left.
    let mut doomed = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        if current.to_raw().ptr != terminator.to_raw().ptr {
            doomed.push(current.to_raw());
        }
    }
    for raw in doomed.into_iter().rev() {
        unsafe { mlir_sys::mlirOperationDestroy(raw) };
    }
    let arguments: Vec<V<'c>> = (0..body.argument_count()).filter_map(|i| body.argument(i).ok()).map(|a| detach(a.into())).collect();
    for (symbol, replicas, at) in calls {
        let top = Emitter { context, block: body, anchor: terminator, location: at };
        let callee: Attribute<'c> = FlatSymbolRefAttribute::new(context, &symbol).into();
        if replicas == 1 {
            top.op("func.call", &arguments, &[], &[("callee", callee)], vec![]);
            continue;
        }
        let (lower, upper, step) = (top.index(0), top.index(replicas), top.index(1));
        let loop_body = Block::new(&[(index, at)]);
        {
            let inner = htp_ir::builder::BodyBuilder::for_block(context, &loop_body, at);
            let replica = detach(loop_body.argument(0).map_err(|e| (at, e.to_string()))?.into());
            let mut with_replica = arguments.clone();
            with_replica.push(replica);
            inner.op("func.call", &with_replica, &[], &[("callee", callee)], vec![]);
            inner.op("scf.yield", &[], &[], &[], vec![]);
        }
        let region = Region::new();
        region.append_block(loop_body);
        top.op("scf.for", &[lower, upper, step], &[], &[], vec![region]);
    }
    let mut handle = unsafe { OperationRefMut::from_raw(program.to_raw()) };
    handle.set_attribute(TASKS_ATTRIBUTE, Attribute::unit(context));
    Ok(())
}

htp_pass::pass! {
    pub DEFINITION = Pass<"csp-tasks-to-pto", "builtin.module"> {
        summary: "Make each CSP program split into tasks (csp-to-pto) the package's orchestration: its kernel calls pto.tasks under a pto.schedule",
        dialects: [htp_backend_pto::handles::pto, scf, func, arith],
        run: run,
    }
}

/// pto-runtime's default task window (`runtime_env.ring_task_window`).
const WINDOW: i64 = 16384;

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut programs = Vec::new();
    let mut op = module.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
    while let Some(current) = op {
        op = current.next_in_block();
        if current.attribute(TASKS_ATTRIBUTE).is_ok() {
            programs.push(unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) });
        }
    }
    for program in programs {
        orchestrate(context, program)?;
    }
    Ok(())
}

fn orchestrate<'c>(context: &'c Context, program: OperationRef<'c, 'c>) -> Result<(), Failure<'c>> {
    use htp_api::signature::{declared_arguments, IN_OUTS_ATTRIBUTE, OUTPUTS_ATTRIBUTE};
    let location = program.location();
    let body = program.region(0).ok().and_then(|r| r.first_block()).ok_or((location, "a program without a body".to_string()))?;
    let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
    let (outputs, in_outs) = (declared_arguments(program, OUTPUTS_ATTRIBUTE), declared_arguments(program, IN_OUTS_ATTRIBUTE));
    let direction = |i: usize| {
        if in_outs.contains(&(i as i64)) {
            "inout"
        } else if outputs.contains(&(i as i64)) {
            "out"
        } else {
            "in"
        }
    };
    let directions: Vec<Option<&str>> = (0..body.argument_count())
        .filter_map(|i| body.argument(i).ok().map(|a| (i, a)))
        .map(|(i, a)| a.r#type().is_mem_ref().then(|| direction(i)))
        .collect();

    let first = body.first_operation().ok_or((location, "a program without a return".to_string()))?;
    let top = Emitter { context, block: body, anchor: unsafe { OperationRef::from_raw(first.to_raw()) }, location };
    let attribute = |text: &str| Attribute::parse(context, text).ok_or_else(|| (location, format!("internal error: cannot parse {text}")));
    top.op(
        htp_backend_pto::ods::pto::ScheduleOperation::name(),
        &[],
        &[],
        &[("window", attribute(&format!("{WINDOW} : i64"))?), ("lanes", attribute("0 : i64")?), ("dispatch", StringAttribute::new(context, "runtime").into())],
        vec![],
    );
    for call in htp_ir::query::ops_named(program, "func.call") {
        let at = call.location();
        let block = call.block().ok_or((at, "a call outside a block".to_string()))?;
        let here = Emitter { context, block: unsafe { BlockRef::from_raw(block.to_raw()) }, anchor: call, location: at };
        let arguments: Vec<V<'c>> = (0..call.operand_count()).filter_map(|i| call.operand(i).ok()).map(detach).collect();
        // A task passes the program's tensors whole: each as the program declares it.
        let access: Vec<Attribute<'c>> = arguments
            .iter()
            .enumerate()
            .map(|(i, a)| StringAttribute::new(context, if a.r#type().is_mem_ref() { directions.get(i).copied().flatten().unwrap_or("in") } else { "none" }).into())
            .collect();
        let segments = here.i32_array(&[arguments.len() as i32, 0]);
        let callee = call.attribute("callee").map_err(|e| (at, e.to_string()))?;
        here.op(
            htp_backend_pto::ods::pto::TaskOperation::name(),
            &arguments,
            &[],
            &[
                ("callee", callee),
                ("access", ArrayAttribute::new(context, &access).into()),
                ("at", StringAttribute::new(context, &position(call)).into()),
                ("operandSegmentSizes", segments),
            ],
            vec![],
        );
        unsafe { mlir_sys::mlirOperationDestroy(call.to_raw()) };
    }
    htp_backend_pto::emit::package::mark_entry(context, program, &directions, None).map_err(|e| (location, e))
}
