//! `sample-count-tile-ops`: puts `sample.kernel_info {tile_ops = N}` first
//! in each kernel, N the number of `tile` ops in its body (nested regions
//! included).

use melior::{
    ir::{
        block::BlockLike, operation::OperationLike, OperationRef, RegionLike,
    },
    Context,
};
use htp_pass::Failure;

use crate::ods::sample;

htp_pass::pass! {
    pub DEFINITION = Pass<"sample-count-tile-ops", "builtin.module"> {
        summary: "Put sample.kernel_info {tile_ops = N} first in each kernel (the sample backend)",
        dialects: [crate::handles::sample],
        run: run,
    }
}

/// The number of `tile` ops nested in `op`'s regions.
pub fn tile_ops(op: OperationRef) -> i64 {
    let mut count = 0;
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            let mut nested = current.first_operation();
            while let Some(inner) = nested {
                if inner.name().as_string_ref().as_str().is_ok_and(|name| name.starts_with("tile.")) {
                    count += 1;
                }
                count += tile_ops(inner);
                nested = inner.next_in_block();
            }
            block = current.next_in_region();
        }
    }
    count
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    for kernel in htp_ir::query::kernel_functions(module) {
        htp_pass::processing(kernel.location());
        let count = tile_ops(kernel);
        let body = kernel
            .region(0)
            .ok()
            .and_then(|region| region.first_block())
            .ok_or_else(|| (kernel.location(), "a kernel without a body".to_string()))?;
        let info = sample::KernelInfoOperationBuilder::new(context, kernel.location())
            .tile_ops(melior::ir::attribute::IntegerAttribute::new(melior::ir::r#type::IntegerType::new(context, 64).into(), count))
            .build();
        match body.first_operation() {
            Some(first) => body.insert_operation_before(first, info.into()),
            None => body.append_operation(info.into()),
        };
    }
    Ok(())
}
