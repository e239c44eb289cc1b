//! `aie-vectorize-cores`: plans the cores' vector code. Each bufferized
//! `linalg.generic` of the block functions that the generation's vector
//! unit takes whole (vector_units.rs: every op of its body, at its element
//! types; static sizes that are whole vectors) is tagged, and the pass
//! appends a transform script (`@__transform_main`) that tiles it to one
//! vector and vectorizes it with MLIR's linalg vectorizer:
//!
//! * elementwise ops and reductions along a row: tiles of `1 x ... x
//!   lanes` along the innermost loop, read and written as 1-D vectors
//!   (`vector.reduction` for a row reduction, a vector accumulator for a
//!   column one);
//! * matrix multiplies: tiles of the generation's MAC shape (`4 x 8 x 4`
//!   bf16 on AIE2), the K loop innermost, one `vector.contract` each — what
//!   `convert-vector-to-aievec` turns into `aievec.matmul`.
//!
//! `transform-interpreter` then runs the script and
//! `aie-erase-transform-scripts` removes it. What the unit does not take
//! stays for `convert-linalg-to-loops` (scalar loops). The same code runs on
//! `aie-sim` (lowered by LLVM for the host) and goes to mlir-aie's aievec
//! conversions for the cores (docs/targets/aie.md, "Vector cores").

use melior::{
    ir::{
        attribute::{ArrayAttribute, IntegerAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::MemRefType,
        OperationRef, RegionLike, ValueLike,
    },
    Context,
};

use crate::vector_units::VectorUnit;

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-vectorize-cores", "builtin.module"> {
        summary: "Tag the linalg ops an AIE generation's vector unit takes and append the transform script that tiles and vectorizes them",
        dialects: [linalg, vector, scf],
        options: Options {
            #[option("generation", default = "aie2", "the AIE generation whose vector unit the cores use (aie2, aie2p)")]
            generation: String,
        },
        run: run,
    }
}

/// The attribute that tags an op for the script (its number).
pub const TAG: &str = "htp.aie_vector";

/// How one op is vectorized.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// Tile sizes per loop of the op.
    pub tiles: Vec<i64>,
    /// The loops' order after tiling (the reduction of a matmul innermost).
    pub interchange: Vec<i64>,
    /// A matmul: its multiply-reduction becomes one `vector.contract` of
    /// the narrow inputs (only there: a row reduction of products stays a
    /// `vector.reduction`, which the unit takes where it has no MAC shape).
    pub contraction: bool,
    /// A matmul's register blocking: `[rows, columns]` of MAC tiles computed
    /// together per K step (their accumulators in registers, each tile of A
    /// and B loaded once for all of them); `tiles` is then one MAC tile and
    /// the op is first tiled by `tiles` times these.
    pub blocking: [i64; 2],
}

/// The accumulator registers a matmul's register blocking may fill: AIE2's
/// nine 1024-bit accumulator registers (AM020, "Register Files"), the
/// generations' common budget.
const ACCUMULATOR_BITS: i64 = 9 * 1024;

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>, options: &Options) -> Result<(), htp_pass::Failure<'c>> {
    let Some(unit) = VectorUnit::named(&options.generation) else {
        return Err((module.location(), format!("unknown AIE generation '{}' (aie2, aie2p)", options.generation)));
    };
    let mut plans = Vec::new();
    for generic in htp_ir::query::ops_named(module, "linalg.generic") {
        htp_pass::processing(generic.location());
        if let Some(plan) = plan(generic, unit) {
            set_attribute(generic, TAG, IntegerAttribute::new(melior::ir::r#type::IntegerType::new(context, 64).into(), plans.len() as i64).into());
            plans.push(plan);
        }
    }
    // (An empty script when nothing vectorizes: transform-interpreter needs one.)
    let script = script(&plans);
    let parsed = melior::ir::Module::parse(context, &script).ok_or_else(|| (module.location(), "internal error: the vectorization script does not parse".to_string()))?;
    let body = module.region(0).ok().and_then(|r| r.first_block()).expect("a module has a body");
    while let Some(op) = parsed.body().first_operation() {
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
            mlir_sys::mlirBlockAppendOwnedOperation(body.to_raw(), op.to_raw());
        }
    }
    set_attribute(module, "transform.with_named_sequence", melior::ir::attribute::Attribute::unit(context));
    Ok(())
}

