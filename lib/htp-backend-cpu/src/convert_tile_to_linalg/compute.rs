//! Lowering of the tile ops that compute (everything but memory access) to
//! tensors: elementwise work and reductions become `linalg.generic`,
//! constants become dense/splat tensors, iota a `tensor.generate`.

use htp_dialects::tile::TileType;
use melior::ir::{
    attribute::{DenseElementsAttribute, IntegerAttribute},
    block::BlockLike,
    operation::OperationLike,
    Attribute, BlockRef, OperationRef, RegionLike, Type, ValueLike,
};

use htp_ir::builder::{affine_map, detach, element_of, is_float, is_shaped, shape_of, BodyBuilder, Builder, Emitter, DYNAMIC, V};
use super::{scalar, tensor_type_of};

const PARALLEL2: &[&str] = &["parallel", "parallel"];

pub fn operand<'c>(op: OperationRef<'c, '_>, index: usize) -> V<'c> {
    detach(op.operand(index).expect("verified op has this operand"))
}

fn result_tile<'c>(op: OperationRef<'c, '_>) -> TileType<'c> {
    TileType::try_from(op.result(0).expect("tile op has a result").r#type()).expect("result is a tile")
}

fn integer_attribute(op: OperationRef, name: &str) -> i64 {
    IntegerAttribute::try_from(op.attribute(name).expect("verified op has the attribute"))
        .expect("integer attribute")
        .value()
}

/// For each dim of `tensor`: its run-time size if it is dynamic, else
/// nothing. Sizes an elementwise result shares with its `tensor.empty` init
/// are reused, so a chain of N ops does not become a chain of N
/// `tensor.dim`s (which canonicalize then folds one link per visit,
/// quadratically).
pub fn run_time_sizes<'c>(e: &Emitter<'c, '_>, tensor: V<'c>) -> Vec<Option<V<'c>>> {
    if let Some(sizes) = known_sizes(tensor) {
        return sizes;
    }
    shape_of(tensor.r#type())
        .iter()
        .enumerate()
        .map(|(d, &size)| (size == DYNAMIC).then(|| e.dim(tensor, d as i64)))
        .collect()
}

/// The sizes of `tensor` read off the `tensor.empty` it was built into
/// (directly, or as the init of the `linalg.generic` that produced it).
fn known_sizes<'c>(tensor: V<'c>) -> Option<Vec<Option<V<'c>>>> {
    let mut producer = htp_ir::query::defining_op(tensor)?;
    if producer.name().as_string_ref().as_str() == Ok("linalg.generic") && producer.result_count() == 1 {
        let init = detach(producer.operand(producer.operand_count() - 1).ok()?);
        if init.r#type() != tensor.r#type() {
            return None;
        }
        producer = htp_ir::query::defining_op(init)?;
    }
    if producer.name().as_string_ref().as_str() != Ok("tensor.empty") {
        return None;
    }
    let mut dynamic = (0..producer.operand_count()).map(|i| detach(producer.operand(i).expect("counted")));
    Some(shape_of(tensor.r#type()).iter().map(|&size| if size == DYNAMIC { dynamic.next() } else { None }).collect())
}

/// `tensor.empty` of `ty`, dynamic sizes from `sizes`.
fn empty<'c>(e: &Emitter<'c, '_>, ty: Type<'c>, sizes: &[Option<V<'c>>]) -> V<'c> {
    let dynamic = e.dynamic_sizes(ty, sizes);
    e.value("tensor.empty", &dynamic, ty)
}

fn identity_maps<'c>(e: &Emitter<'c, '_>, count: usize) -> Vec<Attribute<'c>> {
    vec![affine_map(e.context, 2, "d0, d1"); count]
}

/// An elementwise `linalg.generic` over same-shaped tensors, producing a
/// tensor of `result` type shaped like `inputs[0]`.
///
/// HTP's own elementwise fusion: a one-input op of the same result type
/// whose input is an elementwise generic used only here extends that
/// generic's body in place (its yield moves to the new value), so a chain
/// of N such statements is one generic built in O(N). Upstream's
/// `linalg-fuse-elementwise-ops` then finds nothing to fuse in the chain;
/// on a chain of separate generics it is near-quadratic
/// (docs/performance.md).
fn elementwise<'c>(
    e: &Emitter<'c, '_>,
    inputs: &[V<'c>],
    result: Type<'c>,
    body: impl FnOnce(&BodyBuilder<'c>, &[V<'c>]) -> V<'c>,
) -> V<'c> {
    if let [input] = inputs {
        if let Some(generic) = extensible_generic(*input, result) {
            // Just before this op, so that the scalars its body reads
            // (defined since the generic was built) dominate it.
            unsafe { mlir_sys::mlirOperationMoveBefore(generic.to_raw(), e.anchor.to_raw()) };
            let block = generic.region(0).expect("a generic has a body").first_block().expect("a body block");
            let terminator = block.terminator().expect("a generic body ends in linalg.yield");
            let yielded = detach(terminator.operand(0).expect("linalg.yield yields the element"));
            unsafe { mlir_sys::mlirOperationDestroy(terminator.to_raw()) };
            let builder = BodyBuilder { context: e.context, block: unsafe { BlockRef::from_raw(block.to_raw()) }, location: e.location };
            let value = body(&builder, &[yielded]);
            builder.op("linalg.yield", &[value], &[], &[], vec![]);
            return *input;
        }
    }
    let sizes = run_time_sizes(e, inputs[0]);
    let init = empty(e, result, &sizes);
    e.generic(inputs, init, &identity_maps(e, inputs.len() + 1), PARALLEL2, body)
}

