//! Lowering of the selection ops to tensors and `scf` loops:
//! `tile.row_arg_reduce` (a scan of each row keeping the best element and
//! its column), `tile.sort` (a stable bottom-up merge sort of each row,
//! carrying every element's column along), `tile.take` (a
//! `tensor.generate` reading each row at its indices, checked) and
//! `tile.put` (loops over each row's indices in order, inserting into a
//! copy of the input, checked: the last of equal indices wins).

use melior::ir::{
    attribute::IntegerAttribute, block::BlockLike, operation::OperationLike, r#type::IntegerType, Block, OperationRef, Region,
    RegionLike, Type, ValueLike,
};

use htp_ir::builder::{detach, element_of, is_float, shape_of, tensor_type, BodyBuilder, Builder, Emitter, DYNAMIC, V};

use super::compute::{operand, run_time_sizes};
use super::{scalar, tensor_type_of};

/// `scf.for %iv = lower to upper step step iter_args(inits)`: `body` gets
/// the induction variable and the carried values and returns the values to
/// carry on; the loop's results are returned.
pub(super) fn for_loop<'c>(
    b: &impl Builder<'c>,
    bounds: [V<'c>; 3],
    inits: &[V<'c>],
    body: impl FnOnce(&BodyBuilder<'c>, V<'c>, &[V<'c>]) -> Vec<V<'c>>,
) -> Vec<V<'c>> {
    let (context, location) = (b.context(), b.location());
    let mut arguments = vec![(Type::index(context), location)];
    arguments.extend(inits.iter().map(|v| (v.r#type(), location)));
    let block = Block::new(&arguments);
    let iv = detach(block.argument(0).expect("the induction variable").into());
    let carried: Vec<V<'c>> = (1..block.argument_count()).map(|i| detach(block.argument(i).expect("counted").into())).collect();
    let builder = BodyBuilder::for_block(context, &block, location);
    let yielded = body(&builder, iv, &carried);
    builder.op("scf.yield", &yielded, &[], &[], vec![]);
    let region = Region::new();
    region.append_block(block);
    let mut operands = bounds.to_vec();
    operands.extend(inits);
    let types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
    let op = b.op("scf.for", &operands, &types, &[], vec![region]);
    op.results().map(|r| detach(r.into())).collect()
}

fn i1<'c>(b: &BodyBuilder<'c>) -> Type<'c> {
    IntegerType::new(b.context, 1).into()
}

fn i32_type<'c>(context: &'c melior::Context) -> Type<'c> {
    IntegerType::new(context, 32).into()
}

/// `arith.cmpf` (floats) or `arith.cmpi` (integers) with a raw predicate.
fn cmp<'c>(b: &BodyBuilder<'c>, float: bool, predicate: i64, x: V<'c>, y: V<'c>) -> V<'c> {
    let i64_type: Type = IntegerType::new(b.context, 64).into();
    let name = if float { "arith.cmpf" } else { "arith.cmpi" };
    b.value_with(name, &[x, y], i1(b), &[("predicate", IntegerAttribute::new(i64_type, predicate).into())])
}

/// Whether `x` comes strictly before `y` in a sort where larger values
/// come first (`larger_first`) or last, a float NaN counting as larger
/// than every number (and equal to another NaN). Equal elements are not
/// before each other, which keeps a merge stable.
fn before<'c>(b: &BodyBuilder<'c>, larger_first: bool, x: V<'c>, y: V<'c>) -> V<'c> {
    let float = is_float(x.r#type());
    // arith.cmpf: ogt 2, olt 4, ord 7, uno 14; arith.cmpi: slt 2, sgt 4.
    let strictly = cmp(b, float, if larger_first { if float { 2 } else { 4 } } else if float { 4 } else { 2 }, x, y);
    if !float {
        return strictly;
    }
    // The NaN rule: the NaN one goes first when larger values do.
    let (nan, number) = if larger_first { (x, y) } else { (y, x) };
    let is_nan = cmp(b, true, 14, nan, nan);
    let is_number = cmp(b, true, 7, number, number);
    let by_nan = b.value("arith.andi", &[is_nan, is_number], i1(b));
    b.value("arith.ori", &[strictly, by_nan], i1(b))
}

