//! Scalar state in tile kernels: kernel-local arrays (`crate::arrays`:
//! `memref.alloca`, read and written with `memref.load`/`memref.store`) and
//! `scf.while` loops of scalar code (a search, e.g. for the next iteration
//! of a dissolved CSP channel). Both kernels of a cluster task keep all the
//! scalar code (`split.rs`), so these are copied like any other scalar op;
//! `scf.while` has regions, converted here.
//!
//! [`check`] runs before a kernel's cores are chosen, so that nothing of
//! the split or the task plan sees a tile inside a `while` or a memref that
//! is neither a tensor argument nor a kernel-local array.

use htp_dialects::tile::TileType;
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    Block, BlockRef, Region, RegionLike, Type, TypeLike, ValueLike,
};

use super::state::{Failure, Kernel};
use crate::arrays::{element_and_length, is_local_array, ALLOCA, LOAD, STORE};
use crate::ops::{PtoOp, TileOp};
use htp_ir::builder::{detach, Builder, V};
use htp_ir::query::key;

/// Refuses, at the op, scalar state a PTO kernel cannot hold: an array
/// that is not a static 1-D memref of integers, a `memref.load` or
/// `memref.store` of anything but such an array (tensors move with tile
/// loads and stores), a `scf.while` that carries or computes tiles.
pub fn check<'c>(function: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut failure = None;
    function.walk(WalkOrder::PreOrder, |op| {
        let problem = match op.name().as_string_ref().as_str().unwrap_or("") {
            ALLOCA => htp_ir::query::result_at(op, 0).map_or(Some("a memref.alloca without its array".into()), |array| element_and_length(array.r#type()).err()),
            name @ (LOAD | STORE) => array_access_problem(op, name),
            "scf.while" => while_problem(op),
            _ => None,
        };
        match problem {
            Some(message) => {
                // Safe: the op is inside `function`, which outlives this call.
                failure = Some((unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) }.location(), message));
                WalkResult::Interrupt
            }
            None => WalkResult::Advance,
        }
    });
    failure.map_or(Ok(()), Err)
}

/// Why a `memref.load`/`memref.store` is neither an element of a
/// kernel-local array nor a read of an element of one of the kernel's
/// input tensors, if it is not.
fn array_access_problem(op: OperationRef, name: &str) -> Option<String> {
    // load: array, index; store: value, array, index.
    let array = htp_ir::query::operand_at(op, usize::from(name == STORE))?;
    if name == LOAD && !is_local_array(array) {
        return tensor_read_problem(op, array);
    }
    if !is_local_array(array) {
        return Some(format!(
            "'{name}' of {}: a PTO kernel moves tensor data with tile loads and stores; element by element it reads and writes only kernel-local arrays (memref.alloca)",
            array.r#type()
        ));
    }
    None
}

