//! Kernels that both multiply matrices and do vector work run as one
//! pto-runtime cluster task: an AIC kernel on the cube core and an AIV
//! kernel on the vector cores, built from the same tile kernel (both keep
//! all the control flow and scalar code). This file decides which side
//! computes each tile op and which tile values cross between the sides; on
//! A2/A3 a crossing goes through GM (`pto.tpush` on the producing side at
//! the producer's position, `pto.tpop` on the consuming side at the same
//! position in its copy of the program, so pops come in push order).
//!
//! - `tile.matmul` runs on the cube. A matmul whose accumulator is vector
//!   work (`acc * alpha + p @ v`) is first split into a fresh matmul and a
//!   vector add: L0C cannot be filled from UB.
//! - Loads, pads, transposes, relayouts, constants and valid-size views go where their
//!   users are (on both sides when both use them: a load is cheaper than a
//!   crossing); a store goes where its value is made (the vector core when
//!   both make it).
//! - Everything else runs on the vector core.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
        BlockRef, RegionLike, ValueLike,
    },
    Context,
};

use htp_pass::Failure;
use super::cores::Core;
use crate::ops::TileOp;
use htp_ir::builder::{detach, Builder, Emitter, V};
use htp_ir::query::{defining_op, key, op_key, preorder_positions, uses};

/// The two cores of a cluster, as a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sides {
    pub cube: bool,
    pub vector: bool,
}

impl Sides {
    const CUBE: Sides = Sides { cube: true, vector: false };
    const VECTOR: Sides = Sides { cube: false, vector: true };

    fn union(self, other: Sides) -> Sides {
        Sides { cube: self.cube || other.cube, vector: self.vector || other.vector }
    }

    pub fn has(self, core: Core) -> bool {
        match core {
            Core::Aic => self.cube,
            Core::Aiv => self.vector,
        }
    }
}

/// Direction of a crossing, as `pto.tpush`/`pto.tpop` spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossing {
    CubeToVector,
    VectorToCube,
}

impl Crossing {
    /// The direction a `pto.cluster_send`/`pto.cluster_recv` names (its `dir`: 0 c2v, 1 v2c).
    pub fn of_transfer(op: OperationRef) -> Option<Crossing> {
        let dir = op.attribute("dir").ok().and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())?;
        match dir.value() {
            0 => Some(Crossing::CubeToVector),
            1 => Some(Crossing::VectorToCube),
            _ => None,
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Crossing::CubeToVector => "c2v",
            Crossing::VectorToCube => "v2c",
        }
    }

    pub fn producer(self) -> Core {
        match self {
            Crossing::CubeToVector => Core::Aic,
            Crossing::VectorToCube => Core::Aiv,
        }
    }
}

pub struct Split<'c> {
    /// Tile op -> the sides that compute it.
    sides: HashMap<usize, Sides>,
    /// Loop-carried tile (block argument or loop result) -> its side.
    carried: HashMap<usize, Sides>,
    /// Tile value -> how it crosses to the other side.
    pub crossings: HashMap<usize, Crossing>,
    /// The crossing tiles, in program order.
    pub crossing_tiles: Vec<(Crossing, TileType<'c>)>,
}

impl<'c> Split<'c> {
    pub fn op_on(&self, op: OperationRef, core: Core) -> bool {
        self.sides.get(&op_key(op)).is_some_and(|s| s.has(core))
    }

    /// Whether a loop-carried tile (block argument or result) lives on `core`.
    pub fn carried_on(&self, value: V, core: Core) -> bool {
        self.carried.get(&key(value)).is_none_or(|s| s.has(core))
    }
}

/// Whether `function` multiplies matrices, and whether it does vector work
/// (both: it is split between the cores of a cluster).
pub fn work_kinds(function: OperationRef) -> (bool, bool) {
    let (mut matmul, mut vector) = (false, false);
    function.walk(WalkOrder::PreOrder, |op| {
        match TileOp::of(op) {
            Some(TileOp::Matmul) => matmul = true,
            Some(kind) if !MOVABLE.contains(&kind) && kind != TileOp::Store => vector = true,
            _ => {}
        }
        WalkResult::Advance
    });
    (matmul, vector)
}

