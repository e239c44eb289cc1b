//! `tile-check-bounds`: every `tile.load` and `tile.store` on a memref
//! (a strided one over the span of its steps) is
//! checked against the tensor's bounds at run time, so that no index, slice
//! or loop a user writes makes a kernel read or write outside the numpy
//! array it was given. An access outside calls `htpRuntimeError(site)` (the
//! CPU runtime records the first one and the call raises an `IndexError`
//! naming the site's file:line:col); an out-of-bounds store is skipped and
//! an out-of-bounds load reads from the tensor's origin instead (its value
//! is never returned: the call fails). Integer division and remainder by
//! zero (and `i64::MIN // -1`), which would trap the process, are checked
//! the same way and divide by 1 instead. The sites are recorded on the
//! module as `htp.index_sites`: per site id, the error message with its
//! "file:line:col".

use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::IntegerType,
        Attribute, Block, Location, Operation, OperationRef, Region, RegionLike, Type, TypeLike, ValueLike,
    },
    Context,
};

use htp_dialects::ods::{tile, view};
use htp_dialects::tile::{TileType, ValidSize};

pub use htp_api::checks::{sites, SiteKind, ERROR_FUNCTION, SITES_ATTRIBUTE};

/// One site as the attribute holds it.
fn site_attribute<'c>(context: &'c Context, op: OperationRef, kind: SiteKind) -> Attribute<'c> {
    let i64_type = melior::ir::r#type::IntegerType::new(context, 64).into();
    let code = melior::ir::attribute::IntegerAttribute::new(i64_type, kind.code()).into();
    let message = StringAttribute::new(context, &site_message(op, kind.message())).into();
    ArrayAttribute::new(context, &[code, message]).into()
}

