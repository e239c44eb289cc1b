//! Tile kernels → an mlir-aie design at the object-FIFO level (D50).
//!
//! A kernel the AIE targets take is one loop over row blocks,
//! `for i in range(0, M, R)`, whose body reads and writes the rows
//! `[i, i + R)` of its row-walked tensors (tile loads and stores at row `i`;
//! any columns) and reads loop-invariant tensors whole (a weight row).
//! The body becomes the function `@<k>_block(objects..., row)`, one object
//! (`memref<R x C>`) per row-walked tensor and the invariant tensors
//! whole, lowered by the CPU backend's tile → linalg → bufferized loops
//! passes (named in a pipeline, so no Cargo dependency) to
//! scf/arith/memref code. The design then places it on one column:
//!
//! * `n` compute tiles (rows 2..2+n, D58/D78: the fewest blocks per core, as
//!   the memtile's and shim's DMA channels allow), core `k` taking blocks
//!   `k, k + n, ...`;
//! * per row-walked input, a FIFO shim → memtile of `n` blocks, split by
//!   `aie.objectfifo.link` into one FIFO per core (depth 2 each); outputs
//!   joined the same way; per invariant input one broadcast FIFO shim →
//!   cores (depth 1), acquired once per core;
//! * each core's loop acquires one object per FIFO, calls the block
//!   function, releases them;
//! * the runtime sequence moves each tensor with one
//!   `aiex.npu.dma_memcpy_nd` and waits for the outputs.
//!
//! The loop's end need not be a multiple of its step: the blocks are
//! rounded up to a multiple of the cores, the host pads the streamed
//! tensors, a core skips a block past the end, and the block function keeps
//! the ragged block's valid region (D78). A tensor may have blocks of its
//! own height (`y[b:b + 1, :]`). A kernel that is not one loop of
//! independent blocks runs whole on one core (D79). Anything else is an
//! error at the user's line (the op's location).

use htp_dialects::diagnostics::MlirError;
use htp_ir::query::{constant_int, kernel_functions};
use melior::{
    ir::{
        attribute::{DenseI64ArrayAttribute, StringAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::{MemRefType, ShapedTypeLike},
        Location, Module, OperationRef, RegionLike, Type, Value, ValueLike,
    },
    Context,
};

use crate::architecture::Device;

/// The passes that lower the block function from tile IR to loops: the
/// CPU backend's tile → linalg conversion, fusion and in-place stores,
/// one-shot bufferization and linalg → loops; small temporaries on the
/// core's stack instead of a heap the core does not have.
/// In two runs, with `accumulate_in_place` between them (D56): tile →
/// linalg on tensors, then bufferization and loops.
const BLOCK_TO_LINALG: &str = "convert-tile-to-linalg,canonicalize,cse,linalg-fuse-elementwise-ops";
/// A matmul's input narrowed in its body gets the cast split off first
/// (`aie-split-contraction-casts`: the matmul then reads one MAC type). A
/// ragged block's temporaries (sized at run time) take their bound
/// first (`aie-bound-ragged-buffers`), so that they fit on the stack too;
/// strided copies become loops (`aie-copies-to-loops`: MLIR would call
/// `memrefCopy` of its runtime library, which a core does not have). What
/// the generation's vector unit takes becomes vector code first
/// (`aie-vectorize-cores`, run by `transform-interpreter`; a MAC's operand
/// read transposed then transposed in registers, `aie-transpose-contraction-operands`); the stack's
/// buffers are made once, at the function's entry (`aie-hoist-stack-buffers`).
const BLOCK_TO_LOOPS: &str = "func.func(aie-split-contraction-casts,cpu-store-in-place),one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map},\
    func.func(aie-bound-ragged-buffers),aie-vectorize-cores{generation={generation}},transform-interpreter,aie-erase-transform-scripts,\
    func.func(aie-transpose-contraction-operands,convert-vector-to-scf{full-unroll=true},aie-split-reduction-accumulators),\
    func.func(convert-linalg-to-loops,aie-copies-to-loops,aie-hoist-invariant-loads,loop-invariant-code-motion,promote-buffers-to-stack{max-alloc-size-in-bytes=16384},aie-hoist-stack-buffers),canonicalize,cse";

/// An accumulator carried across an inner loop (`acc = acc + row_sum(t)`)
/// updated in place (D56): where a loop-carried tensor's one use is an
/// elementwise `linalg.generic` into a fresh `tensor.empty` of its type, at
/// the same indexing map as the result, and that result is what the loop
/// yields at its place, the generic writes into the carried tensor itself.
/// Bufferization then keeps one buffer for the accumulator (on the core's
/// stack) instead of a new heap buffer per trip, which a core does not have.
fn accumulate_in_place(module: &Module) {
    for (_, terminator, index, carried) in loop_carried_values(module) {
        let users = htp_ir::query::uses(htp_ir::builder::detach(carried));
        let [generic] = users.as_slice() else { continue };
        if op_name(*generic) != "linalg.generic" || generic.result_count() != 1 {
            continue;
        }
        let Ok(result) = generic.result(0) else { continue };
        let result: Value = result.into();
        let result_users = htp_ir::query::uses(htp_ir::builder::detach(result));
        let yielded = result_users.len() == 1
            && result_users[0].to_raw().ptr == terminator.to_raw().ptr
            && (0..terminator.operand_count()).filter(|&i| terminator.operand(i).is_ok_and(|v| same(v, result))).eq([index - 1]);
        if !yielded {
            continue;
        }
        let init_index = generic.operand_count() - 1;
        let Ok(init) = generic.operand(init_index) else { continue };
        let fresh = htp_ir::query::defining_op(htp_ir::builder::detach(init)).is_some_and(|op| op_name(op) == "tensor.empty");
        if !fresh || init.r#type() != carried.r#type() {
            continue;
        }
        let (Ok(maps), Ok(iterators)) = (generic.attribute("indexing_maps"), generic.attribute("iterator_types")) else { continue };
        let Ok(maps) = melior::ir::attribute::ArrayAttribute::try_from(maps) else { continue };
        if iterators.to_string().contains("reduction") {
            continue;
        }
        let Ok(output_map) = maps.element(maps.len() - 1) else { continue };
        let same_map = (0..init_index).any(|i| generic.operand(i).is_ok_and(|v| same(v, carried)) && maps.element(i).is_ok_and(|m| m.to_string() == output_map.to_string()));
        if same_map {
            unsafe { mlir_sys::mlirOperationSetOperand(generic.to_raw(), init_index as isize, carried.to_raw()) };
        }
    }
}

/// Each value an `scf.for` of `module` carries: the loop's body, its yield,
/// the value's block argument number (from 1) and the argument.
fn loop_carried_values<'c>(module: &'c Module) -> Vec<(melior::ir::BlockRef<'c, 'c>, OperationRef<'c, 'c>, usize, Value<'c, 'c>)> {
    let mut values = Vec::new();
    for the_loop in htp_ir::query::ops_named(module.as_operation(), "scf.for") {
        let Some(body) = the_loop.region(0).ok().and_then(|r| r.first_block()) else { continue };
        let Some(terminator) = body.terminator() else { continue };
        let body: melior::ir::BlockRef<'c, 'c> = unsafe { melior::ir::BlockRef::from_raw(body.to_raw()) };
        let terminator: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(terminator.to_raw()) };
        for index in 1..body.argument_count() {
            let Ok(carried) = body.argument(index) else { continue };
            values.push((body, terminator, index, carried.into()));
        }
    }
    values
}

/// Any other tile carried across a loop (online softmax's running max and
/// sum, replaced each trip by a value computed from it) is copied into the
/// carried tile at the end of each trip (`bufferization.materialize_in_destination`
/// before the yield, D86): bufferization then keeps one buffer for it, and
/// the trip's new value is a temporary that does not outlive the trip (on
/// the core's stack) instead of a new heap buffer per trip, which a core
/// does not have. Only a value made in a fresh tensor is copied: one
/// written into the carried tile (D56's accumulators, stores into it) is
/// left as it is.
fn carry_in_place(module: &Module) {
    for (body, terminator, index, carried) in loop_carried_values(module) {
        let Ok(yielded) = terminator.operand(index - 1) else { continue };
        if melior::ir::r#type::RankedTensorType::try_from(carried.r#type()).is_err() || !made_anew(yielded) {
            continue;
        }
        let copy = melior::ir::operation::OperationBuilder::new("bufferization.materialize_in_destination", terminator.location())
            .add_operands(&[yielded, carried])
            .add_results(&[carried.r#type()])
            .build();
        let Ok(copy) = copy else { continue };
        let copy = body.insert_operation_before(terminator, copy);
        let Ok(result) = copy.result(0) else { continue };
        unsafe { mlir_sys::mlirOperationSetOperand(terminator.to_raw(), (index - 1) as isize, result.to_raw()) };
    }
}

/// Whether `value` is written into a fresh tensor (`tensor.empty`) through
/// the destinations of the ops that make it (a `linalg` op's init, a
/// `tensor.insert(_slice)`'s or a materialization's destination): a new
/// buffer on every trip of a loop that yields it. Anything else (the
/// carried tensor itself, an op without a destination) is left to
/// bufferization as it is.
fn made_anew(value: Value) -> bool {
    let mut value = value;
    loop {
        let Some(op) = htp_ir::query::defining_op(htp_ir::builder::detach(value)) else { return false };
        let name = op_name(op);
        let destination = match name.as_str() {
            "tensor.empty" => return true,
            "tensor.insert" | "tensor.insert_slice" | "bufferization.materialize_in_destination" => 1,
            _ if name.starts_with("linalg.") && op.result_count() == 1 && op.operand_count() > 0 => op.operand_count() - 1,
            _ => return false,
        };
        let Ok(next) = op.operand(destination) else { return false };
        value = next;
    }
}

/// A stored value materialized into a `memref.cast` of a view goes into
/// the view itself when the view has the value's shape. Canonicalization
/// leaves such casts where it folds a ragged size to a constant (a column
/// window `x[i:i + 8, j:j + 64]` of 50 columns: `memref<?x50xf32>` cast to
/// `memref<?x?xf32>`); `cpu-store-in-place` would make the cast's tensor
/// with the value's type (`tensor<?x50xf32>`), which does not verify.
fn materialize_into_cast_sources(module: &Module) {
    for store in htp_ir::query::ops_named(module.as_operation(), "bufferization.materialize_in_destination") {
        let (Ok(value), Ok(view)) = (store.operand(0), store.operand(1)) else { continue };
        let Some(cast) = htp_ir::query::defining_op(htp_ir::builder::detach(view)).filter(|op| op_name(*op) == "memref.cast") else { continue };
        let Ok(source) = cast.operand(0) else { continue };
        if htp_ir::builder::shape_of(source.r#type()) == htp_ir::builder::shape_of(value.r#type()) {
            unsafe { mlir_sys::mlirOperationSetOperand(store.to_raw(), 1, source.to_raw()) };
        }
    }
}

/// FIFO depth of the row-walked FIFOs (double buffering).
const DEPTH: u32 = 2;

/// How a kernel parameter is moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Rows `[i, i + R)` per block.
    Rows,
    /// Read whole, once per core.
    Whole,
    /// Read by an inner loop over the whole tensor, `[k, k + T)` a trip
    /// (a GEMM's B over K): streamed through the column's memtile to its
    /// cores, an object a trip, for every block (D87).
    Inner,
}

#[derive(Clone, Debug)]
struct Param {
    name: String,
    role: Role,
    output: bool,
    rows: i64,
    cols: i64,
    element: String,
    location: String,
    /// A run-time scalar, moved as one 32-bit word (`1 x 32/bits` elements,
    /// the value first) and read from it in the block.
    scalar: bool,
    /// The parameter's place in the user's source.
    position: Option<htp_dialects::diagnostics::SourcePosition>,
    /// A broadcast's FIFO (its own name, or the first of the broadcasts of
    /// the same type it shares one with) and its object's index in it.
    packed: Option<(String, usize)>,
    /// An output the block also reads: it comes in on `<name>_in` too.
    read_too: bool,
    /// Rows of each block's object: a streamed tensor's rows per block (the
    /// loop's step, or `B` for a tensor accessed at `i // step * B`), all
    /// of a broadcast's.
    block_rows: i64,
    /// Rows the runtime sequence moves: a streamed tensor's blocks, rounded
    /// up to whole blocks for every core; `rows` for a broadcast.
    moved_rows: i64,
    /// Rows of the host buffer: the tensor's, or the rows moved when they are
    /// more (the host pads, `crate::host`).
    host_rows: i64,
    /// The pack its way in travels in, and its object's byte offset in the
    /// pack's objects (D85); an in-out tensor's copy in.
    in_pack: Option<(String, i64)>,
    /// The pack its way out travels in, and the offset.
    out_pack: Option<(String, i64)>,
    /// A pack of other parameters' objects (`i8`, one object of `cols`
    /// bytes per block, or one whole), not a parameter of the kernel.
    is_pack: bool,
    /// A 1-D tensor (a `1 x N` row) walked by the loop in windows of its
    /// columns: `rows` windows of `cols` elements, one a block.
    by_columns: bool,
    /// The tensor's elements (a run-time scalar: 1).
    elements: i64,
    /// A tensor read whole that inner loops walk by windows of `T` rows and
    /// `W` columns (`b[k:k + T, j:j + W]`; `W` all its columns when no loop
    /// walks them): its candidate `Role::Inner` object, taken when it does
    /// not fit a core; and the rows' loop (its key).
    inner_step: Option<(i64, i64, usize)>,
    /// A tensor in Fortran order (D95): its object holds each column's rows
    /// of the block (`[cols][block_rows]`), which the block function views
    /// with strides `[1, block_rows]`; the runtime sequence's window takes
    /// each column's rows of the block.
    col_major: bool,
    /// The status of each block's run-time checks (D96), not a kernel
    /// parameter: one i32 a block, 0 or the first failed site + 1; these
    /// are the module's sites.
    checks: Vec<(htp_api::checks::SiteKind, String)>,
    /// A 3-D tensor flattened to `B x Np` rows (D98, `aie-flatten-batch-loops`):
    /// its batches `B` and each batch's rows `N`.
    batches: Option<(i64, i64)>,
}

impl Param {
    fn element_bytes(&self) -> i64 {
        bits_of(&self.element) / 8
    }

    /// Bytes of one of its FIFO objects (a block, or a broadcast whole).
    fn object_bytes(&self) -> i64 {
        self.block_rows * self.object_cols() * self.element_bytes()
    }

    /// Whether its objects travel as bytes in a pack (D91): bool elements
    /// (mlir-aie sizes buffer descriptors in bits of the element), or objects
    /// not of whole 32-bit words (a whole 37 x 70 i8 tensor: the pack's
    /// objects are padded to 64 bytes).
    fn moves_as_bytes(&self) -> bool {
        !self.is_pack && (self.element == "i1" || self.object_bytes() % 4 != 0)
    }

    /// Columns of one of its FIFO objects: a window of a tensor streamed over
    /// inner loops, else all of them.
    fn object_cols(&self) -> i64 {
        match (self.role, self.inner_step) {
            (Role::Inner, Some((_, columns, _))) => columns,
            _ => self.cols,
        }
    }

    /// The type of one of its FIFO objects.
    fn object_type(&self) -> String {
        format!("memref<{}x{}x{}>", self.block_rows, self.object_cols(), self.element)
    }

    /// The type the block function takes it as: its object, or (a
    /// column-major tensor, D95) the object's `[cols][block_rows]` elements
    /// viewed as the block's rows with strides `[1, block_rows]`.
    fn view_type(&self) -> String {
        let object = self.object_type();
        if !self.col_major {
            return object;
        }
        format!("{}, strided<[1, {}]>>", &object[..object.len() - 1], self.block_rows)
    }

