//! Builds one PTO kernel function from a tile-level kernel: the control flow
//! and scalar code are copied, each tile value becomes an on-chip buffer
//! (`pto.alloc_tile`), and each tile op becomes PTO instructions writing
//! into the buffer of its result (destination-passing style).
//!
//! Loop-carried tiles become one buffer per carried value: the loop keeps no
//! tile iter_args; the body writes the next value into that buffer, in place
//! when the op making it is the last reader of the previous value, otherwise
//! with a `pto.tmov` at the end of the body.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use melior::{
    ir::{
        attribute::StringAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationRef},
        Block, BlockRef, Location, Operation, Region, RegionLike, Type, ValueLike,
    },
    Context,
};


use super::buffer::{Buffer, Extent, Shape};
use super::split::Crossing;
use super::cores::Core;
use super::split::Split;
use super::state::{positive_step, unit_row_view, At, Failure, Kernel, PtoOps};
use super::tasks::Plan;
use super::{cube, vector};
use crate::ods::pto;
use crate::ops::{PtoOp, TileOp, CORE_ATTRIBUTE, FIFO_ATTRIBUTE};
use htp_ir::builder::{detach, function as function_builder, parse_type, Builder, V};
use htp_ir::query::{ancestor_in, defining_op, has_single_use, is_before, key, uses};