/// Whether `x` replaces `best` in a scan for the largest (`max`) or
/// smallest element: strictly larger / smaller, or a NaN where `best` is a
/// number (a NaN wins both, as `tile.max`/`tile.min` let it, and stays).
fn better<'c>(b: &BodyBuilder<'c>, max: bool, x: V<'c>, best: V<'c>) -> V<'c> {
    let float = is_float(x.r#type());
    // arith.cmpf: ogt 2, olt 4, ord 7, uno 14; arith.cmpi: slt 2, sgt 4.
    let strictly = cmp(b, float, if max { if float { 2 } else { 4 } } else if float { 4 } else { 2 }, x, best);
    if !float {
        return strictly;
    }
    let is_nan = cmp(b, true, 14, x, x);
    let is_number = cmp(b, true, 7, best, best);
    let by_nan = b.value("arith.andi", &[is_nan, is_number], i1(b));
    b.value("arith.ori", &[strictly, by_nan], i1(b))
}

fn result_type<'c>(op: OperationRef<'c, '_>, index: usize) -> Type<'c> {
    let tile = htp_dialects::tile::TileType::try_from(op.result(index).expect("verified op has this result").r#type())
        .expect("a tile result");
    tensor_type_of(tile)
}

/// The run-time (or static) size of dimension `dim` of `tensor`.
fn size<'c>(e: &Emitter<'c, '_>, tensor: V<'c>, dim: usize) -> V<'c> {
    run_time_sizes(e, tensor)[dim].unwrap_or_else(|| e.index(shape_of(tensor.r#type())[dim]))
}

/// tile.row_arg_reduce: for each row, a scan over its valid columns keeping
/// the best element so far and its column (the first of equal ones; a NaN
/// wins over numbers, as `tile.max`/`tile.min` let it).
pub fn row_arg_reduce<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let input = operand(op, 0);
    let kind = IntegerAttribute::try_from(op.attribute("kind").expect("verified op has a kind")).expect("an enum").value();
    let result = result_type(op, 0);
    let element = element_of(input.r#type());
    let sizes = run_time_sizes(e, input);
    let rows = e.dynamic_sizes(result, &[sizes[0], None]);
    let columns = size(e, input, 1);
    let (zero, one) = (e.index(0), e.index(1));
    let index_type = i32_type(e.context);
    // The identity of the reduction (-inf / the smallest integer for max):
    // nothing is strictly better than it but a NaN, so a row of identities
    // gives column 0.
    let (_, identity) = scalar::reduction(kind, element);
    e.generate(result, &rows, |b, at| {
        let start = [b.number(element, identity), b.number(index_type, 0.0)];
        let best = for_loop(b, [zero, columns, one], &start, |b, column, carried| {
            let x = b.value("tensor.extract", &[input, at[0], column], element);
            let better = better(b, kind == 1, x, carried[0]);
            let value = b.value("arith.select", &[better, x, carried[0]], element);
            let here = b.value("arith.index_cast", &[column], index_type);
            let index = b.value("arith.select", &[better, here, carried[1]], index_type);
            vec![value, index]
        });
        best[1]
    })
}

/// tile.sort: a bottom-up merge sort of each row, in `ceil(log2 C)` passes
/// over runs of 1, 2, 4, ... elements, each merging pairs of neighbouring
/// runs into a new tensor (values and their columns side by side). A merge
/// takes the right run's element only when it comes strictly first, so
/// the sort is stable. The first K columns of the result are the op's.
pub fn sort<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> (V<'c>, V<'c>) {
    let input = operand(op, 0);
    let descending = op.attribute("descending").is_ok();
    let (values_type, indices_type) = (result_type(op, 0), result_type(op, 1));
    let element = element_of(input.r#type());
    let index_type = i32_type(e.context);
    let columns = shape_of(input.r#type())[1];
    let keep = shape_of(values_type)[1];
    let sizes = run_time_sizes(e, input);
    let rows = size(e, input, 0);
    let full_indices = tensor_type(&[shape_of(input.r#type())[0], columns], index_type);
    let dynamic = e.dynamic_sizes(full_indices, &[sizes[0], None]);
    let mut values = input;
    let mut indices = e.generate(full_indices, &dynamic, |b, at| b.value("arith.index_cast", &[at[1]], index_type));
    let (zero, one) = (e.index(0), e.index(1));
    let mut width = 1;
    while width < columns {
        let (from_values, from_indices) = (values, indices);
        let into = [e.value("tensor.empty", &dynamic, input.r#type()), e.value("tensor.empty", &dynamic, full_indices)];
        let merged = for_loop(e, [zero, rows, one], &into, |b, row, carried| {
            let (end, step) = (b.index(columns), b.index(2 * width));
            for_loop(b, [b.index(0), end, step], carried, |b, low, carried| {
                let index = Type::index(b.context);
                let middle = b.value("arith.addi", &[low, b.index(width)], index);
                let middle = b.value("arith.minsi", &[middle, end], index);
                let high = b.value("arith.addi", &[low, b.index(2 * width)], index);
                let high = b.value("arith.minsi", &[high, end], index);
                let start = [low, middle, carried[0], carried[1]];
                let out = for_loop(b, [low, high, b.index(1)], &start, |b, k, carried| {
                    let (left, right) = (carried[0], carried[1]);
                    // arith.cmpi slt: 2.
                    let left_ok = cmp(b, false, 2, left, middle);
                    let right_ok = cmp(b, false, 2, right, high);
                    // Indices kept inside the row when a run is used up.
                    let left_at = b.value("arith.select", &[left_ok, left, low], index);
                    let right_at = b.value("arith.select", &[right_ok, right, low], index);
                    let left_value = b.value("tensor.extract", &[from_values, row, left_at], element);
                    let right_value = b.value("tensor.extract", &[from_values, row, right_at], element);
                    let left_index = b.value("tensor.extract", &[from_indices, row, left_at], index_type);
                    let right_index = b.value("tensor.extract", &[from_indices, row, right_at], index_type);
                    let first = before(b, descending, right_value, left_value);
                    let truth = b.constant(IntegerAttribute::new(i1(b), 1).into(), i1(b));
                    let left_done = b.value("arith.xori", &[left_ok, truth], i1(b));
                    let take_right = b.value("arith.ori", &[left_done, first], i1(b));
                    let take_right = b.value("arith.andi", &[right_ok, take_right], i1(b));
                    let value = b.value("arith.select", &[take_right, right_value, left_value], element);
                    let column = b.value("arith.select", &[take_right, right_index, left_index], index_type);
                    let values = b.value("tensor.insert", &[value, carried[2], row, k], carried[2].r#type());
                    let indices = b.value("tensor.insert", &[column, carried[3], row, k], carried[3].r#type());
                    let one = b.index(1);
                    let left_next = b.value("arith.addi", &[left, one], index);
                    let right_next = b.value("arith.addi", &[right, one], index);
                    let left = b.value("arith.select", &[take_right, left, left_next], index);
                    let right = b.value("arith.select", &[take_right, right_next, right], index);
                    vec![left, right, values, indices]
                });
                vec![out[2], out[3]]
            })
        });
        values = merged[0];
        indices = merged[1];
        width *= 2;
    }
    if keep == columns {
        return (values, indices);
    }
    let slice = |tensor: V<'c>, ty: Type<'c>| {
        let mut operands = vec![tensor];
        let static_rows = shape_of(ty)[0];
        if static_rows == DYNAMIC {
            operands.push(rows);
        }
        let attributes = [
            ("operandSegmentSizes", e.i32_array(&[1, 0, i32::from(static_rows == DYNAMIC), 0])),
            ("static_offsets", e.i64_array(&[0, 0])),
            ("static_sizes", e.i64_array(&[static_rows, keep])),
            ("static_strides", e.i64_array(&[1, 1])),
        ];
        e.value_with("tensor.extract_slice", &operands, ty, &attributes)
    };
    (slice(values, values_type), slice(indices, indices_type))
}

/// tile.take: `input[r, indices[r, j]]` for each element, as a
/// `tensor.generate`. An index outside the row's valid columns reports the
/// op's site (IndexError at the user's line) and reads column 0 instead.
pub fn take<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let (input, indices) = (operand(op, 0), operand(op, 1));
    let result = result_type(op, 0);
    let element = element_of(result);
    let sizes = run_time_sizes(e, indices);
    let dynamic = e.dynamic_sizes(result, &sizes);
    let index = Type::index(e.context);
    let columns = size(e, input, 1);
    let zero = e.index(0);
    let site = crate::check_bounds::out_of_bounds_site(e, op);
    e.generate(result, &dynamic, |b, at| {
        let raw = b.value("tensor.extract", &[indices, at[0], at[1]], element_of(indices.r#type()));
        let column = b.value("arith.index_cast", &[raw], index);
        let Some(site) = site else { return b.value("tensor.extract", &[input, at[0], column], element) };
        let (_, safe) = checked_column(b, site, column, columns, zero);
        b.value("tensor.extract", &[input, at[0], safe], element)
    })
}

/// A column index read from data, checked against `columns`: whether it is
/// inside, and the column to use (0 when it is not); a report of `site`
/// where it is not.
fn checked_column<'c>(b: &BodyBuilder<'c>, site: V<'c>, column: V<'c>, columns: V<'c>, zero: V<'c>) -> (V<'c>, V<'c>) {
    // arith.cmpi sge 5, slt 2.
    let low = cmp(b, false, 5, column, zero);
    let high = cmp(b, false, 2, column, columns);
    let inside = b.value("arith.andi", &[low, high], i1(b));
    crate::check_bounds::report_unless(b, inside, site);
    (inside, b.value("arith.select", &[inside, column, zero], Type::index(b.context)))
}

/// tile.put: the input with `values[r, j]` inserted at `[r, indices[r, j]]`,
/// row by row and, in a row, in order of `j` (so the last of equal indices
/// wins), as loops over the index tile carrying the result. An index outside
/// the row's valid columns reports the op's site (IndexError at the user's
/// line) and writes nothing (the element at column 0 is written back).
pub fn put<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let (input, indices, values) = (operand(op, 0), operand(op, 1), operand(op, 2));
    let element = element_of(input.r#type());
    let index_element = element_of(indices.r#type());
    let (rows, count, columns) = (size(e, indices, 0), size(e, indices, 1), size(e, input, 1));
    let index = Type::index(e.context);
    let (zero, one) = (e.index(0), e.index(1));
    let site = crate::check_bounds::out_of_bounds_site(e, op);
    let written = for_loop(e, [zero, rows, one], &[input], |b, row, carried| {
        for_loop(b, [zero, count, one], carried, |b, j, carried| {
            let out = carried[0];
            let raw = b.value("tensor.extract", &[indices, row, j], index_element);
            let column = b.value("arith.index_cast", &[raw], index);
            let value = b.value("tensor.extract", &[values, row, j], element);
            let Some(site) = site else { return vec![b.value("tensor.insert", &[value, out, row, column], out.r#type())] };
            let (inside, safe) = checked_column(b, site, column, columns, zero);
            let kept = b.value("tensor.extract", &[out, row, safe], element);
            let value = b.value("arith.select", &[inside, value, kept], element);
            vec![b.value("tensor.insert", &[value, out, row, safe], out.r#type())]
        })
    });
    written[0]
}