    /// Where its elements lie in the host buffer when not at its start in
    /// order (D95, D98): a padded column-major tensor's columns at the
    /// buffer's rows apart, a flattened 3-D tensor's batches at `Np` rows
    /// apart.
    fn runs(&self) -> Option<crate::host::Runs> {
        if let Some((batches, rows)) = self.batches {
            let per_batch = self.rows / batches;
            return (per_batch > rows || self.host_rows > self.rows).then_some(crate::host::Runs { count: batches, length: rows * self.cols, pitch: per_batch * self.cols });
        }
        (self.col_major && self.host_rows > self.rows).then_some(crate::host::Runs { count: self.cols, length: self.rows, pitch: self.host_rows })
    }

    /// Bytes the runtime sequence moves of it.
    fn moved_bytes(&self) -> i64 {
        self.moved_rows * self.cols * self.element_bytes()
    }

    /// Whether it has FIFOs and a runtime-sequence buffer of its own (it is
    /// not a pack's part).
    fn carried(&self) -> bool {
        self.in_pack.is_none() && self.out_pack.is_none()
    }

    /// Whether it comes into the array: an input, or an output the block
    /// reads (or does not write whole).
    fn inbound(&self) -> bool {
        !self.output || self.read_too
    }
}

/// The FIFOs into a core: one per streamed input (an in-out tensor's copy
/// in too), per broadcast FIFO (broadcasts of one type share one) and per
/// in-out tensor moved whole.
fn input_fifos(params: &[Param]) -> usize {
    let mut broadcasts: Vec<&str> = Vec::new();
    let mut count = 0;
    for p in params.iter().filter(|p| p.carried() && p.inbound()) {
        if p.role == Role::Whole && !p.output {
            let fifo = p.packed.as_ref().map_or(p.name.as_str(), |(f, _)| f.as_str());
            if !broadcasts.contains(&fifo) {
                broadcasts.push(fifo);
            }
        } else {
            count += 1;
        }
    }
    count + broadcasts.len()
}

fn output_fifos(params: &[Param]) -> usize {
    params.iter().filter(|p| p.carried() && p.output).count()
}

/// A part's objects start at this byte alignment in a pack's objects: a
/// whole vector register's load (512 bits) reads an aligned address.
const PACK_ALIGN: i64 = 64;

/// Packs (D85): a core and a column's shim have 2 DMA channels each way,
/// one per FIFO. When the kernel's tensors need more, one FIFO carries
/// several tensors' objects: each block's objects of the streamed inputs
/// (an in-out tensor's copy in too) in one `i8` object, the broadcasts and
/// run-time scalars in one object, the outputs' the same way, each part at
/// a 64-byte-aligned offset that the core views in place (`memref.view`).
/// The host packs and unpacks them (`crate::host::PackPart`). An in-out
/// tensor travels packed both ways or neither (one host buffer). Packs go
/// after the kernel's parameters in `params`.
fn pack_tensors(params: &mut Vec<Param>) {
    // Tensors streamed over the same inner loop by whole rows: a trip's objects in one.
    let inner: Vec<&Param> = params.iter().filter(|p| p.role == Role::Inner).collect();
    let one_loop = !inner.is_empty() && inner.iter().all(|p| p.object_cols() == p.cols && p.inner_step.map(|(t, _, l)| (t, l, p.rows)) == inner[0].inner_step.map(|(t, _, l)| (t, l, inner[0].rows)));
    let bytes_inner = inner.iter().any(|p| p.moves_as_bytes());
    if one_loop && (bytes_inner || (inner.len() >= 2 && input_fifos(params) > 2)) {
        pack(params, Role::Inner, false, false);
    }
    // A bool tensor (i1 elements, a byte each as numpy and LLVM keep them) and a tensor whose
    // objects are not whole 32-bit words travel in a pack: the shim and mlir-aie's buffer
    // descriptors move whole words of `i8` (they would size i1 objects in bits), and the core
    // views its part in place (D91).
    for role in [Role::Rows, Role::Whole] {
        for output in [false, true] {
            let side = |p: &Param| if output { p.output } else { p.inbound() };
            if params.iter().any(|p| p.carried() && p.role == role && side(p) && p.moves_as_bytes()) {
                pack(params, role, output, false);
            }
        }
    }
    let streamed = |params: &[Param], output: bool| params.iter().filter(|p| p.role == Role::Rows && p.carried() && if output { p.output } else { p.inbound() }).count();
    // Streamed blocks, broadcasts and a tensor streamed over an inner loop take 3 channels however
    // each kind is packed: the broadcasts then ride in every block's pack, a copy a block.
    let inner_fifos = params.iter().filter(|p| p.role == Role::Inner && p.carried()).count();
    let rows_in = streamed(params, false);
    let broadcast_fifos = input_fifos(params) - rows_in - inner_fifos;
    if input_fifos(params) > 2 && rows_in >= 1 && broadcast_fifos >= 1 && 2 + inner_fifos > 2 {
        pack(params, Role::Rows, false, true);
    }
    if input_fifos(params) > 2 && streamed(params, false) >= 2 {
        pack(params, Role::Rows, false, false);
    }
    if input_fifos(params) > 2 {
        pack(params, Role::Whole, false, false);
    }
    if output_fifos(params) > 2 && streamed(params, true) >= 2 {
        pack(params, Role::Rows, true, false);
    }
    if output_fifos(params) > 2 {
        pack(params, Role::Whole, true, false);
    }
    for role in [Role::Rows, Role::Whole] {
        let half = |params: &[Param], packed_in: bool| params.iter().any(|p| p.read_too && p.role == role && p.in_pack.is_some() == packed_in && p.out_pack.is_some() != packed_in);
        if half(params, true) {
            pack(params, role, true, false);
        } else if half(params, false) {
            pack(params, role, false, false);
        }
    }
}

/// One pack of the objects of every parameter of `role` on one side (with
/// `broadcasts`, the tensors read whole too: a copy in each block's object).
fn pack(params: &mut Vec<Param>, role: Role, output: bool, broadcasts: bool) {
    let kind = match role {
        Role::Rows => "",
        Role::Whole => "whole_",
        Role::Inner => "inner_",
    };
    let mut name = format!("htp_{kind}{}", if output { "out" } else { "in" });
    while params.iter().any(|p| p.name == name) {
        name.push('_');
    }
    let mut offset = 0;
    let mut location = None;
    // A pack streamed over an inner loop holds a trip's objects: as many as its parts have.
    let mut trips = 1;
    // (A tensor already in a pack on this side stays there.)
    let unpacked = |p: &Param| if output { p.out_pack.is_none() } else { p.in_pack.is_none() };
    for p in params.iter_mut().filter(|p| !p.is_pack && p.checks.is_empty() && unpacked(p) && (p.role == role || (broadcasts && p.role == Role::Whole && !p.output)) && if output { p.output } else { p.inbound() }) {
        if p.role == Role::Inner {
            trips = p.rows / p.block_rows.max(1);
        }
        let place = Some((name.clone(), offset));
        if output {
            p.out_pack = place;
        } else {
            p.in_pack = place;
        }
        p.packed = None;
        offset += ceil_div(p.object_bytes(), PACK_ALIGN) * PACK_ALIGN;
        location.get_or_insert(p.location.clone());
    }
    if let Some(location) = location {
        let rows = if role == Role::Inner { trips } else { 1 };
        params.push(Param {
            name,
            role,
            output,
            rows,
            cols: offset,
            element: "i8".into(),
            location,
            scalar: false,
            position: None,
            packed: None,
            read_too: false,
            block_rows: 1,
            moved_rows: rows,
            host_rows: rows,
            in_pack: None,
            out_pack: None,
            is_pack: true,
            by_columns: false,
            elements: 0,
            inner_step: (role == Role::Inner).then_some((1, offset, 0)),
            col_major: false,
            checks: Vec::new(),
            batches: None,
        });
    }
}

/// Broadcasts of one type (rows, columns, element) travel in one FIFO, an
/// object each (the runtime sequence moves them one after the other on
/// one shim channel, each core acquires them together): a layernorm's
/// weight and bias take one of the shim's and the core's two input DMA
/// channels, not two. Returns the number of broadcast FIFOs.
fn pack_broadcasts(params: &mut [Param]) -> usize {
    let mut fifos: Vec<((i64, i64, String), String, usize)> = Vec::new();
    for p in params.iter_mut().filter(|p| p.role == Role::Whole && !p.output) {
        let key = (p.rows, p.cols, p.element.clone());
        match fifos.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, fifo, count)) => {
                p.packed = Some((fifo.clone(), *count));
                *count += 1;
            }
            None => {
                p.packed = Some((p.name.clone(), 0));
                fifos.push((key, p.name.clone(), 1));
            }
        }
    }
    fifos.len()
}

/// How many broadcasts travel in the FIFO `fifo` (1 for one of its own).
fn packed_count(params: &[Param], fifo: &str) -> usize {
    params.iter().filter(|p| p.packed.as_ref().is_some_and(|(f, _)| f == fifo)).count().max(1)
}