/// The transform script: per tagged op, tile and vectorize; then the
/// patterns that make the vector code what mlir-aie's aievec conversion
/// reads (contractions from multiply-reductions with their widening folded
/// in, 1-D transfers as plain loads and stores).
fn script(plans: &[Plan]) -> String {
    let mut s = String::from(
        "module attributes {transform.with_named_sequence} {\n  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {\n",
    );
    for (number, plan) in plans.iter().enumerate() {
        let list = |values: &[i64]| values.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let loops = plan.tiles.iter().filter(|&&t| t != 0).count();
        let results = vec!["!transform.any_op"; loops + 1].join(", ");
        let (tiles, interchange) = (list(&plan.tiles), list(&plan.interchange));
        s += &format!("    %op{number} = transform.structured.match attributes{{{TAG} = {number} : i64}} in %root : (!transform.any_op) -> !transform.any_op\n");
        if !plan.contraction {
            s += &format!(
                "    %tiled{number}, %loops{number}:{loops} = transform.structured.tile_using_for %op{number} tile_sizes [{tiles}] interchange = [{interchange}] : (!transform.any_op) -> ({results})\n\
                 \x20   transform.structured.vectorize %tiled{number} : !transform.any_op\n"
            );
            continue;
        }
        // A matmul: tiled by its register block, then by the MAC tile; the MAC tiles' loops unrolled.
        let [rows, columns] = plan.blocking;
        let (m, n) = (plan.interchange[0] as usize, plan.interchange[1] as usize);
        let mut block = plan.tiles.clone();
        block[m] *= rows;
        block[n] *= columns;
        let block = list(&block);
        s += &format!(
            "    %block{number}, %blocks{number}:{loops} = transform.structured.tile_using_for %op{number} tile_sizes [{block}] interchange = [{interchange}] : (!transform.any_op) -> ({results})\n\
             \x20   %tiled{number}, %loops{number}:{loops} = transform.structured.tile_using_for %block{number} tile_sizes [{tiles}] interchange = [{interchange}] : (!transform.any_op) -> ({results})\n\
             \x20   transform.structured.vectorize %tiled{number} : !transform.any_op\n\
             \x20   transform.apply_patterns to %blocks{number}#0 {{\n\
             \x20     transform.apply_patterns.vector.reduction_to_contract\n\
             \x20     transform.apply_patterns.vector.transfer_permutation_patterns\n\
             \x20   }} : !transform.any_op\n\
             \x20   transform.apply_patterns to %blocks{number}#0 {{\n\
             \x20     transform.apply_patterns.vector.fold_arith_extension\n\
             \x20     transform.apply_patterns.vector.reduction_to_contract\n\
             \x20     transform.apply_patterns.canonicalization\n\
             \x20   }} : !transform.any_op\n"
        );
        for (index, factor) in [(1, columns), (0, rows)] {
            if factor > 1 {
                s += &format!("    transform.loop.unroll %loops{number}#{index} {{factor = {factor}}} : !transform.any_op\n");
            }
        }
    }
    s += "    %functions = transform.structured.match ops{[\"func.func\"]} in %root : (!transform.any_op) -> !transform.any_op\n\
          \x20   transform.apply_patterns to %functions {\n\
          \x20     transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n\
          \x20     transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = \"innerreduction\"\n\
          \x20     transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1\n\
          \x20     transform.apply_patterns.canonicalization\n\
          \x20   } : !transform.any_op\n\
          \x20   transform.apply_patterns to %functions {\n\
          \x20     transform.apply_patterns.memref.fold_memref_alias_ops\n\
          \x20     transform.apply_patterns.canonicalization\n\
          \x20   } : !transform.any_op\n\
          \x20   transform.apply_cse to %functions : !transform.any_op\n\
          \x20   %hoisted = transform.structured.hoist_redundant_vector_transfers %functions : (!transform.any_op) -> !transform.any_op\n\
          \x20   transform.yield\n  }\n}\n";
    s
}

/// Which loops of a structured op (`linalg.generic`, `vector.contract`)
/// are reductions, from its `iterator_types`.
pub fn reduction_loops(op: OperationRef) -> Option<Vec<bool>> {
    let iterators = ArrayAttribute::try_from(op.attribute("iterator_types").ok()?).ok()?;
    Some((0..iterators.len()).map(|i| iterators.element(i).is_ok_and(|a| a.to_string().contains("reduction"))).collect())
}

