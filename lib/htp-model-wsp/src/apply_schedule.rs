//! `wsp-apply-schedule`: puts a schedule (dispatch policy, workers, task
//! window, trace) on a workload as `wsp.schedule`, which the target
//! realises. `wsp.schedule(...)` in Python runs it with the user's
//! controls; per-task placement and streams (`dispatch_by`, `stream_by`)
//! are computed in the workload itself, on each task's keys.

use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        OperationRef, RegionLike,
    },
    Context,
};

use htp_pass::Failure;

use crate::schedule::{Dispatch, Schedule, SCHEDULE_ATTRIBUTE};

htp_pass::pass! {
    pub DEFINITION = Pass<"wsp-apply-schedule", "builtin.module"> {
        summary: "Attach a schedule (dispatch policy, workers, task window, timing, trace) to WSP workloads",
        dialects: [crate::handles::wsp],
        options: Options {
            #[option("workload", default = "*", "the workload to schedule (*: every one)")]
            workload: String,
            #[option("dispatch", default = "dynamic", "round_robin, affinity, work_stealing or dynamic")]
            dispatch: String,
            #[option("workers", default = "0", "worker threads (0: one per core)")]
            workers: usize,
            #[option("window", default = "0", "tasks issued and not finished at most; issue stalls there (0: no bound)")]
            window: usize,
            #[option("batch", default = "1", "timing: tasks reach the runtime in batches of this many (1: at once)")]
            batch: std::num::NonZeroUsize,
            #[option("trace", default = "-", "a file each run writes its trace to (Chrome trace JSON; -: none)")]
            trace: String,
        },
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>> {
    let dispatch = Dispatch::parse(&options.dispatch).ok_or_else(|| {
        (module.location(), format!("wsp-apply-schedule: unknown dispatch policy '{}' (known: {})", options.dispatch, Dispatch::NAMES.join(", ")))
    })?;
    let schedule = Schedule {
        dispatch,
        workers: options.workers,
        window: options.window,
        trace: Some(options.trace.clone()).filter(|t| !t.is_empty() && t != "-"),
        batch: options.batch.get(),
    };
    let mut found = false;
    let mut op = module.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
    while let Some(current) = op {
        op = current.next_in_block();
        let every = options.workload == "*";
        if !crate::ir::is_workload(current) || !(every || crate::ir::symbol(current).as_deref() == Some(options.workload.as_str())) {
            continue;
        }
        found = true;
        let mut function = unsafe { OperationRefMut::from_raw(current.to_raw()) };
        function.set_attribute(SCHEDULE_ATTRIBUTE, schedule.attribute(context));
    }
    if !found && options.workload != "*" {
        return Err((module.location(), format!("wsp-apply-schedule: no workload named '{}'", options.workload)));
    }
    Ok(())
}
