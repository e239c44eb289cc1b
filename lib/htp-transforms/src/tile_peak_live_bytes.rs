//! `tile-peak-live-bytes`: how many bytes of tiles a function holds live at
//! once, attached to the function as `tile.peak_live_bytes`.
//!
//! Backends need this number before they place anything: it is the on-chip
//! memory a kernel needs if no two live tiles share storage. Liveness is
//! computed over the function's ops in pre-order. A tile is live from its
//! definition (an op result exists once the op, including its regions, has
//! finished; a block argument from the start of the op owning the block)
//! to its last use; a use inside a nested region keeps the value live until
//! the end of the ancestor op in the value's own block, so a tile read in a
//! loop body stays live for the whole loop. Tiles defined inside a loop body
//! count once: the bound is per iteration, not per trip.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut},
        r#type::IntegerType,
        BlockRef, OperationRef, RegionLike, Type, Value, ValueLike,
    },
};


/// The attribute this pass attaches to each function.
pub const ATTRIBUTE: &str = "tile.peak_live_bytes";

htp_pass::pass! {
    pub DEFINITION = Pass<"tile-peak-live-bytes", "func.func"> {
        summary: "Attach each function's peak live on-chip tile bytes as `tile.peak_live_bytes`",
        dialects: [tile],
        run: run,
    }
}

/// Attaches the peak to the function.
fn run<'c>(context: &'c melior::Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    let peak = checked_peak_live_bytes(function).map_err(|location| {
        (location, "the bytes of this tile, or of the tiles live with it, do not fit in 64 bits: the tile is too large".to_string())
    })?;
    let i64_type = IntegerType::new(context, 64);
    // The pass owns the function it runs on; mutating it here is what
    // MLIR's pass contract allows, melior just hands it out immutably.
    let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
    function.set_discardable_attribute(ATTRIBUTE, IntegerAttribute::new(Type::from(i64_type), peak).into());
    Ok(())
}

type Key = usize;

fn op_key(op: &OperationRef) -> Key {
    op.to_raw().ptr as Key
}

fn block_key(block: &BlockRef) -> Key {
    block.to_raw().ptr as Key
}

fn value_key(value: &Value) -> Key {
    value.to_raw().ptr as Key
}

/// A tile value: the block it is defined in, where it becomes live, its size.
struct Definition {
    block: Key,
    start: usize,
    bytes: i64,
}

#[derive(Default)]
struct Numbering {
    next: usize,
    /// Pre-order index of each op's start and of the last op in its subtree.
    span: HashMap<Key, (usize, usize)>,
    /// Each op's parent op and parent block (the function's own entry: none).
    parent: HashMap<Key, (Option<Key>, Key)>,
    definitions: HashMap<Key, Definition>,
    /// (value, op that uses it)
    uses: Vec<(Key, Key)>,
}

/// A tile's bytes (None: not a tile); a size past i64 saturates, and the
/// sweep reports it.
fn tile_bytes(ty: Type) -> Option<i64> {
    TileType::try_from(ty).ok().map(|tile| tile.checked_size_in_bytes().unwrap_or(i64::MAX))
}

impl Numbering {
    fn visit(&mut self, op: OperationRef, parent: Option<Key>, parent_block: Key) {
        let key = op_key(&op);
        let start = self.next;
        self.next += 1;
        self.parent.insert(key, (parent, parent_block));
        for operand in op.operands() {
            if tile_bytes(operand.r#type()).is_some() {
                self.uses.push((value_key(&operand), key));
            }
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                let block_id = block_key(&current);
                for index in 0..current.argument_count() {
                    let argument: Value = current.argument(index).unwrap().into();
                    if let Some(bytes) = tile_bytes(argument.r#type()) {
                        self.definitions.insert(value_key(&argument), Definition { block: block_id, start, bytes });
                    }
                }
                let mut child = current.first_operation();
                while let Some(inner) = child {
                    self.visit(inner, Some(key), block_id);
                    child = inner.next_in_block();
                }
                block = current.next_in_region();
            }
        }
        let end = self.next - 1;
        self.span.insert(key, (start, end));
        for result in op.results() {
            let result: Value = result.into();
            if let Some(bytes) = tile_bytes(result.r#type()) {
                self.definitions.insert(value_key(&result), Definition { block: parent_block, start: end, bytes });
            }
        }
    }

    /// Where a use by `user` stops keeping a value defined in `block` live:
    /// the end of `user`'s ancestor (or itself) that sits in `block`.
    fn use_end(&self, mut user: Key, block: Key) -> Option<usize> {
        loop {
            let (parent, parent_block) = self.parent[&user];
            if parent_block == block {
                return Some(self.span[&user].1);
            }
            user = parent?;
        }
    }
}

/// Peak bytes of simultaneously live tiles in `function`; i64::MAX when
/// they do not fit (see [`checked_peak_live_bytes`]).
pub fn peak_live_bytes(function: OperationRef) -> i64 {
    checked_peak_live_bytes(function).unwrap_or(i64::MAX)
}

/// Peak bytes of simultaneously live tiles in `function`, in checked
/// arithmetic: Err(the location of the first tile whose bytes, or whose
/// bytes with those live beside it, overflow an i64).
pub fn checked_peak_live_bytes<'c>(function: OperationRef<'c, '_>) -> Result<i64, melior::ir::Location<'c>> {
    let mut overflow = None;
    function.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if overflow.is_none() && op.results().any(|r| TileType::try_from(r.r#type()).is_ok_and(|t| t.checked_size_in_bytes().is_none())) {
            // A location belongs to the context, not to the op it was read from.
            overflow = Some(unsafe { melior::ir::Location::from_raw(op.location().to_raw()) });
        }
        melior::ir::operation::WalkResult::Advance
    });
    if let Some(location) = overflow {
        return Err(location);
    }
    let peak = sweep(function);
    i64::try_from(peak).map_err(|_| function.location())
}

