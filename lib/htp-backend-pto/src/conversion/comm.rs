//! The `comm` intrinsic set (`crate::intrinsics::COMM`) on PTO: a kernel
//! that communicates with the other chips of its group.
//!
//! Before planning, a tile kernel using `tile.intrinsic_effect "comm.*"` (or
//! taking a communication window, `comm.Window[...]`) gets one more
//! argument, the `CommContext *` pto-runtime gives each chip of a domain
//! (`comm_context`, an `i64`, last): its rank, the group's size and the base
//! address of every rank's window. Such a kernel runs as one task per chip
//! (its outer loop is never split: a collective counts its signals per
//! chip), on the vector core, its windows passed `inout`. The entry
//! orchestration's arguments say which are windows and which is the context
//! (`pto.comm = "window" | "context"`), which the manifest records for the
//! runner (`htp.pto.runtime`'s group sessions).
//!
//! Each intrinsic becomes one `pto.comm_*` op: `comm.rank`/`comm.size`
//! read the context, `comm.put` is a `pto.comm_put` of the tile's buffer to
//! the block's GM view (its peer's copy), `comm.notify`/`comm.wait` are
//! `pto.comm_notify`/`pto.comm_wait` of the signal element.

use melior::{
    ir::{
        attribute::{IntegerAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::IntegerType,
        Location, OperationRef, RegionLike, Type, ValueLike,
    },
    Context,
};

use super::buffer::Layout;
use super::state::{At, Failure, Kernel};
use htp_ir::builder::{detach, Builder, V};
use htp_ir::query::key;
use crate::ods::pto;
use crate::ops::TileOp;

/// The tile kernel's attribute naming its context argument (set here, read by the lowering).
const CONTEXT_INDEX: &str = "htp.comm_context";
/// The orchestration's argument attribute: `"window"` or `"context"`.
pub const COMM_ARGUMENT: &str = "pto.comm";
/// The name the context argument gets (the manifest's).
pub const CONTEXT_NAME: &str = "comm_context";

/// Whether the tile kernel `function` communicates: it calls a `comm`
/// intrinsic or takes a window.
pub fn communicates(function: OperationRef) -> bool {
    if !htp_api::signature::declared_arguments(function, htp_api::signature::WINDOWS_ATTRIBUTE).is_empty() {
        return true;
    }
    let mut found = false;
    function.walk(WalkOrder::PreOrder, |op| {
        if TileOp::of(op) == Some(TileOp::IntrinsicEffect) && callee(op).is_some_and(|c| c.starts_with("comm.")) {
            found = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

fn callee(op: OperationRef) -> Option<String> {
    op.attribute("callee").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string())
}

/// The argument indices of `function`'s windows.
pub fn windows(function: OperationRef) -> Vec<usize> {
    htp_api::signature::declared_arguments(function, htp_api::signature::WINDOWS_ATTRIBUTE).into_iter().map(|i| i as usize).collect()
}

/// Appends the `CommContext *` argument to a communicating tile kernel;
/// returns its index (None for a kernel that does not communicate).
pub fn add_context<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<Option<usize>, Failure<'c>> {
    if !communicates(function) {
        return Ok(None);
    }
    let location = function.location();
    let index = append_context(context, function).map_err(|message| (location, message))?;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
    function.set_attribute(CONTEXT_INDEX, IntegerAttribute::new(i64_type, index as i64).into());
    Ok(Some(index))
}

/// Appends an `i64` argument named [`CONTEXT_NAME`] to `function` (its
/// type updated); returns its index.
pub fn append_context<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<usize, String> {
    let location = function.location();
    let entry = function.region(0).map_err(|e| e.to_string())?.first_block().ok_or("a function without a body")?;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let index = entry.argument_count();
    entry.add_argument(i64_type, Location::name(context, CONTEXT_NAME, location));
    htp_ir::builder::sync_function_inputs(context, function);
    Ok(index)
}

/// The index of an orchestration's `CommContext` argument (marked by
/// [`mark_orchestration`]): the kernel communicates, and whoever calls its
/// orchestration (a workload's task) hands it its own context there.
pub fn context_argument<'c: 'a, 'a>(orchestration: impl OperationLike<'c, 'a>) -> Option<usize> {
    let attributes = orchestration.attribute("arg_attrs").ok().and_then(|a| melior::ir::attribute::ArrayAttribute::try_from(a).ok())?;
    let marker = format!("{COMM_ARGUMENT} = \"context\"");
    (0..attributes.len()).find(|i| attributes.element(*i).is_ok_and(|a| a.to_string().contains(&marker)))
}

/// Marks the entry orchestration's window and context arguments
/// ([`COMM_ARGUMENT`]), which the package's manifest records.
pub fn mark_orchestration<'c: 'a, 'a>(context: &Context, orchestration: impl OperationLike<'c, 'a>, windows: &[usize], comm_context: usize) -> Result<(), String> {
    let count = orchestration.region(0).map_err(|e| e.to_string())?.first_block().ok_or("an orchestration without a body")?.argument_count();
    let entries: Vec<String> = (0..count)
        .map(|i| match i {
            _ if windows.contains(&i) => format!("{{{COMM_ARGUMENT} = \"window\"}}"),
            // The runner supplies it: a task calling this orchestration passes the others.
            _ if i == comm_context => format!("{{{COMM_ARGUMENT} = \"context\", {}}}", htp_api::signature::IMPLICIT_ATTRIBUTE),
            _ => "{}".to_string(),
        })
        .collect();
    let text = format!("[{}]", entries.join(", "));
    let attribute = melior::ir::Attribute::parse(context, &text).ok_or_else(|| format!("internal error: cannot parse {text}"))?;
    let mut orchestration = unsafe { OperationRefMut::from_raw(orchestration.to_raw()) };
    orchestration.set_attribute("arg_attrs", attribute);
    Ok(())
}

/// The kernel's context value (the new argument standing for the tile
/// kernel's [`add_context`] one).
fn context_value<'c>(k: &Kernel<'c>, op: OperationRef<'c, 'c>) -> Result<V<'c>, String> {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if current.name().as_string_ref().as_str() == Ok("func.func") {
            let index = current
                .attribute(CONTEXT_INDEX)
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .ok_or("a comm intrinsic in a kernel without its communication context")?
                .value() as usize;
            let entry = current.region(0).map_err(|e| e.to_string())?.first_block().ok_or("kernel without a body")?;
            let argument = entry.argument(index).map_err(|e| e.to_string())?;
            return k.value(detach(argument.into()));
        }
        parent = current.parent_operation();
    }
    Err("a comm intrinsic outside a kernel".into())
}

