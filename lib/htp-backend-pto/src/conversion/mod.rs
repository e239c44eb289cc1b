//! `convert-tile-to-pto`: lowers each tile kernel to PTO-ISA instructions
//! for Ascend A2/A3 and the pto-runtime tasks that run it.
//!
//! A kernel `@k` becomes:
//! - `@k_aiv` (vector core) or `@k_aic` (cube core, when it multiplies
//!   matrices), or both when it does both (a cluster task: the cores hand
//!   tiles to each other, `split.rs`), `pto.core`: the kernel in PTO
//!   instructions on unplaced tile buffers (`pto-allocate-tiles` places
//!   them, `pto-insert-sync` adds the pipe synchronisation);
//! - `@k`, `pto.orchestration`: the task graph, which submits `@k_aiv`
//!   once, or once per chunk of the outer loop when its iterations are
//!   independent (`tasks.rs`).
//!
//! Files: `buffer.rs` (tile locations, layouts, `!pto.tile` types), `kernel.rs`
//! (control flow and buffers), `memory.rs` (GM views, loads, stores),
//! `relayout.rs` (rows <-> columns, transposes), `reductions.rs` (i16/i32 column reductions through rows), `masks.rs`
//! (broadcast masks rewritten as comparisons of broadcast values),
//! `vector.rs` and `cube.rs` (per-op lowering), `scalars.rs` (kernel-local arrays and `scf.while`: checked, copied), `instructions.rs` (the PTO instruction of each op kind, named from the dialect's ODS), `split.rs` (cube/vector split of
//! mixed kernels), `tasks.rs` (core choice, task split, orchestration), `attrs.rs` (enum attribute spellings),
//! `widen.rs` (bf16 arithmetic rewritten to f32 first).

pub mod attrs;
mod buffer;
pub mod comm;
mod reductions;
mod cores;
pub use cores::Core;
mod cube;
mod instructions;
mod kernel;
pub mod layouts;
mod masks;
mod memory;
mod relayout;
mod scalars;
mod selection;
mod shapes;
mod split;
mod state;
mod tasks;
mod vector;
mod widen;

use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationRef},
        RegionLike,
    },
    Context,
};


htp_pass::pass! {
    pub DEFINITION = Pass<"convert-tile-to-pto", "builtin.module"> {
        summary: "Lower tile kernels to PTO-ISA kernels (AIV/AIC) and a pto-runtime orchestration",
        dialects: [tile, crate::handles::pto, arith, scf, func, memref],
        run: convert_module,
    }
}


fn convert_module<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), state::Failure<'c>> {
    // verifier: builtin.module has one region with a single block (SingleBlock, NoTerminator).
    let body = module.region(0).unwrap().first_block().unwrap();
    let kernels = htp_ir::query::kernel_functions(module);
    let (clusters, kernels): (Vec<_>, Vec<_>) = kernels.into_iter().partition(|f| f.attribute(crate::ops::CLUSTER_ATTRIBUTE).is_ok());
    convert_clusters(context, body, clusters)?;
    for function in kernels {
        let name = melior::ir::attribute::StringAttribute::try_from(function.attribute("sym_name").map_err(|e| (function.location(), e.to_string()))?)
            .map(|s| s.value().to_string())
            .unwrap_or_default();
        scalars::check(function)?;
        widen::bf16_arithmetic(context, function)?;
        masks::broadcast_compares_first(context, function)?;
        // A kernel that communicates takes its chip's CommContext too (`comm.rs`).
        let comm_context = comm::add_context(context, function)?;
        let plan = tasks::plan(context, function, &name)?;
        for &core in &plan.cores {
            let kernel = state::Kernel::build(context, function, &plan, core)?;
            body.insert_operation_before(function, kernel);
        }
        let orchestration = tasks::orchestration(context, function, &name, &plan)?;
        if let Some(index) = comm_context {
            comm::mark_orchestration(context, unsafe { melior::ir::OperationRef::from_raw(orchestration.to_raw()) }, &comm::windows(function), index).map_err(|message| (function.location(), message))?;
        }
        body.insert_operation_before(function, orchestration);
        unsafe { mlir_sys::mlirOperationDestroy(function.to_raw()) };
    }
    Ok(())
}

/// Cluster programs written one tile kernel per core (`pto.cluster = name`,
/// `pto.core`; what a CSP program becomes on PTO): each name's kernels
/// become one cluster task, its orchestration named `name`.
fn convert_clusters<'c>(context: &'c Context, body: melior::ir::BlockRef<'c, '_>, functions: Vec<OperationRef<'c, 'c>>) -> Result<(), state::Failure<'c>> {
    use melior::ir::attribute::{DenseI64ArrayAttribute, StringAttribute};
    let text = |f: OperationRef<'c, 'c>, name: &str| f.attribute(name).ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string());
    let mut programs: Vec<(String, Vec<(OperationRef<'c, 'c>, cores::Core)>)> = Vec::new();
    for function in functions {
        let location = function.location();
        let name = text(function, crate::ops::CLUSTER_ATTRIBUTE).ok_or((location, "pto.cluster names its program".to_string()))?;
        let core = text(function, crate::ops::CORE_ATTRIBUTE)
            .and_then(|c| cores::Core::named(&c))
            .ok_or((location, "a kernel of a cluster program says its core (pto.core = \"aic\" or \"aiv\")".to_string()))?;
        match programs.iter_mut().find(|(n, _)| *n == name) {
            Some((_, kernels)) if kernels.iter().any(|(_, c)| *c == core) => {
                return Err((location, format!("cluster program '{name}' has two {} kernels: a cluster has one cube and one vector core program", core.keyword())))
            }
            Some((_, kernels)) => kernels.push((function, core)),
            None => programs.push((name, vec![(function, core)])),
        }
    }
    for (name, kernels) in programs {
        let slots_of = |f: OperationRef<'c, 'c>| f.attribute(crate::ops::CLUSTER_SLOTS_ATTRIBUTE).ok().and_then(|a| DenseI64ArrayAttribute::try_from(a).ok());
        let slots = kernels.iter().find_map(|(f, _)| slots_of(*f)).map(|a| [a.element(0).unwrap_or(2), a.element(1).unwrap_or(2)]).unwrap_or([2, 2]);
        for (function, _) in &kernels {
            scalars::check(*function)?;
            widen::bf16_arithmetic(context, *function)?;
            masks::broadcast_compares_first(context, *function)?;
        }
        let plan = tasks::cluster_plan(context, &kernels, &name, slots)?;
        for (function, core) in &kernels {
            let kernel = state::Kernel::build(context, *function, &plan, *core)?;
            body.insert_operation_before(*function, kernel);
        }
        let (first, _) = kernels[0];
        let orchestration = tasks::orchestration(context, first, &name, &plan)?;
        body.insert_operation_before(first, orchestration);
        for (function, _) in kernels {
            unsafe { mlir_sys::mlirOperationDestroy(function.to_raw()) };
        }
    }
    Ok(())
}

/// Whether the cube core computes tile ops of `kind` (its matmuls, and the
/// loads, pads, transposes, constants and stores around them); everything
/// else is the vector core's.
pub fn runs_on_cube(kind: crate::ops::TileOp) -> bool {
    use crate::ops::TileOp;
    matches!(kind, TileOp::Matmul | TileOp::Store) || split::MOVABLE.contains(&kind)
}