/// The results of an indexing map: `Some(loop)` or `None` (a constant 0).
pub fn map_results(map: melior::ir::Attribute) -> Option<Vec<Option<i64>>> {
    let map = unsafe { mlir_sys::mlirAffineMapAttrGetValue(melior::ir::attribute::AttributeLike::to_raw(&map)) };
    (0..unsafe { mlir_sys::mlirAffineMapGetNumResults(map) })
        .map(|i| unsafe {
            let expr = mlir_sys::mlirAffineMapGetResult(map, i);
            if mlir_sys::mlirAffineExprIsADim(expr) {
                Some(Some(mlir_sys::mlirAffineDimExprGetPosition(expr) as i64))
            } else {
                mlir_sys::mlirAffineExprIsAConstant(expr).then_some(None)
            }
        })
        .collect()
}

/// How `generic` is vectorized on `unit`, when the unit takes it whole.
pub fn plan(generic: OperationRef, unit: &VectorUnit) -> Option<Plan> {
    if generic.result_count() != 0 {
        return None; // not bufferized
    }
    let maps = ArrayAttribute::try_from(generic.attribute("indexing_maps").ok()?).ok()?;
    let reduction = reduction_loops(generic)?;
    let loops = reduction.len();
    let mut operands = Vec::new();
    let mut ranges = vec![None; loops];
    for i in 0..generic.operand_count() {
        let ty = generic.operand(i).ok()?.r#type();
        let memref = MemRefType::try_from(ty).ok()?;
        let shape = htp_ir::builder::shape_of(ty);
        if shape.iter().any(|&d| d < 0) || !unit_innermost_stride(memref) {
            return None;
        }
        let results = map_results(maps.element(i).ok()?)?;
        for (&dim, &size) in results.iter().zip(&shape) {
            if let Some(dim) = dim {
                ranges[dim as usize] = Some(size);
            }
        }
        operands.push((htp_ir::builder::element_of(ty).to_string(), results));
    }
    let ranges: Vec<i64> = ranges.into_iter().collect::<Option<_>>()?;
    let body = generic.region(0).ok()?.first_block()?;
    let mut names = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        names.push(current.name().as_string_ref().as_str().ok()?.to_string());
    }
    contraction(&operands, &reduction, &ranges, &names, unit).or_else(|| rows(generic, &operands, &reduction, &ranges, unit))
}

/// A matmul `C[m, n] += A[m, k] * B[k, n]` (inputs widened in its body):
/// tiles of the unit's MAC shape, the K loop innermost.
fn contraction(operands: &[(String, Vec<Option<i64>>)], reduction: &[bool], ranges: &[i64], names: &[String], unit: &VectorUnit) -> Option<Plan> {
    let [(a, a_map), (b, b_map), (c, c_map)] = operands else { return None };
    if reduction.len() != 3 || reduction.iter().filter(|&&r| r).count() != 1 || a != b {
        return None;
    }
    let k = reduction.iter().position(|&r| r)? as i64;
    let (&[Some(m), Some(ka)], &[Some(b0), Some(b1)], &[Some(mc), Some(nc)]) = (a_map.as_slice(), b_map.as_slice(), c_map.as_slice()) else { return None };
    // B read as it is (`[k, n]`) or transposed (`x @ w.T`, `[n, k]`: each MAC tile of it loaded
    // and transposed in registers, a shuffle on the core).
    let n = if b0 == k { b1 } else { b0 };
    if ka != k || (b0 != k && b1 != k) || mc != m || nc != n {
        return None;
    }
    let body_ok = names.last().map(String::as_str) == Some("linalg.yield")
        && names.iter().filter(|n| matches!(n.as_str(), "arith.mulf" | "arith.muli")).count() == 1
        && names.iter().filter(|n| matches!(n.as_str(), "arith.addf" | "arith.addi")).count() == 1
        && names.iter().all(|n| matches!(n.as_str(), "arith.extf" | "arith.extsi" | "arith.mulf" | "arith.muli" | "arith.addf" | "arith.addi" | "linalg.yield"));
    let [tm, tk, tn] = unit.matmul(a, c)?;
    if !body_ok || ranges[m as usize] % tm != 0 || ranges[k as usize] % tk != 0 || ranges[n as usize] % tn != 0 {
        return None;
    }
    let mut tiles = vec![0; 3];
    tiles[m as usize] = tm;
    tiles[k as usize] = tk;
    tiles[n as usize] = tn;
    // The largest square-ish blocking of MAC tiles the sizes and the accumulator registers allow:
    // per K step, `rows` tiles of A and `columns` of B feed `rows x columns` MAC instructions.
    let accumulator_bits = tm * tn * 32; // f32 or i32 accumulators
    let fits = |r: i64, c: i64| ranges[m as usize] % (tm * r) == 0 && ranges[n as usize] % (tn * c) == 0 && r * c * accumulator_bits <= ACCUMULATOR_BITS;
    let blocking = [[4, 4], [2, 4], [4, 2], [2, 2], [1, 4], [4, 1], [1, 2], [2, 1], [1, 1]].into_iter().find(|&[r, c]| fits(r, c)).unwrap_or([1, 1]);
    Some(Plan { tiles, interchange: vec![m, n, k], contraction: true, blocking })
}

