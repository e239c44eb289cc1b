//! `cpu-split-large-bodies`: an elementwise `linalg.generic` whose body is
//! larger than a budget becomes several generics over the same iteration
//! space, in sequence, each computing a consecutive slice of the body; a
//! value one slice makes and a later one reads passes through a fresh
//! tensor shaped like the output (one tile's round trip through the cache).
//!
//! Why: fusion (HTP's own in `convert-tile-to-linalg`, then upstream's)
//! makes a chain of N elementwise statements one loop whose body holds all
//! N, and LLVM's loop vectoriser and code generation are superlinear in a
//! loop body's size — the 1000-statement chain compiled 13.5x slower than
//! the 100-statement one (docs/performance.md). Bounded bodies keep compile
//! time linear; each slice is still one vectorised loop.
//!
//! Splits generics whose iterators are all parallel, whose outputs all use
//! the identity map and whose body ops have no regions. The weight of a
//! body is its op count, with `math.exp` counted as what
//! `cpu-polynomial-exp` expands it to.

use std::collections::HashMap;

use htp_ir::builder::{affine_map, detach, element_of, shape_of, tensor_type, Builder, Emitter, V, DYNAMIC};
use htp_ir::query::key;
use htp_pass::Failure;
use melior::{
    ir::{
        attribute::{ArrayAttribute, DenseI32ArrayAttribute},
        block::BlockLike,
        operation::OperationLike,
        Attribute, Block, BlockRef, Location, OperationRef, Region, RegionLike, Type, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"cpu-split-large-bodies", "func.func"> {
        summary: "Split elementwise linalg.generic bodies larger than a budget into several generics in sequence (linear LLVM compile time)",
        dialects: [linalg, tensor],
        options: Options {
            #[option("max-body-ops", default = "1024", "the largest body weight (ops, math.exp counted as its polynomial) left in one generic")]
            max_body_ops: std::num::NonZeroUsize,
        },
        run: run,
    }
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>> {
    let budget = options.max_body_ops.get();
    for generic in htp_ir::query::ops_named(function, "linalg.generic") {
        if let Some(plan) = Plan::of(context, generic, budget) {
            htp_pass::processing(generic.location());
            plan.apply(context, generic);
        }
    }
    Ok(())
}

/// The weight of one body op: its op count once lowered for the CPU.
fn weight(op: OperationRef) -> usize {
    match op.name().as_string_ref().as_str() {
        Ok("math.exp") => crate::polynomial_exp::EXPANDED_OPS,
        Ok("arith.constant") => 0,
        _ => 1,
    }
}

/// A splittable generic's body ops cut into slices of at most the budget,
/// with what `of` read of the generic.
struct Plan<'c> {
    slices: Vec<Vec<OperationRef<'c, 'c>>>,
    /// The number of inputs (the rest of the operands are inits).
    inputs: usize,
    /// One indexing map per operand.
    maps: Vec<Attribute<'c>>,
}

impl<'c> Plan<'c> {
    fn of(context: &'c Context, generic: OperationRef<'c, 'c>, budget: usize) -> Option<Self> {
        let inputs = input_count(generic)?;
        let maps = maps_of(generic)?;
        let iterators = generic.attribute("iterator_types").ok()?.to_string();
        if iterators.contains("reduction") || generic.result_count() == 0 {
            return None;
        }
        let rank = shape_of(generic.result(0).ok()?.r#type()).len();
        let identity = affine_map(context, rank, &identity_results(rank));
        if maps[inputs..].iter().any(|map| *map != identity) {
            return None;
        }
        let block = generic.region(0).ok()?.first_block()?;
        let mut ops = Vec::new();
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.next_in_block().is_none() {
                break; // linalg.yield
            }
            if op.region_count() > 0 {
                return None;
            }
            if op.name().as_string_ref().as_str() == Ok("arith.constant") {
                continue; // moved out of the body by `apply`
            }
            ops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        if ops.iter().map(|op| weight(*op)).sum::<usize>() <= budget {
            return None;
        }
        let mut slices: Vec<Vec<OperationRef<'c, 'c>>> = vec![Vec::new()];
        let mut filled = 0;
        for op in ops {
            let w = weight(op);
            if filled + w > budget && !slices.last().is_some_and(Vec::is_empty) {
                slices.push(Vec::new());
                filled = 0;
            }
            filled += w;
            slices.last_mut().expect("one slice at least").push(op);
        }
        (slices.len() > 1).then_some(Plan { slices, inputs, maps })
    }

    /// Builds one generic per slice before `generic` (the last one makes
    /// its results) and erases it.
    fn apply(self, context: &'c Context, generic: OperationRef<'c, 'c>) {
        let block = generic.block().expect("a generic in a block");
        let at = Emitter { context, block, anchor: generic, location: generic.location() };
        let (inputs, maps) = (self.inputs, &self.maps);
        let body = generic.region(0).expect("a body").first_block().expect("a body block");
        let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
        // Constants go above the generic (a body may read values from
        // above), so every slice reads them without a tensor between.
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.name().as_string_ref().as_str() == Ok("arith.constant") {
                unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), generic.to_raw()) };
            }
        }
        // The last slice reading each value (the yield counts as after all).
        let mut last_reader: HashMap<usize, usize> = HashMap::new();
        let terminator = body.terminator().expect("linalg.yield");
        for (index, slice) in self.slices.iter().enumerate() {
            for op in slice {
                for i in 0..op.operand_count() {
                    last_reader.insert(key(op.operand(i).expect("counted")), index);
                }
            }
        }
        for i in 0..terminator.operand_count() {
            last_reader.insert(key(terminator.operand(i).expect("counted")), self.slices.len());
        }
        let operands: Vec<V<'c>> = (0..generic.operand_count()).map(|i| detach(generic.operand(i).expect("counted"))).collect();
        let init = operands[inputs];
        let rank = shape_of(init.r#type()).len();
        let identity = affine_map(context, rank, &identity_results(rank));
        // The run-time sizes: the init's own when it is a `tensor.empty`.
        let sizes: Vec<V<'c>> = match htp_ir::query::defining_op(init) {
            Some(empty) if empty.name().as_string_ref().as_str() == Ok("tensor.empty") => {
                (0..empty.operand_count()).map(|i| detach(empty.operand(i).expect("counted"))).collect()
            }
            _ => shape_of(init.r#type())
                .iter()
                .enumerate()
                .filter(|(_, size)| **size == DYNAMIC)
                .map(|(dim, _)| at.dim(init, dim as i64))
                .collect(),
        };

        // Where each value the body reads comes from, as a generic operand
        // and its map: block arguments from the generic's operands (an
        // output's element read in an earlier slice comes from its init),
        // values of earlier slices from the tensors those slices made.
        let mut source: HashMap<usize, (V<'c>, Attribute<'c>)> = HashMap::new();
        for (index, operand) in operands.iter().enumerate() {
            let argument = detach(body.argument(index).expect("one argument per operand").into());
            source.insert(key(argument), (*operand, maps[index]));
        }
        let last = self.slices.len() - 1;
        for (index, slice) in self.slices.iter().enumerate() {
            let defined: std::collections::HashSet<usize> =
                slice.iter().flat_map(|op| (0..op.result_count()).map(|i| key(op.result(i).expect("counted").into()))).collect();
            let is_last = index == last;
            // Operands this slice reads from outside itself, in first-use order.
            let mut reads: Vec<V<'c>> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let mut readers: Vec<OperationRef<'c, 'c>> = slice.clone();
            if is_last {
                readers.push(unsafe { OperationRef::from_raw(terminator.to_raw()) });
            }
            for op in &readers {
                for i in 0..op.operand_count() {
                    let value = detach(op.operand(i).expect("counted"));
                    if source.contains_key(&key(value)) && !defined.contains(&key(value)) && seen.insert(key(value)) {
                        reads.push(value);
                    }
                }
            }
            if is_last {
                // Its outputs are the generic's own inits: their elements are
                // block arguments, not inputs.
                let output_arguments: Vec<usize> =
                    (inputs..operands.len()).map(|i| key(body.argument(i).expect("counted").into())).collect();
                reads.retain(|value| !output_arguments.contains(&key(*value)));
            }
            // What later slices (or the yield) read of this one.
            let made: Vec<V<'c>> = if is_last {
                Vec::new()
            } else {
                slice
                    .iter()
                    .flat_map(|op| (0..op.result_count()).map(|i| detach(op.result(i).expect("counted").into())))
                    .filter(|value| last_reader.get(&key(*value)).is_some_and(|reader| *reader > index))
                    .collect()
            };
            let outputs: Vec<(V<'c>, Type<'c>)> = if is_last {
                operands[inputs..].iter().map(|init| (*init, element_of(init.r#type()))).collect()
            } else {
                made.iter()
                    .map(|value| {
                        let ty = tensor_type(&shape_of(init.r#type()), value.r#type());
                        (at.value("tensor.empty", &sizes, ty), value.r#type())
                    })
                    .collect()
            };

            let mut arguments: Vec<(Type<'c>, Location<'c>)> = reads.iter().map(|v| (v.r#type(), generic.location())).collect();
            arguments.extend(outputs.iter().map(|(_, element)| (*element, generic.location())));
            let new_body = Block::new(&arguments);
            let mut renamed: HashMap<usize, V<'c>> = HashMap::new();
            for (i, value) in reads.iter().enumerate() {
                renamed.insert(key(*value), detach(new_body.argument(i).expect("counted").into()));
            }
            if is_last {
                for i in 0..outputs.len() {
                    let old = body.argument(inputs + i).expect("counted");
                    renamed.insert(key(old.into()), detach(new_body.argument(reads.len() + i).expect("counted").into()));
                }
            }
            for op in slice {
                unsafe { mlir_sys::mlirOperationRemoveFromParent(op.to_raw()) };
                unsafe { mlir_sys::mlirBlockAppendOwnedOperation(new_body.to_raw(), op.to_raw()) };
                rename_operands(*op, &renamed);
            }
            let yielded: Vec<V<'c>> = if is_last {
                (0..terminator.operand_count())
                    .map(|i| {
                        let value = detach(terminator.operand(i).expect("counted"));
                        renamed.get(&key(value)).copied().unwrap_or(value)
                    })
                    .collect()
            } else {
                made.clone()
            };
            let builder = htp_ir::builder::BodyBuilder::for_block(context, &new_body, generic.location());
            builder.op("linalg.yield", &yielded, &[], &[], vec![]);
            let region = Region::new();
            region.append_block(new_body);

            let mut new_operands: Vec<V<'c>> = reads.iter().map(|value| source[&key(*value)].0).collect();
            let mut new_maps: Vec<Attribute<'c>> = reads.iter().map(|value| source[&key(*value)].1).collect();
            new_operands.extend(outputs.iter().map(|(tensor, _)| *tensor));
            new_maps.extend(outputs.iter().map(|_| identity));
            let result_types: Vec<Type<'c>> = outputs.iter().map(|(tensor, _)| tensor.r#type()).collect();
            let segments = DenseI32ArrayAttribute::new(context, &[reads.len() as i32, outputs.len() as i32]).into();
            let iterators = generic.attribute("iterator_types").expect("a generic has iterator types");
            let split = at.op(
                "linalg.generic",
                &new_operands,
                &result_types,
                &[
                    ("indexing_maps", ArrayAttribute::new(context, &new_maps).into()),
                    ("iterator_types", iterators),
                    ("operandSegmentSizes", segments),
                ],
                vec![region],
            );
            if is_last {
                for i in 0..generic.result_count() {
                    let old = generic.result(i).expect("counted");
                    let new = split.result(i).expect("one result per output");
                    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
                }
            } else {
                for (i, value) in made.iter().enumerate() {
                    let tensor = detach(split.result(i).expect("one result per output").into());
                    source.insert(key(*value), (tensor, identity));
                }
            }
        }
        unsafe { mlir_sys::mlirOperationDestroy(generic.to_raw()) };
    }
}

/// Points `op`'s operands at their renamed values.
fn rename_operands(op: OperationRef, renamed: &HashMap<usize, V>) {
    for i in 0..op.operand_count() {
        let value = op.operand(i).expect("counted");
        if let Some(new) = renamed.get(&key(value)) {
            unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), i as isize, new.to_raw()) };
        }
    }
}

fn input_count(generic: OperationRef) -> Option<usize> {
    let segments = DenseI32ArrayAttribute::try_from(generic.attribute("operandSegmentSizes").ok()?).ok()?;
    Some(segments.element(0).ok()? as usize)
}

fn maps_of<'c>(generic: OperationRef<'c, '_>) -> Option<Vec<Attribute<'c>>> {
    let maps = ArrayAttribute::try_from(generic.attribute("indexing_maps").ok()?).ok()?;
    (0..maps.len()).map(|i| maps.element(i).ok()).collect()
}

/// `d0, d1, ...` for an identity map of `rank` dims.
fn identity_results(rank: usize) -> String {
    (0..rank).map(|d| format!("d{d}")).collect::<Vec<_>>().join(", ")
}
