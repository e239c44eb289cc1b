//! A workload's wsp ops → the PTO backend's orchestration IR (the
//! `pto.schedule` family, `scf.for`, `memref.load`), which the backend's
//! orchestration writer prints (`htp_backend_pto::emit::schedule`):
//!
//! - the schedule → `pto.schedule` at the top of the workload (its window,
//!   round-robin lanes — one per available cluster without `workers=` —
//!   and the policy's name);
//! - a loop over axes → a nest of `scf.for`: a dense axis `0..n`, a ragged
//!   one `b in 0..n` then `c in 0..max(0, lengths[b])`, a sparse one
//!   `r in 0..rows` then `k in max(0, ptr[r])..ptr[r + 1]` binding
//!   `cols[k]` (each length and index read with `memref.load`: an input of
//!   the call, read at once); an outermost loop's innermost iteration is a
//!   `pto.scope`; a sequential loop is a `pto.ordered` whose iterations end
//!   with `pto.order_barrier` (inside the scope); a select iterates its
//!   elements under `pto.guard %predicate[e] ne 0`;
//! - `wsp.when` → `pto.guard` on its element; `wsp.view` →
//!   `pto.tensor_view`; `wsp.channel` (a pipe's ring) → `pto.alloc_tensor`;
//!   `wsp.cores` → `pto.available_cores "aic"` (one cube core per cluster);
//!   `wsp.task` → `pto.task` of the kernel's orchestration, its access modes
//!   and stream kept, at the user's line.

use htp_backend_pto::ods::pto;
use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_model_wsp::ir::{access, name_of, operands, position, segments};
use htp_model_wsp::schedule::{Dispatch, Schedule};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, Block, BlockRef, Location, OperationRef, Region, RegionLike, Type, TypeLike, ValueLike,
    },
    Context,
};

type Result<'c, T> = std::result::Result<T, Failure<'c>>;

fn fail<'c>(location: Location<'c>, e: impl ToString) -> Failure<'c> {
    (location, e.to_string())
}

/// Rewrites `workload`'s wsp ops (checked by `lower::lower` before).
/// `comm_context`: the workload's `CommContext` argument, which each task
/// of a kernel in `communicating` gets as its argument there (the kernel's
/// orchestration's context argument: its last).
pub fn convert<'c>(
    context: &'c Context,
    workload: OperationRef<'c, 'c>,
    schedule: &Schedule,
    window: i64,
    comm_context: Option<usize>,
    communicating: &std::collections::HashMap<String, usize>,
) -> Result<'c, ()> {
    let location = workload.location();
    let entry = workload.region(0).ok().and_then(|r| r.first_block()).ok_or(fail(location, "a workload without a body"))?;
    let entry: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(entry.to_raw()) };
    let lanes = match (schedule.dispatch, schedule.workers) {
        (Dispatch::RoundRobin, 0) => -1,
        (Dispatch::RoundRobin, n) => n as i64,
        _ => 0,
    };
    let i64_type: Type<'c> = IntegerType::new(context, 64).into();
    let first = entry.first_operation().ok_or(fail(location, "a workload without a return"))?;
    let first: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(first.to_raw()) };
    let top = Emitter { context, block: entry, anchor: first, location };
    top.op(
        pto::ScheduleOperation::name(),
        &[],
        &[],
        &[
            ("window", IntegerAttribute::new(i64_type, window).into()),
            ("lanes", IntegerAttribute::new(i64_type, lanes).into()),
            ("dispatch", StringAttribute::new(context, schedule.dispatch.name()).into()),
        ],
        vec![],
    );
    let comm_context = match comm_context {
        Some(index) => Some(entry.argument(index).map(|a| detach(a.into())).map_err(|e| fail(location, e))?),
        None => None,
    };
    let converter = Converter { context, placeholders: Default::default(), comm_context, communicating };
    converter.block(entry, true)?;
    for placeholder in converter.placeholders.take() {
        unsafe { mlir_sys::mlirOperationDestroy(placeholder.to_raw()) };
    }
    // The axes and elements, now unused.
    let mut leftovers = Vec::new();
    workload.walk(melior::ir::operation::WalkOrder::PostOrder, |op| {
        if op.region_count() == 0 && name_of(unsafe { OperationRef::from_raw(op.to_raw()) }).starts_with("wsp.") {
            leftovers.push(op.to_raw());
        }
        melior::ir::operation::WalkResult::Advance
    });
    for op in leftovers.into_iter().rev() {
        unsafe { mlir_sys::mlirOperationDestroy(op) };
    }
    Ok(())
}

