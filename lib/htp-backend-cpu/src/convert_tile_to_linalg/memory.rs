//! Lowering of the tile ops that touch memory. A tile read from a memref is
//! a `memref.subview` of its valid region, turned into a tensor and copied
//! (the identity copy folds away: where a later store to the tensor could
//! change what the tile's uses read, `snapshot.rs`, the copy is a buffer of
//! its own, so the tile is what the tensor held at the load); a
//! store materializes the tile's tensor into the subview it covers. Views
//! that are tensors use `tensor.extract_slice` / `tensor.insert_slice`.
//! Gathers and scatters address rows by data: element by element, each row
//! index checked.

use htp_dialects::ods::{tile, view};
use melior::ir::{r#type::MemRefType, OperationRef, Type, ValueLike};

use super::{compute::run_time_sizes, tensor_type_of};
use htp_ir::builder::{affine_map, detach, element_of, parse_type, shape_of, Builder, Emitter, DYNAMIC, V};
use htp_dialects::tile::TileType;

fn dim_text(size: i64) -> String {
    if size == DYNAMIC { "?".into() } else { size.to_string() }
}

/// The type of a rank-reducing `memref.subview` of `source` whose last two
/// sizes are `sizes`, taking every `steps[d]`-th element along them, and
/// whose offsets are all dynamic.
fn subview_type<'c>(e: &Emitter<'c, '_>, source: Type<'c>, sizes: [i64; 2], steps: [i64; 2]) -> Result<Type<'c>, String> {
    let memref = MemRefType::try_from(source).map_err(|_| "expected a memref".to_string())?;
    let (strides, _) = memref.strides_and_offset();
    if strides.len() < 2 {
        return Err(format!("memref {source} has no strided layout"));
    }
    let inner = &strides[strides.len() - 2..];
    let stride = |d: usize| if inner[d] == DYNAMIC { DYNAMIC } else { inner[d] * steps[d] };
    Ok(parse_type(
        e.context,
        &format!(
            "memref<{}x{}x{}, strided<[{}, {}], offset: ?>>",
            dim_text(sizes[0]),
            dim_text(sizes[1]),
            element_of(source),
            dim_text(stride(0)),
            dim_text(stride(1))
        ),
    ))
}

/// Offsets `indices`, sizes 1 for leading dims and `sizes` for the last two
/// (static, or dynamic from `dynamic`), strides 1 but for the last two
/// (`steps`): the operands and attributes shared by subview / extract_slice
/// / insert_slice.
struct Slice<'c> {
    offsets: Vec<V<'c>>,
    dynamic_sizes: Vec<V<'c>>,
    static_offsets: Vec<i64>,
    static_sizes: Vec<i64>,
    static_strides: Vec<i64>,
}