htp_pass::pass! {
    pub DEFINITION = Pass<"tile-check-bounds", "builtin.module"> {
        summary: "Check every tile load and store on a memref against the tensor's bounds at run time (CPU)",
        dialects: [tile, arith, scf, func, memref],
        run: run,
    }
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut accesses = Vec::new();
    let mut divisions = Vec::new();
    let mut loops = Vec::new();
    let mut elements = Vec::new();
    module.walk(WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name == "scf.for" && op.operand(2).is_ok_and(|step| htp_ir::query::defining_op(detach(step)).is_none_or(|d| d.name().as_string_ref().as_str() != Ok("arith.constant"))) {
            loops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        if matches!(name.as_str(), "arith.floordivsi" | "arith.divsi" | "arith.remsi" | "arith.ceildivsi") {
            divisions.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        let view = view::<tile::LoadOperation>(op)
            .and_then(|load| load.source().ok().map(detach))
            .or_else(|| view::<tile::StoreOperation>(op).and_then(|store| store.dest().ok().map(detach)));
        if view.is_some_and(|v| htp_ir::builder::is_memref(v.r#type())) {
            accesses.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        // A scalar read of a tensor's element (`lens[b]`); a kernel-local array (alloca) is HTP's own.
        if name == "memref.load" && op.operand(0).is_ok_and(|m| htp_ir::query::defining_op(detach(m)).is_none_or(|d| d.name().as_string_ref().as_str() != Ok("memref.alloca"))) {
            elements.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    if accesses.is_empty() && divisions.is_empty() && loops.is_empty() && elements.is_empty() {
        return Ok(());
    }
    let mut sites = Vec::new();
    for op in accesses {
        htp_pass::processing(op.location());
        check(context, op, sites.len() as i64).map_err(|message| (op.location(), message))?;
        sites.push(site_attribute(context, op, SiteKind::OutOfBounds));
    }
    for op in elements {
        htp_pass::processing(op.location());
        check_element(context, op, sites.len() as i64).map_err(|message| (op.location(), message))?;
        sites.push(site_attribute(context, op, SiteKind::OutOfBounds));
    }
    for op in divisions {
        htp_pass::processing(op.location());
        check_division(context, op, sites.len() as i64).map_err(|message| (op.location(), message))?;
        sites.push(site_attribute(context, op, SiteKind::DivisionByZero));
    }
    for op in loops {
        htp_pass::processing(op.location());
        check_step(context, op, sites.len() as i64).map_err(|message| (op.location(), message))?;
        sites.push(site_attribute(context, op, SiteKind::NonPositiveStep));
    }
    declare_error_function(context, module);
    let mut module = unsafe { OperationRefMut::from_raw(module.to_raw()) };
    module.set_discardable_attribute(SITES_ATTRIBUTE, ArrayAttribute::new(context, &sites).into());
    Ok(())
}

/// A site's message: "file:line:col: error: <message>" at `op`'s location.
fn site_message(op: OperationRef, message: &str) -> String {
    format!("{}: error: {message}", htp_dialects::diagnostics::position_text(op.location()))
}

/// What a `tile.load` or `tile.store` on a view accesses, read through the
/// ops' typed accessors.
struct Access<'c> {
    is_load: bool,
    view: V<'c>,
    /// The start index in each view dim.
    starts: Vec<V<'c>>,
    /// The loaded or stored tile.
    tile: V<'c>,
    /// A load's run-time valid sizes (rows, then columns, the `?` ones).
    valid_sizes: Vec<V<'c>>,
}

impl<'c> Access<'c> {
    fn of(op: OperationRef<'c, '_>) -> Result<Self, String> {
        let error = |e: melior::Error| e.to_string();
        if let Some(load) = view::<tile::LoadOperation>(op) {
            return Ok(Access {
                is_load: true,
                view: detach(load.source().map_err(error)?),
                starts: load.indices().map_err(error)?.map(detach).collect(),
                tile: detach(load.result().map_err(error)?.into()),
                valid_sizes: load.valid_sizes().map_err(error)?.map(detach).collect(),
            });
        }
        let store = view::<tile::StoreOperation>(op).ok_or("not a tile access")?;
        Ok(Access {
            is_load: false,
            view: detach(store.dest().map_err(error)?),
            starts: store.indices().map(detach).collect(),
            tile: detach(store.value().map_err(error)?),
            valid_sizes: Vec::new(),
        })
    }
}

/// Guards one access (site `id`).
fn check<'c>(context: &'c Context, op: OperationRef<'c, '_>, id: i64) -> Result<(), String> {
    let block = op.block().ok_or("an access outside a block")?;
    let e = Emitter { context, block, anchor: op, location: op.location() };
    let Access { is_load, view, starts, tile: tile_value, valid_sizes } = Access::of(op)?;
    let rank = htp_ir::builder::shape_of(view.r#type()).len();
    let tile = TileType::try_from(tile_value.r#type()).map_err(|_| "an access of a non-tile")?;
    // The extent the access covers in each view dim: 1 for leading dims,
    // the tile's valid size (static, or its `valid` operand) for the last two.
    let mut dynamic_valid: Box<dyn Iterator<Item = V<'c>>> = if is_load {
        Box::new(valid_sizes.into_iter())
    } else {
        let sizes = htp_dialects::tile::dynamic_valid_sizes(tile_value.to_raw()).unwrap_or_default();
        Box::new(sizes.into_iter().map(|v| unsafe { melior::ir::Value::from_raw(v) }))
    };
    let index = Type::index(context);
    let steps = htp_dialects::tile::access_strides(op);
    let mut extents = Vec::new();
    for d in 0..rank {
        let extent = if d + 2 < rank {
            e.index(1)
        } else {
            match tile.valid_size((d + 2 - rank) as u32) {
                ValidSize::Static(n) => e.index(n),
                // A stored tile's run-time valid size, where its producers
                // say it (`valid_sizes_of`); otherwise only the start is
                // checked (never a false alarm on a legal ragged store).
                ValidSize::Dynamic => match dynamic_valid.next() {
                    Some(size) => size,
                    None if is_load => return Err("a load without its valid size".into()),
                    None => e.index(0),
                },
            }
        };
        // A strided access spans its first element and a step per further
        // one: `(n - 1) * step + 1` elements for n > 0 (n <= 0 as it is).
        let step = if d + 2 < rank { 1 } else { steps[d + 2 - rank] };
        let extent = if step == 1 {
            extent
        } else {
            let one = e.index(1);
            let span = e.value("arith.addi", &[e.value("arith.muli", &[e.value("arith.subi", &[extent, one], index), e.index(step)], index), one], index);
            let i1 = Type::from(IntegerType::new(context, 1));
            let i64_type = Type::from(IntegerType::new(context, 64));
            // arith.cmpi predicate 4 = sgt.
            let positive = e.value_with("arith.cmpi", &[extent, e.index(0)], i1, &[("predicate", IntegerAttribute::new(i64_type, 4).into())]);
            e.value("arith.select", &[positive, span, extent], index)
        };
        extents.push(extent);
    }
    let i1 = Type::from(IntegerType::new(context, 1));
    let cmp = |predicate: i64, a: V<'c>, b: V<'c>| {
        e.value_with("arith.cmpi", &[a, b], i1, &[("predicate", IntegerAttribute::new(Type::from(IntegerType::new(context, 64)), predicate).into())])
    };
    let zero = e.index(0);
    let mut ok: Option<V> = None;
    for (d, &start) in starts.iter().enumerate().take(rank) {
        let size = e.value("memref.dim", &[view, e.index(d as i64)], index);
        let end = e.value("arith.addi", &[start, extents[d]], index);
        // arith.cmpi predicates: 3 = sle, 5 = sge. A ragged extent computed
        // from a start past the end is negative: out of bounds too.
        let ordered = e.value("arith.andi", &[cmp(5, start, zero), cmp(5, extents[d], zero)], i1);
        let inside = e.value("arith.andi", &[ordered, cmp(3, end, size)], i1);
        ok = Some(match ok {
            Some(previous) => e.value("arith.andi", &[previous, inside], i1),
            None => inside,
        });
    }
    let ok = ok.ok_or("an access of a rank-0 view")?;
    let truth = e.value_with("arith.constant", &[], i1, &[("value", IntegerAttribute::new(i1, 1).into())]);
    let outside = e.value("arith.xori", &[ok, truth], i1);
    let id = e.value_with("arith.constant", &[], Type::from(IntegerType::new(context, 64)), &[("value", IntegerAttribute::new(Type::from(IntegerType::new(context, 64)), id).into())]);
    let reporting = guarded(context, e.location, outside, |then| report(context, e.location, then, id));
    block.insert_operation_before(op, reporting);
    if is_load {
        // Read from the origin instead, and nothing of a run-time size: in
        // bounds whenever the tile's static part fits.
        // The operands after the source: the indices, then the valid sizes.
        for position in 1..op.operand_count() {
            let operand = detach(op.operand(position).expect("counted"));
            let safe = e.value("arith.select", &[ok, operand, zero], index);
            unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), position as isize, safe.to_raw()) };
        }
    } else {
        // The store runs only in bounds.
        let guard = guarded(context, e.location, ok, |_| {});
        let guard = block.insert_operation_before(op, guard);
        let then = guard.region(0).expect("scf.if has a then region").first_block().expect("with a block");
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), then.first_operation().expect("scf.yield").to_raw()) };
    }
    Ok(())
}