struct Converter<'c, 'a> {
    context: &'c Context,
    /// The workload's `CommContext` (when it communicates), and the kernels
    /// whose tasks take it.
    comm_context: Option<V<'c>>,
    communicating: &'a std::collections::HashMap<String, usize>,
    /// Ops marking the end of a region without a terminator while it is
    /// filled (removed when the conversion is done).
    placeholders: std::cell::RefCell<Vec<OperationRef<'c, 'c>>>,
}

/// A new `scf.for lower..upper step 1` before `anchor`; its body's block
/// (ending with `scf.yield`) and induction variable.
fn for_loop<'c>(at: &Emitter<'c, 'c>, lower: V<'c>, upper: V<'c>) -> Result<'c, (BlockRef<'c, 'c>, V<'c>)> {
    let index = Type::index(at.context);
    let region = Region::new();
    let body = region.append_block(Block::new(&[(index, at.location)]));
    let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
    body.append_operation(OperationBuilder::new("scf.yield", at.location).build().map_err(|e| fail(at.location, e))?);
    let step = at.index(1);
    at.op("scf.for", &[lower, upper, step], &[], &[], vec![region]);
    let iv = body.argument(0).map(|a| detach(a.into())).map_err(|e| fail(at.location, e))?;
    Ok((body, iv))
}

/// A new op `name` with one region of one empty block, before `at`'s anchor; its block.
fn region_op<'c>(at: &Emitter<'c, 'c>, name: &str, operands: &[V<'c>], attributes: &[(&str, Attribute<'c>)]) -> BlockRef<'c, 'c> {
    let region = Region::new();
    let block = region.append_block(Block::new(&[]));
    let block: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(block.to_raw()) };
    at.op(name, operands, &[], attributes, vec![region]);
    block
}