/// The elementwise generic making `input`, if a one-input op producing
/// `result` can extend it: one result of that type, used once, identity
/// maps and parallel iterators (what `elementwise` builds).
fn extensible_generic<'c>(input: V<'c>, result: Type<'c>) -> Option<OperationRef<'c, 'c>> {
    let generic = htp_ir::query::defining_op(input)?;
    if generic.name().as_string_ref().as_str() != Ok("linalg.generic") || generic.result_count() != 1 {
        return None;
    }
    if input.r#type() != result || !htp_ir::query::has_single_use(input) {
        return None;
    }
    let maps = generic.attribute("indexing_maps").ok()?.to_string();
    let iterators = generic.attribute("iterator_types").ok()?.to_string();
    let identity = "affine_map<(d0, d1) -> (d0, d1)>";
    let all_identity = maps.matches(identity).count() == maps.matches("affine_map").count();
    let parallel = iterators.matches("parallel").count() == 2 && !iterators.contains("reduction");
    (all_identity && parallel).then_some(generic)
}

/// tile.add/sub/mul/div/max/min, with a tile or scalar right operand.
pub fn binary<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>, kind: &str) -> V<'c> {
    let (lhs, rhs) = (operand(op, 0), operand(op, 1));
    let result = tensor_type_of(result_tile(op));
    let name = scalar::binary(kind, element_of(result));
    let element = element_of(result);
    let apply = move |b: &BodyBuilder<'c>, x: V<'c>, y: V<'c>| {
        if name == "arith.divsi" {
            scalar::divide_integers(b, x, y)
        } else {
            b.value(name, &[x, y], element)
        }
    };
    if is_shaped(rhs.r#type()) {
        elementwise(e, &[lhs, rhs], result, |b, args| apply(b, args[0], args[1]))
    } else {
        elementwise(e, &[lhs], result, |b, args| apply(b, args[0], rhs))
    }
}

/// tile.exp/log/sqrt/rsqrt/recip/abs/neg/relu.
pub fn unary<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>, kind: &str) -> V<'c> {
    let input = operand(op, 0);
    let result = tensor_type_of(result_tile(op));
    let element = element_of(result);
    let float = is_float(element);
    elementwise(e, &[input], result, |b, args| {
        let x = args[0];
        match (kind, float) {
            ("exp", _) => b.value("math.exp", &[x], element),
            ("log", _) => b.value("math.log", &[x], element),
            ("sqrt", _) => b.value("math.sqrt", &[x], element),
            ("rsqrt", _) => b.value("math.rsqrt", &[x], element),
            ("recip", _) => {
                let one = b.number(element, 1.0);
                b.value("arith.divf", &[one, x], element)
            }
            ("abs", true) => b.value("math.absf", &[x], element),
            ("abs", false) => b.value("math.absi", &[x], element),
            ("neg", true) => b.value("arith.negf", &[x], element),
            ("neg", false) => {
                let zero = b.number(element, 0.0);
                b.value("arith.subi", &[zero, x], element)
            }
            ("relu", _) => {
                let zero = b.number(element, 0.0);
                b.value(scalar::binary("max", element), &[x, zero], element)
            }
            _ => unreachable!("not a tile unary op: {kind}"),
        }
    })
}

/// tile.cmp: an i1 tensor shaped like the left operand.
pub fn compare<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let (lhs, rhs) = (operand(op, 0), operand(op, 1));
    let predicate = integer_attribute(op, "predicate");
    let result = tensor_type_of(result_tile(op));
    if is_shaped(rhs.r#type()) {
        elementwise(e, &[lhs, rhs], result, |b, args| scalar::compare(b, predicate, args[0], args[1]))
    } else {
        elementwise(e, &[lhs], result, |b, args| scalar::compare(b, predicate, args[0], rhs))
    }
}