/// Guards a scalar read of a tensor element (site `id`): an index outside
/// its dimension reports the site and reads element 0 of that dimension.
fn check_element<'c>(context: &'c Context, op: OperationRef<'c, '_>, id: i64) -> Result<(), String> {
    let block = op.block().ok_or("a read outside a block")?;
    let e = Emitter { context, block, anchor: op, location: op.location() };
    let tensor = detach(op.operand(0).map_err(|e| e.to_string())?);
    let (index, i1, i64_type) = (Type::index(context), Type::from(IntegerType::new(context, 1)), Type::from(IntegerType::new(context, 64)));
    let cmp = |predicate: i64, a: V<'c>, b: V<'c>| e.value_with("arith.cmpi", &[a, b], i1, &[("predicate", IntegerAttribute::new(i64_type, predicate).into())]);
    let zero = e.index(0);
    let mut ok: Option<V> = None;
    let mut indices = Vec::new();
    for d in 1..op.operand_count() {
        let at = detach(op.operand(d).map_err(|e| e.to_string())?);
        let size = e.value("memref.dim", &[tensor, e.index(d as i64 - 1)], index);
        // arith.cmpi predicates: 2 = slt, 5 = sge.
        let inside = e.value("arith.andi", &[cmp(5, at, zero), cmp(2, at, size)], i1);
        ok = Some(match ok {
            Some(previous) => e.value("arith.andi", &[previous, inside], i1),
            None => inside,
        });
        indices.push((d, at));
    }
    let Some(ok) = ok else { return Ok(()) };
    let truth = e.value_with("arith.constant", &[], i1, &[("value", IntegerAttribute::new(i1, 1).into())]);
    let outside = e.value("arith.xori", &[ok, truth], i1);
    let id = e.value_with("arith.constant", &[], i64_type, &[("value", IntegerAttribute::new(i64_type, id).into())]);
    block.insert_operation_before(op, guarded(context, e.location, outside, |then| report(context, e.location, then, id)));
    for (d, at) in indices {
        let safe = e.value("arith.select", &[ok, at, zero], index);
        unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), d as isize, safe.to_raw()) };
    }
    Ok(())
}