/// Ops that run wherever their users (or, for stores, their values) are.
pub(super) const MOVABLE: &[TileOp] = &[TileOp::Load, TileOp::Pad, TileOp::Transpose, TileOp::Constant, TileOp::SetValid, TileOp::Relayout];

/// Splits `function` (a mixed tile kernel, after `prepare`) between the cores.
pub fn split<'c>(function: OperationRef<'c, '_>) -> Result<Split<'c>, Failure<'c>> {
    let mut ops: Vec<OperationRef<'c, 'c>> = Vec::new();
    function.walk(WalkOrder::PreOrder, |op| {
        if TileOp::of(op).is_some() {
            ops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    let mut analysis = Analysis { consumers: HashMap::new(), visiting: Vec::new() };
    let mut sides = HashMap::new();
    // Consumers first (reverse order), so a movable op sees its users' sides.
    for &op in ops.iter().rev() {
        let side = match TileOp::of(op) {
            Some(TileOp::Matmul) => Sides::CUBE,
            Some(TileOp::Store) => Sides::default(), // decided below, from the value
            Some(kind) if MOVABLE.contains(&kind) => {
                // verifier: the movable tile ops (load, pad, transpose, constant, set_valid, relayout) have one result (ODS)
                let wanted = analysis.value_sides(detach(op.result(0).unwrap().into()), &sides);
                if wanted == Sides::default() { Sides::VECTOR } else { wanted }
            }
            _ => Sides::VECTOR,
        };
        sides.insert(op_key(op), side);
    }
    let mut split = Split { sides, carried: HashMap::new(), crossings: HashMap::new(), crossing_tiles: Vec::new() };
    // A movable op over a tile only vector work makes (a gathered tile's
    // transpose, a pad of a computed tile) runs on the vector core, so what
    // reaches the cube is the matmul operand itself: the cube transposes and
    // pads only what it loads from GM. Program order, so chains follow.
    for &op in &ops {
        let Some(kind) = TileOp::of(op) else { continue };
        if !MOVABLE.contains(&kind) || matches!(kind, TileOp::Load | TileOp::Constant) || !split.sides[&op_key(op)].cube {
            continue;
        }
        let made = op
            .operands()
            .map(detach)
            .filter(|v| TileType::try_from(v.r#type()).is_ok())
            .fold(Sides::default(), |sides, v| sides.union(split.producer_sides(v, &mut Vec::new())));
        if made == Sides::VECTOR {
            split.sides.insert(op_key(op), Sides::VECTOR);
        }
    }
    for &op in &ops {
        if TileOp::of(op) == Some(TileOp::Store) {
            // Made on one side: stored there; made on both (a loaded tile): stored once, by the vector core.
            // verifier: tile.store has its value operand first (ODS)
            let side = split.producer_sides(detach(op.operand(0).unwrap()), &mut Vec::new());
            split.sides.insert(op_key(op), if side == Sides::CUBE { Sides::CUBE } else { Sides::VECTOR });
        }
    }
    split.carried_sides(function)?;
    split.crossings(function, &ops)?;
    Ok(split)
}

/// The split of a cluster program written one kernel per core (the
/// functions marked `pto.cluster`, what a CSP program's processes become):
/// every tile op computes on its own function's core, and tiles cross only
/// where the program says, at `pto.cluster_send` / `pto.cluster_recv`
/// (converted by `Kernel::transfer`, so no value crosses implicitly).
pub fn explicit<'c>(functions: &[(OperationRef<'c, '_>, Core)]) -> Result<Split<'c>, Failure<'c>> {
    let mut split = Split { sides: HashMap::new(), carried: HashMap::new(), crossings: HashMap::new(), crossing_tiles: Vec::new() };
    for &(function, core) in functions {
        let side = match core {
            Core::Aic => Sides::CUBE,
            Core::Aiv => Sides::VECTOR,
        };
        let mut failure = None;
        function.walk(WalkOrder::PreOrder, |op| {
            let op: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(op.to_raw()) };
            if TileOp::of(op).is_some() {
                split.sides.insert(op_key(op), side);
            }
            if let Some(kind) = crate::ops::PtoOp::of(op).filter(|k| k.is_cluster_transfer()) {
                // verifier: a cluster_send has its value, a cluster_recv its result, and a dir
                let value = if kind == crate::ops::PtoOp::ClusterSend { op.operand(0).map(detach) } else { op.result(0).map(|r| detach(r.into())) };
                match (Crossing::of_transfer(op), value.ok().and_then(|v| TileType::try_from(v.r#type()).ok())) {
                    (Some(crossing), Some(tile)) => split.crossing_tiles.push((crossing, tile)),
                    _ => failure = Some((op.location(), "a cluster hand-over of something other than a tile".to_string())),
                }
            }
            WalkResult::Advance
        });
        if let Some(failure) = failure {
            return Err(failure);
        }
    }
    Ok(split)
}

/// Rewrites what the cube cannot take as written, before the kernel's cores are chosen, so that
/// the cluster split places it:
/// - a matmul accumulating onto a tile that is not its own L0C accumulator (`y + a @ x` with `y`
///   loaded) becomes a matmul and a vector add (`split_vector_accumulators`);
/// - a matmul operand made by another matmul (`(q @ k) @ v`, maybe transposed or padded on the
///   way): A2/A3 cannot move L0C to L0A/L0B, so the product crosses to the vector core and back,
///   through an identity `tile.max p, p` there (exact for every value, NaN and -0 included).
pub fn prepare<'c>(context: &'c Context, function: OperationRef<'c, '_>) {
    split_vector_accumulators(context, function);
    for matmul in htp_ir::query::ops_named_where(function, TileOp::Matmul.name(), |_| true) {
        for operand in 0..2 {
            // The op whose operand 0 is the product (the matmul itself, or the first movable op on the way).
            let (mut consumer, mut index) = (matmul, operand);
            // verifier: tile.matmul has lhs and rhs (ODS)
            let mut value = detach(matmul.operand(operand).unwrap());
            while let Some(op) = defining_op(value).filter(|op| matches!(TileOp::of(*op), Some(TileOp::Pad | TileOp::Transpose | TileOp::SetValid | TileOp::Relayout))) {
                // verifier: pad, transpose, set_valid and relayout take their tile first (ODS)
                (consumer, index, value) = (op, 0, detach(op.operand(0).unwrap()));
            }
            let Some(product) = defining_op(value).filter(|op| TileOp::of(*op) == Some(TileOp::Matmul)) else { continue };
            // verifier: a tile.matmul is not a terminator: an op follows it in its block
            let after = product.next_in_block().unwrap();
            // verifier: an op in a function body is in a block
            let emitter = Emitter { context, block: product.block().unwrap(), anchor: after, location: consumer.location() };
            let copy = emitter.value(TileOp::Max.name(), &[value, value], value.r#type());
            unsafe { mlir_sys::mlirOperationSetOperand(consumer.to_raw(), index as isize, copy.to_raw()) };
        }
    }
}

/// `tile.matmul a, b, acc` with `acc` made by vector work becomes
/// `tile.add acc, (tile.matmul a, b)`.
fn split_vector_accumulators<'c>(context: &'c Context, function: OperationRef<'c, '_>) {
    for matmul in htp_ir::query::ops_named_where(function, TileOp::Matmul.name(), |op| op.operand_count() == 3) {
        // verifier: tile.matmul lhs, rhs, acc (operand_count == 3), one result (ODS), in a block
        let acc = detach(matmul.operand(2).unwrap());
        if cube_accumulator(acc, matmul) {
            continue;
        }
        // verifier: tile.matmul lhs, rhs, acc (operand_count == 3), one result (ODS), in a block
        let before = Emitter { context, block: matmul.block().unwrap(), anchor: matmul, location: matmul.location() };
        // verifier: tile.matmul lhs, rhs, acc (operand_count == 3), one result (ODS), in a block
        let result = matmul.result(0).unwrap();
        let ty = result.r#type();
        // verifier: tile.matmul lhs, rhs, acc (operand_count == 3), one result (ODS), in a block
        let product = before.value(TileOp::Matmul.name(), &[detach(matmul.operand(0).unwrap()), detach(matmul.operand(1).unwrap())], ty);
        let sum = before.value(TileOp::Add.name(), &[acc, product], ty);
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), sum.to_raw());
            mlir_sys::mlirOperationDestroy(matmul.to_raw());
        }
    }
}

