//! `tile-reuse-loads`: load a read-only tensor's tiles fewer times, within
//! an on-chip byte budget.
//!
//! A read-only tensor is a function argument memref whose every user is a
//! `tile.load` / `tile.gather` (as their source), `memref.dim`,
//! `memref.load` or a `memref.expand_shape` view used the same way (a 1-D
//! tensor's `1 x N` view). The pass
//! 1. fully unrolls sibling `scf.for` loops (same block) with equal constant
//!    bounds and at most `max-trips` trips whose bodies load the same
//!    read-only tensor (the two passes of a row norm over its columns), then
//!    replaces each `tile.load` of a read-only tensor by an earlier identical
//!    one in the same block (same source, structurally equal indices and
//!    valid sizes, same strides and type);
//! 2. hoists a `tile.load` of a read-only tensor out of an `scf.for` when
//!    all its operands are defined outside the loop (or are constants, which
//!    move with it) and the access is statically in bounds (constant
//!    indices, static source dims, no valid sizes). The function's own loop
//!    included: a backend that splits it into parts (PTO: tasks of
//!    consecutive trips) replays such a load once per part
//!    (`loop_independence::independent_outer_loop`), where before it ran
//!    once per trip (RMSNorm's weight: once per task, not per row block).
//!
//! Each step keeps tiles live longer; it is taken only while the function's
//! peak live tile bytes (`tile-peak-live-bytes`' count, before the pass)
//! plus the extra bytes stay within `budget-bytes` (a backend sets its
//! on-chip buffer's size). A row block that does not fit stays two-pass.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use melior::ir::{operation::OperationLike, OperationRef, RegionLike, Type, Value};
use mlir_sys as sys;

htp_pass::pass! {
    pub DEFINITION = Pass<"tile-reuse-loads", "func.func"> {
        summary: "Unroll sibling constant-trip loops to reuse the loads of read-only tensors, and hoist loop-invariant in-bounds loads, within a byte budget",
        dialects: [tile, arith, scf],
        options: Options {
            #[option("budget-bytes", default = "0", "on-chip bytes the function's live tiles may take at once (0: do nothing)")]
            budget_bytes: i64,
            #[option("max-trips", default = "8", "the most trips of a loop the pass unrolls")]
            max_trips: i64,
        },
        run: run,
    }
}

type Raw = sys::MlirOperation;

fn name(op: Raw) -> String {
    unsafe { OperationRef::from_raw(op) }.name().as_string_ref().as_str().unwrap_or("").to_string()
}

fn operands(op: Raw) -> Vec<sys::MlirValue> {
    unsafe { (0..sys::mlirOperationGetNumOperands(op)).map(|i| sys::mlirOperationGetOperand(op, i)).collect() }
}

fn results(op: Raw) -> Vec<sys::MlirValue> {
    unsafe { (0..sys::mlirOperationGetNumResults(op)).map(|i| sys::mlirOperationGetResult(op, i)).collect() }
}

fn defining_op(value: sys::MlirValue) -> Option<Raw> {
    unsafe { sys::mlirValueIsAOpResult(value).then(|| sys::mlirOpResultGetOwner(value)) }
}

fn ops_of(block: sys::MlirBlock) -> Vec<Raw> {
    let mut ops = Vec::new();
    let mut op = unsafe { sys::mlirBlockGetFirstOperation(block) };
    while !op.ptr.is_null() {
        ops.push(op);
        op = unsafe { sys::mlirOperationGetNextInBlock(op) };
    }
    ops
}

fn body(op: Raw) -> sys::MlirBlock {
    unsafe { sys::mlirRegionGetFirstBlock(sys::mlirOperationGetRegion(op, 0)) }
}

/// The integer value of an `arith.constant`'s result.
fn constant(value: sys::MlirValue) -> Option<i64> {
    htp_ir::query::constant_int(unsafe { Value::from_raw(value) })
}

fn tile_bytes(value: sys::MlirValue) -> i64 {
    let ty = unsafe { Type::from_raw(sys::mlirValueGetType(value)) };
    TileType::try_from(ty).ok().and_then(|t| t.checked_size_in_bytes()).unwrap_or(i64::MAX / 4)
}

/// Whether `op` is `ancestor` or nested in it.
fn within(op: Raw, ancestor: Raw) -> bool {
    unsafe { htp_ir::query::is_within(OperationRef::from_raw(op), OperationRef::from_raw(ancestor)) }
}