/// The name a `NameLoc` gives (the front end names each argument after its
/// parameter).
pub fn location_name(location: Location) -> Option<String> {
    unsafe {
        let raw = location.to_raw();
        if !mlir_sys::mlirLocationIsAName(raw) {
            return None;
        }
        let name = mlir_sys::mlirIdentifierStr(mlir_sys::mlirLocationNameGetName(raw));
        let name = String::from_utf8_lossy(std::slice::from_raw_parts(name.data as *const u8, name.length)).into_owned();
        // A symbol name of its own: identifiers only.
        (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
    }
}

/// The design, and facts about it the target reports.
pub struct Design {
    pub text: String,
    /// Compute tiles in all, over `columns` columns.
    pub cores: u32,
    pub columns: u32,
    pub kernel: String,
    /// Static metrics of the design (`Artifact::static_metrics`).
    pub metrics: Vec<(String, f64)>,
    /// The runtime sequence's tensors in argument order (the host program's buffers).
    pub tensors: Vec<crate::host::HostTensor>,
}

/// The memtiles' share of the design's metrics (the rest is read from the
/// design itself, `finish::metrics`): per column, each streamed tensor's
/// objects for every core (a link's FIFOs share the memtile's buffers), and
/// one object at a time of a tensor streamed over an inner loop.
fn memtile_metrics(params: &[Param], cores: u32) -> Vec<(String, f64)> {
    let object = Param::object_bytes;
    let streamed = params.iter().filter(|p| p.role == Role::Rows).map(|p| DEPTH as i64 * cores as i64 * object(p));
    let inner = params.iter().filter(|p| p.role == Role::Inner).map(|p| DEPTH as i64 * object(p));
    vec![
        ("memtile_memory_bytes".into(), streamed.chain(inner).sum::<i64>() as f64),
        ("memtile_memory_capacity".into(), crate::architecture::MEMTILE_MEMORY as f64),
    ]
}

/// The cycle model's figures for the design (cost_model.rs): per core
/// and block, the vector and scalar instructions and the cycles of compute
/// and of the core's DMA; the design's cycles (blocks overlapped with their
/// transfers, the shims' transfers beside the cores); the fraction of the
/// device's MAC peak its MACs reach in those cycles, and of its shims' DMA
/// bandwidth its transfers.
fn modelled(params: &[Param], mac_input: &str, device: Device, columns: u32, cores: u32, padded_blocks: i64, cost: &crate::cost_model::CoreCost) -> Vec<(String, f64)> {
    use crate::cost_model::DMA_BYTES_PER_CYCLE;
    // A block's bytes of a tensor: its object, or all of a tensor streamed over an inner loop.
    let bytes = |p: &Param| (p.object_bytes() * if p.role == Role::Inner { p.rows * p.cols / (p.block_rows * p.object_cols()).max(1) } else { 1 }) as f64;
    let all_cores = (columns * cores) as f64;
    let blocks_per_core = padded_blocks as f64 / all_cores;
    let streamed = |output: bool| params.iter().filter(move |p| p.role != Role::Whole && (p.output == output || (!output && p.read_too)));
    // A core's inputs and outputs each have 2 DMA channels; each FIFO takes one.
    let channel_cycles = |output: bool| {
        let objects: Vec<f64> = streamed(output).map(bytes).collect();
        objects.iter().sum::<f64>() / (DMA_BYTES_PER_CYCLE * objects.len().clamp(1, 2) as f64)
    };
    let core_dma = channel_cycles(false).max(channel_cycles(true));
    let broadcast_bytes: f64 = params.iter().filter(|p| p.role == Role::Whole).map(|p| p.moved_bytes() as f64).sum();
    let compute = cost.cycles();
    let core_cycles = blocks_per_core * compute.max(core_dma) + core_dma + broadcast_bytes / DMA_BYTES_PER_CYCLE;
    // A column's shim moves its cores' blocks of each streamed tensor on one channel.
    // (A tensor streamed over an inner loop goes to all of them at once.)
    let shim = |output: bool| streamed(output).map(|p| bytes(p) * blocks_per_core * if p.role == Role::Inner { 1.0 } else { cores as f64 } / DMA_BYTES_PER_CYCLE).fold(0.0, f64::max);
    let cycles = core_cycles.max(shim(false)).max(shim(true)).max(1.0);
    let unit = crate::vector_units::VectorUnit::of(device.family);
    let device_cores = (device.columns * 4) as f64;
    let peak = crate::cost_model::macs_per_cycle(unit, mac_input) * device_cores;
    let moved: f64 = params.iter().map(|p| p.moved_bytes() as f64).sum();
    // Each column's shim: 2 channels in, 2 out.
    let shim_bandwidth = device.columns as f64 * 4.0 * DMA_BYTES_PER_CYCLE;
    let mut figures = vec![
        ("core_vector_ops".into(), cost.vector_ops),
        ("core_scalar_ops".into(), cost.scalar_ops),
        ("core_block_compute_cycles".into(), compute),
        ("core_block_dma_cycles".into(), core_dma),
        ("modelled_cycles".into(), cycles),
        ("modelled_shim_bandwidth_fraction".into(), moved / (cycles * shim_bandwidth)),
    ];
    if cost.macs > 0.0 {
        figures.push(("core_block_macs".into(), cost.macs));
        figures.push(("modelled_mac_peak_fraction".into(), cost.macs * padded_blocks as f64 / (cycles * peak)));
    }
    figures
}

fn error(location: Option<Location>, message: impl Into<String>) -> Vec<MlirError> {
    vec![MlirError { position: location.and_then(htp_dialects::diagnostics::source_position), message: message.into() }]
}

use htp_ir::query::op_name;

pub(crate) fn same(a: Value, b: Value) -> bool {
    a.to_raw().ptr == b.to_raw().ptr
}

/// Whether `value` is computed from `iv` (through the ops that define it,
/// and for an inner loop's induction variable, through its bounds).
fn depends_on(value: Value, iv: Value, depth: u32) -> bool {
    use melior::ir::{block::BlockArgument, operation::OperationResult};
    if same(value, iv) {
        return true;
    }
    if depth > 64 {
        return true;
    }
    if let Ok(result) = OperationResult::try_from(value) {
        let owner = result.owner();
        return (0..owner.operand_count()).any(|i| owner.operand(i).is_ok_and(|v| depends_on(v, iv, depth + 1)));
    }
    if let Ok(argument) = BlockArgument::try_from(value) {
        let Some(parent) = argument.owner().parent_operation() else { return true };
        return match op_name(parent).as_str() {
            "func.func" => false,
            "scf.for" if argument.argument_number() == 0 => (0..parent.operand_count().min(3)).any(|i| parent.operand(i).is_ok_and(|v| depends_on(v, iv, depth + 1))),
            _ => true,
        };
    }
    true
}

fn location_text(location: Location) -> String {
    // `loc("file.py":3:5)`, MLIR's own syntax: pasted into the design so
    // that its verifiers point at the user's lines.
    location.to_string()
}

/// Why a lowering stopped: a kernel whose row blocks cannot be dealt to
/// cores (`Structure`: it may still run whole on one core), or anything else.
enum Refusal {
    Structure(Vec<MlirError>),
    Final(Vec<MlirError>),
}

impl From<Vec<MlirError>> for Refusal {
    fn from(errors: Vec<MlirError>) -> Self {
        Refusal::Final(errors)
    }
}

/// Lowers the module's kernel to a design on `device`; the errors have
/// been reported on the module's context at the user's lines (and are
/// returned for callers that collect them).
///
/// A kernel that is one loop over independent row blocks has them dealt to
/// the cores; any other (no loop, several, values carried from block to
/// block, loads outside the loop, blocks reading each other's rows) runs
/// whole on one core, every tensor moved whole, when it fits one.
pub fn lower(context: &Context, module: &mut Module, device: Device, names: &[(usize, String)]) -> Result<Design, Vec<MlirError>> {
    // The ops built below, whatever the kernel's text happened to load (a `memref.load` built
    // before its dialect is loaded is an unregistered op that later passes misread).
    for dialect in ["func", "arith", "memref", "scf", "bufferization"] {
        context.get_or_load_dialect(dialect);
    }
    // cse only: canonicalize would fold a one-block loop away (its body then
    // outside any loop). The cpu's distribution first: a grain the user gave a
    // loop that cannot be distributed is the same error on every target (the
    // attribute it leaves on the loop is the cpu's; the cores deal blocks as D58 says).
    htp_pass::dump::run_pipeline_collecting(context, module, "aie-flatten-batch-loops,tile-distribute-outer-loop{level=core},cse", "cse before the AIE lowering")?;
    rows_of_vectors(context, module);
    match lower_in(context, module, device, names, false) {
        Ok(design) => Ok(design),
        Err(Refusal::Final(errors)) => Err(errors),
        Err(Refusal::Structure(why)) => lower_in(context, module, device, names, true).map_err(|refusal| {
            // Why the kernel does not run whole on one core, and why it ran there: why its blocks
            // are not dealt to cores.
            let (Refusal::Final(mut errors) | Refusal::Structure(mut errors)) = refusal;
            if let (Some(first), Some(reason)) = (errors.first_mut(), why.first()) {
                first.message = format!(
                    "{} (on one core, every tensor whole, because {}{})",
                    first.message,
                    reason.position.as_ref().map(|p| format!("at {p}: ")).unwrap_or_default(),
                    reason.message
                );
            }
            errors
        }),
    }
}

/// 1-D tensors as the `1 x N` rows the front end views them as (it
/// expands each to `1 x N` for its tile ops): a kernel argument whose
/// uses are all such `memref.expand_shape`s takes their type, so the
/// lowering moves it as any 2-D tensor — whole, or walked by windows of
/// its columns (`Param::by_columns`).
pub(crate) fn rows_of_vectors(context: &Context, module: &Module) {
    for kernel in kernel_functions(module.as_operation()) {
        let Some(body) = kernel.region(0).ok().and_then(|r| r.first_block()) else { continue };
        let mut changed = false;
        for index in 0..body.argument_count() {
            let Ok(argument) = body.argument(index) else { continue };
            let argument: Value = argument.into();
            // (A scalar has no shape to ask for.)
            let Ok(memref) = MemRefType::try_from(argument.r#type()) else { continue };
            let [length] = htp_ir::builder::shape_of(argument.r#type())[..] else { continue };
            let uses = htp_ir::query::uses(htp_ir::builder::detach(argument));
            let expansions: Vec<OperationRef> = uses.iter().copied().filter(|u| op_name(*u) == "memref.expand_shape").collect();
            let is_row = |e: &OperationRef| e.result(0).is_ok_and(|r| matches!(htp_ir::builder::shape_of(r.r#type())[..], [1, n] if n == length || n < 0));
            if length < 0 || expansions.len() != uses.len() || !expansions.iter().all(is_row) {
                continue;
            }
            let row: Type = MemRefType::new(memref.element(), &[1, length], None, None).into();
            unsafe { mlir_sys::mlirValueSetType(argument.to_raw(), melior::ir::TypeLike::to_raw(&row)) };
            for expansion in expansions {
                if let Ok(result) = expansion.result(0) {
                    unsafe {
                        mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), argument.to_raw());
                        mlir_sys::mlirOperationDestroy(expansion.to_raw());
                    }
                }
            }
            // The row's sizes are known: `memref.dim`s of it (a symbolic size, fixed) are constants.
            for dim in htp_ir::query::uses(htp_ir::builder::detach(argument)).into_iter().filter(|u| op_name(*u) == "memref.dim") {
                let Some(d) = dim.operand(1).ok().and_then(|v| constant_int(htp_ir::builder::detach(v))) else { continue };
                let (Some(block), Ok(result)) = (dim.block(), dim.result(0)) else { continue };
                let extent = if d == 0 { 1 } else { length };
                let constant = block.insert_operation_before(dim, melior::dialect::arith::constant(context, melior::ir::attribute::IntegerAttribute::new(Type::index(context), extent).into(), dim.location()));
                if let Ok(value) = constant.result(0) {
                    unsafe {
                        mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), value.to_raw());
                        mlir_sys::mlirOperationDestroy(dim.to_raw());
                    }
                }
            }
            changed = true;
        }
        if changed {
            htp_ir::builder::sync_function_inputs(context, kernel);
        }
    }
}

/// Whether `user` reads or writes `tensor` (a `1 x N` row) at the loop's
/// own window of its columns: a `1 x step` tile at row 0, column `iv`.
fn at_column_window(user: OperationRef, tensor: Value, iv: Value, step: i64) -> bool {
    let (memref, row, column, tile) = match op_name(user).as_str() {
        "tile.load" => (0, 1, 2, user.result(0).ok().map(|r| r.r#type())),
        "tile.store" => (1, 2, 3, user.operand(0).ok().map(|v| v.r#type())),
        _ => return false,
    };
    let tile = tile.and_then(|t| htp_dialects::tile::TileType::try_from(t).ok());
    user.operand(memref).is_ok_and(|v| same(v, tensor))
        && user.operand(row).ok().and_then(|v| constant_int(htp_ir::builder::detach(v))) == Some(0)
        && user.operand(column).is_ok_and(|v| same(v, iv))
        && tile.is_some_and(|t| t.rows() == 1 && t.cols() == step)
}

/// The rows a trip of an inner loop reads of `tensor` when every use is a
/// load of all its columns at the rows `[k, k + T)` of one `scf.for` over
/// exactly its rows (`for k in range(0, K, T)`, `b[k:k + T, :]`) inside
/// the row-block loop: `T`.
/// The loop inside `the_loop` over `0..extent` by a step dividing it whose
/// induction variable `index` is: (its key, its step, the loop).
fn inner_loop_over<'c>(index: Value<'c, '_>, extent: i64, the_loop: OperationRef) -> Option<(usize, i64, OperationRef<'c, 'c>)> {
    let l = htp_ir::query::block_argument_owner(htp_ir::builder::detach(index)).filter(|l| op_name(*l) == "scf.for" && htp_ir::query::is_within(*l, the_loop) && l.to_raw().ptr != the_loop.to_raw().ptr)?;
    let bound = |k: usize| l.operand(k).ok().and_then(|v| constant_int(htp_ir::builder::detach(v)));
    let step = bound(2)?;
    (bound(0) == Some(0) && bound(1) == Some(extent) && step > 0 && extent % step == 0).then_some((htp_ir::query::op_key(l), step, l))
}

fn inner_stream_step(uses: &[OperationRef], tensor: Value, shape: &[i64], the_loop: Option<OperationRef>) -> Option<(i64, i64, usize)> {
    let the_loop = the_loop?;
    let mut found: Option<(usize, i64, i64)> = None;
    for user in uses {
        if op_name(*user) != "tile.load" || !user.operand(0).is_ok_and(|v| same(v, tensor)) {
            return None;
        }
        let tile = htp_dialects::tile::TileType::try_from(user.result(0).ok()?.r#type()).ok()?;
        let (rows_loop, rows, row_loop_op) = inner_loop_over(user.operand(1).ok()?, shape[0], the_loop)?;
        let column = user.operand(2).ok()?;
        let columns = if constant_int(htp_ir::builder::detach(column)) == Some(0) && tile.cols() == shape[1] {
            shape[1]
        } else {
            // A window of columns walked by a loop around the rows' loop (`for j: for k:`).
            let (_, width, column_loop) = inner_loop_over(column, shape[1], the_loop)?;
            (htp_ir::query::is_within(row_loop_op, column_loop) && tile.cols() == width).then_some(width)?
        };
        if tile.rows() != rows || found.is_some_and(|f| f != (rows_loop, rows, columns)) {
            return None;
        }
        found = Some((rows_loop, rows, columns));
    }
    found.map(|(rows_loop, rows, columns)| (rows, columns, rows_loop))
}

fn lower_in(context: &Context, module: &mut Module, device: Device, names: &[(usize, String)], single: bool) -> Result<Design, Refusal> {
    let kernels = kernel_functions(module.as_operation());
    let [kernel] = kernels.as_slice() else {
        return Err(error(None, format!("the aie targets compile one kernel per module, got {}", kernels.len())).into());
    };
    let kernel = *kernel;
    let name = kernel
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .unwrap_or_default();
    let outputs: Vec<i64> = kernel
        .attribute("htp.outputs")
        .ok()
        .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect())
        .unwrap_or_default();
    let body = kernel.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| error(Some(kernel.location()), "a kernel without a body"))?;
    let batched = crate::flatten_batch_loops::batches(kernel);

    // Static 2-D tensors only (before anything else: a dynamic one shows
    // as `memref.dim` outside the loop, which would be a worse message).
    for index in 0..body.argument_count() {
        let argument = body.argument(index).map_err(|e| error(None, e.to_string()))?;
        let ty: Type = argument.r#type();
        let location = htp_ir::query::value_location(argument.into());
        let parameter = names.iter().find(|(i, _)| *i == index).map(|(_, n)| format!("parameter '{n}'")).unwrap_or_else(|| format!("parameter {}", index + 1));
        if MemRefType::try_from(ty).is_err() {
            // Run-time scalars (D59): one 32-bit word the shim moves, the value in its first
            // element (a 16- or 8-bit one padded by the host); an i64, a word pair.
            if ["f32", "i64", "i32", "f16", "bf16", "i16", "i8"].contains(&ty.to_string().as_str()) {
                continue;
            }
            return Err(error(Some(location), format!("{parameter} is a scalar of type {ty}; the aie targets take run-time scalars of f32, f16, bf16, i64, i32, i16 and i8 (in the 32-bit words the shim DMA moves)")).into());
        }
        let shape = htp_ir::builder::shape_of(ty);
        let identity = MemRefType::try_from(ty).is_ok_and(|m| unsafe { mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(melior::ir::TypeLike::to_raw(&m))) });
        // A Fortran-order tensor's row block is a DMA window of each column's rows (D95).
        if !identity && !(shape.len() == 2 && htp_ir::builder::is_column_major(ty)) {
            return Err(error(Some(location), format!("{parameter} has type {ty}, neither row-major nor column-major; the aie targets move a tensor's row blocks by DMA windows of whole rows or of each column's rows: give it one of those layouts")).into());
        }
        if shape.len() != 2 {
            return Err(error(Some(location), format!("{parameter} has type {ty}; the aie targets move 2-D tensors (rows x columns, walked by row block), and 3-D ones only walked by a loop over batches around a loop over row blocks (`x[b, i:i + R, ...]`)")).into());
        }
        if shape.iter().any(|&d| d < 0) {
            return Err(error(
                Some(location),
                format!("{parameter} has type {ty}, a dimension known only at run time; an aie-npu design moves static shapes (give dimensions as htp.Const; aie-sim builds a design for each call's sizes)"),
            ).into());
        }
    }

    // The loop over row blocks: the one op of the body besides constants.
    // (On one core: the whole body, once.)
    let structure = |location: Location, message: String| Refusal::Structure(error(Some(location), message));
    let mut the_loop = None;
    let mut op = body.first_operation();
    while let Some(current) = op.filter(|_| !single) {
        let name = op_name(current);
        // Pure values hoisted out of the loop (constants, constant tiles)
        // are recomputed in each block.
        let pure = current.region_count() == 0 && !matches!(name.as_str(), "tile.load" | "tile.store" | "tile.gather" | "func.call") && !name.starts_with("memref.");
        match name.as_str() {
            "func.return" => {}
            _ if pure => {}
            "scf.for" if the_loop.is_none() => the_loop = Some(current),
            other => {
                let what = if other == "scf.for" { "a second loop".to_string() } else { format!("'{other}'") };
                return Err(structure(current.location(), format!("the aie targets deal the blocks of one loop over row blocks (`for i in range(0, M, R)`) to their cores; {what} is outside it")));
            }
        }
        op = current.next_in_block();
    }
    let the_loop: Option<OperationRef<'_, '_>> = if single {
        None
    } else {
        let the_loop = the_loop.ok_or_else(|| structure(kernel.location(), "the aie targets deal the blocks of one loop over row blocks (`for i in range(0, M, R)`) to their cores; this kernel has none".into()))?;
        Some(unsafe { OperationRef::from_raw(the_loop.to_raw()) })
    };
    let loop_location = the_loop.map(|l| l.location()).unwrap_or_else(|| kernel.location());
    if the_loop.is_some_and(|l| l.result_count() > 0) {
        return Err(structure(loop_location, "the row-block loop carries values from one block to the next; the aie targets deal its blocks to their cores, so each block must stand alone".into()));
    }
    let bound = |index: usize, what: &str| {
        the_loop
            .expect("a loop")
            .operand(index)
            .ok()
            .and_then(|v| constant_int(htp_ir::builder::detach(v)))
            .ok_or_else(|| structure(loop_location, format!("the row-block loop's {what} must be a compile-time constant to deal its blocks to cores (give the tensor's rows as an htp.Const)")))
    };
    let (lower, upper, step) = if single { (0, 1, 1) } else { (bound(0, "start")?, bound(1, "end")?, bound(2, "step")?) };
    if lower != 0 || step <= 0 {
        return Err(structure(loop_location, format!("the row-block loop must start at 0 with a positive step to deal its blocks to cores (it runs from {lower} by {step})")));
    }
    let rows_per_block = step;
    let blocks = ceil_div(upper, step);
    let loop_body = the_loop.and_then(|l| l.region(0).ok()).and_then(|r| r.first_block());
    let iv: Option<Value> = loop_body.and_then(|b| b.argument(0).ok()).map(|a| a.into());

    // The parameters: static 2-D memrefs, each read by rows or whole.
    let mut params = Vec::new();
    for index in 0..body.argument_count() {
        let argument = body.argument(index).map_err(|e| error(None, e.to_string()))?;
        let location = htp_ir::query::value_location(argument.into());
        let ty: Type = argument.r#type();
        let parameter = names.iter().find(|(i, _)| *i == index).map(|(_, n)| format!("parameter '{n}'")).unwrap_or_else(|| format!("parameter {}", index + 1));
        let Ok(memref) = MemRefType::try_from(ty) else {
            // A run-time scalar (checked above): a one-word object broadcast to every core (D59);
            // the host gives its first element.
            let name = names.iter().find(|(i, _)| *i == index).map(|(_, n)| n.clone()).or_else(|| location_name(location)).unwrap_or_else(|| format!("p{index}"));
            let word = (32 / htp_ir::builder::bit_width(ty) as i64).max(1);
            params.push(Param { name, role: Role::Whole, output: false, rows: 1, cols: word, element: ty.to_string(), location: location_text(location), scalar: true, position: htp_dialects::diagnostics::source_position(location), packed: None, read_too: false, block_rows: 1, moved_rows: 1, host_rows: 1, in_pack: None, out_pack: None, is_pack: false, by_columns: false, elements: 1, inner_step: None, col_major: false, checks: Vec::new(), batches: None });
            continue;
        };
        let shape = htp_ir::builder::shape_of(ty);
        if shape.len() != 2 || shape.iter().any(|&d| d < 0) {
            return Err(error(Some(location), format!("{parameter} has type {ty}; the aie targets need 2-D tensors of static shape (give dimensions as htp.Const)")).into());
        }
        let element = memref.element().to_string();
        let col_major = htp_ir::builder::is_column_major(ty);
        let batches = batched.iter().find(|(i, _, _)| *i == index).map(|&(_, b, n)| (b, n));
        let bits = htp_ir::builder::bit_width(memref.element());
        if ![1, 8, 16, 32, 64].contains(&bits) {
            return Err(error(Some(location), format!("{parameter} holds {element}; the aie targets move bool, 8-, 16-, 32- and 64-bit elements")).into());
        }
        let uses = htp_ir::query::uses(htp_ir::builder::detach(argument.into()));
        // A 1-D tensor walked by the loop's windows of its columns (`x[i:i + 64]`): streamed, a
        // window a block.
        let by_columns = !single && shape[0] == 1 && !uses.is_empty() && uses.iter().all(|u| iv.is_some_and(|iv| at_column_window(*u, argument.into(), iv, step)));
        if by_columns {
            let output = outputs.contains(&(index as i64));
            // Every element written when a store at the loop's level covers the tensor's columns.
            let whole = uses.iter().any(|u| op_name(*u) == "tile.store" && u.block() == loop_body) && upper >= shape[1];
            let read_too = output && (uses.iter().any(|u| op_name(*u) == "tile.load") || !whole);
            let fifo = names.iter().find(|(i, _)| *i == index).map(|(_, n)| n.clone()).or_else(|| location_name(location)).unwrap_or_else(|| format!("p{index}"));
            let windows = ceil_div(shape[1], step);
            params.push(Param { name: fifo, role: Role::Rows, output, rows: windows, cols: step, element, location: location_text(location), scalar: false, position: htp_dialects::diagnostics::source_position(location), packed: None, read_too, block_rows: 1, moved_rows: windows, host_rows: windows, in_pack: None, out_pack: None, is_pack: false, by_columns: true, elements: shape[1], inner_step: None, col_major: false, checks: Vec::new(), batches: None });
            continue;
        }
        // Every use: a tile load or store, at the block's rows (`i`, or `i // step * B`) or not at all.
        let mut by_rows = None::<bool>;
        let mut param_block = None::<i64>;
        let mut tile_rows = Vec::new();
        let mut problem = None;
        // On one core every tensor is whole: its loads and stores stay where they are.
        let mut structural = true;
        for user in uses.iter().filter(|_| single) {
            let at = |k: usize| user.operand(k).is_ok_and(|v| same(v, argument.into()));
            let moved = match op_name(*user).as_str() {
                // (Rows chosen at run time: a gather from, a scatter into the whole tensor.)
                "tile.load" | "memref.load" | "tile.gather" => at(0),
                "tile.store" | "memref.store" | "tile.scatter" => at(1),
                _ => false,
            };
            if !moved {
                problem = Some((user.location(), format!("the aie targets move tensors only by tile loads and stores; '{}' uses {parameter}", op_name(*user))));
                structural = false;
                break;
            }
        }
        for user in uses.iter().filter(|_| !single) {
            // One element read (`s[0, 2]`), or rows chosen at run time (`htp.gather(table, ids, ...)`):
            // the tensor travels whole, as a broadcast.
            if matches!(op_name(*user).as_str(), "memref.load" | "tile.gather") && user.operand(0).is_ok_and(|v| same(v, argument.into())) {
                if by_rows == Some(true) {
                    problem = Some((user.location(), format!("{parameter} is streamed by row block, and a core holds only its block's rows: read its elements (or rows chosen at run time) from a tensor read whole (not at the block's rows)")));
                    break;
                }
                by_rows = Some(false);
                continue;
            }
            let (row_index, rows) = match op_name(*user).as_str() {
                "tile.load" if user.operand(0).is_ok_and(|v| same(v, argument.into())) => {
                    let tile = user.result(0).map(|r| r.r#type()).ok();
                    (user.operand(1).ok(), tile.and_then(|t| htp_dialects::tile::TileType::try_from(t).ok()).map(|t| t.rows()))
                }
                "tile.store" if user.operand(1).is_ok_and(|v| same(v, argument.into())) => {
                    let tile = user.operand(0).map(|v| v.r#type()).ok();
                    (user.operand(2).ok(), tile.and_then(|t| htp_dialects::tile::TileType::try_from(t).ok()).map(|t| t.rows()))
                }
                // Rows chosen at run time written: any block may write any row (the last write
                // wins, in block order), so the blocks are not dealt to cores.
                "tile.scatter" if user.operand(1).is_ok_and(|v| same(v, argument.into())) => {
                    problem = Some((user.location(), format!("{parameter} is written at rows chosen at run time (`htp.scatter`), which any block may share with another")));
                    break;
                }
                other => {
                    problem = Some((user.location(), format!("the aie targets move tensors only by tile loads and stores at their row block; '{other}' uses {parameter}")));
                    structural = false;
                    break;
                }
            };
            let iv = iv.expect("a loop");
            let block = row_index.and_then(|v| block_rows_at(v, iv, step));
            let at_iv = block.is_some();
            if let (Some(b), Some(before)) = (block, param_block) {
                if b != before {
                    problem = Some((user.location(), format!("{parameter} is accessed at blocks of {b} rows here and of {before} rows elsewhere: the aie targets move one block of a tensor per block of the loop")));
                    break;
                }
            }
            param_block = param_block.or(block);
            if at_iv && by_rows == Some(false) && uses.iter().any(|u| matches!(op_name(*u).as_str(), "memref.load" | "tile.gather")) {
                problem = Some((user.location(), format!("{parameter} is read element by element (or at rows chosen at run time) and by row block: a core holds only its block's rows of a streamed tensor, so read those from a tensor read whole")));
                break;
            }
            // Read whole: at rows that do not depend on the block (row 0,
            // or an inner loop's own rows, as a GEMM's `b[k:k + TK, :]`), or, a flattened 3-D
            // tensor only read, at its batch's rows (`w[h, :, :]`, rows `h * K + x`): every core
            // holds it whole (D99). (A 2-D tensor read at other rows that depend on the block
            // keeps the kernel on one core.)
            let read_only = batches.is_some() && !outputs.contains(&(index as i64)) && uses.iter().all(|u| matches!(op_name(*u).as_str(), "tile.load" | "memref.load" | "tile.gather"));
            if by_rows.is_some_and(|b| b != at_iv) || (!at_iv && !read_only && row_index.is_none_or(|v| depends_on(v, iv, 0))) {
                problem = Some((user.location(), format!("{parameter} is accessed at rows other than the block's own (`x[i:i + {rows_per_block}, ...]`) or the whole tensor's (from row 0): the aie targets move each block's rows to its core")));
                break;
            }
            by_rows = Some(at_iv);
            tile_rows.push((user.location(), rows.unwrap_or(-1)));
        }
        if let Some((location, message)) = problem {
            return Err(if structural { structure(location, message) } else { Refusal::Final(error(Some(location), message)) });
        }
        let output = outputs.contains(&(index as i64));
        let role = if single || by_rows == Some(false) { Role::Whole } else { Role::Rows };
        if role == Role::Rows {
            // (A tensor no block uses is streamed at the loop's step.)
            let b = param_block.unwrap_or(step);
            if let Some((location, rows)) = tile_rows.iter().find(|(_, r)| *r != b) {
                return Err(structure(*location, format!("this tile has {rows} rows, but each block of the row-block loop holds {b} rows of {parameter}: the aie targets give each core whole blocks")));
            }
            // Rows other than the loop's end are fine: a block's tiles are clipped to the
            // tensor's own rows (their valid regions), past the blocks they are not moved.
        } else if output && !single {
            return Err(structure(location, format!("{parameter} is an output written at the same rows by every block: the aie targets deal blocks to cores, so outputs must be written by row block")));
        } else if shape[0] * shape[1] > 1023 * 64 && (single || output || inner_stream_step(&uses, argument.into(), &shape, the_loop).is_none()) {
            // (One an inner loop walks streams over it instead, D87.)
            let how = if single { "moved whole to the core" } else { "read whole by every block" };
            return Err(Refusal::Final(error(Some(location), format!("{parameter} is {how} and too large to move to a core in one transfer ({} elements)", shape[0] * shape[1]))));
        }
        // Each block's output object goes back to the host whole, so an output a block may not
        // write whole (some of its columns or rows, or under a condition) travels both ways, as an
        // output the block reads does (an in-out tensor): its block comes in on a FIFO of its own
        // and is copied into the output object before the block runs, so the elements a block
        // leaves keep their values (docs/language.md, "Outputs"). Whole: every column (as below)
        // and every row, one block per block (a tensor with more rows than the loop's blocks cover
        // would have rows no block writes).
        let rows_covered = match param_block {
            Some(b) if b == step => shape[0] == upper,
            Some(b) => shape[0] == blocks * b,
            None => false,
        };
        let whole = if single { writes_whole_tensor(&uses, body, &shape) } else { loop_body.is_some_and(|b| writes_whole_block(&uses, b, shape[1])) && rows_covered };
        let read_too = output && (uses.iter().any(|u| op_name(*u) == "tile.load") || !whole);
        let fifo = names.iter().find(|(i, _)| *i == index).map(|(_, n)| n.clone()).or_else(|| location_name(location)).unwrap_or_else(|| format!("p{index}"));
        params.push(Param { name: fifo, role, output, rows: shape[0], cols: shape[1], element, location: location_text(location), scalar: false, position: htp_dialects::diagnostics::source_position(location), packed: None, read_too, block_rows: param_block.unwrap_or(if role == Role::Rows { step } else { shape[0] }), moved_rows: shape[0], host_rows: shape[0], in_pack: None, out_pack: None, is_pack: false, by_columns: false, elements: batches.map_or(shape[0], |(b, n)| b * n) * shape[1], inner_step: if role == Role::Whole && !output && !single && !col_major { inner_stream_step(&uses, argument.into(), &shape, the_loop) } else { None }, col_major, checks: Vec::new(), batches });
    }
    pack_broadcasts(&mut params);
    if !params.iter().any(|p| p.output) {
        return Err(error(Some(kernel.location()), "the kernel writes no output").into());
    }
    // Each core holds DEPTH objects of each row-walked tensor's block and
    // each invariant tensor whole, after its stack (the verifier checks the
    // placement again; this says what to change).
    let bytes_of = |p: &Param| {
        let ways = if p.read_too { 2 } else { 1 };
        let objects = if p.role == Role::Whole { 1 } else { DEPTH as i64 };
        ways * objects * p.object_bytes()
    };
    let budget = (crate::architecture::COMPUTE_MEMORY - crate::architecture::DEFAULT_STACK) as i64;
    // Broadcasts a core cannot hold beside one-row blocks, which an inner loop walks, stream over
    // that loop instead, the largest first, and every other that loop walks with it (D87).
    loop {
        let whole: i64 = params.iter().filter(|p| p.role == Role::Whole).map(bytes_of).sum();
        let rest: i64 = params.iter().filter(|p| p.role != Role::Whole).map(|p| if p.role == Role::Rows { bytes_of(p) / p.block_rows } else { bytes_of(p) }).sum();
        if whole + rest <= budget {
            break;
        }
        let Some(largest) = params.iter().filter(|p| p.role == Role::Whole && p.inner_step.is_some()).max_by_key(|p| p.object_bytes()) else { break };
        // The others that loop walks stream with it (a trip's objects together: K and V).
        let walked_by = largest.inner_step.map(|(_, _, l)| l);
        for p in params.iter_mut().filter(|p| p.role == Role::Whole && p.inner_step.is_some_and(|(_, _, l)| Some(l) == walked_by)) {
            p.role = Role::Inner;
            p.block_rows = p.inner_step.map_or(1, |(rows, _, _)| rows);
        }
        for p in params.iter_mut() {
            p.packed = None;
        }
        pack_broadcasts(&mut params);
    }
    // Broadcast tensors that do not fit even beside one-row blocks: fewer
    // rows would not help, so the error is at the largest of them.
    let whole_bytes: i64 = params.iter().filter(|p| p.role == Role::Whole).map(bytes_of).sum();
    let one_row: i64 = params.iter().filter(|p| p.role != Role::Whole).map(|p| if p.role == Role::Rows { bytes_of(p) / p.block_rows } else { bytes_of(p) }).sum();
    if whole_bytes == 0 && one_row > budget {
        return Err(error(
            Some(loop_location),
            format!("each core would hold {one_row} bytes of FIFO objects even with one row per block ({DEPTH} objects of each streamed tensor's rows, whole), more than the {budget} a compute tile has beside its stack: the rows are too wide for a core"),
        ).into());
    }
    if single && whole_bytes > budget {
        return Err(error(
            Some(loop_location),
            format!("the kernel's tensors, whole on one core, take {whole_bytes} bytes, more than the {budget} a compute tile has beside its stack"),
        )
        .into());
    }
    if whole_bytes + one_row > budget {
        let largest = params.iter().filter(|p| p.role == Role::Whole).max_by_key(|p| bytes_of(p)).expect("some broadcast");
        return Err(vec![MlirError {
            position: largest.position.clone(),
            message: format!(
                "'{}' ({} bytes) is read whole by every block, so every core holds it; with the other broadcasts ({whole_bytes} bytes in all) and the streamed tensors at even one row per block it exceeds the {budget} bytes a compute tile has beside its stack: take it in smaller pieces (a tensor an inner loop reads a window at a time, `b[k:k + 32, :]`, streams over that loop instead)",
                largest.name,
                bytes_of(largest)
            ),
        }].into());
    }
    // Shim and core: one DMA channel per FIFO, 2 each way; more tensors travel in packs.
    outline_block(context, module, kernel, the_loop, &params, &name)?;
    let (stack, cost) = lower_block_functions(context, module, device.family)?;
    // A failed run-time check goes back to the host in a status word per block (D96).
    if let Some(sites) = checks_into_status(context, module, &format!("{name}_block"))? {
        let rows = if single { 1 } else { blocks };
        let mut name = "htp_status".to_string();
        while params.iter().any(|p| p.name == name) {
            name.push('_');
        }
        let role = if single { Role::Whole } else { Role::Rows };
        params.push(Param { name, role, output: true, rows, cols: 1, element: "i32".into(), location: location_text(loop_location), scalar: false, position: None, packed: None, read_too: false, block_rows: 1, moved_rows: rows, host_rows: rows, in_pack: None, out_pack: None, is_pack: false, by_columns: false, elements: rows, inner_step: None, col_major: false, checks: sites, batches: None });
    }
    pack_tensors(&mut params);
    if params.iter().any(|p| !p.checks.is_empty()) && output_fifos(&params) > 2 {
        let first = params.iter().find(|p| p.output && p.checks.is_empty()).expect("the kernel writes an output");
        return Err(vec![MlirError {
            position: first.position.clone(),
            message: "this kernel checks indices at run time, and its blocks' status (D96) takes one of a core's two output DMA channels: the kernel's other outputs must then travel on the other, which they do only when they are all streamed by row block (packed)".into(),
        }]
        .into());
    }
    if let Some(refusal) = column_major_blocks(&params) {
        return Err(refusal.into());
    }
    if let Some(p) = params.iter().find(|p| p.carried() && p.moves_as_bytes()) {
        // Only a tensor streamed over an inner loop that others walk differently is left.
        let what = if p.element == "i1" { "a bool tensor".to_string() } else { format!("a tensor whose objects ({} bytes) are not whole 32-bit words", p.object_bytes()) };
        return Err(vec![MlirError {
            position: p.position.clone(),
            message: format!("'{}' is {what}, streamed over an inner loop that the kernel's other streamed tensors do not share: the aie targets move such tensors as bytes in a pack of one loop's tensors", p.name),
        }]
        .into());
    }
    let per_core: i64 = params.iter().filter(|p| p.carried()).map(bytes_of).sum();
    if per_core > budget {
        return Err(error(
            Some(loop_location),
            format!(
                "each core would hold {per_core} bytes of FIFO objects ({DEPTH} blocks of {rows_per_block} rows of each streamed tensor, invariant tensors whole), more than the {budget} a compute tile has beside its stack: take fewer rows per block"
            ),
        ).into());
    }
    // Cores: the most (up to 4) that divide the blocks and fit the memtile's
    // 6 channels each way (each streamed input: 1 in, n out; each output: n
    // in, 1 out) and each core's 2 (one per FIFO into and out of it).
    let inputs = params.iter().filter(|p| p.carried() && p.inbound() && (p.role == Role::Rows || p.output)).count() as u32;
    let outs = output_fifos(&params) as u32;
    // A tensor streamed over an inner loop: one channel each way, its objects to every core of the column.
    let inner = params.iter().filter(|p| p.role == Role::Inner && p.carried()).count() as u32;
    if device.columns < 1 {
        return Err(error(None, "a device without columns").into());
    }
    // Columns (D58): `columns x per_column` cores, each column's memtile
    // and shim channels as above (broadcasts leave from column 0's shim) and
    // each column's share of a streamed tensor one shim buffer descriptor:
    // the fewest blocks per core, then the fewest cores (the fewest blocks
    // past the end), then the fewest columns. Core `g` takes blocks `g, g +
    // cores, ...` of the blocks rounded up to a multiple of the cores; the
    // host pads the streamed tensors to those rows and a core skips a block
    // past the end (a ragged last block is masked in the block function).
    let fits_window = |per_column: u32, columns: u32| {
        columns == 1
            || params.iter().filter(|p| p.role == Role::Rows && p.carried()).all(|p| {
                let bits = bits_of(&p.element);
                let share = per_column as i64 * p.block_rows * p.cols;
                let inner = inner_size(share, bits);
                // A column-major tensor's trips are the repeat dimension (at most 64, D95).
                let trips = ceil_div(blocks, per_column as i64 * columns as i64);
                share / inner <= 1023 && trips <= if p.col_major { 64 } else { 1023 }
            })
    };
    let (columns, cores) = if single { Some((1, 1)) } else { None }
        .into_iter()
        .chain((1..=device.columns).flat_map(|c| (1..=4u32).map(move |n| (c, n))).filter(|_| !single))
        .filter(|&(c, n)| inputs * n + outs + inner <= 6 && inputs + outs * n + inner <= 6 && fits_window(n, c))
        .min_by_key(|&(c, n)| (ceil_div(blocks, c as i64 * n as i64), c * n, c))
        .ok_or_else(|| error(Some(loop_location), "no core count fits the memtile's DMA channels"))?;
    let all_cores = (columns * cores) as i64;
    let padded_blocks = ceil_div(blocks, all_cores) * all_cores;
    for p in params.iter_mut().filter(|p| p.role == Role::Rows) {
        p.moved_rows = padded_blocks * p.block_rows;
        p.host_rows = p.rows.max(p.moved_rows);
        if p.col_major {
            // Its columns' pitch in the host buffer: whole 32-bit words (D95).
            let per_word = 32 / bits_of(&p.element).min(32);
            p.host_rows = ceil_div(p.host_rows, per_word) * per_word;
        }
    }
    // Each column's shim moves a tensor streamed over an inner loop once for each block of its cores.
    for p in params.iter_mut().filter(|p| p.role == Role::Inner) {
        p.moved_rows = p.rows * padded_blocks / all_cores * columns as i64;
    }

    if per_core + stack > crate::architecture::COMPUTE_MEMORY as i64 {
        return Err(error(
            Some(loop_location),
            if single {
                format!("the kernel's tensors, whole on one core, take {per_core} bytes and its temporaries a stack of {stack} bytes, more than a compute tile's {} bytes", crate::architecture::COMPUTE_MEMORY)
            } else {
                format!("each core would hold {per_core} bytes of FIFO objects and a stack of {stack} bytes (its temporaries), more than a compute tile's {} bytes: take fewer rows per block", crate::architecture::COMPUTE_MEMORY)
            },
        ).into());
    }
    let design = emit(&name, device, &params, rows_per_block, padded_blocks, upper, columns, cores, stack, &location_text(loop_location));
    // The design around the lowered block function: parsed (its locations
    // are the user's), then the function moved into the device.
    let (parsed, errors) = htp_dialects::diagnostics::collect_errors(context, || Module::parse(context, &design));
    let parsed = parsed.ok_or_else(|| {
        if errors.is_empty() {
            vec![MlirError { position: None, message: format!("internal error: the AIE design does not parse:\n{design}") }]
        } else {
            errors
        }
    })?;
    let device_body = parsed
        .body()
        .first_operation()
        .and_then(|device| device.region(0).ok())
        .and_then(|region| region.first_block())
        .ok_or_else(|| error(None, "internal error: the design has no aie.device"))?;
    let mut anchor = device_body.first_operation();
    while let Some(current) = anchor {
        if op_name(current) == "aie.core" {
            break;
        }
        anchor = current.next_in_block();
    }
    let anchor = anchor.ok_or_else(|| error(None, "internal error: the design has no core"))?;
    // The declaration the design was parsed with gives way to the function.
    let mut declaration = None;
    let mut op = device_body.first_operation();
    while let Some(current) = op {
        if op_name(current) == "func.func" {
            declaration = Some(current);
        }
        op = current.next_in_block();
    }
    let declaration = declaration.ok_or_else(|| error(None, "internal error: no block function declaration"))?;
    // The block function and what it refers to (constants bufferization
    // made `memref.global`s).
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), anchor.to_raw()) };
    }
    unsafe { mlir_sys::mlirOperationDestroy(declaration.to_raw()) };
    // The same context made both; melior ties them to different borrows.
    let raw = parsed.to_raw();
    std::mem::forget(parsed);
    *module = unsafe { Module::from_raw(raw) };
    let streamed: Vec<&Param> = params.iter().filter(|p| p.role == Role::Inner).collect();
    if !streamed.is_empty() {
        let device_body = module.body().first_operation().and_then(|d| d.region(0).ok()).and_then(|r| r.first_block()).ok_or_else(|| error(None, "internal error: the design has no aie.device"))?;
        inline_streaming_cores(context, device_body, &name, &streamed, columns)?;
    }
    crate::finish::strip_htp_attributes(module);
    let (verified, errors) = htp_dialects::diagnostics::collect_errors(context, || module.as_operation().verify());
    if !verified {
        return Err(if errors.is_empty() { error(None, "the AIE design does not verify") } else { errors }.into());
    }
    let text = module.as_operation().to_string();
    // What moves: the parameters with FIFOs of their own and the packs.
    let carriers: Vec<Param> = params.iter().filter(|p| p.carried()).cloned().collect();
    let mac_input = params.iter().find(|p| !p.output && !p.is_pack).map(|p| p.element.clone()).unwrap_or_default();
    let device_op = crate::finish::device_of(module).ok_or_else(|| error(None, "internal error: the design has no aie.device"))?;
    let mut metrics = crate::finish::metrics(context, device_op, stack);
    metrics.extend(memtile_metrics(&carriers, cores));
    metrics.extend(modelled(&carriers, &mac_input, device, columns, cores, padded_blocks, &cost));
    let tensors = host_tensors(&params);
    Ok(Design { text, cores: columns * cores, columns, kernel: name, metrics, tensors })
}

/// What the shim DMA cannot move of a column-major tensor's row blocks
/// (D95): each column's rows of a block are one run of whole 32-bit words,
/// its columns one dimension of a buffer descriptor (at most 1023); a pack
/// (D85) copies contiguous blocks, which such a block is not.
fn column_major_blocks(params: &[Param]) -> Option<Vec<MlirError>> {
    let p = params.iter().find(|p| p.col_major && p.role == Role::Rows)?;
    let bits = bits_of(&p.element);
    let refuse = |why: String| Some(vec![MlirError { position: p.position.clone(), message: format!("'{}' is column-major: each core receives each of its columns' {} rows of a block, {why}", p.name, p.block_rows) }]);
    if p.block_rows * bits % 32 != 0 {
        let rows = 32 / bits.min(32);
        return refuse(format!("which the shim DMA moves as whole 32-bit words: take a multiple of {rows} rows per block"));
    }
    if p.block_rows * bits / 32 > 1023 || p.cols > 1023 {
        return refuse(format!("one run of a buffer descriptor per column, which takes runs of at most 1023 words and at most 1023 of them; it has {} columns: take fewer columns or rows per block", p.cols));
    }
    if p.in_pack.is_some() || p.out_pack.is_some() {
        return refuse("but it would travel in a pack of several tensors' blocks (more tensors than a core's two DMA channels each way), which holds contiguous blocks: give it row-major, or pass fewer tensors".into());
    }
    None
}

/// The runtime sequence's buffers in argument order (the parameters with
/// FIFOs of their own, then the packs, D85) as the host program fills them.
fn host_tensors(params: &[Param]) -> Vec<crate::host::HostTensor> {
    let kernel_argument = |p: &Param| params.iter().position(|q| std::ptr::eq(q, p));
    params
        .iter()
        .filter(|p| p.carried())
        .map(|p| {
            let parts = params
                .iter()
                .filter(|q| p.is_pack && !q.is_pack)
                .filter_map(|q| {
                    let place = if p.output { &q.out_pack } else { &q.in_pack };
                    let offset = place.as_ref().filter(|(pack, _)| *pack == p.name)?.1;
                    Some(crate::host::PackPart {
                        name: q.name.clone(),
                        argument: kernel_argument(q)?,
                        element: q.element.clone(),
                        elements: q.elements,
                        object_elements: q.block_rows * q.cols,
                        offset,
                        output: q.output,
                        every_object: q.role == Role::Whole && p.role == Role::Rows,
                        runs: q.batches.and_then(|_| q.runs()),
                    })
                })
                .collect();
            let elements = if p.is_pack { p.host_rows * p.cols } else { p.elements };
            crate::host::HostTensor {
                name: p.name.clone(),
                element: p.element.clone(),
                elements,
                host_elements: p.host_rows * p.cols,
                output: p.output,
                scalar: p.scalar,
                argument: (!p.is_pack && p.checks.is_empty()).then(|| kernel_argument(p)).flatten(),
                parts,
                object_bytes: if p.is_pack { p.cols } else { 0 },
                runs: p.runs(),
                checks: p.checks.clone(),
            }
        })
        .collect()
}

/// The calls a lowered block function makes to report a failed run-time
/// check (`htp_api::checks::ERROR_FUNCTION`: an index of `htp.gather` or
/// `htp.scatter` outside its tile), which the cpu's runtime answers.
fn check_reports<'c>(module: &'c Module) -> Vec<OperationRef<'c, 'c>> {
    let callee = format!("@{}", htp_api::checks::ERROR_FUNCTION);
    htp_ir::query::ops_named_where(module.as_operation(), "func.call", |call| call.attribute("callee").is_ok_and(|c| c.to_string() == callee))
}