fn slice<'c>(indices: Vec<V<'c>>, sizes: [i64; 2], dynamic: [Option<V<'c>>; 2], steps: [i64; 2]) -> Slice<'c> {
    let rank = indices.len();
    let mut static_sizes = vec![1; rank];
    static_sizes[rank - 2] = sizes[0];
    static_sizes[rank - 1] = sizes[1];
    let mut static_strides = vec![1; rank];
    static_strides[rank - 2] = steps[0];
    static_strides[rank - 1] = steps[1];
    Slice {
        offsets: indices,
        dynamic_sizes: dynamic.into_iter().flatten().collect(),
        static_offsets: vec![DYNAMIC; rank],
        static_sizes,
        static_strides,
    }
}

impl<'c> Slice<'c> {
    fn attributes(&self, e: &Emitter<'c, '_>, leading: &[i32]) -> Vec<(&'static str, melior::ir::Attribute<'c>)> {
        let mut segments = leading.to_vec();
        segments.extend([self.offsets.len() as i32, self.dynamic_sizes.len() as i32, 0]);
        vec![
            ("operandSegmentSizes", e.i32_array(&segments)),
            ("static_offsets", e.i64_array(&self.static_offsets)),
            ("static_sizes", e.i64_array(&self.static_sizes)),
            ("static_strides", e.i64_array(&self.static_strides)),
        ]
    }

    fn operands(&self, leading: &[V<'c>]) -> Vec<V<'c>> {
        let mut operands = leading.to_vec();
        operands.extend(&self.offsets);
        operands.extend(&self.dynamic_sizes);
        operands
    }
}

/// A `memref.subview` of `source` (a memref) at `indices`, `sizes` (dynamic
/// ones from `dynamic`) and `steps` along its last two dims, rank-reduced to
/// those two. With a step on a memref of rank > 2 it is two subviews: the
/// leading dims dropped first (their indices, the last two dims whole, no
/// step), then the stepped 2-D block of that. MLIR's canonicalizer works out
/// which unit dims a rank-reducing subview dropped from the strides, and with
/// a step (the result's strides no longer the source's) it drops a unit last
/// dim too (`x[b, i:i + 8:2, :]` of a `[B, N, 1]` tensor) and builds an
/// invalid `memref.cast`.
fn tile_view<'c>(e: &Emitter<'c, '_>, source: V<'c>, indices: Vec<V<'c>>, sizes: [i64; 2], dynamic: [Option<V<'c>>; 2], steps: [i64; 2]) -> Result<V<'c>, String> {
    let rank = indices.len();
    if rank <= 2 || steps == [1, 1] {
        let slice = slice(indices, sizes, dynamic, steps);
        let view_type = subview_type(e, source.r#type(), sizes, steps)?;
        return Ok(e.value_with("memref.subview", &slice.operands(&[source]), view_type, &slice.attributes(e, &[1])));
    }
    let shape = shape_of(source.r#type());
    let whole: [i64; 2] = [shape[rank - 2], shape[rank - 1]];
    let index = Type::index(e.context);
    let extent = |d: usize| if whole[d] == DYNAMIC { Some(e.value("memref.dim", &[source, e.index((rank - 2 + d) as i64)], index)) } else { None };
    let mut leading = indices[..rank - 2].to_vec();
    leading.extend([e.index(0), e.index(0)]);
    let outer = slice(leading, whole, [extent(0), extent(1)], [1, 1]);
    let outer_type = subview_type(e, source.r#type(), whole, [1, 1])?;
    let plane = e.value_with("memref.subview", &outer.operands(&[source]), outer_type, &outer.attributes(e, &[1]));
    let inner = slice(indices[rank - 2..].to_vec(), sizes, dynamic, steps);
    let view_type = subview_type(e, plane.r#type(), sizes, steps)?;
    Ok(e.value_with("memref.subview", &inner.operands(&[plane]), view_type, &inner.attributes(e, &[1])))
}

/// tile.load %source[indices] strides [steps] valid [sizes]
pub fn load<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<V<'c>, String> {
    let load = view::<tile::LoadOperation>(op).ok_or("not a tile.load")?;
    let source = detach(load.source().map_err(|e| e.to_string())?);
    let indices: Vec<V> = load.indices().map_err(|e| e.to_string())?.map(detach).collect();
    let mut valid_operands = load.valid_sizes().map_err(|e| e.to_string())?.map(detach);
    let tile = TileType::try_from(load.result().map_err(|e| e.to_string())?.r#type()).map_err(|_| "a tile.load of no tile")?;
    let result = tensor_type_of(tile);
    let sizes = [shape_of(result)[0], shape_of(result)[1]];
    let dynamic: [Option<V>; 2] = sizes.map(|s| if s == DYNAMIC { valid_operands.next() } else { None });
    let steps = htp_dialects::tile::access_strides(op);

    if !htp_ir::builder::is_memref(source.r#type()) {
        let slice = slice(indices, sizes, dynamic, steps);
        let attributes = slice.attributes(e, &[1]);
        return Ok(e.value_with("tensor.extract_slice", &slice.operands(&[source]), result, &attributes));
    }
    let dynamic_sizes: Vec<V> = dynamic.iter().flatten().copied().collect();
    let view = tile_view(e, source, indices, sizes, dynamic, steps)?;
    let aliased = e.value_with("bufferization.to_tensor", &[view], result, &[("restrict", e.unit())]);
    if super::snapshot::overwritten_while_live(op, source) {
        // A buffer of its own: the identity copy below is folded away by
        // canonicalization, and a use after the store would read the new values.
        return Ok(e.value_with("bufferization.alloc_tensor", &[aliased], result, &[("operandSegmentSizes", e.i32_array(&[0, 1, 0]))]));
    }
    let empty = e.value("tensor.empty", &dynamic_sizes, result);
    let id = affine_map(e.context, 2, "d0, d1");
    Ok(e.generic(&[aliased], empty, &[id, id], &["parallel", "parallel"], |_, args| args[0]))
}

/// tile.store %value, %dest[indices]; a result only for tensor destinations.
pub fn store<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<Option<V<'c>>, String> {
    let store = view::<tile::StoreOperation>(op).ok_or("not a tile.store")?;
    let value = detach(store.value().map_err(|e| e.to_string())?);
    let dest = detach(store.dest().map_err(|e| e.to_string())?);
    let indices: Vec<V> = store.indices().map(detach).collect();
    let shape = shape_of(value.r#type());
    let sizes = [shape[0], shape[1]];
    let run_time = run_time_sizes(e, value);
    let steps = htp_dialects::tile::access_strides(op);

    if !htp_ir::builder::is_memref(dest.r#type()) {
        let slice = slice(indices, sizes, [run_time[0], run_time[1]], steps);
        let attributes = slice.attributes(e, &[1, 1]);
        return Ok(Some(e.value_with("tensor.insert_slice", &slice.operands(&[value, dest]), dest.r#type(), &attributes)));
    }
    let view = tile_view(e, dest, indices, sizes, [run_time[0], run_time[1]], steps)?;
    e.op(
        "bufferization.materialize_in_destination",
        &[value, view],
        &[],
        &[("restrict", e.unit()), ("writable", e.unit())],
        vec![],
    );
    Ok(None)
}

/// tile.gather %source[%rows, %column]: a `tensor.generate` reading
/// `source[rows[r, 0], column + c]` for each element.
pub fn gather<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<V<'c>, String> {
    let gather = view::<tile::GatherOperation>(op).ok_or("not a tile.gather")?;
    let source = detach(gather.source().map_err(|e| e.to_string())?);
    let rows = detach(gather.row_indices().map_err(|e| e.to_string())?);
    let column = detach(gather.column().map_err(|e| e.to_string())?);
    let result = tensor_type_of(TileType::try_from(gather.result().map_err(|e| e.to_string())?.r#type()).map_err(|_| "a tile.gather of no tile")?);
    let element = element_of(result);
    let run_time = run_time_sizes(e, rows);
    let dynamic = e.dynamic_sizes(result, &[run_time[0], None]);
    let index = Type::index(e.context);
    let zero = e.index(0);
    let memref = htp_ir::builder::is_memref(source.r#type());
    let read = if memref { "memref.load" } else { "tensor.extract" };
    // Row indices come from data: each is checked against the source (an
    // index outside reports the site and reads element [0, 0] instead).
    let site_value = if memref { crate::check_bounds::out_of_bounds_site(e, op) } else { None };
    let extents = [0, 1].map(|d| e.value(if memref { "memref.dim" } else { "tensor.dim" }, &[source, e.index(d)], index));
    let i1 = Type::from(melior::ir::r#type::IntegerType::new(e.context, 1));
    let i64_type = Type::from(melior::ir::r#type::IntegerType::new(e.context, 64));
    Ok(e.generate(result, &dynamic, |b, at| {
        let row_index = b.value("tensor.extract", &[rows, at[0], zero], element_of(rows.r#type()));
        let row = b.value("arith.index_cast", &[row_index], index);
        let col = b.value("arith.addi", &[column, at[1]], index);
        let Some(site_value) = site_value else { return b.value(read, &[source, row, col], element) };
        let predicate = |p: i64| melior::ir::attribute::IntegerAttribute::new(i64_type, p).into();
        // arith.cmpi predicates: 5 = sge, 2 = slt.
        let inside = |v: V<'c>, n: V<'c>| {
            let low = b.value_with("arith.cmpi", &[v, zero], i1, &[("predicate", predicate(5))]);
            let high = b.value_with("arith.cmpi", &[v, n], i1, &[("predicate", predicate(2))]);
            b.value("arith.andi", &[low, high], i1)
        };
        let ok = b.value("arith.andi", &[inside(row, extents[0]), inside(col, extents[1])], i1);
        crate::check_bounds::report_unless(b, ok, site_value);
        let safe_row = b.value("arith.select", &[ok, row, zero], index);
        let safe_col = b.value("arith.select", &[ok, col, zero], index);
        b.value(read, &[source, safe_row, safe_col], element)
    }))
}

/// tile.scatter %value, %dest[%rows, %column]: row `r` of the value into
/// `dest[rows[r, 0], column + c]`, one row after the other (so the last of
/// equal row indices wins), element by element (`memref.store`). A row whose
/// index or column window falls outside the memref reports the op's site
/// (IndexError at the user's line) and is not written.
pub fn scatter<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> Result<(), String> {
    use melior::ir::attribute::IntegerAttribute;
    let scatter = view::<tile::ScatterOperation>(op).ok_or("not a tile.scatter")?;
    let value = detach(scatter.value().map_err(|e| e.to_string())?);
    let dest = detach(scatter.dest().map_err(|e| e.to_string())?);
    let rows = detach(scatter.row_indices().map_err(|e| e.to_string())?);
    let column = detach(scatter.column().map_err(|e| e.to_string())?);
    let element = element_of(value.r#type());
    let run_time = run_time_sizes(e, value);
    let shape = shape_of(value.r#type());
    let [count, width] = [0, 1].map(|d| run_time[d].unwrap_or_else(|| e.index(shape[d])));
    let index = Type::index(e.context);
    let (zero, one) = (e.index(0), e.index(1));
    let extents = [0, 1].map(|d| e.value("memref.dim", &[dest, e.index(d)], index));
    let i1 = Type::from(melior::ir::r#type::IntegerType::new(e.context, 1));
    let i64_type = Type::from(melior::ir::r#type::IntegerType::new(e.context, 64));
    let site = crate::check_bounds::out_of_bounds_site(e, op);
    let end = e.value("arith.addi", &[column, width], index);
    super::selection::for_loop(e, [zero, count, one], &[], |b, r, _| {
        let row_index = b.value("tensor.extract", &[rows, r, zero], element_of(rows.r#type()));
        let row = b.value("arith.index_cast", &[row_index], index);
        let predicate = |p: i64| IntegerAttribute::new(i64_type, p).into();
        // arith.cmpi predicates: 5 = sge, 2 = slt, 3 = sle.
        let compare = |p: i64, x: V<'c>, y: V<'c>| b.value_with("arith.cmpi", &[x, y], i1, &[("predicate", predicate(p))]);
        let and = |x: V<'c>, y: V<'c>| b.value("arith.andi", &[x, y], i1);
        let ok = and(and(compare(5, row, zero), compare(2, row, extents[0])), and(compare(5, column, zero), compare(3, end, extents[1])));
        if let Some(site) = site {
            crate::check_bounds::report_unless(b, ok, site);
        }
        b.place(crate::check_bounds::guarded(e.context, e.location, ok, |then| {
            let then = htp_ir::builder::BodyBuilder::for_block(e.context, then, e.location);
            super::selection::for_loop(&then, [zero, width, one], &[], |b, c, _| {
                let x = b.value("tensor.extract", &[value, r, c], element);
                let at = b.value("arith.addi", &[column, c], index);
                b.op("memref.store", &[x, dest, row, at], &[], &[], vec![]);
                vec![]
            });
        }));
        vec![]
    });
    Ok(())
}