/// Elementwise ops and reductions: tiles of one vector along the innermost
/// loop, which every operand either walks contiguously (its last index) or
/// does not read (a broadcast).
fn rows(generic: OperationRef, operands: &[(String, Vec<Option<i64>>)], reduction: &[bool], ranges: &[i64], unit: &VectorUnit) -> Option<Plan> {
    let inner = (reduction.len() - 1) as i64;
    if operands.len() > 2 && reduction[..inner as usize].contains(&true) {
        return None; // a contraction the unit has no MAC shape for (f32 on AIE2)
    }
    for (element, results) in operands {
        let position = results.iter().position(|&d| d == Some(inner));
        if position.is_some_and(|p| p + 1 != results.len()) {
            return None; // walked across rows: a strided (transposed) read
        }
        if position.is_none() && !unit.element(element).is_some_and(|e| e.broadcasts) {
            return None; // read once per row and broadcast to the vector
        }
    }
    let body = generic.region(0).ok()?.first_block()?;
    let mut lanes = i64::MAX;
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = current.name().as_string_ref().as_str().ok()?.to_string();
        if name == "linalg.yield" {
            continue;
        }
        if name == "arith.constant" {
            // A constant becomes a splat: a broadcast.
            let element = current.result(0).ok()?.r#type().to_string();
            if !unit.element(&element).is_some_and(|e| e.broadcasts) {
                return None;
            }
            continue;
        }
        let element = |v: melior::ir::Value| v.r#type().to_string();
        let operand = element(current.operand(0).ok()?);
        let result = element(current.result(0).ok()?.into());
        let takes = match name.as_str() {
            "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.fptosi" | "arith.extsi" | "arith.trunci" => unit.casts(&name, &operand, &result),
            // A comparison's operands decide its vector type; a select's its result.
            "arith.cmpf" | "arith.cmpi" => unit.takes(&name, &operand),
            _ => unit.takes(&name, &result),
        };
        if !takes {
            return None;
        }
        for element in [operand, result] {
            if element != "i1" {
                lanes = lanes.min(unit.element(&element)?.lanes);
            }
        }
    }
    if lanes == i64::MAX || ranges[inner as usize] % lanes != 0 {
        return None;
    }
    if reduction[inner as usize] {
        // A row reduction: the combining op of the accumulator's row.
        let kind = row_reduction_kind(generic)?;
        let element = &operands.last()?.0;
        if !unit.element(element)?.reductions.contains(&kind.as_str()) {
            return None;
        }
    }
    let mut tiles = vec![1; reduction.len()];
    tiles[inner as usize] = lanes;
    Some(Plan { tiles, interchange: (0..reduction.len() as i64).collect(), contraction: false, blocking: [1, 1] })
}

/// The `vector.reduction` kind of a row reduction's combining op.
fn row_reduction_kind(generic: OperationRef) -> Option<String> {
    let body = generic.region(0).ok()?.first_block()?;
    let yield_op = body.terminator()?;
    let combine = htp_ir::query::defining_op(htp_ir::builder::detach(yield_op.operand(0).ok()?))?;
    let kind = match combine.name().as_string_ref().as_str().ok()? {
        "arith.addf" | "arith.addi" => "add",
        "arith.maximumf" => "maximumf",
        "arith.minimumf" => "minimumf",
        "arith.maxsi" => "maxsi",
        "arith.minsi" => "minsi",
        _ => return None,
    };
    Some(kind.to_string())
}

fn set_attribute(op: OperationRef, name: &str, value: melior::ir::Attribute) {
    use melior::ir::attribute::AttributeLike;
    unsafe { mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), melior::StringRef::new(name).to_raw(), value.to_raw()) };
}

fn unit_innermost_stride(memref: MemRefType) -> bool {
    use melior::ir::r#type::TypeLike;
    unsafe {
        let layout = mlir_sys::mlirMemRefTypeGetLayout(memref.to_raw());
        if mlir_sys::mlirAttributeIsAStridedLayout(layout) {
            let count = mlir_sys::mlirStridedLayoutAttrGetNumStrides(layout);
            count == 0 || mlir_sys::mlirStridedLayoutAttrGetStride(layout, count - 1) == 1
        } else {
            mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(memref.to_raw()))
        }
    }
}