/// tile.select
pub fn select<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let inputs = [operand(op, 0), operand(op, 1), operand(op, 2)];
    let result = tensor_type_of(result_tile(op));
    let element = element_of(result);
    // Size the result from a data operand (the mask may be i1-typed only).
    let sizes = run_time_sizes(e, inputs[1]);
    let init = empty(e, result, &sizes);
    e.generic(&inputs, init, &identity_maps(e, 4), PARALLEL2, |b, args| {
        b.value("arith.select", &[args[0], args[1], args[2]], element)
    })
}

/// tile.cast
pub fn cast<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let input = operand(op, 0);
    let result = tensor_type_of(result_tile(op));
    let element = element_of(result);
    elementwise(e, &[input], result, |b, args| scalar::convert(b, args[0], element))
}

/// tile.row_reduce (dim 1) / tile.col_reduce (dim 0): a 1-D reduction, then
/// `tensor.expand_shape` back to Rx1 / 1xC.
pub fn reduce<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>, reduced: usize) -> V<'c> {
    let input = operand(op, 0);
    let kind = integer_attribute(op, "kind");
    let result = tensor_type_of(result_tile(op));
    let element = element_of(result);
    let kept = 1 - reduced;
    let sizes = run_time_sizes(e, input);
    let kept_size = shape_of(input.r#type())[kept];
    let vector = htp_ir::builder::tensor_type(&[kept_size], element);
    let (combiner, identity) = scalar::reduction(kind, element);
    let identity = e.number(element, identity);
    let dynamic = e.dynamic_sizes(vector, &[sizes[kept]]);
    let init = e.splat(identity, vector, &dynamic);
    let iterators: &[&str] = if reduced == 1 { &["parallel", "reduction"] } else { &["reduction", "parallel"] };
    let maps = [affine_map(e.context, 2, "d0, d1"), affine_map(e.context, 2, if reduced == 1 { "d0" } else { "d1" })];
    let reduced_vector = e.generic(&[input], init, &maps, iterators, |b, args| {
        b.value(combiner, &[args[0], args[1]], element)
    });
    let mut output_shape = [1i64, 1];
    output_shape[kept] = kept_size;
    let dynamic = e.dynamic_sizes(result, &if kept == 0 { [sizes[0], None] } else { [None, sizes[1]] });
    let mut operands = vec![reduced_vector];
    operands.extend(dynamic);
    let reassociation = htp_ir::builder::parse_attribute(e.context, "[[0, 1]]");
    e.value_with(
        "tensor.expand_shape",
        &operands,
        result,
        &[("reassociation", reassociation), ("static_output_shape", e.i64_array(&output_shape))],
    )
}

/// tile.broadcast: a copy whose input map pins broadcast dims to 0.
/// `input_tile` is the operand's type before lowering: tile sizes, not the
/// valid sizes its tensor has, say which dims broadcast.
pub fn broadcast<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>, input_tile: TileType<'c>) -> V<'c> {
    let input = operand(op, 0);
    let tile = result_tile(op);
    let result = tensor_type_of(tile);
    let input_shape = [input_tile.rows(), input_tile.cols()];
    let broadcasts = [input_shape[0] == 1 && tile.rows() != 1, input_shape[1] == 1 && tile.cols() != 1];
    let sizes = run_time_sizes(e, input);
    let result_sizes: Vec<Option<V>> = (0..2).map(|d| if broadcasts[d] { None } else { sizes[d] }).collect();
    let init = empty(e, result, &result_sizes);
    let input_map = format!(
        "{}, {}",
        if broadcasts[0] { "0" } else { "d0" },
        if broadcasts[1] { "0" } else { "d1" }
    );
    let maps = [affine_map(e.context, 2, &input_map), affine_map(e.context, 2, "d0, d1")];
    e.generic(&[input], init, &maps, PARALLEL2, |_, args| args[0])
}

/// tile.pad: `tensor.pad` from the valid region up to the full tile,
/// yielding the fill value.
pub fn pad<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let (input, value) = (operand(op, 0), operand(op, 1));
    let tile = result_tile(op);
    let result = tensor_type_of(tile);
    let full = [tile.rows(), tile.cols()];
    let sizes = run_time_sizes(e, input);
    let input_shape = shape_of(input.r#type());
    let mut static_high = Vec::new();
    let mut dynamic_high = Vec::new();
    for dim in 0..2 {
        if input_shape[dim] == DYNAMIC {
            let total = e.index(full[dim]);
            let size = sizes[dim].expect("dynamic dim has a run-time size");
            dynamic_high.push(e.value("arith.subi", &[total, size], Type::index(e.context)));
            static_high.push(DYNAMIC);
        } else {
            static_high.push(full[dim] - input_shape[dim]);
        }
    }
    let block = melior::ir::Block::new(&[(Type::index(e.context), e.location); 2]);
    let builder = BodyBuilder::for_block(e.context, &block, e.location);
    builder.op("tensor.yield", &[value], &[], &[], vec![]);
    let region = melior::ir::Region::new();
    melior::ir::RegionLike::append_block(&region, block);
    let mut operands = vec![input];
    operands.extend(&dynamic_high);
    let attributes = [
        ("operandSegmentSizes", e.i32_array(&[1, 0, dynamic_high.len() as i32])),
        ("static_low", e.i64_array(&[0, 0])),
        ("static_high", e.i64_array(&static_high)),
    ];
    // verifier: tensor.pad has exactly one result (ODS `AnyRankedTensor:$result`).
    detach(e.op("tensor.pad", &operands, &[result], &attributes, vec![region]).result(0).unwrap().into())
}