/// Refuses block functions that check at run time where nothing collects a
/// failed check (a CSP process's: its design has no status output).
pub fn refuse_run_time_checks(module: &Module) -> Result<(), Vec<MlirError>> {
    match check_reports(module).first() {
        None => Ok(()),
        Some(call) => Err(vec![MlirError {
            position: htp_dialects::diagnostics::source_position(call.location()),
            message: "this op checks its indices at run time (each must be inside the tile or tensor), and a CSP process on AIE has no status output to report a failed check to the host; the aie targets take it in a kernel".into(),
        }]),
    }
}

/// A kernel's failed checks reported in a status object instead of a call
/// (D96): the block function takes a `1 x 1` i32 object before its row
/// index, and where it called the error function with a site it stores
/// `site + 1` there unless an earlier site is already stored. The core
/// zeroes the object before each block; the host reads each block's word
/// after the run and raises the first site's error. Returns the module's
/// sites, or `None` when the block function checks nothing.
fn checks_into_status(context: &Context, module: &Module, function: &str) -> Result<Option<Vec<(htp_api::checks::SiteKind, String)>>, Vec<MlirError>> {
    use melior::ir::r#type::TypeLike;
    let calls = check_reports(module);
    if calls.is_empty() {
        return Ok(None);
    }
    let sites = htp_api::checks::sites(module.as_operation());
    let block_function = htp_ir::query::ops_named_where(module.as_operation(), "func.func", |f| htp_ir::query::symbol_name(f).as_deref() == Some(function));
    let internal = |what: &str| vec![MlirError { position: None, message: format!("internal error: {what}") }];
    let [block_function] = block_function.as_slice() else { return Err(internal("no block function to report checks from")) };
    if calls.iter().any(|call| !htp_ir::query::is_within(*call, *block_function)) {
        return Err(internal("a run-time check outside the block function"));
    }
    let body = block_function.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| internal("a block function without a body"))?;
    let location = block_function.location();
    let status_type = htp_ir::builder::parse_type(context, "memref<1x1xi32>");
    let at = body.argument_count() as isize - 1;
    let status: Value = unsafe { Value::from_raw(mlir_sys::mlirBlockInsertArgument(body.to_raw(), at, status_type.to_raw(), location.to_raw())) };
    htp_ir::builder::sync_function_inputs(context, *block_function);
    let integer = |bits| -> Type { melior::ir::r#type::IntegerType::new(context, bits).into() };
    let (i1_type, i32_type, i64_type) = (integer(1), integer(32), integer(64));
    let status = htp_ir::builder::detach(status);
    for call in calls {
        use htp_ir::builder::Builder;
        let e = htp_ir::builder::Emitter { context, block: call.block().expect("a call in a block"), anchor: call, location: call.location() };
        let site = htp_ir::builder::detach(call.operand(0).map_err(|e| internal(&e.to_string()))?);
        let zero = e.index(0);
        let code = e.value("arith.addi", &[site, e.number(i64_type, 1.0)], i64_type);
        let code = e.value("arith.trunci", &[code], i32_type);
        let stored = e.value("memref.load", &[status, zero, zero], i32_type);
        // predicate 0: eq
        let first = e.value_with("arith.cmpi", &[stored, e.number(i32_type, 0.0)], i1_type, &[("predicate", melior::ir::attribute::IntegerAttribute::new(i64_type, 0).into())]);
        let kept = e.value("arith.select", &[first, code, stored], i32_type);
        e.op("memref.store", &[kept, status, zero, zero], &[], &[], vec![]);
        unsafe { mlir_sys::mlirOperationDestroy(call.to_raw()) };
    }
    // The error function's declaration goes with its calls (a core links no runtime).
    for declaration in htp_ir::query::ops_named_where(module.as_operation(), "func.func", |f| htp_ir::query::symbol_name(f).as_deref() == Some(htp_api::checks::ERROR_FUNCTION)) {
        unsafe { mlir_sys::mlirOperationDestroy(declaration.to_raw()) };
    }
    Ok(Some(sites))
}