impl<'c> Converter<'c, '_> {
    /// An emitter at the end of `block`: before its `scf.yield`, or before a
    /// placeholder op in a region without a terminator (`pto.scope`, `pto.guard`).
    fn end_of(&self, block: BlockRef<'c, 'c>, location: Location<'c>) -> Emitter<'c, 'c> {
        let anchor = match block.terminator().filter(|t| name_of(*t) == "scf.yield") {
            Some(yield_op) => unsafe { OperationRef::from_raw(yield_op.to_raw()) },
            None => {
                let index = Type::index(self.context);
                let marker = melior::dialect::arith::constant(self.context, IntegerAttribute::new(index, 0).into(), location);
                let marker = unsafe { OperationRef::from_raw(block.append_operation(marker).to_raw()) };
                self.placeholders.borrow_mut().push(marker);
                marker
            }
        };
        Emitter { context: self.context, block, anchor, location }
    }

    /// Converts the wsp ops of `block` (in order; `outermost`: outside every wsp loop).
    fn block(&self, block: BlockRef<'c, 'c>, outermost: bool) -> Result<'c, ()> {
        let mut ops = Vec::new();
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            ops.push(unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) });
        }
        for op in ops {
            let name = name_of(op);
            let at = Emitter { context: self.context, block, anchor: op, location: op.location() };
            match name.as_str() {
                "wsp.cores" => {
                    let count = at.value_with(pto::AvailableCoresOperation::name(), &[], Type::index(self.context), &[("core", StringAttribute::new(self.context, "aic").into())]);
                    self.replace(op, count)?;
                }
                "wsp.channel" => {
                    let ty = op.result(0).map_err(|e| fail(op.location(), e))?.r#type();
                    let ring = at.value_with(pto::AllocTensorOperation::name(), &[], ty, &[]);
                    self.replace(op, ring)?;
                }
                "wsp.view" => self.view(&at, op)?,
                "wsp.task" => self.task(&at, op)?,
                "wsp.when" => self.when(&at, op)?,
                "wsp.parallel" | "wsp.sequential" | "wsp.select" => self.loop_op(&at, op, outermost)?,
                _ => {
                    // Code inside other regions (scf.if, scf.for) may hold wsp ops too.
                    for index in 0..op.region_count() {
                        let mut inner = op.region(index).ok().and_then(|r| r.first_block());
                        while let Some(current) = inner {
                            inner = current.next_in_region();
                            self.block(unsafe { BlockRef::from_raw(current.to_raw()) }, outermost)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn replace(&self, op: OperationRef<'c, 'c>, value: V<'c>) -> Result<'c, ()> {
        let result = op.result(0).map_err(|e| fail(op.location(), e))?;
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), value.to_raw());
            mlir_sys::mlirOperationDestroy(op.to_raw());
        }
        Ok(())
    }

    fn at_attribute(&self, op: OperationRef) -> Attribute<'c> {
        StringAttribute::new(self.context, &position(op.location())).into()
    }

    fn view(&self, at: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>) -> Result<'c, ()> {
        let all: Vec<V<'c>> = operands(op).into_iter().map(detach).collect();
        let rank = htp_ir::builder::shape_of(all[0].r#type()).len();
        let result = op.result(0).map_err(|e| fail(op.location(), e))?.r#type();
        let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(self.context, &[1, rank as i32, (all.len() - 1 - rank) as i32]).into();
        let view = at.value_with(pto::TensorViewOperation::name(), &all, result, &[("operandSegmentSizes", segments), ("at", self.at_attribute(op))]);
        self.replace(op, view)
    }

    fn task(&self, at: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>) -> Result<'c, ()> {
        let seg = segments(op);
        let all: Vec<V<'c>> = operands(op).into_iter().map(detach).collect();
        let arguments = &all[seg[0]..seg[0] + seg[1]];
        let modes = access(op).unwrap_or_default();
        let access: Vec<Attribute<'c>> = arguments
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mode = if a.r#type().is_mem_ref() { modes.get(i).map(String::as_str).unwrap_or("inout") } else { "none" };
                StringAttribute::new(self.context, mode).into()
            })
            .collect();
        let mut values: Vec<V<'c>> = arguments.to_vec();
        let stream = seg[2] == 1;
        if stream {
            values.push(all[seg[0] + seg[1]]);
        }
        let callee = op.attribute("callee").map_err(|e| fail(op.location(), e))?.to_string();
        let callee = callee.trim_start_matches('@');
        let mut arguments = arguments.to_vec();
        let mut access = access;
        if let Some(&index) = self.communicating.get(callee) {
            // The kernel's orchestration takes the chip's CommContext last (before the stream, if any,
            // which is the task's own operand, not an argument).
            let context = self.comm_context.ok_or(fail(op.location(), "internal error: a communicating task in a workload without a CommContext"))?;
            if index != arguments.len() {
                return Err(fail(op.location(), format!("internal error: '{callee}' takes its CommContext as argument {index}, after {} others", arguments.len())));
            }
            values.insert(arguments.len(), context);
            arguments.push(context);
            access.push(StringAttribute::new(self.context, "none").into());
        }
        let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(self.context, &[arguments.len() as i32, stream as i32]).into();
        at.op(
            pto::TaskOperation::name(),
            &values,
            &[],
            &[
                ("callee", FlatSymbolRefAttribute::new(self.context, callee).into()),
                ("access", ArrayAttribute::new(self.context, &access).into()),
                ("at", self.at_attribute(op)),
                ("operandSegmentSizes", segments),
            ],
            vec![],
        );
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        Ok(())
    }

    /// `wsp.when %element pred %bound { body }` → `pto.guard %tensor[%indices] pred %bound { body }`.
    fn when(&self, at: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>) -> Result<'c, ()> {
        let element = op.operand(0).ok().map(detach).and_then(htp_ir::query::defining_op).filter(|e| name_of(*e) == "wsp.element").ok_or(fail(op.location(), "a guard reads a wsp.element"))?;
        let mut guard_operands: Vec<V<'c>> = operands(element).into_iter().map(detach).collect();
        guard_operands.push(detach(op.operand(1).map_err(|e| fail(op.location(), e))?));
        let predicate = op.attribute("predicate").map_err(|e| fail(op.location(), e))?;
        let body = region_op(at, pto::GuardOperation::name(), &guard_operands, &[("predicate", predicate)]);
        self.move_body(op, body, &[])?;
        self.block(body, false)?;
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        Ok(())
    }

    /// Moves the ops of `op`'s body (but its `wsp.yield`) to the end of
    /// `target`, its block arguments replaced by `arguments`.
    fn move_body(&self, op: OperationRef<'c, 'c>, target: BlockRef<'c, 'c>, arguments: &[V<'c>]) -> Result<'c, ()> {
        let body = op.region(0).ok().and_then(|r| r.first_block()).ok_or(fail(op.location(), "a wsp op without a body"))?;
        for (index, value) in arguments.iter().enumerate() {
            let argument = body.argument(index).map_err(|e| fail(op.location(), e))?;
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), value.to_raw()) };
        }
        let end = self.end_of(target, op.location());
        let mut inner = body.first_operation();
        while let Some(current) = inner {
            inner = current.next_in_block();
            if name_of(current) != "wsp.yield" {
                unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), end.anchor.to_raw()) };
            }
        }
        Ok(())
    }

    /// An element of a 1-D or `1 x N` integer tensor, as an index.
    fn read(&self, at: &Emitter<'c, 'c>, tensor: V<'c>, index: V<'c>) -> V<'c> {
        let rank = htp_ir::builder::shape_of(tensor.r#type()).len();
        let indices = if rank == 2 { vec![tensor, at.index(0), index] } else { vec![tensor, index] };
        let element = htp_ir::builder::element_of(tensor.r#type());
        let value = at.value("memref.load", &indices, element);
        if element.is_index() {
            value
        } else {
            at.value("arith.index_cast", &[value], Type::index(self.context))
        }
    }

    fn loop_op(&self, at: &Emitter<'c, 'c>, op: OperationRef<'c, 'c>, outermost: bool) -> Result<'c, ()> {
        let kind = name_of(op);
        let location = op.location();
        // A sequential loop's nest lives in a pto.ordered.
        let mut current = if kind == "wsp.sequential" {
            let ordered = region_op(at, pto::OrderedOperation::name(), &[], &[]);
            self.end_of(ordered, location)
        } else {
            Emitter { context: self.context, block: at.block, anchor: at.anchor, location }
        };
        let mut indices: Vec<V<'c>> = Vec::new();
        let mut guard = None;
        if kind == "wsp.select" {
            let size = detach(op.operand(0).map_err(|e| fail(location, e))?);
            let (body, e) = for_loop(&current, current.index(0), size)?;
            current = self.end_of(body, location);
            indices.push(e);
            guard = Some((detach(op.operand(1).map_err(|e| fail(location, e))?), e));
        } else {
            for axis_value in operands(op) {
                let axis = htp_ir::query::defining_op(detach(axis_value)).ok_or(fail(location, "an axis that is not wsp.dense/ragged/sparse"))?;
                let operand = |k: usize| axis.operand(k).map(detach).map_err(|e| fail(location, e));
                match name_of(axis).as_str() {
                    "wsp.dense" => {
                        let (body, i) = for_loop(&current, current.index(0), operand(0)?)?;
                        current = self.end_of(body, location);
                        indices.push(i);
                    }
                    "wsp.ragged" => {
                        let (body, b) = for_loop(&current, current.index(0), operand(0)?)?;
                        let inner = self.end_of(body, location);
                        let length = self.read(&inner, operand(1)?, b);
                        let n = inner.value("arith.maxsi", &[length, inner.index(0)], Type::index(self.context));
                        let (body, c) = for_loop(&inner, inner.index(0), n)?;
                        current = self.end_of(body, location);
                        indices.extend([b, c]);
                    }
                    "wsp.sparse" => {
                        let (body, r) = for_loop(&current, current.index(0), operand(0)?)?;
                        let inner = self.end_of(body, location);
                        let start = self.read(&inner, operand(1)?, r);
                        let first = inner.value("arith.maxsi", &[start, inner.index(0)], Type::index(self.context));
                        let next = inner.value("arith.addi", &[r, inner.index(1)], Type::index(self.context));
                        let last = self.read(&inner, operand(1)?, next);
                        let (body, k) = for_loop(&inner, first, last)?;
                        let innermost = self.end_of(body, location);
                        let column = self.read(&innermost, operand(2)?, k);
                        current = innermost;
                        indices.extend([r, column]);
                    }
                    other => return Err(fail(location, format!("'{other}' is not an axis"))),
                }
            }
        }
        // The iteration's scope (an outermost loop's), then its guard (a select's).
        let iteration = if outermost {
            let scope = region_op(&current, pto::ScopeOperation::name(), &[], &[("at", self.at_attribute(op))]);
            self.end_of(scope, location)
        } else {
            current
        };
        let iteration_block = iteration.block;
        let body = match guard {
            Some((predicate, e)) => {
                let rank = htp_ir::builder::shape_of(predicate.r#type()).len();
                let mut guard_operands = vec![predicate];
                if rank == 2 {
                    guard_operands.push(iteration.index(0));
                }
                guard_operands.push(e);
                guard_operands.push(iteration.index(0));
                region_op(&iteration, pto::GuardOperation::name(), &guard_operands, &[("predicate", StringAttribute::new(self.context, "ne").into())])
            }
            None => iteration_block,
        };
        self.move_body(op, body, &indices)?;
        if kind == "wsp.sequential" {
            // The order barrier ends the iteration inside its scope.
            let end = self.end_of(iteration_block, location);
            end.op(pto::OrderBarrierOperation::name(), &[], &[], &[], vec![]);
        }
        self.block(body, false)?;
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        Ok(())
    }
}