/// An accumulator the cube can keep in L0C: zeros, or a loop-carried value
/// that starts as zeros and is this matmul's own previous result.
fn cube_accumulator(acc: V, matmul: OperationRef) -> bool {
    let zeros = |v: V| defining_op(v).is_some_and(|op| TileOp::of(op) == Some(TileOp::Constant));
    if zeros(acc) {
        return true;
    }
    let Some((loop_op, index)) = iter_arg_of(acc) else { return false };
    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
    let body = loop_op.region(0).unwrap().first_block().unwrap();
    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
    let yielded = detach(body.terminator().unwrap().operand(index).unwrap());
    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
    zeros(detach(loop_op.operand(3 + index).unwrap()))
        && defining_op(yielded).is_some_and(|op| op_key(op) == op_key(matmul))
}

/// For a block argument of an `scf.for` body after the induction variable:
/// the loop and the iter_arg's index.
fn iter_arg_of<'c>(value: V<'c>) -> Option<(OperationRef<'c, 'c>, usize)> {
    if !unsafe { mlir_sys::mlirValueIsABlockArgument(value.to_raw()) } {
        return None;
    }
    let block = unsafe { BlockRef::from_raw(mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())) };
    let owner = block.parent_operation()?;
    let number = unsafe { mlir_sys::mlirBlockArgumentGetArgNumber(value.to_raw()) } as usize;
    (owner.name().as_string_ref().as_str() == Ok("scf.for") && number > 0)
        .then(|| (unsafe { OperationRef::from_raw(owner.to_raw()) }, number - 1))
}