/// Lowers the tile-IR functions of `module` (the cores' block functions)
/// to the vector and scf/arith/memref code a core runs, and returns the
/// stack a core calling them needs — the default one and their temporaries
/// (a core has no heap, so a temporary too large for the stack is an error
/// at the user's line of the value that needs it) — and what one call of
/// the costliest of them issues.
pub fn lower_block_functions(context: &Context, module: &mut Module, family: crate::architecture::Family) -> Result<(i64, crate::cost_model::CoreCost), Vec<MlirError>> {
    htp_pass::dump::run_pipeline_collecting(context, module, BLOCK_TO_LINALG, "the AIE block lowering (to linalg)")?;
    accumulate_in_place(module);
    carry_in_place(module);
    materialize_into_cast_sources(module);
    // The transform dialect is loaded before the passes run: the vectorizer's script is parsed inside one.
    context.get_or_load_dialect("transform");
    let to_loops = BLOCK_TO_LOOPS.replace("{generation}", crate::vector_units::generation(family));
    htp_pass::dump::run_pipeline_collecting(context, module, &to_loops, "the AIE block lowering (to loops)")?;
    // Temporaries live on the core's stack (a core has no heap): the stack
    // grows by their bytes, and must still fit beside the FIFO objects.
    let mut temporaries = 0i64;
    let mut heap = None;
    module.as_operation().walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        if name == "memref.alloc" && heap.is_none() {
            // What kept it off the stack: its size (unknown, or over the stack's share), else
            // that it is made anew on each trip of a loop carrying it.
            let bytes = op.result(0).ok().and_then(|r| {
                let ty: Type = r.r#type();
                let shape = htp_ir::builder::shape_of(ty);
                let bits = MemRefType::try_from(ty).map(|m| htp_ir::builder::bit_width(m.element()) as i64).unwrap_or(32);
                shape.iter().all(|&d| d >= 0).then(|| shape.iter().product::<i64>() * ((bits + 7) / 8))
            });
            let position = htp_dialects::diagnostics::source_position(op.location()).or(Some(htp_dialects::diagnostics::SourcePosition { file: String::new(), line: 0, column: 0 }));
            heap = Some((position, bytes.is_some_and(|b| b <= 16384)));
        } else if name == "memref.alloca" {
            if let Ok(result) = op.result(0) {
                let ty: Type = result.r#type();
                let shape = htp_ir::builder::shape_of(ty);
                let bits = MemRefType::try_from(ty).map(|m| htp_ir::builder::bit_width(m.element()) as i64).unwrap_or(32);
                temporaries += shape.iter().product::<i64>().max(1) * ((bits as u64).div_ceil(8) as i64);
            }
        }
        melior::ir::operation::WalkResult::Advance
    });
    if let Some((position, carried)) = heap {
        let position = position.filter(|p| !p.file.is_empty());
        let message = if carried {
            "this value is made anew on each trip of a loop that carries it (bufferization could not keep it in one buffer, D86), and a compute tile has no heap for the new buffers"
        } else {
            "this value needs a temporary buffer larger than the aie targets put on a core's stack (16 KiB); a compute tile has no heap: take smaller tiles"
        };
        return Err(vec![MlirError { position, message: message.into() }]);
    }
    let stack = crate::architecture::DEFAULT_STACK as i64 + ((temporaries as u64).div_ceil(32) * 32) as i64;
    // What one call of the costliest block function issues (cost_model.rs).
    let unit = crate::vector_units::VectorUnit::of(family);
    let cost = htp_ir::query::ops_named(module.as_operation(), "func.func")
        .into_iter()
        .map(|function| crate::cost_model::function_cost(function, unit))
        .fold(crate::cost_model::CoreCost::default(), crate::cost_model::CoreCost::max);
    Ok((stack, cost))
}

