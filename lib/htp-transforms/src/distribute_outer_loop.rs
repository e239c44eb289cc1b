//! `tile-distribute-outer-loop{level=<L> units=<N|?>}`: gives every
//! kernel's independent outer loop its distribution over the parallel
//! level `L` of the target (`htp.distribution = #layout.axe<[N@L:1,
//! ?@iter:1]>`, or tasks of the user's grain), unless the user kept it
//! serial (`htp.range(..., parallel=False)`). A target's pipeline names its level; its
//! runtime reads the layout to cut the loop into chunks.

use htp_pass::Failure;
use melior::{
    ir::{operation::OperationLike, OperationRef},
    Context,
};

use crate::distribution::distribute;

htp_pass::pass! {
    pub DEFINITION = Pass<"tile-distribute-outer-loop", "builtin.module"> {
        summary: "Distribute each kernel's independent outer loop over a parallel level (an Axe layout of its trips, htp.distribution)",
        dialects: [layout],
        options: Options {
            #[option("level", default = "", "the parallel level of the target's architecture model (an identifier)")]
            level: String,
            #[option("units", default = "?", "how many units the level has, or ? (known at run time)")]
            units: Units,
        },
        run: run,
    }
}

/// How many units a level has: a positive number, or `?` (known at run time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Units(pub Option<i64>);

impl htp_pass::OptionType for Units {
    const EXPECTED: &'static str = "a positive integer or ?";
    fn parse_option(text: &str) -> Option<Self> {
        match text {
            "?" => Some(Units(None)),
            _ => text.parse().ok().filter(|n| *n > 0).map(|n| Units(Some(n))),
        }
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>> {
    if options.level.is_empty() {
        return Err((module.location(), "tile-distribute-outer-loop: give the parallel level, level=<name>".into()));
    }
    for kernel in htp_ir::query::kernel_functions(module) {
        distribute(context, kernel, &options.level, options.units.0)?;
    }
    Ok(())
}