impl<'c> Kernel<'c> {
    /// Builds `func.func @<plan.name>_<core>` from `function` (a tile kernel).
    pub fn build(context: &'c Context, function: OperationRef<'c, '_>, plan: &Plan<'c>, core: Core) -> Result<Operation<'c>, Failure<'c>> {
        let location = function.location();
        let old_entry = function.region(0).map_err(|e| (location, e.to_string()))?.first_block().ok_or((location, "kernel without a body".into()))?;
        let mut kernel = Kernel {
            context,
            core,
            values: HashMap::new(),
            buffers: HashMap::new(),
            in_place: HashMap::new(),
            zeros: HashMap::new(),
            zero_on_entry: HashMap::new(),
            zero_pending: Vec::new(),
            deferred: HashMap::new(),
            outer_loop: plan.outer_loop,
            split: plan.split.clone(),
            slot: None,
            popped_operands: HashMap::new(),
            ragged_if_results: Vec::new(),
        };

        // Tensors first (a cluster's GM ring after the outputs), then
        // scalars, then the task's [lo, hi) bounds.
        let mut inputs: Vec<(Type, Location)> = plan
            .tensors
            .iter()
            .chain(&plan.scalars)
            .map(|&index| {
                let argument = old_entry.argument(index).map_err(|e| (location, e.to_string()))?;
                Ok((argument.r#type(), htp_ir::query::value_location(argument.into())))
            })
            .collect::<Result<_, Failure<'c>>>()?;
        if let Some(fifo) = plan.fifo {
            let ring = parse_type(context, &format!("memref<{}xf32>", fifo.bytes() / 4));
            inputs.insert(fifo.position, (ring, Location::name(context, "fifo", location)));
        }
        if plan.outer_loop.is_some() {
            inputs.extend([(Type::index(context), location), (Type::index(context), location)]);
        }
        let core_attribute = (CORE_ATTRIBUTE, StringAttribute::new(context, core.keyword()).into());
        let (new_function, block) = function_builder(context, location, &plan.kernel_name(core), &inputs, core_attribute);
        let mut position = 0;
        for &index in plan.tensors.iter().chain(&plan.scalars) {
            if plan.fifo.is_some_and(|f| f.position == position) {
                position += 1;
            }
            let old = old_entry.argument(index).map_err(|e| (location, e.to_string()))?;
            let new = block.argument(position).map_err(|e| (location, e.to_string()))?;
            kernel.values.insert(key(detach(old.into())), detach(new.into()));
            position += 1;
        }
        if let (Some(fifo), Some(split)) = (plan.fifo, plan.split.as_ref()) {
            // Both kernels declare the same pipes (`Fifo::attribute`).
            let attribute = melior::ir::attribute::DenseI64ArrayAttribute::new(context, &fifo.attribute());
            let mut new_ref = unsafe { melior::ir::operation::OperationRefMut::from_raw(new_function.to_raw()) };
            melior::ir::operation::OperationMutLike::set_attribute(&mut new_ref, FIFO_ATTRIBUTE, attribute.into());
            kernel.slot = kernel.consumer_slot(&kernel.at(block, location), split);
        }
        kernel.convert_block(old_entry, block, &[])?;
        Ok(new_function)
    }

    /// The consumer slot of the pipe this core pops from: the largest tile
    /// popped, at the address the pipe is told. Every pop is a view of it
    /// (on A2/A3, TPOP places the tile there itself), and every popped tile
    /// is moved out before the next pop.
    fn consumer_slot(&self, at: &At<'c>, split: &Split<'c>) -> Option<Buffer<'c>> {
        let shapes = split.crossing_tiles.iter().filter(|(c, _)| c.producer() != self.core).map(|(_, tile)| self.popped_shape(*tile));
        shapes.max_by_key(|shape| shape.size_in_bytes()).map(|shape| at.alloc(shape))
    }

    /// Where a tile popped on this core lands: UB (ND) on the vector core,
    /// whole L1 (NZ) fractals on the cube core.
    fn popped_shape(&self, tile: TileType<'c>) -> Shape<'c> {
        let valid = [Extent::Static(tile.rows()), Extent::Static(tile.cols())];
        match self.core {
            // Results arrive in the accumulator's element (`cross`), as wide as the vector tile's rows.
            Core::Aiv => Shape::vec_of(tile, super::buffer::accumulator_element(tile), crossing_result_valid(tile)),
            Core::Aic if crosses_expanded(tile) => Shape::crossing_operand(tile, super::buffer::Place::Mat, super::buffer::Layout::Nz),
            Core::Aic => Shape::cube_for(tile, super::buffer::Place::Mat, super::buffer::Layout::Nz, valid),
        }
    }

    /// After the op making `result` ran on its side: push it (on the
    /// producing core) or pop it (on the other one). A popped tile is moved
    /// out of the slot at once and the slot freed, so pops and frees pair up
    /// in every block and no pop overwrites a tile still to be read: on the
    /// vector core into a tile of its own, on the cube core into the L0A/L0B
    /// tiles of the matmuls that read it (`popped_operands`).
    ///
    /// Both cores must agree on a crossing tile's bytes, and the simulator
    /// reads a popped tile's whole static shape (row stride = its columns)
    /// where the chip reads its valid region (row stride = its valid
    /// columns). So a tile crosses fully valid in its static shape: a result
    /// goes from the cube's accumulator as the whole tile (whatever lies
    /// outside its valid region is never read) and the vector core views
    /// the valid region afterwards; a matmul operand that is not whole cube
    /// fractals, or not fully valid, goes to the cube as whole fractals,
    /// zero outside its valid region (TFILLPAD or TFILLPAD_EXPAND first).
    fn cross(&mut self, at: &At<'c>, result: V<'c>) -> Result<(), String> {
        let Some(crossing) = self.split.as_ref().and_then(|s| s.crossings.get(&key(result)).copied()) else { return Ok(()) };
        if crossing.producer() == self.core {
            self.push(at, result, crossing)
        } else {
            self.pop(at, result, crossing)
        }
    }

    /// A `pto.cluster_send` (push its value) or `pto.cluster_recv` (pop its
    /// result) of a cluster program written one kernel per core.
    fn transfer(&mut self, at: &At<'c>, op: OperationRef<'c, 'c>) -> Result<(), String> {
        let crossing = Crossing::of_transfer(op).ok_or("a cluster hand-over without its direction")?;
        // (The dialect's verifier holds that a hand-over runs on the core its direction allows.)
        if PtoOp::of(op) == Some(PtoOp::ClusterSend) {
            let value = htp_ir::query::operand_at(op, 0).ok_or("a cluster send without its value")?;
            if crossing == Crossing::CubeToVector && self.buffer(value)?.shape.place != super::buffer::Place::Acc {
                return Err("the cube core sends the results of matmuls (from L0C, its accumulator): compute what it sends with @".into());
            }
            self.push(at, value, crossing)
        } else {
            let result = htp_ir::query::result_at(op, 0).ok_or("a cluster receive without its result")?;
            self.pop(at, result, crossing)
        }
    }

    /// Pushes the tile `value` (made on this core) in direction `crossing`.
    fn push(&mut self, at: &At<'c>, value: V<'c>, crossing: Crossing) -> Result<(), String> {
        let dir = super::attrs::cross_core(self.context, crossing.keyword());
        let tile = TileType::try_from(value.r#type()).map_err(|_| "a crossing value that is not a tile")?;
        let buffer = self.buffer(value)?;
        let pushed = match crossing {
            Crossing::VectorToCube if crosses_expanded(tile) => {
                // A one-column (DN) tile becomes column 0 of an ND tile first.
                let buffer = if buffer.shape.is_column() {
                    let staged = at.alloc(super::memory::column_in_rows(buffer.shape));
                    super::relayout::transpose_into(at, staged, buffer);
                    staged
                } else {
                    buffer
                };
                let whole = Shape::crossing_operand(tile, super::buffer::Place::Vec, super::buffer::Layout::Nd);
                let expanded = at.alloc(Shape { pad: super::buffer::Pad::Zero, ..whole });
                at.instruction(pto::TFillPadOperationBuilder::new(at.context, at.location).dst(expanded.value).src(buffer.value).build());
                at.view(expanded, whole)
            }
            Crossing::VectorToCube => buffer,
            Crossing::CubeToVector => {
                let wide = crossing_result_valid(tile);
                let same = matches!((buffer.shape.valid, wide), ([Extent::Static(a), Extent::Static(b)], [Extent::Static(c), Extent::Static(d)]) if a == c && b == d);
                if same { buffer } else { at.view(buffer, buffer.shape.with_valid(wide)) }
            }
        };
        at.instruction(pto::TPushOperationBuilder::new(at.context, at.location).dir(dir).src(pushed.value).build());
        Ok(())
    }

    /// Pops the tile `result` (made on the other core) in direction `crossing`.
    fn pop(&mut self, at: &At<'c>, result: V<'c>, crossing: Crossing) -> Result<(), String> {
        let dir = super::attrs::cross_core(self.context, crossing.keyword());
        let tile = TileType::try_from(result.r#type()).map_err(|_| "a crossing value that is not a tile")?;
        let slot = self.slot.ok_or("a pop without a consumer slot")?;
        let view = at.view(slot, self.popped_shape(tile));
        at.instruction(pto::TPopOperationBuilder::new(at.context, at.location).dir(dir).dst(view.value).build());
        match self.core {
            Core::Aiv => {
                // Out of the slot: moved, or converted from the accumulator's f32.
                let copy = at.alloc(Shape::vec_for(tile, view.shape.valid));
                if copy.shape.element == view.shape.element {
                    at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(copy.value).src(view.value).build());
                } else {
                    let rint = super::attrs::round_mode(at.context, "rint");
                    at.instruction(pto::TCvtOperationBuilder::new(at.context, at.location).dst(copy.value).src(view.value).round(rint).build());
                }
                // The valid region, from this kernel's copy of the scalars it came from.
                let valid = self.traced_valid(result).ok_or("a crossing tile whose valid size HTP cannot trace")?;
                let popped = if valid_is(valid, tile) && copy.shape.cols == tile.cols() { copy } else { at.view(copy, Shape::vec_for(tile, valid)) };
                self.bind(result, popped);
            }
            Core::Aic => {
                let users = uses(result).into_iter().filter(|user| self.runs(*user));
                for place in matmul_operand_places(result, users)? {
                    let l0 = super::cube::move_to_l0(at, view, place);
                    self.popped_operands.insert((key(result), place), l0);
                }
                self.bind(result, view);
            }
        }
        at.instruction(pto::TFreeOperationBuilder::new(at.context, at.location).dir(dir).build());
        Ok(())
    }

    /// Converts `old`'s ops, appending to `new`; `carried` are the buffers
    /// for the block's tile arguments (after the scalar ones). Returns the
    /// new values of the terminator's non-tile operands and the old tile
    /// operands (the caller finishes scf.yield).
    pub(super) fn convert_block(&mut self, old: BlockRef<'c, '_>, new: BlockRef<'c, 'c>, carried: &[Buffer<'c>]) -> Result<Vec<V<'c>>, Failure<'c>> {
        let mut op = old.first_operation();
        while let Some(current) = op {
            let current: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(current.to_raw()) };
            op = current.next_in_block();
            let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
            let location = current.location();
            htp_pass::processing(location);
            let fail = |message: String| (location, message);
            if name == "scf.yield" {
                return self.finish_yield(current, new, carried).map_err(fail);
            }
            if name == "func.return" {
                self.at(new, location).op("func.return", &[], &[], &[], vec![]);
                continue;
            }
            match name.as_str() {
                "scf.for" => {
                    self.convert_for(current, new)?;
                    let at = self.at(new, location);
                    for result in current.results() {
                        self.cross(&at, detach(result.into())).map_err(fail)?;
                    }
                }
                "scf.if" => self.convert_if(current, new)?,
                "scf.while" => self.convert_while(current, new)?,
                _ if PtoOp::of(current).is_some_and(|kind| kind.is_cluster_transfer()) => {
                    let at = self.at(new, location);
                    self.transfer(&at, current).map_err(fail)?;
                }
                _ if TileOp::of(current).is_some() => {
                    let at = self.at(new, location);
                    if let (true, Some(kind)) = (self.runs(current), TileOp::of(current)) {
                        if self.core == Core::Aiv {
                            larger_than_ub(current).map_or(Ok(()), |message| Err(fail(message)))?;
                        }
                        let result = match self.core {
                            Core::Aiv => vector::lower(self, &at, current, kind),
                            Core::Aic => cube::lower(self, &at, current, kind),
                        };
                        result.map_err(fail)?;
                    }
                    // `result_at`: asking melior for a result an op lacks prints the whole module.
                    for index in 0..current.result_count() {
                        if let Some(result) = htp_ir::query::result_at(current, index) {
                            self.cross(&at, result).map_err(fail)?;
                        }
                    }
                }
                // Addressed through its source instead (`gm_tensor`).
                "memref.expand_shape" if htp_ir::query::result_at(current, 0).is_some_and(|view| unit_row_view(view).is_some()) => {}
                _ => self.copy(current, new).map_err(fail)?,
            }
        }
        Ok(vec![])
    }

    /// Copies a region-free scalar op (arith, math, memref.dim, a kernel-local
    /// array's alloca, load and store, a `while` loop's scf.condition, ...).
    fn copy(&mut self, op: OperationRef<'c, 'c>, new: BlockRef<'c, 'c>) -> Result<(), String> {
        if op.region_count() > 0 {
            return Err(format!("'{}' with regions cannot be lowered to PTO", op.name().as_string_ref().as_str().unwrap_or("?")));
        }
        for result in op.results() {
            if TileType::try_from(result.r#type()).is_ok() {
                return Err(format!("'{}' makes a tile, which PTO kernels cannot do", op.name().as_string_ref().as_str().unwrap_or("?")));
            }
        }
        let operands: Vec<V<'c>> = op.operands().map(|v| self.value(detach(v))).collect::<Result<_, _>>()?;
        let clone = unsafe { mlir_sys::mlirOperationClone(op.to_raw()) };
        for (index, operand) in operands.iter().enumerate() {
            unsafe { mlir_sys::mlirOperationSetOperand(clone, index as isize, operand.to_raw()) };
        }
        let placed = new.append_operation(unsafe { Operation::from_raw(clone) });
        for (old, new) in op.results().zip(placed.results()) {
            self.values.insert(key(detach(old.into())), detach(new.into()));
        }
        Ok(())
    }

    fn convert_for(&mut self, op: OperationRef<'c, 'c>, new: BlockRef<'c, 'c>) -> Result<(), Failure<'c>> {
        let location = op.location();
        let fail = |message: String| (location, message);
        let at = self.at(new, location);
        let operand = |i: usize| detach(op.operand(i).unwrap()); // verifier: scf.for has lower, upper, step, then one init per result
        let (lower, upper) = if self.outer_loop == Some(op.to_raw().ptr as usize) {
            let entry = function_entry(new);
            let n = entry.argument_count();
            let bound = |i: usize| entry.argument(i).map(|a| detach(a.into())).map_err(|_| fail("a task without its [lo, hi) arguments".into()));
            (bound(n.wrapping_sub(2))?, bound(n.wrapping_sub(1))?)
        } else {
            (self.value(operand(0)).map_err(fail)?, self.value(operand(1)).map_err(fail)?)
        };
        let step = self.value(operand(2)).map_err(fail)?;
        let (upper, step) = positive_step(&at, lower, upper, step);
        // verifier: scf.for has one region, a single block whose arguments are the induction variable, then the iter_args.
        let old_body = op.region(0).unwrap().first_block().unwrap();
        let iv_old = detach(old_body.argument(0).unwrap().into()); // verifier: scf.for's block starts with the induction variable

        // Split iter_args into scalars (kept) and tiles (carried buffers).
        let mut scalar_inits = Vec::new();
        let mut scalar_positions = Vec::new();
        let mut carried = Vec::new();
        let mut carried_positions = Vec::new();
        for index in 0..op.operand_count() - 3 {
            let init = operand(3 + index);
            // verifier: scf.for has one result per iter_arg.
            if TileType::try_from(init.r#type()).is_ok() && !self.holds(detach(op.result(index).unwrap().into())) {
                continue;
            }
            if TileType::try_from(init.r#type()).is_ok() {
                let buffer = self.carried_buffer(&at, init).map_err(fail)?;
                carried.push(buffer);
                carried_positions.push(index);
            } else {
                scalar_inits.push(self.value(init).map_err(fail)?);
                scalar_positions.push(index);
            }
        }

        let mut body_arguments = vec![(Type::index(self.context), location)];
        body_arguments.extend(scalar_inits.iter().map(|v| (v.r#type(), location)));
        let region = Region::new();
        let body = region.append_block(Block::new(&body_arguments));
        let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
        let new_argument = |i: usize| body.argument(i).map(|a| detach(a.into())).map_err(|e| fail(e.to_string()));
        self.values.insert(key(iv_old), new_argument(0)?);
        for (k, &index) in scalar_positions.iter().enumerate() {
            let old = detach(old_body.argument(index + 1).unwrap().into()); // verifier: scf.for's block has one argument per iter_arg after the induction variable
            self.values.insert(key(old), new_argument(k + 1)?);
        }
        for (k, &index) in carried_positions.iter().enumerate() {
            let old = detach(old_body.argument(index + 1).unwrap().into()); // verifier: scf.for's block has one argument per iter_arg after the induction variable
            self.bind(old, carried[k]);
        }
        // Accumulators that start as zeros: zero on this loop's first trip.
        for buffer in &carried {
            if self.zero_pending.contains(&key(buffer.value)) {
                self.zero_on_entry.insert(key(buffer.value), (new_argument(0)?, lower));
            }
        }
        self.plan_in_place(old_body, &carried_positions, &carried);
        let yielded = self.convert_block(old_body, body, &carried)?;
        self.at(body, location).op("scf.yield", &yielded, &[], &[], vec![]);

        let mut operands = vec![lower, upper, step];
        operands.extend(&scalar_inits);
        let result_types: Vec<Type> = scalar_inits.iter().map(|v| v.r#type()).collect();
        let placed = at.op("scf.for", &operands, &result_types, &[], vec![region]);
        for (k, &index) in scalar_positions.iter().enumerate() {
            let old = detach(op.result(index).unwrap().into()); // verifier: scf.for has one result per iter_arg
            let new = placed.result(k).map_err(|e| fail(e.to_string()))?;
            self.values.insert(key(old), detach(new.into()));
        }
        for (k, &index) in carried_positions.iter().enumerate() {
            self.bind(detach(op.result(index).unwrap().into()), carried[k]); // verifier: scf.for has one result per iter_arg
        }
        Ok(())
    }

    fn convert_if(&mut self, op: OperationRef<'c, 'c>, new: BlockRef<'c, 'c>) -> Result<(), Failure<'c>> {
        let location = op.location();
        let fail = |message: String| (location, message);
        let at = self.at(new, location);
        let condition = self.value(detach(op.operand(0).unwrap())).map_err(fail)?; // verifier: scf.if has its condition operand
        // Tile results get a buffer both branches write into. One whose
        // valid size is a run-time value is allocated whole; each branch
        // copies into a view of its own valid region and yields the
        // run-time extents as extra `index` results, which give the view
        // the rest of the kernel reads.
        let mut carried = Vec::new();
        let mut carried_tiles = Vec::new();
        let mut scalar_types = Vec::new();
        let mut extents = 0;
        for result in op.results() {
            if let Ok(tile) = TileType::try_from(result.r#type()) {
                if !self.holds(detach(result.into())) {
                    continue;
                }
                if self.core != Core::Aiv {
                    return Err(fail("a cube kernel cannot choose a tile with `if`".into()));
                }
                let whole = [super::buffer::Extent::Static(tile.rows()), super::buffer::Extent::Static(tile.cols())];
                let buffer = at.alloc(Shape::vec_for(tile, whole).fully_valid());
                if super::buffer::extents_of(tile, &[]).is_err() {
                    if htp_ir::builder::bit_width(tile.element_type()) == 1 {
                        return Err(fail("an `if` whose mask result has a run-time valid size cannot be lowered to PTO yet".into()));
                    }
                    self.ragged_if_results.push(key(buffer.value));
                    extents += dynamic_dims(tile).len();
                }
                carried.push(buffer);
                carried_tiles.push(tile);
            } else {
                scalar_types.push(result.r#type());
            }
        }
        let mut regions = Vec::new();
        for index in 0..op.region_count() {
            let region = Region::new();
            let old_region = op.region(index).unwrap(); // verifier: index < region_count
            if let Some(old_block) = old_region.first_block() {
                let block = region.append_block(Block::new(&[]));
                let block: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(block.to_raw()) };
                let yielded = self.convert_block(old_block, block, &carried)?;
                self.at(block, location).op("scf.yield", &yielded, &[], &[], vec![]);
            }
            regions.push(region);
        }
        let scalar_results = scalar_types.len();
        scalar_types.extend(std::iter::repeat_n(Type::index(self.context), extents));
        let placed = at.op("scf.if", &[condition], &scalar_types, &[], regions);
        let mut next_extent = scalar_results;
        for (buffer, tile) in carried.iter_mut().zip(&carried_tiles) {
            if !self.ragged_if_results.contains(&key(buffer.value)) {
                continue;
            }
            let mut valid = buffer.shape.valid;
            for dim in dynamic_dims(*tile) {
                let extent = placed.result(next_extent).map_err(|e| fail(e.to_string()))?;
                valid[dim] = super::buffer::Extent::Dynamic(detach(extent.into()));
                next_extent += 1;
            }
            *buffer = at.view(*buffer, buffer.shape.with_valid(valid));
        }
        let (mut scalar, mut tile) = (0, 0);
        for result in op.results() {
            let old = detach(result.into());
            if TileType::try_from(old.r#type()).is_ok() {
                if !self.holds(old) {
                    continue;
                }
                self.bind(old, carried[tile]);
                tile += 1;
            } else {
                let new = placed.result(scalar).map_err(|e| fail(e.to_string()))?;
                self.values.insert(key(old), detach(new.into()));
                scalar += 1;
            }
        }
        Ok(())
    }

    /// The buffer a loop carries a tile in. The initial value's own buffer
    /// is reused when the loop is its only user; a cube accumulator that
    /// starts as zeros gets a fresh buffer, zero on the first trip.
    fn carried_buffer(&mut self, at: &At<'c>, init: V<'c>) -> Result<Buffer<'c>, String> {
        if let Some(zero) = self.zeros.get(&key(init)).copied() {
            let valid = super::buffer::extents_of(zero, &[])?;
            let buffer = at.alloc(cube::acc_shape(self, zero, valid));
            self.zero_pending.push(key(buffer.value));
            return Ok(buffer);
        }
        let buffer = self.buffer(init)?;
        if has_single_use(init) {
            return Ok(buffer);
        }
        let copy = at.alloc(buffer.shape);
        at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(copy.value).src(buffer.value).build());
        Ok(copy)
    }

    /// Marks yielded tiles that can be computed straight into their
    /// loop-carried buffer: the op making the value is its only user's
    /// producer and no op after it reads the previous value.
    fn plan_in_place(&mut self, body: BlockRef<'c, '_>, positions: &[usize], carried: &[Buffer<'c>]) {
        let Some(terminator) = body.terminator() else { return };
        for (k, &index) in positions.iter().enumerate() {
            // verifier: scf.for's yield has one operand per iter_arg, its block one argument per iter_arg after the induction variable.
            let yielded = detach(terminator.operand(index).unwrap());
            let previous = detach(body.argument(index + 1).unwrap().into());
            let Some(producer) = defining_op(yielded) else { continue };
            if producer.block().map(|b| b.to_raw().ptr) != Some(body.to_raw().ptr) || !has_single_use(yielded) {
                continue;
            }
            if !in_place_allowed(producer) {
                continue;
            }
            let reads_after = uses(previous).into_iter().any(|user| {
                let ancestor = ancestor_in(user, body);
                ancestor.is_some_and(|a| a.to_raw().ptr != producer.to_raw().ptr && !is_before(a, producer))
            });
            if !reads_after {
                self.in_place.insert(key(yielded), carried[k]);
            }
        }
    }

    /// Ends a converted body: writes each yielded tile into its carried
    /// buffer (unless computed there) and returns the scalar yield operands.
    fn finish_yield(&mut self, op: OperationRef<'c, 'c>, new: BlockRef<'c, 'c>, carried: &[Buffer<'c>]) -> Result<Vec<V<'c>>, String> {
        let at = self.at(new, op.location());
        let mut scalars = Vec::new();
        let mut extents = Vec::new();
        let mut tile = 0;
        let parent = op.parent_operation().ok_or("a yield outside an op")?;
        for (index, operand) in op.operands().enumerate() {
            let operand = detach(operand);
            if TileType::try_from(operand.r#type()).is_ok() {
                // verifier: scf.yield has one operand per result of its parent (scf.for, scf.if).
                if !self.holds(detach(parent.result(index).unwrap().into())) {
                    continue;
                }
                let target = carried[tile];
                tile += 1;
                let buffer = self.buffer(operand)?;
                if self.ragged_if_results.contains(&key(target.value)) {
                    // This branch's valid region: copied into a view of it, yielded.
                    let tile_type = TileType::try_from(operand.r#type()).map_err(|_| "a tile")?;
                    for dim in dynamic_dims(tile_type) {
                        extents.push(match buffer.shape.valid[dim] {
                            super::buffer::Extent::Dynamic(v) => v,
                            super::buffer::Extent::Static(n) => at.index(n),
                        });
                    }
                    let view = at.view(target, target.shape.with_valid(buffer.shape.valid));
                    at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(view.value).src(buffer.value).build());
                    continue;
                }
                if key(buffer.value) != key(target.value) {
                    if target.shape.place != super::buffer::Place::Vec {
                        return Err("a loop-carried accumulator must be updated in place (`acc += a @ b`)".into());
                    }
                    at.instruction(pto::TMovOperationBuilder::new(at.context, at.location).dst(target.value).src(buffer.value).build());
                }
            } else {
                scalars.push(self.value(operand)?);
            }
        }
        scalars.extend(extents);
        Ok(scalars)
    }
}

/// The dimensions of `tile` whose valid size is a run-time value.
fn dynamic_dims(tile: TileType) -> Vec<usize> {
    (0..2).filter(|&dim| matches!(tile.valid_size(dim as u32), htp_dialects::tile::ValidSize::Dynamic)).collect()
}

fn function_entry<'c>(block: BlockRef<'c, 'c>) -> BlockRef<'c, 'c> {
    let mut current = block;
    while let Some(parent) = current.parent_operation() {
        if let Some(outer) = parent.block() {
            current = unsafe { BlockRef::from_raw(outer.to_raw()) };
        } else {
            break;
        }
    }
    current
}

/// Ops whose destination may be the buffer one of their sources came from.
fn in_place_allowed(op: OperationRef) -> bool {
    use TileOp::*;
    matches!(
        TileOp::of(op),
        Some(Add | Sub | Mul | Div | Max | Min | Exp | Log | Sqrt | Rsqrt | Abs | Neg | Relu | Matmul | RowReduce | ColReduce)
    )
}

/// Whether a matmul operand made by vector work crosses to the cube padded
/// (`Kernel::cross`): it is not whole fractals, or not fully valid.
fn crosses_expanded(tile: TileType) -> bool {
    let full = super::buffer::extents_of(tile, &[]).is_ok_and(|valid| valid_is(valid, tile));
    !full || super::buffer::fractal_dims(tile) != (tile.rows(), tile.cols())
}

/// Whether `valid` is all of `tile`.
/// The region of a cube result that crosses to the vector core: its rows
/// by the vector tile's columns (rounded to whole 32-byte blocks), so the
/// pushed valid width is the popped tile's static width — the row stride
/// the simulator's pop reads — and its valid width, which the chip reads.
/// Pushing only the tile's own columns (6 of 8 for an f32 result of 6
/// columns) left the simulator's rows misaligned: a MoE router over 6
/// experts routed tokens to the wrong experts. A one-column (DN) tile is
/// unchanged. The accumulator's columns are rounded to 16, so the wider
/// region lies inside it; its extra columns are never read into a result.
fn crossing_result_valid<'c>(tile: TileType<'c>) -> [Extent<'c>; 2] {
    let whole = [Extent::Static(tile.rows()), Extent::Static(tile.cols())];
    let vec = Shape::vec_of(tile, super::buffer::accumulator_element(tile), whole);
    [Extent::Static(tile.rows()), Extent::Static(vec.cols)]
}

fn valid_is(valid: [Extent; 2], tile: TileType) -> bool {
    matches!(valid, [Extent::Static(r), Extent::Static(c)] if r == tile.rows() && c == tile.cols())
}

/// Where the cube reads a tile popped from the vector core (`users`: its
/// users on the cube): as the left (L0A) and/or right (L0B) operand of its
/// matmuls. Anything else is a fault of the split (only matmul operands
/// cross to the cube).
fn matmul_operand_places<'c>(value: V<'c>, users: impl Iterator<Item = OperationRef<'c, 'c>>) -> Result<Vec<super::buffer::Place>, String> {
    let mut places = Vec::new();
    for user in users {
        if TileOp::of(user) != Some(TileOp::Matmul) {
            return Err(format!(
                "a tile made by vector work is read on the cube core by {}, not as a matmul operand",
                user.name().as_string_ref().as_str().unwrap_or("?")
            ));
        }
        for (index, place) in [(0, super::buffer::Place::Left), (1, super::buffer::Place::Right)] {
            if htp_ir::query::operand_at(user, index).is_some_and(|v| key(v) == key(value)) && !places.contains(&place) {
                places.push(place);
            }
        }
    }
    Ok(places)
}

/// A tile the vector core could not hold even alone, said in the user's terms (the allocator's
/// error, `pto-allocate-tiles`, speaks of tiles that do not fit beside the others live).
fn larger_than_ub(op: OperationRef) -> Option<String> {
    let tile = TileType::try_from(htp_ir::query::result_at(op, 0)?.r#type()).ok()?;
    let bytes = tile.checked_size_in_bytes().unwrap_or(i64::MAX);
    let capacity = crate::dialect::Location::Vec.usable_capacity();
    if tile.rows() <= 0 || bytes <= capacity {
        return None;
    }
    let fitting = capacity / (bytes / tile.rows()).max(1);
    Some(format!(
        "this {}x{} {} tile ({bytes} bytes) is larger than the vector core's buffer (UB: {capacity} usable bytes on A2/A3): \
         compute it in blocks of rows, in a loop (`for r in range(0, {}, R)`); at most {fitting} rows of {} fit in UB at all, \
         and the other tiles live at the same time share it",
        tile.rows(),
        tile.cols(),
        tile.element_type(),
        tile.rows(),
        tile.cols()
    ))
}