/// Moves the kernel's loop body into `func.func @<k>_block(objects...,
/// %row: index)`, in place of the kernel: row-walked parameters become
/// `memref<R x C>` objects loaded and stored at row 0, invariant ones stay
/// whole, the loop's induction variable becomes `%row`.
fn outline_block<'c>(context: &'c Context, module: &Module, kernel: OperationRef<'_, '_>, the_loop: Option<OperationRef<'_, '_>>, params: &[Param], name: &str) -> Result<(), Vec<MlirError>> {
    use melior::ir::{attribute::TypeAttribute, r#type::FunctionType, Block, Region};
    let location = kernel.location();
    let kernel_body = kernel.region(0).ok().and_then(|r| r.first_block()).expect("checked");
    // (Without a loop, on one core: the whole body, called once.)
    let loop_body = the_loop.and_then(|l| l.region(0).ok()).and_then(|r| r.first_block());
    let index = Type::index(context);
    let mut types: Vec<Type> = Vec::new();
    // The block function's argument of each parameter (none for a tensor streamed over an inner
    // loop: its objects come from the FIFO in the loop itself).
    let mut slots: Vec<Option<usize>> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if p.role == Role::Inner {
            slots.push(None);
            continue;
        }
        slots.push(Some(types.len()));
        let ty = if p.role == Role::Rows || p.col_major {
            htp_ir::builder::parse_type(context, &p.view_type())
        } else if p.scalar {
            htp_ir::builder::parse_type(context, &format!("memref<1x{}x{}>", p.cols, p.element))
        } else {
            kernel_body.argument(i).expect("checked").r#type()
        };
        types.push(ty);
    }
    types.push(index);
    let arguments: Vec<(Type, Location)> = types.iter().map(|t| (*t, location)).collect();
    let region = Region::new();
    let block = region.append_block(Block::new(&arguments));
    let block: melior::ir::BlockRef<'c, 'c> = unsafe { melior::ir::BlockRef::from_raw(block.to_raw()) };
    let function = melior::ir::operation::OperationBuilder::new("func.func", location)
        .add_attributes(&[
            (htp_ir::builder::named(context, "sym_name"), StringAttribute::new(context, &format!("{name}_block")).into()),
            (htp_ir::builder::named(context, "function_type"), TypeAttribute::new(FunctionType::new(context, &types, &[]).into()).into()),
        ])
        .add_regions([region])
        .build()
        .map_err(|e| error(Some(location), e.to_string()))?;
    let ret = melior::ir::operation::OperationBuilder::new("func.return", location).build().map_err(|e| error(None, e.to_string()))?;
    let ret = block.append_operation(ret);
    let zero = block.insert_operation_before(ret, melior::dialect::arith::constant(context, melior::ir::attribute::IntegerAttribute::new(index, 0).into(), location));
    let zero: Value = zero.result(0).expect("constant").into();
    // Each run-time scalar, loaded from its one-word object first.
    let mut loaded: Vec<(usize, Value)> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if let (true, Some(slot)) = (p.scalar, slots[i]) {
            let object: Value = block.argument(slot).expect("built").into();
            let load = melior::ir::operation::OperationBuilder::new("memref.load", location)
                .add_operands(&[object, zero, zero])
                .add_results(&[kernel_body.argument(i).expect("checked").r#type()])
                .build()
                .map_err(|e| error(Some(location), e.to_string()))?;
            let load = block.insert_operation_before(ret, load);
            loaded.push((i, load.result(0).expect("a load").into()));
        }
    }
    // The kernel's values outside the loop first (pure: checked), then the body.
    let mut op = kernel_body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = op_name(current);
        if name != "func.return" && (name != "scf.for" || loop_body.is_none()) {
            unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), ret.to_raw()) };
        }
    }
    let mut op = loop_body.and_then(|b| b.first_operation());
    while let Some(current) = op {
        op = current.next_in_block();
        if op_name(current) != "scf.yield" {
            unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), ret.to_raw()) };
        }
    }
    // Loads and stores of row-walked parameters at row `i` → row 0 of the object.
    for (i, p) in params.iter().enumerate() {
        let argument: Value = kernel_body.argument(i).expect("checked").into();
        if p.role == Role::Rows {
            // A block's rows (a 1-D tensor's window of columns) are its object's first.
            let at = if p.by_columns { 1 } else { 0 };
            for user in htp_ir::query::uses(htp_ir::builder::detach(argument)) {
                let row = if op_name(user) == "tile.load" { 1 } else { 2 };
                unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), row + at, zero.to_raw()) };
            }
        }
        let Some(slot) = slots[i] else {
            stream_over_inner_loop(context, module, argument, p, zero)?;
            continue;
        };
        let object: Value = loaded.iter().find(|(j, _)| *j == i).map(|(_, v)| *v).unwrap_or_else(|| block.argument(slot).expect("built").into());
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), object.to_raw()) };
    }
    if let Some(iv) = loop_body.and_then(|b| b.argument(0).ok()) {
        let row: Value = block.argument(types.len() - 1).expect("built").into();
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(melior::ir::ValueLike::to_raw(&iv), row.to_raw()) };
    }
    // The kernel goes; the block function takes its place.
    unsafe { mlir_sys::mlirBlockInsertOwnedOperationBefore(module.body().to_raw(), kernel.to_raw(), function.into_raw()) };
    unsafe { mlir_sys::mlirOperationDestroy(kernel.to_raw()) };
    Ok(())
}

/// The names of the functions a block function calls to acquire and release
/// a trip's object of a tensor streamed over an inner loop (D87); inlined
/// into the core, the calls become the FIFO's acquire and release.
fn inner_stream_functions(tensor: &str) -> (String, String) {
    (format!("htp_aie_acquire_{tensor}"), format!("htp_aie_release_{tensor}"))
}

/// The calls of `callee` within `root`.
fn calls_of<'c>(root: OperationRef<'c, '_>, callee: &str) -> Vec<OperationRef<'c, 'c>> {
    let callee = format!("@{callee}");
    htp_ir::query::ops_named(root, "func.call").into_iter().filter(|c| c.attribute("callee").is_ok_and(|a| a.to_string() == callee)).collect()
}

/// Cores whose block function streams a tensor over an inner loop (D87)
/// take the function's body inline — mlir-aie lowers a FIFO's acquire and
/// release only inside a core — and the calls standing for them become the
/// acquire, access and release of the column's FIFO of the tensor; the
/// function's stack buffers go to the core's entry.
fn inline_streaming_cores(context: &Context, device_body: melior::ir::BlockRef, kernel: &str, streamed: &[&Param], columns: u32) -> Result<(), Vec<MlirError>> {
    let named = |op: OperationRef, name: &str| op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).is_some_and(|s| s.value() == name);
    let block_function = format!("{kernel}_block");
    let mut functions = Vec::new();
    let mut cores = Vec::new();
    let mut op = device_body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        match op_name(current).as_str() {
            "func.func" => functions.push(current),
            "aie.core" => cores.push(current),
            _ => {}
        }
    }
    let function = *functions.iter().find(|f| named(**f, &block_function)).ok_or_else(|| error(None, "internal error: no block function"))?;
    for core in cores {
        let column = core
            .operand(0)
            .ok()
            .and_then(|tile| htp_ir::query::defining_op(htp_ir::builder::detach(tile)))
            .and_then(|tile| tile.attribute("col").ok())
            .and_then(|col| melior::ir::attribute::IntegerAttribute::try_from(col).ok())
            .map(|col| col.value())
            .ok_or_else(|| error(None, "internal error: a core without its tile"))?;
        for call in calls_of(core, &block_function) {
            let clone = unsafe { OperationRef::from_raw(mlir_sys::mlirOperationClone(function.to_raw())) };
            let body = clone.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| error(None, "internal error: an empty block function"))?;
            for i in 0..body.argument_count() {
                let (Ok(argument), Ok(operand)) = (body.argument(i), call.operand(i)) else { continue };
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), operand.to_raw()) };
            }
            let mut inner = body.first_operation();
            while let Some(current) = inner {
                inner = current.next_in_block();
                if op_name(current) != "func.return" {
                    unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), call.to_raw()) };
                }
            }
            unsafe {
                mlir_sys::mlirOperationDestroy(call.to_raw());
                mlir_sys::mlirOperationDestroy(clone.to_raw());
            }
        }
        let fifo_of = |p: &Param| if columns == 1 { format!("{}_cores", p.name) } else { format!("{}_c{column}_cores", p.name) };
        for pack in streamed.iter().filter(|p| p.is_pack) {
            let members: Vec<&&Param> = streamed.iter().filter(|m| m.in_pack.as_ref().is_some_and(|(name, _)| *name == pack.name)).collect();
            inline_inner_pack(context, core, pack, &members, &fifo_of(pack))?;
        }
        for p in streamed.iter().filter(|p| !p.is_pack && p.in_pack.is_none()) {
            let fifo = fifo_of(p);
            let object = p.object_type();
            let (acquire, release) = inner_stream_functions(&p.name);
            let ends = consume_attributes(context, &fifo)?;
            for call in calls_of(core, &acquire) {
                let object = acquire_object(context, call, &ends, &object)?;
                unsafe {
                    mlir_sys::mlirValueReplaceAllUsesOfWith(call.result(0).map_err(|e| error(None, e.to_string()))?.to_raw(), object.to_raw());
                    mlir_sys::mlirOperationDestroy(call.to_raw());
                }
            }
            for call in calls_of(core, &release) {
                release_object(call, &ends)?;
                unsafe { mlir_sys::mlirOperationDestroy(call.to_raw()) };
            }
        }
        crate::hoist_stack_buffers::hoist_to_entry(core);
    }
    // The block function and the declarations standing for the FIFO's ends are no longer called.
    for f in functions {
        let stands_for_fifo = streamed.iter().any(|p| {
            let (acquire, release) = inner_stream_functions(&p.name);
            named(f, &acquire) || named(f, &release)
        });
        if named(f, &block_function) || stands_for_fifo {
            unsafe { mlir_sys::mlirOperationDestroy(f.to_raw()) };
        }
    }
    Ok(())
}

/// The acquire, access and release of a FIFO end `fifo` of a core, as built
/// ops: `(name, attributes)` for `aie.objectfifo.acquire`/`release`.
fn consume_attributes<'c>(context: &'c Context, fifo: &str) -> Result<[(melior::ir::Identifier<'c>, melior::ir::Attribute<'c>); 3], Vec<MlirError>> {
    let attribute = |text: &str| melior::ir::Attribute::parse(context, text).ok_or_else(|| error(None, format!("internal error: attribute {text}")));
    Ok([
        (htp_ir::builder::named(context, "objFifo_name"), attribute(&format!("@{fifo}"))?),
        (htp_ir::builder::named(context, "port"), attribute("1 : i32")?),
        (htp_ir::builder::named(context, "size"), attribute("1 : i32")?),
    ])
}

/// One object of the FIFO end `ends` acquired before `before` (the acquire
/// and its access, typed `object`), as the core's code uses it.
fn acquire_object<'c>(context: &'c Context, before: OperationRef<'c, '_>, ends: &[(melior::ir::Identifier<'c>, melior::ir::Attribute<'c>)], object: &str) -> Result<Value<'c, 'c>, Vec<MlirError>> {
    let fail = |e: melior::Error| error(None, e.to_string());
    let block = before.block().ok_or_else(|| error(None, "internal error: an op outside a block"))?;
    let location = before.location();
    let subview = htp_ir::builder::parse_type(context, &format!("!aie.objectfifosubview<{object}>"));
    let taken = block.insert_operation_before(before, melior::ir::operation::OperationBuilder::new("aie.objectfifo.acquire", location).add_attributes(ends).add_results(&[subview]).build().map_err(fail)?);
    let index = melior::ir::Attribute::parse(context, "0 : i32").ok_or_else(|| error(None, "internal error: an index"))?;
    let access = block.insert_operation_before(
        before,
        melior::ir::operation::OperationBuilder::new("aie.objectfifo.subview.access", location)
            .add_operands(&[taken.result(0).map_err(fail)?.into()])
            .add_attributes(&[(htp_ir::builder::named(context, "index"), index)])
            .add_results(&[htp_ir::builder::parse_type(context, object)])
            .build()
            .map_err(fail)?,
    );
    let value: Value = access.result(0).map_err(fail)?.into();
    Ok(unsafe { Value::from_raw(value.to_raw()) })
}

/// One object of the FIFO end `ends` released before `before`.
fn release_object(before: OperationRef, ends: &[(melior::ir::Identifier, melior::ir::Attribute)]) -> Result<(), Vec<MlirError>> {
    let block = before.block().ok_or_else(|| error(None, "internal error: an op outside a block"))?;
    let release = melior::ir::operation::OperationBuilder::new("aie.objectfifo.release", before.location()).add_attributes(ends).build().map_err(|e| error(None, e.to_string()))?;
    block.insert_operation_before(before, release);
    Ok(())
}

/// A pack of tensors streamed over one inner loop (D85, D87) in a core: at
/// each trip's acquire of its first part the pack's object is acquired and
/// viewed as bytes, and every part's acquire becomes a `memref.view` of it at
/// the part's offset; the first part's release releases the pack, the
/// others' go.
fn inline_inner_pack(context: &Context, core: OperationRef, pack: &Param, members: &[&&Param], fifo: &str) -> Result<(), Vec<MlirError>> {
    let Some(first) = members.first() else { return Ok(()) };
    let fail = |e: melior::Error| error(None, e.to_string());
    let ends = consume_attributes(context, fifo)?;
    let index = Type::index(context);
    let bytes = htp_ir::builder::parse_type(context, &format!("memref<{}xi8>", pack.cols));
    for first_call in calls_of(core, &inner_stream_functions(&first.name).0) {
        let block = first_call.block().ok_or_else(|| error(None, "internal error: a call outside a block"))?;
        let location = first_call.location();
        // (The parts' acquires open the trip, in any order: the pack's goes before them all.)
        let call = block.first_operation().ok_or_else(|| error(None, "internal error: an empty trip"))?;
        let object = acquire_object(context, call, &ends, &pack.object_type())?;
        let reassociation = melior::ir::Attribute::parse(context, "[[0, 1]]").ok_or_else(|| error(None, "internal error: a reassociation"))?;
        let flat = block.insert_operation_before(
            call,
            melior::ir::operation::OperationBuilder::new("memref.collapse_shape", location)
                .add_operands(&[object])
                .add_attributes(&[(htp_ir::builder::named(context, "reassociation"), reassociation)])
                .add_results(&[bytes])
                .build()
                .map_err(fail)?,
        );
        let flat: Value = flat.result(0).map_err(fail)?.into();
        for member in members {
            let offset = member.in_pack.as_ref().map_or(0, |(_, offset)| *offset);
            let Some(part) = calls_of(core, &inner_stream_functions(&member.name).0).into_iter().find(|c| c.block() == Some(block)) else { continue };
            let shift = block.insert_operation_before(part, melior::dialect::arith::constant(context, melior::ir::attribute::IntegerAttribute::new(index, offset).into(), location));
            let view = block.insert_operation_before(
                part,
                melior::ir::operation::OperationBuilder::new("memref.view", location)
                    .add_operands(&[flat, shift.result(0).map_err(fail)?.into()])
                    .add_results(&[htp_ir::builder::parse_type(context, &member.object_type())])
                    .build()
                    .map_err(fail)?,
            );
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(part.result(0).map_err(fail)?.to_raw(), view.result(0).map_err(fail)?.to_raw());
                mlir_sys::mlirOperationDestroy(part.to_raw());
            }
        }
    }
    for (i, member) in members.iter().enumerate() {
        for call in calls_of(core, &inner_stream_functions(&member.name).1) {
            if i == 0 {
                release_object(call, &ends)?;
            }
            unsafe { mlir_sys::mlirOperationDestroy(call.to_raw()) };
        }
    }
    Ok(())
}