/// The function's read-only memref arguments, with their views (a 1-D
/// tensor's `1 x N` `memref.expand_shape`, which its loads read through).
fn read_only_arguments(function: Raw) -> Vec<sys::MlirValue> {
    let entry = body(function);
    let mut found = Vec::new();
    for index in 0..unsafe { sys::mlirBlockGetNumArguments(entry) } {
        let argument = unsafe { sys::mlirBlockGetArgument(entry, index) };
        if !unsafe { sys::mlirTypeIsAMemRef(sys::mlirValueGetType(argument)) } {
            continue;
        }
        let mut views = vec![argument];
        let mut read_only = true;
        let mut pending = vec![argument];
        while let Some(value) = pending.pop() {
            let mut use_ = unsafe { sys::mlirValueGetFirstUse(value) };
            while !unsafe { sys::mlirOpOperandIsNull(use_) } {
                let owner = unsafe { sys::mlirOpOperandGetOwner(use_) };
                let number = unsafe { sys::mlirOpOperandGetOperandNumber(use_) };
                read_only &= match name(owner).as_str() {
                    "tile.load" | "tile.gather" => number == 0,
                    "memref.dim" | "memref.load" => number == 0,
                    "memref.expand_shape" => {
                        let view = unsafe { sys::mlirOperationGetResult(owner, 0) };
                        views.push(view);
                        pending.push(view);
                        true
                    }
                    _ => false,
                };
                use_ = unsafe { sys::mlirOpOperandGetNextUse(use_) };
            }
        }
        if read_only {
            found.extend(views);
        }
    }
    found
}

fn is_read_only_load(op: Raw, read_only: &[sys::MlirValue]) -> bool {
    name(op) == "tile.load" && read_only.iter().any(|a| unsafe { sys::mlirValueEqual(*a, sys::mlirOperationGetOperand(op, 0)) })
}

/// Ops whose results two equal ones compute equally (pure, no regions).
const PURE: &[&str] = &[
    "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui", "arith.divsi",
    "arith.divui", "arith.remsi", "arith.remui", "arith.floordivsi", "arith.ceildivsi", "arith.index_cast", "affine.apply", "affine.min",
    "affine.max",
];
const ATTRIBUTES: &[&str] = &["value", "strides", "operandSegmentSizes", "overflowFlags", "predicate", "map", "fastmath"];

fn same_attributes(a: Raw, b: Raw) -> bool {
    unsafe {
        if sys::mlirOperationGetNumDiscardableAttributes(a) != 0 || sys::mlirOperationGetNumDiscardableAttributes(b) != 0 {
            return false;
        }
        ATTRIBUTES.iter().all(|attribute| {
            let key = sys::MlirStringRef { data: attribute.as_ptr() as *const _, length: attribute.len() };
            let (x, y) = (sys::mlirOperationGetAttributeByName(a, key), sys::mlirOperationGetAttributeByName(b, key));
            match (x.ptr.is_null(), y.ptr.is_null()) {
                (true, true) => true,
                (false, false) => sys::mlirAttributeEqual(x, y),
                _ => false,
            }
        })
    }
}