fn sweep(function: OperationRef) -> i128 {
    let mut numbering = Numbering::default();
    // The function op itself is index 0; its block arguments are live from there.
    numbering.visit(function, None, 0);

    let mut last_use: HashMap<Key, usize> = HashMap::new();
    for &(value, user) in &numbering.uses {
        let Some(definition) = numbering.definitions.get(&value) else { continue };
        if let Some(end) = numbering.use_end(user, definition.block) {
            let last = last_use.entry(value).or_insert(end);
            *last = (*last).max(end);
        }
    }

    // Sweep: +bytes where a tile becomes live, -bytes after its last use.
    let mut events: Vec<(usize, i128)> = Vec::new();
    for (value, definition) in &numbering.definitions {
        let last = last_use.get(value).copied().unwrap_or(definition.start).max(definition.start);
        events.push((definition.start, definition.bytes as i128));
        events.push((last + 1, -(definition.bytes as i128)));
    }
    events.sort_unstable();
    // In i128: a sum of i64 sizes cannot wrap.
    let (mut live, mut peak) = (0i128, 0i128);
    let mut index = 0;
    while index < events.len() {
        let position = events[index].0;
        while index < events.len() && events[index].0 == position {
            live += events[index].1;
            index += 1;
        }
        peak = peak.max(live);
    }
    peak
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::{operation::OperationLike, BlockLike, Module};

    fn peak_of(source: &str) -> i64 {
        let context = htp_dialects::new_context();
        let module = Module::parse(&context, source).expect("test IR parses");
        assert!(module.as_operation().verify());
        let function = module.body().first_operation().unwrap();
        peak_live_bytes(function)
    }

    #[test]
    fn a_tile_too_large_for_64_bits_is_an_error_not_a_wrapped_size() {
        // 2^31 x 2^31 f32 = 2^64 bytes: i64 arithmetic would wrap (to 8 GiB before this check).
        let context = htp_dialects::new_context();
        let module = Module::parse(
            &context,
            "func.func @f(%m: memref<?x?xf32>) {
               %c0 = arith.constant 0 : index
               %a = tile.load %m[%c0, %c0] : memref<?x?xf32> -> !tile.tile<2147483648x2147483648xf32>
               return
             }",
        )
        .expect("test IR parses");
        let function = module.body().first_operation().unwrap();
        assert!(checked_peak_live_bytes(function).is_err());
        assert_eq!(peak_live_bytes(function), i64::MAX);
        let tile = TileType::try_from(function.region(0).unwrap().first_block().unwrap().first_operation().unwrap()
            .next_in_block().unwrap().result(0).unwrap().r#type()).unwrap();
        assert_eq!(tile.checked_size_in_bytes(), None);
    }

    #[test]
    fn a_large_tile_that_fits_is_counted_exactly() {
        // 2^30 x 2^30 f32 = 2^62 bytes: fits.
        let peak = peak_of(
            "func.func @f(%m: memref<?x?xf32>) {
               %c0 = arith.constant 0 : index
               %a = tile.load %m[%c0, %c0] : memref<?x?xf32> -> !tile.tile<1073741824x1073741824xf32>
               tile.store %a, %m[%c0, %c0] : !tile.tile<1073741824x1073741824xf32>, memref<?x?xf32>
               return
             }",
        );
        assert_eq!(peak, 1 << 62);
    }

    #[test]
    fn function_without_tiles_needs_nothing() {
        assert_eq!(peak_of("func.func @f() { return }"), 0);
    }

    #[test]
    fn dead_values_free_their_bytes() {
        // Each exp consumes its input: at most two 4 KiB tiles live at once.
        let peak = peak_of(
            "func.func @f(%m: memref<16x64xf32>) {
               %c0 = arith.constant 0 : index
               %a = tile.load %m[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
               %b = tile.exp %a : !tile.tile<16x64xf32>
               %c = tile.exp %b : !tile.tile<16x64xf32>
               tile.store %c, %m[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
               return
             }",
        );
        assert_eq!(peak, 2 * 16 * 64 * 4);
    }

    #[test]
    fn values_used_in_a_loop_stay_live_for_the_whole_loop() {
        // %a (2 KiB f16) is read inside the loop, so it overlaps the body's
        // two 2 KiB tiles: 6 KiB.
        let peak = peak_of(
            "func.func @f(%m: memref<16x64xf16>, %n: index) {
               %c0 = arith.constant 0 : index
               %c1 = arith.constant 1 : index
               %a = tile.load %m[%c0, %c0] : memref<16x64xf16> -> !tile.tile<16x64xf16>
               scf.for %i = %c0 to %n step %c1 {
                 %b = tile.load %m[%c0, %c0] : memref<16x64xf16> -> !tile.tile<16x64xf16>
                 %s = tile.add %a, %b : !tile.tile<16x64xf16>
                 tile.store %s, %m[%c0, %c0] : !tile.tile<16x64xf16>, memref<16x64xf16>
               }
               return
             }",
        );
        assert_eq!(peak, 3 * 16 * 64 * 2);
    }
}
