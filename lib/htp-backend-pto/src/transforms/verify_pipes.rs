//! `pto-verify-pipes`: checks the cross-core hand-over protocol of every
//! cluster task (a `pto.core = "aic"` and a `pto.core = "aiv"` kernel of one
//! task, both with `pto.fifo`) before a package is written, since a broken
//! protocol is a silent wrong result or a stall on the device:
//!
//! - in every block, each `pto.tpop` of a direction is freed (`pto.tfree`)
//!   before the next pop of that direction and before the block ends — so a
//!   loop frees what it pops on every trip, never a slot it popped once
//!   outside it;
//! - the consumer pops, per direction, exactly what the producer pushes,
//!   with the same control flow around each hand-over (both kernels keep the
//!   task's loops and branches), so every push has its pop.

use std::collections::BTreeMap;

use melior::ir::{
    attribute::StringAttribute,
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    BlockRef, Location, OperationRef, RegionLike,
};

use crate::ods::pto;
use crate::ops::{CORE_ATTRIBUTE, FIFO_ATTRIBUTE};
use htp_dialects::ods::view;

htp_pass::pass! {
    pub DEFINITION = Pass<"pto-verify-pipes", "builtin.module"> {
        summary: "Check that each cluster task's cube and vector kernels push, pop and free their cross-core pipes in step",
        dialects: [crate::handles::pto],
        run: run,
    }
}

/// A hand-over direction, as the `dir` attribute numbers it (0 = c2v, 1 = v2c).
type Direction = i64;

fn direction_name(dir: Direction) -> &'static str {
    if dir == 0 {
        "c2v"
    } else {
        "v2c"
    }
}

/// Which core pushes in direction `dir` (c2v: the cube).
fn producer(dir: Direction) -> &'static str {
    if dir == 0 {
        "aic"
    } else {
        "aiv"
    }
}

fn run<'c>(_context: &'c melior::Context, module: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    // Task name -> core -> kernel.
    let mut tasks: BTreeMap<String, BTreeMap<String, OperationRef<'c, 'c>>> = BTreeMap::new();
    module.walk(WalkOrder::PreOrder, |op| {
        let function: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(op.to_raw()) };
        let text = |name: &str| function.attribute(name).ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string());
        if let (Some(core), Some(name), true) = (text(CORE_ATTRIBUTE), text("sym_name"), function.attribute(FIFO_ATTRIBUTE).is_ok()) {
            let task = name.strip_suffix(&format!("_{core}")).unwrap_or(&name).to_string();
            tasks.entry(task).or_default().insert(core, function);
        }
        WalkResult::Advance
    });
    for (task, kernels) in &tasks {
        for function in kernels.values() {
            check_frees(function_body(*function)?)?;
        }
        for dir in [0, 1] {
            let (Some(pushing), Some(popping)) = (kernels.get(producer(dir)), kernels.get(producer(1 - dir))) else {
                let (core, function) = kernels.iter().next().map(|(c, f)| (c.as_str(), f.location())).unwrap_or(("?", module.location()));
                return Err((function, format!("cluster task {task} has only its {core} kernel: a pipe needs both cores")));
            };
            let pushes = trace(function_body(*pushing)?, dir, Event::Push);
            let pops = trace(function_body(*popping)?, dir, Event::Pop);
            if pushes != pops {
                return Err((
                    popping.location(),
                    format!(
                        "the {} hand-overs of cluster task {task} do not match: {} pushes {} but {} pops {} \
                         (P = one tile; for{{..}}, if{{..|..}}: the control flow around it)",
                        direction_name(dir),
                        producer(dir),
                        show(&pushes),
                        producer(1 - dir),
                        show(&pops)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn function_body<'c>(function: OperationRef<'c, 'c>) -> Result<BlockRef<'c, 'c>, htp_pass::Failure<'c>> {
    let region = function.region(0).map_err(|e| (function.location(), e.to_string()))?;
    region.first_block().map(|b| unsafe { BlockRef::from_raw(b.to_raw()) }).ok_or((function.location(), "a kernel without a body".to_string()))
}

/// The `dir` of a push, pop or free.
fn dir_of(op: OperationRef) -> Option<Direction> {
    op.attribute("dir").ok().and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok()).map(|a| a.value())
}

/// Pops are freed in the block that popped them, one at a time.
fn check_frees<'c>(block: BlockRef<'c, 'c>) -> Result<(), htp_pass::Failure<'c>> {
    let mut open: [Option<Location<'c>>; 2] = [None, None];
    let mut next = block.first_operation();
    while let Some(op) = next {
        let op: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(op.to_raw()) };
        next = op.next_in_block();
        let dir = dir_of(op).map(|d| d.clamp(0, 1) as usize);
        if view::<pto::TPopOperation>(op).is_some() {
            let dir = dir.ok_or((op.location(), "a pop without a direction".to_string()))?;
            if open[dir].is_some() {
                return Err((op.location(), format!("this {} pop comes before the previous pop was freed: it would overwrite a tile still to be read", direction_name(dir as i64))));
            }
            open[dir] = Some(op.location());
        } else if view::<pto::TFreeOperation>(op).is_some() {
            let dir = dir.ok_or((op.location(), "a free without a direction".to_string()))?;
            if open[dir].take().is_none() {
                return Err((op.location(), format!("this {} free has no pop before it in its block (a loop would free a slot it did not pop)", direction_name(dir as i64))));
            }
        }
    }
    for (dir, location) in open.iter().enumerate() {
        if let Some(location) = location {
            return Err((*location, format!("this {} pop is not freed in its block", direction_name(dir as i64))));
        }
    }
    // Then the blocks nested in this one's ops, each on its own.
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        for region in op.regions() {
            let mut inner = region.first_block();
            while let Some(b) = inner {
                check_frees(unsafe { BlockRef::from_raw(b.to_raw()) })?;
                inner = b.next_in_region();
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
enum Event {
    Push,
    Pop,
}

/// The hand-overs of direction `dir` in `block`, with the loops and
/// branches around them (empty ones dropped).
fn trace(block: BlockRef, dir: Direction, event: Event) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let op: OperationRef = unsafe { OperationRef::from_raw(op.to_raw()) };
        let hands_over = match event {
            Event::Push => view::<pto::TPushOperation>(op).is_some(),
            Event::Pop => view::<pto::TPopOperation>(op).is_some(),
        };
        if hands_over && dir_of(op) == Some(dir) {
            steps.push(Step::Tile);
            continue;
        }
        let regions: Vec<Vec<Step>> = op
            .regions()
            .map(|region| region.first_block().map(|b| trace(unsafe { BlockRef::from_raw(b.to_raw()) }, dir, event)).unwrap_or_default())
            .collect();
        if regions.iter().any(|r| !r.is_empty()) {
            let kind = op.name().as_string_ref().as_str().unwrap_or("?").trim_start_matches("scf.").to_string();
            steps.push(Step::Nested(kind, regions));
        }
    }
    steps
}

#[derive(Debug, PartialEq)]
enum Step {
    Tile,
    Nested(String, Vec<Vec<Step>>),
}

fn show(steps: &[Step]) -> String {
    if steps.is_empty() {
        return "nothing".into();
    }
    steps
        .iter()
        .map(|step| match step {
            Step::Tile => "P".to_string(),
            Step::Nested(kind, regions) => {
                format!("{kind}{{{}}}", regions.iter().map(|r| if r.is_empty() { String::new() } else { show(r) }).collect::<Vec<_>>().join("|"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