/// Whether `a` and `b` are the same value or computed the same way.
fn same_value(a: sys::MlirValue, b: sys::MlirValue, depth: usize) -> bool {
    if unsafe { sys::mlirValueEqual(a, b) } {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let (Some(x), Some(y)) = (defining_op(a), defining_op(b)) else { return false };
    same_op(x, y, depth - 1) && unsafe { sys::mlirOpResultGetResultNumber(a) == sys::mlirOpResultGetResultNumber(b) }
}

fn same_op(x: Raw, y: Raw, depth: usize) -> bool {
    let op_name = name(x);
    if op_name != name(y) || (op_name != "tile.load" && !PURE.contains(&op_name.as_str())) || !same_attributes(x, y) {
        return false;
    }
    let (xs, ys) = (operands(x), operands(y));
    let (xr, yr) = (results(x), results(y));
    xs.len() == ys.len()
        && xr.len() == yr.len()
        && xr.iter().zip(&yr).all(|(a, b)| unsafe { sys::mlirTypeEqual(sys::mlirValueGetType(*a), sys::mlirValueGetType(*b)) })
        && xs.iter().zip(&ys).all(|(a, b)| same_value(*a, *b, depth))
}

/// (lower, upper, step) of an `scf.for` with constant bounds.
fn constant_bounds(op: Raw) -> Option<(i64, i64, i64)> {
    if name(op) != "scf.for" {
        return None;
    }
    let operands = operands(op);
    let (lower, upper, step) = (constant(operands[0])?, constant(operands[1])?, constant(operands[2])?);
    (step > 0).then_some((lower, upper, step))
}

fn trips((lower, upper, step): (i64, i64, i64)) -> i64 {
    if upper <= lower {
        0
    } else {
        (upper - lower + step - 1) / step
    }
}

/// The read-only tensors `op`'s region loads directly (its own block),
/// with each load's tile bytes.
fn loads_in(loop_op: Raw, read_only: &[sys::MlirValue]) -> Vec<(sys::MlirValue, i64)> {
    ops_of(body(loop_op))
        .into_iter()
        .filter(|op| is_read_only_load(*op, read_only))
        .map(|op| unsafe { (sys::mlirOperationGetOperand(op, 0), tile_bytes(sys::mlirOperationGetResult(op, 0))) })
        .collect()
}

/// Replaces the uses of `loop_op`'s results by the body cloned once per
/// trip before it, then erases the loop.
fn unroll(loop_op: Raw, bounds: (i64, i64, i64)) {
    let block = body(loop_op);
    let loop_operands = operands(loop_op);
    let induction = unsafe { sys::mlirBlockGetArgument(block, 0) };
    let mut carried: Vec<sys::MlirValue> = loop_operands[3..].to_vec();
    let index_type = unsafe { sys::mlirValueGetType(induction) };
    let location = unsafe { sys::mlirOperationGetLocation(loop_op) };
    let context = unsafe { sys::mlirOperationGetContext(loop_op) };
    let parent = unsafe { sys::mlirOperationGetBlock(loop_op) };
    let (lower, _, step) = bounds;
    for trip in 0..trips(bounds) {
        let mut map: HashMap<usize, sys::MlirValue> = HashMap::new();
        // The induction variable: a constant in this trip.
        let constant_op = unsafe {
            let attribute = sys::mlirIntegerAttrGet(index_type, lower + trip * step);
            let name = "arith.constant";
            let mut state = sys::mlirOperationStateGet(sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() }, location);
            sys::mlirOperationStateAddResults(&mut state, 1, &index_type);
            let key = "value";
            let identifier = sys::mlirIdentifierGet(context, sys::MlirStringRef { data: key.as_ptr() as *const _, length: key.len() });
            let named = sys::mlirNamedAttributeGet(identifier, attribute);
            sys::mlirOperationStateAddAttributes(&mut state, 1, &named);
            let op = sys::mlirOperationCreate(&mut state);
            sys::mlirBlockInsertOwnedOperationBefore(parent, loop_op, op);
            op
        };
        map.insert(induction.ptr as usize, unsafe { sys::mlirOperationGetResult(constant_op, 0) });
        for (index, value) in carried.iter().enumerate() {
            map.insert(unsafe { sys::mlirBlockGetArgument(block, index as isize + 1) }.ptr as usize, *value);
        }
        for op in ops_of(block) {
            if name(op) == "scf.yield" {
                carried = operands(op).into_iter().map(|v| *map.get(&(v.ptr as usize)).unwrap_or(&v)).collect();
                continue;
            }
            let copy = unsafe { sys::mlirOperationClone(op) };
            unsafe { sys::mlirBlockInsertOwnedOperationBefore(parent, loop_op, copy) };
            remap(copy, &map);
            for (old, new) in results(op).into_iter().zip(results(copy)) {
                map.insert(old.ptr as usize, new);
            }
        }
    }
    for (result, value) in results(loop_op).into_iter().zip(carried) {
        unsafe { sys::mlirValueReplaceAllUsesOfWith(result, value) };
    }
    unsafe { sys::mlirOperationDestroy(loop_op) };
}