/// `tile.intrinsic_effect "comm.*"` -> its `pto.comm_*` op.
pub fn lower<'c>(k: &mut Kernel<'c>, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
    let name = callee(op).ok_or("an intrinsic without a callee")?;
    if crate::intrinsics::COMM.intrinsics.iter().all(|i| i.op != name) {
        return Err(format!("'{name}' is not an intrinsic of the PTO targets"));
    }
    if k.is_cluster() {
        return Err(format!("{name}: a kernel that communicates runs on the vector core alone; this one also multiplies matrices (split it into two kernels)"));
    }
    let context = context_value(k, op)?;
    let operands: Vec<V<'c>> = op.operands().map(detach).collect();
    let old = |i: usize| operands.get(i).copied().ok_or_else(|| format!("{name} without operand {i}"));
    let string = |attribute: &str| -> Result<melior::ir::Attribute<'c>, String> {
        let value = op.attribute(attribute).map_err(|_| format!("{name} without its {attribute}"))?;
        let text = StringAttribute::try_from(value).map_err(|_| format!("{name}'s {attribute} is not a string"))?.value().to_string();
        Ok(StringAttribute::new(at.context, &text).into())
    };
    let rank_of = |memref: V<'c>| htp_ir::builder::shape_of(memref.r#type()).len();
    match name.as_str() {
        "comm.rank" | "comm.size" => {
            let kind = if name == "comm.rank" { pto::CommRankOperation::name() } else { pto::CommSizeOperation::name() };
            let value = at.value(kind, &[context], Type::index(at.context));
            let result = htp_ir::query::result_at(op, 0).ok_or_else(|| format!("{name} without its result"))?;
            k.values.insert(key(result), value);
        }
        "comm.put" => {
            // peer, the window block (memref, one index per dimension), the tile.
            let peer = k.value(old(0)?)?;
            let memref = old(1)?;
            let rank = rank_of(memref);
            let indices: Vec<V<'c>> = (0..rank).map(|d| old(2 + d)).collect::<Result<_, _>>()?;
            let tile = old(2 + rank)?;
            let buffer = super::vector::materialise(k, at, tile)?;
            if buffer.shape.is_column() || buffer.shape.layout != Layout::Nd {
                return Err(format!("{name} stores row-major tiles of one or more columns (a one-column tile: put its transpose into a row)"));
            }
            let (dest, indices) = k.gm_tensor(memref, &indices)?;
            let view = super::memory::global_view(at, dest, &indices, &buffer.shape.valid, Layout::Nd, false, buffer.shape.element);
            at.op(pto::CommPutOperation::name(), &[view, buffer.value, peer, context], &[], &[], vec![]);
        }
        "comm.notify" => {
            // peer, the signal (memref, indices), the value.
            let peer = k.value(old(0)?)?;
            let memref = old(1)?;
            let rank = rank_of(memref);
            let mut new = vec![k.value(memref)?];
            for d in 0..rank {
                new.push(k.value(old(2 + d)?)?);
            }
            new.extend([k.value(old(2 + rank)?)?, peer, context]);
            at.op(pto::CommNotifyOperation::name(), &new, &[], &[("op", string("op")?)], vec![]);
        }
        "comm.wait" => {
            // the signal (memref, indices), the value.
            let memref = old(0)?;
            let rank = rank_of(memref);
            let mut new = vec![k.value(memref)?];
            for d in 0..rank {
                new.push(k.value(old(1 + d)?)?);
            }
            new.push(k.value(old(1 + rank)?)?);
            at.op(pto::CommWaitOperation::name(), &new, &[], &[("cmp", string("cmp")?)], vec![]);
        }
        other => return Err(format!("'{other}' has no PTO lowering")),
    }
    Ok(())
}
