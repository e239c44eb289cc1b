//! `tile-distribute-outer-loop{level=<L> units=<N|?>}`: gives every
//! kernel's independent outer loop its distribution over the parallel
//! level `L` of the target (`htp.distribution = #layout.axe<[N@L:1,
//! ?@iter:1]>`, or tasks of the user's grain), unless the user kept it
//! serial (`htp.range(..., parallel=False)`). A target's pipeline names its level; its
//! runtime reads the layout to cut the loop into chunks.

use htp_pass::{pass_type_id, Failure, PassDefinition};
use melior::{
    ir::{operation::OperationLike, OperationRef},
    Context,
};
use mlir_sys::MlirPass;

use crate::distribution::distribute;

pub const DEFINITION: PassDefinition = PassDefinition {
    argument: "tile-distribute-outer-loop",
    description: "Distribute each kernel's independent outer loop over a parallel level (an Axe layout of its trips, htp.distribution)",
    anchor: "builtin.module",
    create_raw: create,
    options: &[
        htp_pass::PassOption { name: "level", description: "the parallel level of the target's architecture model (an identifier)", default: "" },
        htp_pass::PassOption { name: "units", description: "how many units the level has, or ? (known at run time)", default: "?" },
    ],
};

unsafe extern "C" fn create() -> MlirPass {
    DEFINITION.external(run, pass_type_id!(), "TileDistributeOuterLoop", &[htp_dialects::handles::layout()])
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let level = htp_pass::option("level").unwrap_or_default();
    if level.is_empty() {
        return Err((module.location(), "tile-distribute-outer-loop: give the parallel level, level=<name>".into()));
    }
    let units = match htp_pass::option("units").as_deref() {
        None | Some("?") => None,
        Some(text) => match text.parse::<i64>() {
            Ok(n) if n > 0 => Some(n),
            _ => return Err((module.location(), format!("tile-distribute-outer-loop: units must be a positive integer or ?, got '{text}'"))),
        },
    };
    for kernel in htp_ir::query::kernel_functions(module) {
        distribute(context, kernel, &level, units)?;
    }
    Ok(())
}