/// Guards an integer division (site `id`): a zero divisor, or the smallest
/// value divided by -1, reports the site and divides by 1 instead of
/// trapping.
fn check_division<'c>(context: &'c Context, op: OperationRef<'c, '_>, id: i64) -> Result<(), String> {
    let block = op.block().ok_or("a division outside a block")?;
    let e = Emitter { context, block, anchor: op, location: op.location() };
    let (dividend, divisor) = (detach(op.operand(0).map_err(|e| e.to_string())?), detach(op.operand(1).map_err(|e| e.to_string())?));
    let ty = divisor.r#type();
    let bits = htp_ir::builder::int_width(ty).unwrap_or(64);
    let i1 = Type::from(IntegerType::new(context, 1));
    let i64_type = Type::from(IntegerType::new(context, 64));
    let constant = |value: i64| e.value_with("arith.constant", &[], ty, &[("value", IntegerAttribute::new(ty, value).into())]);
    let cmp_eq = |a: V<'c>, b: V<'c>| e.value_with("arith.cmpi", &[a, b], i1, &[("predicate", IntegerAttribute::new(i64_type, 0).into())]);
    let smallest = if ty.is_index() || bits >= 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
    let zero = cmp_eq(divisor, constant(0));
    let overflow = e.value("arith.andi", &[cmp_eq(dividend, constant(smallest)), cmp_eq(divisor, constant(-1))], i1);
    let bad = e.value("arith.ori", &[zero, overflow], i1);
    let id = e.value_with("arith.constant", &[], i64_type, &[("value", IntegerAttribute::new(i64_type, id).into())]);
    let reporting = guarded(context, e.location, bad, |then| report(context, e.location, then, id));
    block.insert_operation_before(op, reporting);
    let safe = e.value("arith.select", &[bad, constant(1), divisor], ty);
    unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), 1, safe.to_raw()) };
    Ok(())
}

/// A loop whose step is a run-time value: a step <= 0 (scf.for would loop
/// forever; Python's range raises or runs backwards) is reported and the
/// loop runs zero times (upper bound := lower bound, step := 1).
fn check_step<'c>(context: &'c Context, op: OperationRef<'c, '_>, id: i64) -> Result<(), String> {
    let block = op.block().ok_or("a loop outside a block")?;
    let e = Emitter { context, block, anchor: op, location: op.location() };
    let operand = |i: usize| op.operand(i).map(detach).map_err(|e| e.to_string());
    let (bad, safe_upper, safe_step) = e.zero_trips_unless_positive(operand(0)?, operand(1)?, operand(2)?);
    let i64_type = Type::from(IntegerType::new(context, 64));
    let id = e.value_with("arith.constant", &[], i64_type, &[("value", IntegerAttribute::new(i64_type, id).into())]);
    block.insert_operation_before(op, guarded(context, e.location, bad, |then| report(context, e.location, then, id)));
    unsafe {
        mlir_sys::mlirOperationSetOperand(op.to_raw(), 1, safe_upper.to_raw());
        mlir_sys::mlirOperationSetOperand(op.to_raw(), 2, safe_step.to_raw());
    }
    Ok(())
}