/// Replaces the operands of `op` and of the ops nested in it by `map`.
fn remap(op: Raw, map: &HashMap<usize, sys::MlirValue>) {
    for (index, value) in operands(op).into_iter().enumerate() {
        if let Some(new) = map.get(&(value.ptr as usize)) {
            unsafe { sys::mlirOperationSetOperand(op, index as isize, *new) };
        }
    }
    for region in 0..unsafe { sys::mlirOperationGetNumRegions(op) } {
        let mut block = unsafe { sys::mlirRegionGetFirstBlock(sys::mlirOperationGetRegion(op, region)) };
        while !block.ptr.is_null() {
            for inner in ops_of(block) {
                remap(inner, map);
            }
            block = unsafe { sys::mlirBlockGetNextInRegion(block) };
        }
    }
}

/// Every block of `op`'s regions, recursively, outermost first.
fn blocks(op: Raw, into: &mut Vec<sys::MlirBlock>) {
    for region in 0..unsafe { sys::mlirOperationGetNumRegions(op) } {
        let mut block = unsafe { sys::mlirRegionGetFirstBlock(sys::mlirOperationGetRegion(op, region)) };
        while !block.ptr.is_null() {
            into.push(block);
            for inner in ops_of(block) {
                blocks(inner, into);
            }
            block = unsafe { sys::mlirBlockGetNextInRegion(block) };
        }
    }
}

struct State {
    read_only: Vec<sys::MlirValue>,
    /// Bytes still free under the budget.
    free: i64,
    max_trips: i64,
}

impl State {
    /// Step 1 in one block: unroll groups of sibling loops, then reuse loads.
    fn unroll_siblings(&mut self, block: sys::MlirBlock) -> bool {
        let loops: Vec<(Raw, (i64, i64, i64))> = ops_of(block)
            .into_iter()
            .filter_map(|op| constant_bounds(op).map(|b| (op, b)))
            .filter(|(_, b)| (1..=self.max_trips).contains(&trips(*b)))
            .collect();
        let mut done = vec![false; loops.len()];
        let mut changed = false;
        for first in 0..loops.len() {
            if done[first] {
                continue;
            }
            let first_loads = loads_in(loops[first].0, &self.read_only);
            let mut group = vec![first];
            for later in first + 1..loops.len() {
                if done[later] || loops[later].1 != loops[first].1 {
                    continue;
                }
                let later_loads = loads_in(loops[later].0, &self.read_only);
                if later_loads.iter().any(|(s, _)| first_loads.iter().any(|(f, _)| unsafe { sys::mlirValueEqual(*s, *f) })) {
                    group.push(later);
                }
            }
            if group.len() < 2 {
                continue;
            }
            // The extra live bytes: every trip's loads of the first loop
            // that a later loop reads again stay live until it does.
            let shared: i64 = first_loads
                .iter()
                .filter(|(source, _)| {
                    group[1..].iter().any(|later| loads_in(loops[*later].0, &self.read_only).iter().any(|(s, _)| unsafe { sys::mlirValueEqual(*s, *source) }))
                })
                .map(|(_, bytes)| *bytes)
                .sum();
            let extra = shared.saturating_mul(trips(loops[first].1));
            if extra > self.free {
                continue;
            }
            self.free -= extra;
            for member in group {
                done[member] = true;
                unroll(loops[member].0, loops[member].1);
            }
            changed = true;
        }
        if changed {
            self.reuse(block);
        }
        changed
    }

    /// Replaces each read-only load in `block` by an earlier identical one.
    fn reuse(&self, block: sys::MlirBlock) {
        let mut earlier: Vec<Raw> = Vec::new();
        for op in ops_of(block) {
            if !is_read_only_load(op, &self.read_only) {
                continue;
            }
            if let Some(same) = earlier.iter().find(|e| same_op(**e, op, 8)) {
                unsafe {
                    sys::mlirValueReplaceAllUsesOfWith(sys::mlirOperationGetResult(op, 0), sys::mlirOperationGetResult(*same, 0));
                    sys::mlirOperationDestroy(op);
                }
            } else {
                earlier.push(op);
            }
        }
    }