/// A tensor streamed over an inner loop (`Role::Inner`, D87): each trip of
/// the loop acquires its object first and releases it last, and its loads
/// read row 0 of the object.
fn stream_over_inner_loop<'c>(context: &'c Context, module: &Module, tensor: Value, p: &Param, zero: Value) -> Result<(), Vec<MlirError>> {
    use melior::ir::{attribute::TypeAttribute, r#type::FunctionType, Region};
    let location = Location::unknown(context);
    let object = htp_ir::builder::parse_type(context, &p.object_type());
    let (acquire, release) = inner_stream_functions(&p.name);
    for (function, results) in [(&acquire, vec![object]), (&release, vec![])] {
        let declaration = melior::ir::operation::OperationBuilder::new("func.func", location)
            .add_attributes(&[
                (htp_ir::builder::named(context, "sym_name"), StringAttribute::new(context, function).into()),
                (htp_ir::builder::named(context, "function_type"), TypeAttribute::new(FunctionType::new(context, &[], &results).into()).into()),
                (htp_ir::builder::named(context, "sym_visibility"), StringAttribute::new(context, "private").into()),
            ])
            .add_regions([Region::new()])
            .build()
            .map_err(|e| error(None, e.to_string()))?;
        module.body().append_operation(declaration);
    }
    let uses = htp_ir::query::uses(htp_ir::builder::detach(tensor));
    let inner = uses.first().and_then(|u| u.operand(1).ok()).and_then(|row| htp_ir::query::block_argument_owner(htp_ir::builder::detach(row)));
    let body = inner.and_then(|l| l.region(0).ok()).and_then(|r| r.first_block()).ok_or_else(|| error(None, "internal error: a streamed tensor without its inner loop"))?;
    let (Some(first), Some(last)) = (body.first_operation(), body.terminator()) else { return Err(error(None, "internal error: an empty inner loop")) };
    let call = |callee: &str, results: &[Type<'c>]| {
        melior::ir::operation::OperationBuilder::new("func.call", location)
            .add_attributes(&[(htp_ir::builder::named(context, "callee"), melior::ir::attribute::FlatSymbolRefAttribute::new(context, callee).into())])
            .add_results(results)
            .build()
            .map_err(|e| error(None, e.to_string()))
    };
    let acquired = body.insert_operation_before(first, call(&acquire, &[object])?);
    body.insert_operation_before(last, call(&release, &[])?);
    let acquired: Value = acquired.result(0).map_err(|e| error(None, e.to_string()))?.into();
    for user in uses {
        unsafe {
            mlir_sys::mlirOperationSetOperand(user.to_raw(), 0, acquired.to_raw());
            mlir_sys::mlirOperationSetOperand(user.to_raw(), 1, zero.to_raw());
            mlir_sys::mlirOperationSetOperand(user.to_raw(), 2, zero.to_raw());
        }
    }
    Ok(())
}

/// Whether a kernel run once writes the whole of an output of `shape`: a
/// `tile.store` in the kernel's body itself (under no condition or loop)
/// at row and column 0 of a tile as large as the output, whole.
fn writes_whole_tensor(uses: &[OperationRef], body: melior::ir::BlockRef, shape: &[i64]) -> bool {
    uses.iter().any(|store| {
        let tile = store.operand(0).ok().and_then(|v| htp_dialects::tile::TileType::try_from(v.r#type()).ok());
        let at_zero = (2..4).all(|k| store.operand(k).ok().and_then(|v| constant_int(htp_ir::builder::detach(v))) == Some(0));
        op_name(*store) == "tile.store"
            && store.block() == Some(body)
            && at_zero
            && tile.is_some_and(|t| {
                t.rows() >= shape[0]
                    && t.cols() >= shape[1]
                    && t.valid_size(0) == htp_dialects::tile::ValidSize::Static(t.rows())
                    && t.valid_size(1) == htp_dialects::tile::ValidSize::Static(t.cols())
            })
    })
}

/// Whether the block's stores write every column of the output on every block: a `tile.store`
/// in the row-block loop's body, under no condition, either as wide as the output from column 0
/// or stepping over the columns in an inner loop (`for j in range(0, H, C)`: `y[i:i + R, j:j + C]`).
fn writes_whole_block(uses: &[OperationRef], loop_body: melior::ir::BlockRef, columns: i64) -> bool {
    uses.iter().any(|store| {
        if op_name(*store) != "tile.store" {
            return false;
        }
        let Some(tile) = store.operand(0).ok().and_then(|v| htp_dialects::tile::TileType::try_from(v.r#type()).ok()) else { return false };
        let width = tile.cols();
        // A tile whole in its columns (padded, or never ragged) writes all of them within the
        // output's bounds; a ragged one only its valid columns.
        let full = tile.valid_size(1) == htp_dialects::tile::ValidSize::Static(width);
        let Ok(column) = store.operand(3) else { return false };
        // The loops between the store and the row-block loop: all scf.for, no condition.
        let mut column_loop = None;
        let mut block = store.block();
        while let Some(current) = block {
            if current == loop_body {
                break;
            }
            let Some(parent) = current.parent_operation() else { return false };
            if op_name(parent) != "scf.for" {
                return false;
            }
            if current.argument(0).is_ok_and(|iv| same(iv.into(), column)) {
                column_loop = Some(parent);
            }
            block = parent.block();
        }
        if block.is_none() {
            return false;
        }
        match column_loop {
            None => constant_int(htp_ir::builder::detach(column)) == Some(0) && width == columns,
            Some(inner) => {
                let bound = |k: usize| inner.operand(k).ok().and_then(|v| constant_int(htp_ir::builder::detach(v)));
                let covered = |end: i64| if full { ceil_div(end, width) * width } else { end };
                bound(0) == Some(0) && bound(2) == Some(width) && bound(1).is_some_and(|end| covered(end) >= columns)
            }
        }
    })
}

/// The rows per block of a tensor accessed at row `row` of the loop over
/// `iv` by `step`: `iv` itself (`step` rows), or `k * B` for the block
/// number `k` (`i // step * B`; `i * c` is `k * step * c`; with a step of
/// one, `b` is `k`). `None`: rows that are not one block per block.
fn block_rows_at(row: Value, iv: Value, step: i64) -> Option<i64> {
    if same(row, iv) {
        return Some(step);
    }
    let op = htp_ir::query::defining_op(htp_ir::builder::detach(row))?;
    let constant = |v: Value| constant_int(htp_ir::builder::detach(v));
    // `iv / step`, the block number.
    let block_number = |v: Value| {
        htp_ir::query::defining_op(htp_ir::builder::detach(v)).is_some_and(|d| {
            matches!(op_name(d).as_str(), "arith.floordivsi" | "arith.divsi" | "arith.divui")
                && d.operand(0).is_ok_and(|a| same(a, iv))
                && d.operand(1).ok().and_then(constant) == Some(step)
        })
    };
    match op_name(op).as_str() {
        "arith.muli" => {
            let (a, b) = (op.operand(0).ok()?, op.operand(1).ok()?);
            let (x, c) = match (constant(a), constant(b)) {
                (_, Some(c)) => (a, c),
                (Some(c), _) => (b, c),
                _ => return None,
            };
            if c <= 0 {
                return None;
            }
            if same(x, iv) {
                Some(step * c)
            } else if block_number(x) {
                Some(c)
            } else {
                None
            }
        }
        _ if block_number(row) => Some(1),
        _ => None,
    }
}

/// Bits of an element type the aie targets move.
pub fn bits_of(element: &str) -> i64 {
    match element {
        "i64" => 64,
        "f32" | "i32" => 32,
        "f16" | "bf16" | "i16" => 16,
        // i8, and i1 (bool: a byte per element, as numpy and LLVM keep it).
        _ => 8,
    }
}

/// The most elements of `bits` a buffer descriptor's innermost dimension
/// moves: 1023 32-bit words (mlir-aie scales the elements to words).
pub fn inner_elements(bits: i64) -> i64 {
    1023 * 32 / bits
}

/// `a / b` rounded up (positive `b`).
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// A core's copy of the object `fifo` gives (`rows x cols` of `ty`) into
/// `%<name>_o`, element by element: an in-out tensor's elements as they are,
/// before the block writes some of them.
fn copy_in(name: &str, fifo: &str, ty: &str, rows: i64, cols: i64, location: &str, indent: &str) -> String {
    let mut s = String::new();
    s += &format!("{indent}%{name}_is = aie.objectfifo.acquire @{fifo}(Consume, 1) : !aie.objectfifosubview<{ty}> {location}\n");
    s += &format!("{indent}%{name}_i = aie.objectfifo.subview.access %{name}_is[0] : !aie.objectfifosubview<{ty}> -> {ty}\n");
    s += &copy_loop(name, ty, rows, cols, indent);
    s += &format!("{indent}aie.objectfifo.release @{fifo}(Consume, 1) {location}\n");
    s
}

/// `%<name>_i` copied into `%<name>_o` (`rows x cols` of `ty`), element by element.
fn copy_loop(name: &str, ty: &str, rows: i64, cols: i64, indent: &str) -> String {
    let mut s = String::new();
    s += &format!("{indent}%{name}_rows = arith.constant {rows} : index\n{indent}%{name}_cols = arith.constant {cols} : index\n");
    s += &format!("{indent}scf.for %{name}_r = %zero to %{name}_rows step %one {{\n{indent}  scf.for %{name}_c = %zero to %{name}_cols step %one {{\n");
    s += &format!("{indent}    %{name}_v = memref.load %{name}_i[%{name}_r, %{name}_c] : {ty}\n{indent}    memref.store %{name}_v, %{name}_o[%{name}_r, %{name}_c] : {ty}\n{indent}  }}\n{indent}}}\n");
    s
}

/// The parts of the packs of `role` viewed in place in their pack's object
/// (D85): `%<pack>_f`, the object as bytes, then each part's `%<name>_o`
/// (an in-out tensor's copy in, `%<name>_i`, copied into its output object).
fn pack_views(params: &[Param], role: Role, indent: &str) -> String {
    let mut s = String::new();
    for pack in params.iter().filter(|p| p.is_pack && p.role == role) {
        s += &format!("{indent}%{0}_f = memref.collapse_shape %{0}_o [[0, 1]] : memref<1x{1}xi8> into memref<{1}xi8>\n", pack.name, pack.cols);
    }
    let pack_of = |pack: &str| params.iter().find(|p| p.is_pack && p.name == pack);
    let bytes = |pack: &str| pack_of(pack).map_or(0, |p| p.cols);
    // The parts of this role's packs (broadcasts ride in a streamed pack too).
    let in_role = |place: &Option<(String, i64)>| place.as_ref().and_then(|(pack, _)| pack_of(pack)).is_some_and(|pack| pack.role == role);
    for p in params.iter().filter(|p| !p.is_pack && (in_role(&p.in_pack) || in_role(&p.out_pack))) {
        let ty = format!("memref<{}x{}x{}>", p.block_rows, p.cols, p.element);
        let view = |value: String, (pack, offset): &(String, i64)| {
            format!("{indent}%{value}_at = arith.constant {offset} : index\n{indent}%{value} = memref.view %{pack}_f[%{value}_at][] : memref<{}xi8> to {ty}\n", bytes(pack))
        };
        // The output object first: an in-out tensor's copy in goes into it.
        if let Some(place) = &p.out_pack {
            s += &view(format!("{}_o", p.name), place);
        }
        match &p.in_pack {
            Some(place) if p.output => {
                s += &view(format!("{}_i", p.name), place);
                s += &copy_loop(&p.name, &ty, p.block_rows, p.cols, indent);
            }
            Some(place) => s += &view(format!("{}_o", p.name), place),
            None => {}
        }
    }
    s
}

/// The innermost size of a transfer of `elements` contiguous elements of
/// `bits`: the largest divisor of `elements` that a buffer descriptor's
/// innermost dimension takes (at most 1023 words, whole words: 37 x 70 f16
/// elements go 518 at a time, not 1295). `elements` not of whole words has
/// none: then the largest divisor, which the `aiex` verifier refuses.
pub fn inner_size(elements: i64, bits: i64) -> i64 {
    let limit = inner_elements(bits).min(elements);
    (1..=limit).rev().find(|d| elements % d == 0 && d * bits % 32 == 0).unwrap_or_else(|| divisor_at_most(elements, limit))
}

/// The largest divisor of `n` that is at most `limit`.
pub fn divisor_at_most(n: i64, limit: i64) -> i64 {
    (1..=limit.min(n)).rev().find(|d| n % d == 0).unwrap_or(1)
}

/// A host transfer's window (`aiex.npu.dma_memcpy_nd`'s offsets, sizes and
/// strides, outermost first), in elements of the tensor it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostWindow {
    pub offsets: [i64; 4],
    pub sizes: [i64; 4],
    pub strides: [i64; 4],
}

impl HostWindow {
    /// The same bytes in the 32-bit words of a host buffer of `i32`: a
    /// shim transfer moves elements of at most 32 bits (mlir-aie's rule),
    /// so a tensor of 64-bit elements travels as word pairs (its FIFOs'
    /// objects keep the 64-bit type: mlir-aie's buffer descriptors move
    /// them). Other widths are unchanged.
    pub fn in_host_words(self, bits: i64) -> HostWindow {
        if bits <= 32 {
            return self;
        }
        let per = bits / 32;
        let [o0, o1, o2, o3] = self.offsets;
        let [s0, s1, s2, s3] = self.sizes;
        let [t0, t1, t2, _] = self.strides;
        HostWindow { offsets: [o0, o1, o2, o3 * per], sizes: [s0, s1, s2, s3 * per], strides: [t0 * per, t1 * per, t2 * per, 1] }
    }
}

impl std::fmt::Display for HostWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |v: [i64; 4]| v.map(|x| x.to_string()).join(", ");
        write!(f, "[{}][{}][{}]", list(self.offsets), list(self.sizes), list(self.strides))
    }
}

/// The host buffer type of `elements` elements of `element` as a runtime
/// sequence takes it: 64-bit elements as twice as many `i32` words
/// (`HostWindow::in_host_words`).
pub fn host_buffer_type(elements: i64, element: &str) -> String {
    match bits_of(element) {
        64 => format!("memref<{}xi32>", elements * 2),
        _ => format!("memref<{elements}x{element}>"),
    }
}

/// The window moving `elements` contiguous elements in 32-bit-word chunks
/// a shim buffer descriptor takes (innermost at most 1023 words, the next
/// at most 1023, the rest in the third dimension).
pub fn contiguous_window(elements: i64, bits: i64) -> HostWindow {
    let inner = inner_size(elements, bits);
    let rest = elements / inner;
    let middle = divisor_at_most(rest, 1023);
    let outer = rest / middle;
    HostWindow { offsets: [0; 4], sizes: [1, outer, middle, inner], strides: [0, middle * inner, inner, 1] }
}

#[allow(clippy::too_many_arguments)]
fn emit(name: &str, device: Device, params: &[Param], rows_per_block: i64, blocks: i64, end: i64, columns: u32, cores: u32, stack: i64, loop_location: &str) -> String {
    let n = cores as i64;
    let all = (columns * cores) as i64;
    // One column keeps the first part's names; several get a `_c<col>` suffix.
    let col = |c: u32| if columns == 1 { String::new() } else { format!("_c{c}") };
    let core = |c: u32, k: u32| if columns == 1 { format!("%core{k}") } else { format!("%core{c}_{k}") };
    let mut s = String::new();
    let l = loop_location;
    s += &format!("module {{\n  aie.device({}) {{\n", device.name());
    for c in 0..columns {
        s += &format!("    %shim{0} = aie.tile({c}, 0) {l}\n    %mem{0} = aie.tile({c}, 1) {l}\n", col(c));
        for k in 0..cores {
            s += &format!("    {} = aie.tile({c}, {}) {l}\n", core(c, k), 2 + k);
        }
    }
    let consumers = (0..columns).flat_map(|c| (0..cores).map(move |k| (c, k))).map(|(c, k)| core(c, k)).collect::<Vec<_>>().join(", ");
    // What has FIFOs and a host buffer: the parameters not in a pack, and the packs (D85).
    let carriers: Vec<&Param> = params.iter().filter(|p| p.carried()).collect();
    for p in &carriers {
        let loc = &p.location;
        let object = p.object_type();
        let block_elements = p.block_rows * p.cols;
        for c in 0..columns {
            let (f, shim, mem) = (format!("{}{}", p.name, col(c)), format!("%shim{}", col(c)), format!("%mem{}", col(c)));
            // A streamed tensor into the array: shim -> memtile `fifo`, split by the link into one FIFO per core.
            let split_in = |fifo: &str| {
                let mut text = format!("    aie.objectfifo @{fifo}({shim}, {{{mem}}}, {DEPTH} : i32) : !aie.objectfifo<memref<{0}x{1}>> {loc}\n", block_elements * n, p.element);
                let mut outs = Vec::new();
                let mut offsets = Vec::new();
                for k in 0..cores {
                    text += &format!("    aie.objectfifo @{fifo}_{k}({mem}, {{{}}}, {DEPTH} : i32) : !aie.objectfifo<{object}> {loc}\n", core(c, k));
                    outs.push(format!("@{fifo}_{k}"));
                    offsets.push((k as i64 * block_elements).to_string());
                }
                let dst = if cores > 1 { offsets.join(", ") } else { String::new() };
                text + &format!("    aie.objectfifo.link [@{fifo}] -> [{}] ([] [{dst}]) {loc}\n", outs.join(", "))
            };
            match (&p.role, p.output) {
                (Role::Rows, false) => s += &split_in(&f),
                (Role::Rows, true) => {
                    if p.read_too {
                        // The block's own rows in, as for an input.
                        s += &split_in(&format!("{}_in{}", p.name, col(c)));
                    }
                    let mut ins = Vec::new();
                    let mut offsets = Vec::new();
                    for k in 0..cores {
                        s += &format!("    aie.objectfifo @{f}_{k}({}, {{{mem}}}, {DEPTH} : i32) : !aie.objectfifo<{object}> {loc}\n", core(c, k));
                        ins.push(format!("@{f}_{k}"));
                        offsets.push((k as i64 * block_elements).to_string());
                    }
                    s += &format!("    aie.objectfifo @{f}({mem}, {{{shim}}}, {DEPTH} : i32) : !aie.objectfifo<memref<{0}x{1}>> {loc}\n", block_elements * n, p.element);
                    let src = if cores > 1 { offsets.join(", ") } else { String::new() };
                    s += &format!("    aie.objectfifo.link [{}] -> [@{f}] ([{src}] []) {loc}\n", ins.join(", "));
                }
                // An output moved whole (one core): the core produces it once; an in-out one comes
                // in first on a FIFO of its own.
                (Role::Whole, true) => {
                    let ty = format!("memref<{}x{}x{}>", p.rows, p.cols, p.element);
                    if p.read_too {
                        s += &format!("    aie.objectfifo @{0}_in({shim}, {{{consumers}}}, 1 : i32) : !aie.objectfifo<{ty}> {loc}\n", p.name);
                    }
                    s += &format!("    aie.objectfifo @{0}({consumers}, {{{shim}}}, 1 : i32) : !aie.objectfifo<{ty}> {loc}\n", p.name);
                }
                // Broadcasts leave from column 0's shim to every core, one FIFO per type (its first's).
                (Role::Whole, _) if c == 0 && p.packed.as_ref().is_none_or(|(_, slot)| *slot == 0) => {
                    let depth = packed_count(params, &p.name);
                    s += &format!("    aie.objectfifo @{0}(%shim{1}, {{{consumers}}}, {depth} : i32) : !aie.objectfifo<memref<{2}x{3}x{4}>> {loc}\n", p.name, col(0), p.rows, p.cols, p.element);
                }
                (Role::Whole, _) => {}
                // Streamed over an inner loop (D87): shim -> memtile, then to every core of the
                // column, an object a trip.
                (Role::Inner, _) => {
                    let column_cores = (0..cores).map(|k| core(c, k)).collect::<Vec<_>>().join(", ");
                    s += &format!("    aie.objectfifo @{f}({shim}, {{{mem}}}, {DEPTH} : i32) : !aie.objectfifo<{object}> {loc}\n");
                    s += &format!("    aie.objectfifo @{f}_cores({mem}, {{{column_cores}}}, {DEPTH} : i32) : !aie.objectfifo<{object}> {loc}\n");
                    s += &format!("    aie.objectfifo.link [@{f}] -> [@{f}_cores] ([] []) {loc}\n");
                }
            }
        }
    }
    let types: Vec<String> = params
        .iter()
        .filter(|p| !p.is_pack && p.role != Role::Inner)
        .map(Param::view_type)
        .collect();
    s += &format!("    func.func private @{name}_block({}, index)\n", types.join(", "));
    let per_core = blocks / all;
    for c in 0..columns {
        for k in 0..cores {
            // Core `g` of all takes blocks `g, g + all, ...`.
            let me = c as i64 * n + k as i64;
            let fifo = |p: &Param| format!("{}{}_{k}", p.name, col(c));
            let id = if columns == 1 { format!("%c{k}") } else { format!("%c{c}_{k}") };
            s += &format!("    {id} = aie.core({}) {{\n", core(c, k));
            s += "      %zero = arith.constant 0 : index\n      %one = arith.constant 1 : index\n";
            s += &format!("      %trips = arith.constant {per_core} : index\n      %cores = arith.constant {all} : index\n      %me = arith.constant {me} : index\n      %rows = arith.constant {rows_per_block} : index\n");
            for p in carriers.iter().filter(|p| p.role == Role::Whole && p.output) {
                let ty = format!("memref<{}x{}x{}>", p.rows, p.cols, p.element);
                s += &format!("      %{0}_s = aie.objectfifo.acquire @{0}(Produce, 1) : !aie.objectfifosubview<{ty}> {1}\n", p.name, p.location);
                s += &format!("      %{0}_o = aie.objectfifo.subview.access %{0}_s[0] : !aie.objectfifosubview<{ty}> -> {ty}\n", p.name);
                if p.read_too {
                    s += &copy_in(&p.name, &format!("{}_in", p.name), &ty, p.rows, p.cols, &p.location, "      ");
                }
            }
            for p in carriers.iter().filter(|p| p.role == Role::Whole && !p.output) {
                let ty = format!("memref<{}x{}x{}>", p.rows, p.cols, p.element);
                let (fifo, slot) = p.packed.clone().unwrap_or_else(|| (p.name.clone(), 0));
                if slot == 0 {
                    let count = packed_count(params, &fifo);
                    s += &format!("      %{fifo}_s = aie.objectfifo.acquire @{fifo}(Consume, {count}) : !aie.objectfifosubview<{ty}> {0}\n", p.location);
                }
                s += &format!("      %{0}_o = aie.objectfifo.subview.access %{fifo}_s[{slot}] : !aie.objectfifosubview<{ty}> -> {ty}\n", p.name);
            }
            s += &pack_views(params, Role::Whole, "      ");
            s += "      scf.for %j = %zero to %trips step %one {\n";
            s += "        %b0 = arith.muli %j, %cores : index\n        %b = arith.addi %b0, %me : index\n        %row = arith.muli %b, %rows : index\n";
            for p in carriers.iter().filter(|p| p.role == Role::Rows) {
                let port = if p.output { "Produce" } else { "Consume" };
                let ty = format!("memref<{}x{}x{}>", p.block_rows, p.cols, p.element);
                s += &format!("        %{0}_s = aie.objectfifo.acquire @{2}({port}, 1) : !aie.objectfifosubview<{ty}> {1}\n", p.name, p.location, fifo(p));
                s += &format!("        %{0}_o = aie.objectfifo.subview.access %{0}_s[0] : !aie.objectfifosubview<{ty}> -> {ty}\n", p.name);
                if p.read_too {
                    s += &copy_in(&p.name, &format!("{}_in{}_{k}", p.name, col(c)), &ty, p.block_rows, p.cols, &p.location, "        ");
                }
            }
            s += &pack_views(params, Role::Rows, "        ");
            // Each block's status starts clear, a block past the end's too (D96).
            for p in params.iter().filter(|p| !p.checks.is_empty()) {
                s += &format!("        %{0}_clear = arith.constant 0 : i32\n        memref.store %{0}_clear, %{0}_o[%zero, %zero] : memref<1x1xi32>\n", p.name);
            }
            // A column-major tensor's object viewed as the block's rows, strided (D95).
            for p in params.iter().filter(|p| p.col_major && !p.is_pack && p.role != Role::Inner) {
                let (object, rows) = (p.object_type(), p.block_rows);
                s += &format!("        %{0}_cm = memref.reinterpret_cast %{0}_o to offset: [0], sizes: [{rows}, {1}], strides: [1, {rows}] : {object} to {2}\n", p.name, p.cols, p.view_type());
            }
            let args: Vec<(String, String)> = params.iter().filter(|p| !p.is_pack && p.role != Role::Inner).map(|p| (format!("%{}_{}", p.name, if p.col_major { "cm" } else { "o" }), p.view_type())).collect();
            let values: Vec<String> = args.iter().map(|(v, _)| v.clone()).collect();
            let types: Vec<String> = args.iter().map(|(_, t)| t.clone()).collect();
            let call = format!("func.call @{name}_block({}, %row) : ({}, index) -> () {l}\n", values.join(", "), types.join(", "));
            if blocks * rows_per_block - end >= rows_per_block {
                // Blocks past the end (rounding the blocks up to the cores):
                // moved, acquired and released as the others, not computed.
                s += &format!("        %end = arith.constant {end} : index\n        %live = arith.cmpi slt, %row, %end : index\n        scf.if %live {{\n          {call}        }}\n");
            } else {
                s += &format!("        {call}");
            }
            for p in carriers.iter().filter(|p| p.role == Role::Rows) {
                let port = if p.output { "Produce" } else { "Consume" };
                s += &format!("        aie.objectfifo.release @{0}({port}, 1) {1}\n", fifo(p), p.location);
            }
            s += "      }\n";
            for p in carriers.iter().filter(|p| p.role == Role::Whole && !p.output && p.packed.as_ref().is_none_or(|(_, slot)| *slot == 0)) {
                s += &format!("      aie.objectfifo.release @{0}(Consume, {2}) {1}\n", p.name, p.location, packed_count(params, &p.name));
            }
            for p in carriers.iter().filter(|p| p.role == Role::Whole && p.output) {
                s += &format!("      aie.objectfifo.release @{0}(Produce, 1) {1}\n", p.name, p.location);
            }
            s += &format!("      aie.end\n    }} {{stack_size = {stack} : i32}}\n");
        }
    }
    let arguments: Vec<String> = carriers.iter().map(|p| format!("%{}: {}", p.name, host_buffer_type(p.host_rows * p.cols, &p.element))).collect();
    s += &format!("    aie.runtime_sequence({}) {{\n", arguments.join(", "));
    let mut id = 0;
    // Outputs first (their shim channels wait for data), then inputs, as
    // mlir-aie's examples order them.
    let ordered: Vec<(&Param, bool)> =
        carriers.iter().filter(|p| p.output).map(|p| (*p, true)).chain(carriers.iter().filter(|p| p.inbound()).map(|p| (*p, false))).collect();
    for (p, out) in ordered {
        let bits = bits_of(&p.element);
        let token = if out { ", issue_token = true" } else { "" };
        let streamed_columns = if p.role == Role::Whole { 1 } else { columns };
        // A tensor streamed over inner loops: whole, once for each of a core's blocks, window
        // after window of its columns, each window's rows in order; the outer dimension repeats
        // it, or (rows too many for a dimension) one transfer a repeat.
        let width = p.object_cols();
        let split_rows = p.role == Role::Inner && width != p.cols && p.rows > 1023;
        let repeats = if split_rows { per_core } else { 1 };
        for (c, _) in (0..streamed_columns).flat_map(|c| (0..repeats).map(move |r| (c, r))) {
            let window = |offsets, sizes, strides| HostWindow { offsets, sizes, strides };
            let window = if p.role == Role::Inner {
                if width == p.cols {
                    let whole = p.rows * p.cols;
                    let inner = inner_size(whole, bits);
                    window([0; 4], [per_core, 1, whole / inner, inner], [0, 0, inner, 1])
                } else if !split_rows {
                    window([0; 4], [per_core, p.cols / width, p.rows, width], [0, width, p.cols, 1])
                } else {
                    let trip = p.block_rows;
                    window([0; 4], [p.cols / width, p.rows / trip, trip, width], [width, trip * p.cols, p.cols, 1])
                }
            } else if p.role == Role::Rows && p.col_major {
                // Each block's rows of every column (the host buffer holds `host_rows` of each
                // column): block after block, so each core's part of a memtile object is whole.
                // Column `c`'s share: `cores` blocks at block `c x cores` of every `all` (D95).
                let m = p.block_rows;
                if columns == 1 {
                    window([0; 4], [1, blocks, p.cols, m], [0, m, p.host_rows, 1])
                } else {
                    window([0, 0, 0, c as i64 * n * m], [per_core, n, p.cols, m], [all * m, m, p.host_rows, 1])
                }
            } else if p.role == Role::Whole || columns == 1 {
                contiguous_window(p.moved_rows * p.cols, bits)
            } else {
                // Column `c`'s share: `cores` blocks at block `c x cores`
                // of every `all` blocks.
                let block = p.block_rows * p.cols;
                let share = n * block;
                let inner = inner_size(share, bits);
                window([0, 0, 0, c as i64 * share], [1, per_core, share / inner, inner], [0, all * block, inner, 1])
            }
            .in_host_words(bits);
            let f = match (&p.role, out, p.read_too) {
                (Role::Rows, false, true) => format!("{}_in{}", p.name, col(c)),
                (Role::Whole, false, true) => format!("{}_in", p.name),
                (Role::Whole, true, _) => p.name.clone(),
                (Role::Rows | Role::Inner, _, _) => format!("{}{}", p.name, col(c)),
                _ => p.packed.as_ref().map_or_else(|| p.name.clone(), |(fifo, _)| fifo.clone()),
            };
            s += &format!("      aiex.npu.dma_memcpy_nd(%{0}{window}) {{id = {id} : i64{token}, metadata = @{f}}} : {1} {2}\n", p.name, host_buffer_type(p.host_rows * p.cols, &p.element), p.location);
            id += 1;
        }
    }
    for p in carriers.iter().filter(|p| p.output) {
        for c in 0..columns {
            s += &format!("      aiex.npu.dma_wait {{symbol = @{}{}}}\n", p.name, col(c));
        }
    }
    s += "    }\n  }\n}\n";
    s
}
