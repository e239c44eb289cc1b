//! `csp-verify-protocol`: the model's pipeline on every target. Reads each
//! `@csp.program`'s protocol (`protocol::extract`), refuses what cannot be
//! a program, and plays it over the channels' depths when its loop bounds
//! are known now (static shapes, constants): an unbalanced channel, two
//! processes on one end of a channel, control around channel operations
//! that depends on tensor data, and a network that can block are errors at
//! the user's line. Bounds known only at a call are played there, before
//! anything runs (the cpu layer does; docs/csp.md).

use htp_pass::Failure;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, r#type::MemRefType, OperationRef, RegionLike, ShapedTypeLike, ValueLike},
    Context,
};

use crate::protocol::{eval::Inputs, extract, report, simulate};

htp_pass::pass! {
    pub DEFINITION = Pass<"csp-verify-protocol", "builtin.module"> {
        summary: "Check each CSP program's protocol: one sender and one receiver per channel, balanced channels, no deadlock over the declared depths",
        dialects: [crate::handles::csp],
        run: run,
    }
}

/// What is known of a function's arguments before any call: static extents.
pub fn static_inputs(program: OperationRef) -> Inputs {
    let mut inputs = Inputs::default();
    let Some(body) = program.region(0).ok().and_then(|r| r.first_block()) else { return inputs };
    for i in 0..body.argument_count() {
        let Ok(argument) = body.argument(i) else { continue };
        inputs.scalars.push(None);
        inputs.dims.push(match MemRefType::try_from(argument.r#type()) {
            Ok(memref) => (0..memref.rank())
                .map(|d| match memref.dim_size(d) {
                    Ok(melior::ir::r#type::DimSize::Static(n)) => Some(n as i64),
                    _ => None,
                })
                .collect(),
            Err(_) => vec![],
        });
    }
    inputs
}

fn run<'c>(_context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else { return Ok(()) };
    let mut op = body.first_operation();
    while let Some(function) = op {
        op = function.next_in_block();
        let function = unsafe { OperationRef::from_raw(function.to_raw()) };
        if !crate::ir::is_program(function) {
            continue;
        }
        htp_pass::processing(function.location());
        let extracted = extract::extract(function)?;
        if let Err(problem) = simulate::check(&extracted.protocol, &static_inputs(function)) {
            let (site, message) = report::describe(&extracted.protocol, &problem);
            let location = extracted.locations.get(site).copied().unwrap_or(function.location());
            return Err((location, message));
        }
    }
    Ok(())
}
