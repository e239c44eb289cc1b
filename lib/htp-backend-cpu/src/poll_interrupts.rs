//! `cpu-poll-interrupts`: Ctrl-C reaches a kernel whose long loop is not
//! split into chunks (a loop carrying a value, `parallel=False`, one chunk).
//! Every `scf.for` of each function (the user's loops, at every depth: one
//! long iteration of an outer loop is a long inner loop) asks the runtime at
//! the start of each iteration whether the call was interrupted
//! (`htpRuntimeInterrupted()`, the flag of `htp_runtime::interrupt`); once it
//! was, the remaining iterations do nothing (their body is the `then` of an
//! `scf.if`; loop-carried values pass through), the call returns and raises
//! `KeyboardInterrupt`. One call per iteration of a tile-level loop (a tile's
//! worth of work each: the loops over elements come later, from
//! convert-tile-to-linalg), after the parallel outer loop's chunks were
//! outlined (the poll would break its independence proof).

use htp_ir::builder::{detach, V};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{FlatSymbolRefAttribute, IntegerAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, WalkOrder, WalkResult},
        r#type::IntegerType,
        Block, Location, OperationRef, Region, RegionLike, Type, ValueLike,
    },
    Context,
};

/// The runtime function the loops call: `i32 htpRuntimeInterrupted()`, non-zero once interrupted.
pub const POLL_FUNCTION: &str = "htpRuntimeInterrupted";

htp_pass::pass! {
    pub DEFINITION = Pass<"cpu-poll-interrupts", "builtin.module"> {
        summary: "Make each loop stop doing work once the call is interrupted (SIGINT) (CPU)",
        dialects: [arith, scf, func],
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut loops = Vec::new();
    module.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("scf.for") {
            loops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    if loops.is_empty() {
        return Ok(());
    }
    declare_poll_function(context, module);
    for op in loops {
        htp_pass::processing(op.location());
        poll(context, op).map_err(|message| (op.location(), message))?;
    }
    Ok(())
}

/// `for ... iter_args(%a) { body; yield %r }` becomes
/// `for ... iter_args(%a) { %go = !interrupted(); %x = scf.if %go { body; yield %r } else { yield %a }; yield %x }`.
fn poll<'c>(context: &'c Context, for_op: OperationRef<'c, '_>) -> Result<(), String> {
    let location = for_op.location();
    let body = for_op.region(0).map_err(|_| "a loop without a body")?.first_block().ok_or("a loop without a block")?;
    let terminator = body.terminator().ok_or("a loop body without its yield")?;
    let yielded: Vec<V<'c>> = (0..terminator.operand_count()).map(|i| detach(terminator.operand(i).expect("counted"))).collect();
    let carried: Vec<V<'c>> = (1..body.argument_count()).map(|i| detach(body.argument(i).expect("counted").into())).collect();
    let types: Vec<Type<'c>> = yielded.iter().map(|v| v.r#type()).collect();
    if carried.len() != yielded.len() {
        return Err("a loop whose yield does not match its carried values".into());
    }
    let ops_before: Vec<OperationRef<'c, '_>> = {
        let mut found = Vec::new();
        let mut op = body.first_operation();
        while let Some(current) = op {
            if current == terminator {
                break;
            }
            found.push(current);
            op = current.next_in_block();
        }
        found
    };

    let i32_type = Type::from(IntegerType::new(context, 32));
    let i1 = Type::from(IntegerType::new(context, 1));
    let first = body.first_operation().ok_or("an empty loop body")?;
    let call = body.insert_operation_before(
        first,
        OperationBuilder::new("func.call", location)
            .add_attributes(&[(htp_ir::builder::named(context, "callee"), FlatSymbolRefAttribute::new(context, POLL_FUNCTION).into())])
            .add_results(&[i32_type])
            .build()
            .map_err(|e| format!("cannot build the poll: {e}"))?,
    );
    let zero = body.insert_operation_after(
        call,
        OperationBuilder::new("arith.constant", location)
            .add_attributes(&[(htp_ir::builder::named(context, "value"), IntegerAttribute::new(i32_type, 0).into())])
            .add_results(&[i32_type])
            .build()
            .map_err(|e| format!("cannot build a constant: {e}"))?,
    );
    // arith.cmpi predicate 0 = eq: not interrupted.
    let go = body.insert_operation_after(
        zero,
        OperationBuilder::new("arith.cmpi", location)
            .add_operands(&[detach(call.result(0).expect("one result").into()), detach(zero.result(0).expect("one result").into())])
            .add_attributes(&[(htp_ir::builder::named(context, "predicate"), IntegerAttribute::new(Type::from(IntegerType::new(context, 64)), 0).into())])
            .add_results(&[i1])
            .build()
            .map_err(|e| format!("cannot build a comparison: {e}"))?,
    );

    let then_block = Block::new(&[]);
    let then_yield = then_block.append_operation(yield_op(location, &yielded));
    let then_region = Region::new();
    then_region.append_block(then_block);
    let else_block = Block::new(&[]);
    else_block.append_operation(yield_op(location, &carried));
    let else_region = Region::new();
    else_region.append_block(else_block);
    let guard = body.insert_operation_before(
        terminator,
        OperationBuilder::new("scf.if", location)
            .add_operands(&[detach(go.result(0).expect("one result").into())])
            .add_results(&types)
            .add_regions([then_region, else_region])
            .build()
            .map_err(|e| format!("cannot build the guard: {e}"))?,
    );
    for op in ops_before {
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), then_yield.to_raw()) };
    }
    for (index, _) in yielded.iter().enumerate() {
        let result = detach(guard.result(index).expect("one result per yielded value").into());
        unsafe { mlir_sys::mlirOperationSetOperand(terminator.to_raw(), index as isize, result.to_raw()) };
    }
    Ok(())
}

fn yield_op<'c>(location: Location<'c>, values: &[V<'c>]) -> melior::ir::Operation<'c> {
    OperationBuilder::new("scf.yield", location).add_operands(values).build().expect("a valid yield")
}

/// `func.func private @htpRuntimeInterrupted() -> i32`, once per module.
fn declare_poll_function<'c>(context: &'c Context, module: OperationRef<'c, '_>) {
    htp_ir::builder::declare_private_function(context, module, POLL_FUNCTION, &[], &[IntegerType::new(context, 32).into()]);
}