/// For a result of an `scf.for`/`scf.if`: the op and the result index.
fn result_of<'c>(value: V<'c>) -> Option<(OperationRef<'c, 'c>, usize)> {
    let op = defining_op(value)?;
    let index = op.results().position(|result| key(result.into()) == key(value))?;
    Some((op, index))
}

struct Analysis {
    /// Tile value -> the sides its users run on.
    consumers: HashMap<usize, Sides>,
    /// Values being computed (loop-carried cycles stop here).
    visiting: Vec<usize>,
}

impl Analysis {
    /// The sides that need `value`.
    fn value_sides(&mut self, value: V, ops: &HashMap<usize, Sides>) -> Sides {
        if let Some(known) = self.consumers.get(&key(value)) {
            return *known;
        }
        if self.visiting.contains(&key(value)) {
            return Sides::default();
        }
        self.visiting.push(key(value));
        let mut sides = Sides::default();
        for user in uses(value) {
            let name = user.name().as_string_ref().as_str().unwrap_or("").to_string();
            sides = sides.union(match name.as_str() {
                _ if TileOp::of(user) == Some(TileOp::Store) => Sides::default(),
                "scf.yield" => {
                    // verifier: scf.yield has a parent op (HasParent)
                    let parent = unsafe { OperationRef::from_raw(user.parent_operation().unwrap().to_raw()) };
                    let index = user.operands().position(|operand| key(operand) == key(value)).unwrap_or(0);
                    // verifier: scf.yield has one operand per result of its parent
                    let mut s = self.value_sides(detach(parent.result(index).unwrap().into()), ops);
                    if parent.name().as_string_ref().as_str() == Ok("scf.for") {
                        // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                        let body = parent.region(0).unwrap().first_block().unwrap();
                        // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                        s = s.union(self.value_sides(detach(body.argument(index + 1).unwrap().into()), ops));
                    }
                    s
                }
                "scf.for" => {
                    let index = user.operands().skip(3).position(|operand| key(operand) == key(value)).unwrap_or(0);
                    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                    let body = user.region(0).unwrap().first_block().unwrap();
                    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                    self.value_sides(detach(body.argument(index + 1).unwrap().into()), ops)
                        // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                        .union(self.value_sides(detach(user.result(index).unwrap().into()), ops))
                }
                _ => ops.get(&op_key(user)).copied().unwrap_or(Sides::VECTOR),
            });
        }
        self.visiting.pop();
        // Inside a loop-carried cycle a value's answer may miss what the
        // cut-off part of the cycle adds: keep only complete (outermost) ones.
        if self.visiting.is_empty() {
            self.consumers.insert(key(value), sides);
        }
        sides
    }
}