/// A scalar read of a tensor element (`lens[b]`): of a kernel parameter
/// that no tile store or scatter of the kernel writes (the vector and cube pipes'
/// stores would have to reach GM before the scalar unit reads it).
fn tensor_read_problem(op: OperationRef, tensor: V) -> Option<String> {
    if melior::ir::block::BlockArgument::try_from(tensor).is_err() {
        return Some(format!("a scalar read of {}: a PTO kernel reads elements of its tensor parameters only", tensor.r#type()));
    }
    let function = function_of(op)?;
    let mut written = false;
    function.walk(WalkOrder::PreOrder, |inner| {
        // A store into the tensor, or into its 1xN view (a 1-D tensor).
        let stores_into = |d: melior::ir::Value| {
            let d = detach(d);
            key(d) == key(tensor) || htp_ir::query::defining_op(d).is_some_and(|view| view.operand(0).is_ok_and(|base| key(detach(base)) == key(tensor)))
        };
        let store = htp_dialects::ods::view::<htp_dialects::ods::tile::StoreOperation>(inner).is_some_and(|s| s.dest().is_ok_and(stores_into));
        let scatter = htp_dialects::ods::view::<htp_dialects::ods::tile::ScatterOperation>(inner).is_some_and(|s| s.dest().is_ok_and(stores_into));
        if store || scatter {
            written = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    written.then(|| {
        "this kernel reads an element of a tensor it also writes: on PTO the scalar unit reads GM, and the tile stores of this kernel are not ordered before it (read elements of input tensors, or pass the value as a scalar)".to_string()
    })
}

/// The `func.func` around `op`.
fn function_of<'c>(op: OperationRef<'c, '_>) -> Option<OperationRef<'c, 'c>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent.name().as_string_ref().as_str() == Ok("func.func") {
            return Some(unsafe { OperationRef::from_raw(parent.to_raw()) });
        }
        current = parent.parent_operation();
    }
    None
}

/// Why a `scf.while` is not scalar code a PTO kernel runs, if it is not:
/// it carries integers (or `index`) only, and no op in it is a tile op, a
/// PTO op or touches a tile.
fn while_problem(op: OperationRef) -> Option<String> {
    let integer = |ty: Type| ty.is_index() || htp_ir::builder::int_width(ty).is_some();
    let carried = op.operands().map(|v| v.r#type()).chain(op.results().map(|r| r.r#type()));
    if let Some(ty) = carried.into_iter().find(|ty| !integer(*ty)) {
        return Some(format!("this `while` loop carries {ty}: a PTO kernel's `while` loops carry integers (and indices) only"));
    }
    let mut found = None;
    op.walk(WalkOrder::PreOrder, |inner| {
        let tile = |ty: Type| TileType::try_from(ty).is_ok();
        let touches_tile = inner.operands().any(|v| tile(v.r#type())) || inner.results().any(|r| tile(r.r#type()));
        if TileOp::of(inner).is_some() || PtoOp::of(inner).is_some() || touches_tile {
            found = Some(inner.name().as_string_ref().as_str().unwrap_or("?").to_string());
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found.map(|name| format!("this `while` loop holds '{name}': a PTO kernel's `while` loops are scalar code (tile work goes in `for` loops)"))
}

impl<'c> Kernel<'c> {
    /// `scf.while` of scalar code (as [`check`] found it): the same loop in
    /// the PTO kernel, its before region (ending in the copied
    /// `scf.condition`) and after region converted like any block.
    pub(super) fn convert_while(&mut self, op: OperationRef<'c, 'c>, new: BlockRef<'c, 'c>) -> Result<(), Failure<'c>> {
        let location = op.location();
        let fail = |message: String| (location, message);
        let inits: Vec<V<'c>> = op.operands().map(|v| self.value(detach(v))).collect::<Result<_, _>>().map_err(fail)?;
        let mut regions = Vec::new();
        for index in 0..2 {
            let old = op.region(index).map_err(|e| fail(e.to_string()))?.first_block().ok_or_else(|| fail("a `while` loop without its two regions".into()))?;
            let old: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(old.to_raw()) };
            let arguments: Vec<V<'c>> = (0..old.argument_count()).map(|k| old.argument(k).map(|a| detach(a.into()))).collect::<Result<_, _>>().map_err(|e| fail(e.to_string()))?;
            let region = Region::new();
            let block = region.append_block(Block::new(&arguments.iter().map(|a| (a.r#type(), location)).collect::<Vec<_>>()));
            let block: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(block.to_raw()) };
            for (k, old_argument) in arguments.iter().enumerate() {
                let new_argument = block.argument(k).map_err(|e| fail(e.to_string()))?;
                self.values.insert(key(*old_argument), detach(new_argument.into()));
            }
            let yielded = self.convert_block(old, block, &[])?;
            // The before region's `scf.condition` was copied; the after region's `scf.yield` is made here.
            if index == 1 {
                self.at(block, location).op("scf.yield", &yielded, &[], &[], vec![]);
            }
            regions.push(region);
        }
        let result_types: Vec<Type<'c>> = op.results().map(|r| r.r#type()).collect();
        let at = self.at(new, location);
        let placed = at.op("scf.while", &inits, &result_types, &[], regions);
        for (old, new) in op.results().zip(placed.results()) {
            self.values.insert(key(detach(old.into())), detach(new.into()));
        }
        Ok(())
    }
}