/// tile.set_valid: the leading `valid sizes` of the tensor, as a slice.
pub fn set_valid<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let input = operand(op, 0);
    let result = tensor_type_of(result_tile(op));
    let shape = shape_of(result);
    let mut valid_operands = (1..op.operand_count()).map(|i| operand(op, i));
    // verifier: tile.set_valid takes one index operand per `?` valid size of its result.
    let dynamic: Vec<V> = shape.iter().filter(|&&s| s == DYNAMIC).map(|_| valid_operands.next().unwrap()).collect();
    let static_sizes: Vec<i64> = shape.clone();
    let mut operands = vec![input];
    operands.extend(&dynamic);
    let attributes = [
        ("operandSegmentSizes", e.i32_array(&[1, 0, dynamic.len() as i32, 0])),
        ("static_offsets", e.i64_array(&[0, 0])),
        ("static_sizes", e.i64_array(&static_sizes)),
        ("static_strides", e.i64_array(&[1, 1])),
    ];
    e.value_with("tensor.extract_slice", &operands, result, &attributes)
}

/// tile.transpose
pub fn transpose<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let input = operand(op, 0);
    let result = tensor_type_of(result_tile(op));
    let sizes = run_time_sizes(e, input);
    let init = empty(e, result, &[sizes[1], sizes[0]]);
    let maps = [affine_map(e.context, 2, "d1, d0"), affine_map(e.context, 2, "d0, d1")];
    e.generic(&[input], init, &maps, PARALLEL2, |_, args| args[0])
}

/// tile.matmul: (m, n, k) contraction, operands widened to the result type.
pub fn matmul<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let (lhs, rhs) = (operand(op, 0), operand(op, 1));
    let result = tensor_type_of(result_tile(op));
    let element = element_of(result);
    let init = if op.operand_count() == 3 {
        operand(op, 2)
    } else {
        let m = run_time_sizes(e, lhs)[0];
        let n = run_time_sizes(e, rhs)[1];
        let zero = e.number(element, 0.0);
        let dynamic = e.dynamic_sizes(result, &[m, n]);
        e.splat(zero, result, &dynamic)
    };
    // Iteration order (i, k, j): loops nest in the order of the domain's
    // dims, so the innermost loop runs along a row of B and of C, which are
    // contiguous, and LLVM vectorises it (i, j, k would stride down B's
    // columns in a scalar reduction).
    let maps = [
        affine_map(e.context, 3, "d0, d1"),
        affine_map(e.context, 3, "d1, d2"),
        affine_map(e.context, 3, "d0, d2"),
    ];
    e.generic(&[lhs, rhs], init, &maps, &["parallel", "reduction", "parallel"], |b, args| {
        let a = scalar::convert(b, args[0], element);
        let c = scalar::convert(b, args[1], element);
        let product = b.value(scalar::binary("mul", element), &[a, c], element);
        b.value(scalar::binary("add", element), &[args[2], product], element)
    })
}

/// tile.constant: a splat `arith.constant dense<...>`.
pub fn constant<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let result = tensor_type_of(result_tile(op));
    let value = op.attribute("value").expect("verified tile.constant has a value");
    let dense = DenseElementsAttribute::new(result, &[value]).expect("splat of the element type");
    e.constant(dense.into(), result)
}

/// tile.fill: `tensor.splat` of the scalar.
pub fn fill<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let result = tensor_type_of(result_tile(op));
    e.splat(operand(op, 0), result, &[])
}

/// tile.iota: each element's index along `dimension`, converted.
pub fn iota<'c>(e: &Emitter<'c, '_>, op: OperationRef<'c, '_>) -> V<'c> {
    let result = tensor_type_of(result_tile(op));
    let element = element_of(result);
    let dimension = integer_attribute(op, "dimension") as usize;
    let i64_type: Type = melior::ir::r#type::IntegerType::new(e.context, 64).into();
    e.generate(result, &[], |b, indices| {
        let index = b.value("arith.index_cast", &[indices[dimension]], i64_type);
        scalar::convert(b, index, element)
    })
}