impl<'c> Split<'c> {
    /// The sides that make `value`: its op's, or for a loop-carried value
    /// those of its initial and yielded values.
    fn producer_sides(&self, value: V, visiting: &mut Vec<usize>) -> Sides {
        if visiting.contains(&key(value)) {
            return Sides::default();
        }
        visiting.push(key(value));
        let sides = if let Some((loop_op, index)) = iter_arg_of(value) {
            // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
            let body = loop_op.region(0).unwrap().first_block().unwrap();
            // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
            let init = detach(loop_op.operand(3 + index).unwrap());
            // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
            let yielded = detach(body.terminator().unwrap().operand(index).unwrap());
            self.producer_sides(init, visiting).union(self.producer_sides(yielded, visiting))
        } else if let Some(op) = defining_op(value) {
            match op.name().as_string_ref().as_str().unwrap_or("") {
                "scf.for" | "scf.if" => {
                    let mut s = Sides::default();
                    if let Some((op, index)) = result_of(value) {
                        for region in op.regions() {
                            if let Some(block) = region.first_block() {
                                // verifier: an scf.for/scf.if block ends in scf.yield with one operand per result.
                                s = s.union(self.producer_sides(detach(block.terminator().unwrap().operand(index).unwrap()), visiting));
                            }
                        }
                    }
                    s
                }
                _ => self.sides.get(&op_key(op)).copied().unwrap_or_default(),
            }
        } else {
            Sides::default()
        };
        visiting.pop();
        sides
    }

    /// Each loop-carried tile lives on one side.
    fn carried_sides(&mut self, function: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
        let mut loops: Vec<OperationRef<'c, 'c>> = Vec::new();
        function.walk(WalkOrder::PreOrder, |op| {
            if matches!(op.name().as_string_ref().as_str(), Ok("scf.for") | Ok("scf.if")) {
                loops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
            }
            WalkResult::Advance
        });
        for op in loops {
            for index in 0..op.result_count() {
                // verifier: index < result_count
                let result = detach(op.result(index).unwrap().into());
                if TileType::try_from(result.r#type()).is_err() {
                    continue;
                }
                let side = self.producer_sides(result, &mut Vec::new());
                if side.cube && side.vector {
                    return Err((
                        op.location(),
                        "a loop-carried tile that is computed partly on the cube core and partly on the vector core".into(),
                    ));
                }
                self.carried.insert(key(result), side);
                if op.name().as_string_ref().as_str() == Ok("scf.for") {
                    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                    let body = op.region(0).unwrap().first_block().unwrap();
                    // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
                    self.carried.insert(key(detach(body.argument(index + 1).unwrap().into())), side);
                }
            }
        }
        Ok(())
    }