    /// Step 2: hoists statically in-bounds invariant loads out of `loop_op`.
    fn hoist(&mut self, loop_op: Raw) -> bool {
        let mut changed = false;
        for op in ops_of(body(loop_op)) {
            if !is_read_only_load(op, &self.read_only) || !self.in_bounds(op) {
                continue;
            }
            let mut movable = Vec::new();
            let invariant = operands(op).into_iter().all(|value| match defining_op(value) {
                // (No operand inside the loop is one of the loop's own results.)
                Some(def) if within(def, loop_op) => {
                    let ok = name(def) == "arith.constant" && unsafe { sys::mlirOperationGetBlock(def).ptr == body(loop_op).ptr };
                    movable.push(def);
                    ok
                }
                Some(_) => true,
                None => {
                    let owner = unsafe { sys::mlirBlockGetParentOperation(sys::mlirBlockArgumentGetOwner(value)) };
                    !within(owner, loop_op)
                }
            });
            let bytes = tile_bytes(unsafe { sys::mlirOperationGetResult(op, 0) });
            if !invariant || bytes > self.free {
                continue;
            }
            self.free -= bytes;
            for def in movable {
                let copy = unsafe { sys::mlirOperationClone(def) };
                unsafe {
                    sys::mlirBlockInsertOwnedOperationBefore(sys::mlirOperationGetBlock(loop_op), loop_op, copy);
                }
                let old = unsafe { sys::mlirOperationGetResult(def, 0) };
                for (position, value) in operands(op).into_iter().enumerate() {
                    if unsafe { sys::mlirValueEqual(value, old) } {
                        unsafe { sys::mlirOperationSetOperand(op, position as isize, sys::mlirOperationGetResult(copy, 0)) };
                    }
                }
            }
            unsafe { sys::mlirOperationMoveBefore(op, loop_op) };
            changed = true;
        }
        changed
    }

    /// A load with constant indices inside the static dims of its source
    /// and no valid sizes.
    fn in_bounds(&self, op: Raw) -> bool {
        let op_ref = unsafe { OperationRef::from_raw(op) };
        if op_ref.attribute("strides").is_ok() {
            return false;
        }
        let values = operands(op);
        let source = unsafe { sys::mlirValueGetType(values[0]) };
        let rank = unsafe { sys::mlirShapedTypeGetRank(source) } as usize;
        if values.len() != 1 + rank {
            return false; // valid sizes present
        }
        let Ok(tile) = TileType::try_from(unsafe { Type::from_raw(sys::mlirValueGetType(sys::mlirOperationGetResult(op, 0))) }) else { return false };
        let shape = [tile.rows(), tile.cols()];
        if rank != 2 {
            return false;
        }
        (0..rank).all(|d| {
            let dim = unsafe { sys::mlirShapedTypeGetDimSize(source, d as isize) };
            let dynamic = unsafe { sys::mlirShapedTypeIsDynamicSize(dim) };
            match constant(values[1 + d]) {
                Some(index) => !dynamic && index >= 0 && index + shape[d] <= dim,
                None => false,
            }
        })
    }
}

fn run<'c>(_context: &'c melior::Context, function: OperationRef<'c, '_>, options: &Options) -> Result<(), htp_pass::Failure<'c>> {
    if options.budget_bytes <= 0 || function.region(0).ok().and_then(|r| r.first_block()).is_none() {
        return Ok(());
    }
    let raw = function.to_raw();
    let read_only = read_only_arguments(raw);
    if read_only.is_empty() {
        return Ok(());
    }
    let peak = crate::tile_peak_live_bytes::peak_live_bytes(function);
    let mut state = State { read_only, free: options.budget_bytes.saturating_sub(peak), max_trips: options.max_trips };
    // Unroll, outermost blocks first (a block's unrolled ops are then
    // walked for nested blocks).
    unroll_in(&mut state, raw);
    // Hoist, innermost loops first, until nothing moves.
    loop {
        let mut all = Vec::new();
        blocks(raw, &mut all);
        let mut loops: Vec<Raw> = all.iter().flat_map(|b| ops_of(*b)).filter(|op| name(*op) == "scf.for").collect();
        loops.reverse();
        if !loops.into_iter().fold(false, |changed, op| state.hoist(op) | changed) {
            break;
        }
    }
    Ok(())
}

fn unroll_in(state: &mut State, op: Raw) {
    for region in 0..unsafe { sys::mlirOperationGetNumRegions(op) } {
        let mut block = unsafe { sys::mlirRegionGetFirstBlock(sys::mlirOperationGetRegion(op, region)) };
        while !block.ptr.is_null() {
            state.unroll_siblings(block);
            for inner in ops_of(block) {
                unroll_in(state, inner);
            }
            block = unsafe { sys::mlirBlockGetNextInRegion(block) };
        }
    }
}