/// `scf.if %condition { <body>; scf.yield }` without results.
pub(crate) fn guarded<'c>(context: &'c Context, location: Location<'c>, condition: V<'c>, body: impl FnOnce(&Block<'c>)) -> Operation<'c> {
    let then = Block::new(&[]);
    body(&then);
    then.append_operation(OperationBuilder::new("scf.yield", location).build().expect("a valid yield"));
    let then_region = Region::new();
    then_region.append_block(then);
    OperationBuilder::new("scf.if", location)
        .add_operands(&[condition])
        .add_regions([then_region, Region::new()])
        .build()
        .unwrap_or_else(|_| panic!("a valid scf.if in {context:?}"))
}

/// `func.func private @htpRuntimeError(i64)`, once per module.
pub(crate) fn declare_error_function<'c>(context: &'c Context, module: OperationRef<'c, '_>) {
    htp_ir::builder::declare_private_function(context, module, ERROR_FUNCTION, &[IntegerType::new(context, 64).into()], &[]);
}

/// Records a run-time check site for `op` (its message at the op's
/// file:line:col) on the enclosing module, declares the error function, and
/// returns the site id; for lowerings that check inside the code they build
/// (a gather's row indices).
pub(crate) fn add_site<'c>(context: &'c Context, op: OperationRef<'c, '_>, kind: SiteKind) -> Option<i64> {
    let mut module = op.parent_operation()?;
    while module.name().as_string_ref().as_str() != Ok("builtin.module") {
        module = module.parent_operation()?;
    }
    let module = unsafe { OperationRef::from_raw(module.to_raw()) };
    let mut sites: Vec<Attribute> = module
        .attribute(SITES_ATTRIBUTE)
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect())
        .unwrap_or_default();
    sites.push(site_attribute(context, op, kind));
    declare_error_function(context, module);
    let id = sites.len() as i64 - 1;
    let mut module = unsafe { OperationRefMut::from_raw(module.to_raw()) };
    module.set_discardable_attribute(SITES_ATTRIBUTE, ArrayAttribute::new(context, &sites).into());
    Some(id)
}

/// An out-of-bounds check site for `op` ([`add_site`]) as an i64 constant
/// built by `b`; None when the op is in no module.
pub(crate) fn out_of_bounds_site<'c>(b: &impl Builder<'c>, op: OperationRef<'c, '_>) -> Option<V<'c>> {
    let id = add_site(b.context(), op, SiteKind::OutOfBounds)?;
    let i64_type = Type::from(IntegerType::new(b.context(), 64));
    Some(b.value_with("arith.constant", &[], i64_type, &[("value", IntegerAttribute::new(i64_type, id).into())]))
}

/// Placed by `b`: a report of `site` where `ok` is false.
pub(crate) fn report_unless<'c>(b: &impl Builder<'c>, ok: V<'c>, site: V<'c>) {
    let i1 = Type::from(IntegerType::new(b.context(), 1));
    let truth = b.value_with("arith.constant", &[], i1, &[("value", IntegerAttribute::new(i1, 1).into())]);
    let bad = b.value("arith.xori", &[ok, truth], i1);
    let (context, location) = (b.context(), b.location());
    b.place(guarded(context, location, bad, |then| report(context, location, then, site)));
}

/// `func.call @htpRuntimeError(site)`, appended by `then`.
pub(crate) fn report<'c>(context: &'c Context, location: Location<'c>, then: &Block<'c>, site: V<'c>) {
    let callee = FlatSymbolRefAttribute::new(context, ERROR_FUNCTION);
    then.append_operation(
        OperationBuilder::new("func.call", location).add_operands(&[site]).add_attributes(&[(htp_ir::builder::named(context, "callee"), callee.into())]).build().expect("a valid call"),
    );
}