    /// Tile values used on a side that does not make them.
    fn crossings(&mut self, function: OperationRef<'c, '_>, ops: &[OperationRef<'c, 'c>]) -> Result<(), Failure<'c>> {
        let positions = preorder_positions(function);
        let mut found: Vec<(usize, V<'c>, Crossing)> = Vec::new();
        for &op in ops {
            let side = self.sides[&op_key(op)];
            for operand in op.operands() {
                let value = detach(operand);
                if TileType::try_from(value.r#type()).is_err() {
                    continue;
                }
                let made = self.producer_sides(value, &mut Vec::new());
                let crossing = if side.vector && !made.vector {
                    Crossing::CubeToVector
                } else if side.cube && !made.cube {
                    Crossing::VectorToCube
                } else {
                    continue;
                };
                // A tile op's result crosses after that op; a loop's result
                // (an accumulator carried on the cube, used by vector work
                // after the loop) after the loop.
                let Some(producer) = defining_op(value).filter(|p| {
                    TileOp::of(*p).is_some() || p.name().as_string_ref().as_str() == Ok("scf.for")
                }) else {
                    return Err((op.location(), "this tile is carried by a loop on one core but used on the other inside the loop".into()));
                };
                if valid_sources(value).is_none() {
                    return Err((
                        producer.location(),
                        format!(
                            "{} goes between the cube and the vector core, and HTP cannot tell where its run-time valid size comes from",
                            value.r#type()
                        ),
                    ));
                }
                if !self.crossings.contains_key(&key(value)) {
                    self.crossings.insert(key(value), crossing);
                    found.push((positions[&op_key(producer)], value, crossing));
                }
            }
        }
        found.sort_by_key(|(position, _, _)| *position);
        self.crossing_tiles = found
            .iter()
            .filter_map(|(_, value, crossing)| Some((*crossing, TileType::try_from(value.r#type()).ok()?)))
            .collect();
        Ok(())
    }
}

/// Where a tile's valid extents come from, in the tile kernel's own terms:
/// static sizes, or the index values (loads' and `set_valid`'s operands)
/// that both kernels of a cluster compute from the same scalar code. The
/// side that pops a tile rebuilds its valid region from these.
#[derive(Clone, Copy)]
pub enum ValidSource<'c> {
    Static(i64),
    Value(V<'c>),
}

pub fn valid_sources<'c>(value: V<'c>) -> Option<[ValidSource<'c>; 2]> {
    let tile = TileType::try_from(value.r#type()).ok()?;
    let dynamic = |dim: u32| matches!(tile.valid_size(dim), htp_dialects::tile::ValidSize::Dynamic);
    let statics = |dim: u32| match tile.valid_size(dim) {
        htp_dialects::tile::ValidSize::Static(n) => Some(ValidSource::Static(n)),
        htp_dialects::tile::ValidSize::Dynamic => None,
    };
    if !dynamic(0) && !dynamic(1) {
        return Some([statics(0)?, statics(1)?]);
    }
    if let Some((loop_op, index)) = iter_arg_of(value) {
        // verifier: scf.for (lb, ub, step, inits; one single-block region: iv + iter_args, yield per iter_arg)
        return valid_sources(detach(loop_op.operand(3 + index).unwrap()));
    }
    let op = defining_op(value)?;
    let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
    if name == "scf.for" {
        // A loop keeps the valid region it starts with.
        let (_, index) = result_of(value)?;
        return valid_sources(htp_ir::query::operand_at(op, 3 + index)?);
    }
    // The `?` sizes, in order, from the op's trailing valid-size operands.
    let from_operands = |first: usize| -> Option<[ValidSource<'c>; 2]> {
        let mut next = first;
        let mut dim = |d: u32| {
            statics(d).or_else(|| {
                let v = htp_ir::query::operand_at(op, next)?;
                next += 1;
                Some(ValidSource::Value(v))
            })
        };
        Some([dim(0)?, dim(1)?])
    };
    match TileOp::of(op) {
        Some(TileOp::Load) => {
            let rank = htp_ir::builder::shape_of(htp_ir::query::operand_at(op, 0)?.r#type()).len();
            from_operands(1 + rank)
        }
        Some(TileOp::SetValid) => from_operands(1),
        Some(TileOp::Transpose) => {
            let [rows, cols] = valid_sources(htp_ir::query::operand_at(op, 0)?)?;
            Some([statics(0).unwrap_or(cols), statics(1).unwrap_or(rows)])
        }
        // One row per index: the valid rows of the index tile.
        Some(TileOp::Gather) => {
            let rows = valid_sources(htp_ir::query::operand_at(op, 1)?)?[0];
            Some([statics(0).unwrap_or(rows), statics(1)?])
        }
        // The input's rows; the columns (one, or K) are static.
        Some(TileOp::RowArgReduce | TileOp::Sort) => {
            let rows = valid_sources(htp_ir::query::operand_at(op, 0)?)?[0];
            Some([statics(0).unwrap_or(rows), statics(1)?])
        }
        // The index tile's region.
        Some(TileOp::Take) => valid_sources(htp_ir::query::operand_at(op, 1)?),
        // The input's region.
        Some(TileOp::Put) => valid_sources(htp_ir::query::operand_at(op, 0)?),
        Some(TileOp::Matmul) => {
            let rows = valid_sources(htp_ir::query::operand_at(op, 0)?)?[0];
            let cols = valid_sources(htp_ir::query::operand_at(op, 1)?)?[1];
            Some([statics(0).unwrap_or(rows), statics(1).unwrap_or(cols)])
        }
        _ => {
            // Elementwise and broadcasting ops keep the valid region of a
            // tile operand with the same `?` sizes.
            let same = op.operands().map(detach).find(|v| {
                TileType::try_from(v.r#type()).is_ok_and(|t| {
                    (0..2).all(|d| matches!(t.valid_size(d), htp_dialects::tile::ValidSize::Dynamic) == dynamic(d))
                })
            })?;
            let inner = valid_sources(same)?;
            Some([statics(0).unwrap_or(inner[0]), statics(1).unwrap_or(inner[1])])
        }
    }
}
