//! A `pto.core` function -> one C++ source in pto-runtime's kernel contract:
//! `extern "C" kernel_entry(__gm__ int64_t *args)`, tensors first (as
//! `ChipTensor` descriptors), then scalars; one PTO-ISA call per
//! instruction, tiles named after what first writes them, and the user's
//! source line as a comment above the code it became.

use crate::dialect::{BLayout, GlobalTensorType, GTLayout, Location as TileLocation, TileType};
use htp_dialects::tile::ValidSize;
use melior::ir::{
    attribute::{DenseI64ArrayAttribute, IntegerAttribute},
    block::BlockLike,
    operation::OperationLike,
    OperationRef, RegionLike, Value, ValueLike,
};

use htp_ir::builder::{element_of, shape_of};
use crate::dialect::root_alloc;

use crate::emit::writer::{c_type, op_name, Ops, SourceLines, Writer};
use crate::Flavour;
use crate::ods::pto;
use crate::ops::{PtoOp, CORE_ATTRIBUTE, FIFO_ATTRIBUTE};
use htp_dialects::ods::view;

/// Names of the kernel's parameters, in order (tensors, scalars, then the
/// task's `task_begin`/`task_end` when it runs a chunk of the outer loop).
pub fn emit(function: OperationRef, parameters: &[String], flavour: Flavour, lines: SourceLines, banner: &str) -> Result<String, String> {
    let mut w = Writer::new(lines);
    let core = melior::ir::attribute::StringAttribute::try_from(function.attribute(CORE_ATTRIBUTE).map_err(|e| e.to_string())?)
        .map_err(|_| CORE_ATTRIBUTE)?
        .value()
        .to_string();
    w.line(banner);
    w.line("#include <cstdint>");
    w.line("#include <algorithm>");
    w.line("#include <limits>");
    w.line("#include <pto/pto-inst.hpp>");
    let communicates = uses_comm(function);
    if communicates {
        w.line("#include <pto/comm/comm_types.hpp>");
        w.line("#include <pto/comm/pto_comm_inst.hpp>");
        w.line("#include \"platform_comm/comm_context.h\"");
    }
    if function.attribute(FIFO_ATTRIBUTE).is_ok() {
        w.line("#include <pto/common/fifo.hpp>");
        w.line("#include \"intrinsic.h\"");
    }
    w.line("#include \"tensor.h\"");
    w.line("using namespace pto;");
    w.line("#include \"pipe_sync.h\"");
    w.line("");
    w.line("#ifndef __gm__");
    w.line("#define __gm__");
    w.line("#endif");
    w.line("#ifndef __aicore__");
    w.line("#define __aicore__ [aicore]");
    w.line("#endif");
    w.line("");
    if communicates {
        for line in COMM_HELPERS.lines() {
            w.line(line);
        }
        w.line("");
    }
    // Where a large kernel's parts go (`parts.rs`): before the entry that calls them.
    let parts_at = w.out.len();
    w.line(&format!("// {} kernel for {}.", core, flavour.description()));
    w.open("extern \"C\" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t *args) {");
    let body = function.region(0).map_err(|e| e.to_string())?.first_block().ok_or("a kernel without a body")?;
    let mut tensors = Vec::new();
    for index in 0..body.argument_count() {
        let argument = body.argument(index).map_err(|e| e.to_string())?;
        let name = parameters.get(index).cloned().unwrap_or_else(|| format!("arg{index}"));
        let ty = argument.r#type();
        if htp_ir::builder::is_memref(ty) {
            let element = c_type(element_of(ty))?;
            w.line(&format!("__gm__ ChipTensor *{name}_desc = reinterpret_cast<__gm__ ChipTensor *>(args[{index}]);"));
            w.line(&format!(
                "__gm__ {element} *{name} = reinterpret_cast<__gm__ {element} *>({name}_desc->buffer.addr) + {name}_desc->start_offset;"
            ));
            tensors.push(ty);
            w.reserve(&format!("{name}_desc"));
        } else {
            let c = c_type(ty)?;
            // Floats arrive as their bits (the orchestration forwards f16/bf16
            // as uint16_t bits): reinterpret, do not convert.
            let read = if matches!(c, "float" | "half" | "bfloat16_t") {
                format!("from_u64<{c}>(static_cast<uint64_t>(args[{index}]))")
            } else {
                format!("static_cast<{c}>(args[{index}])")
            };
            w.line(&format!("const {c} {name} = {read};"));
        }
        w.reserve(&name);
        w.bind(argument.into(), name);
    }
    let fifo = function.attribute(FIFO_ATTRIBUTE).ok().and_then(|a| DenseI64ArrayAttribute::try_from(a).ok());
    let ops_pipes = match fifo {
        Some(fifo) => pipes(&mut w, function, &fifo, parameters)?,
        None => PartPipes::default(),
    };
    let mut ops = KernelOps { lane_guard: fifo.is_some() && core == "aiv" };
    // `args` for the lane guard's `get_sub_block_id(args)`.
    let mut always = if ops.lane_guard { vec![("__gm__ int64_t *args".to_string(), "args".to_string())] } else { vec![] };
    always.extend(ops_pipes.parameters);
    let replay = |w: &mut Writer, op: OperationRef| -> Result<(), String> {
        let name = w.name(op.result(0).map_err(|e| e.to_string())?.into())?;
        match PtoOp::of(op) {
            Some(PtoOp::GlobalView) => global_view(w, op, Some(name)),
            kind => KernelOps::tile(w, op, kind == Some(PtoOp::TileView), Some(name)),
        }
    };
    let entry = super::parts::Entry { always, prelude: ops_pipes.aliases, replay: &replay };
    let parts = super::parts::emit_body(&mut w, body, &mut ops, &entry)?;
    w.line("pipe_sync();");
    w.close("}");
    let mut out = w.out;
    out.insert_str(parts_at, &parts);
    Ok(out)
}

/// Whether the kernel communicates with other chips (`pto.comm_*` ops).
fn uses_comm(function: OperationRef) -> bool {
    let mut found = false;
    function.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if PtoOp::of(op).is_some_and(PtoOp::is_comm) {
            found = true;
            return melior::ir::operation::WalkResult::Interrupt;
        }
        melior::ir::operation::WalkResult::Advance
    });
    found
}

/// What a kernel that communicates with other chips declares once: its
/// `CommContext` (the `comm_context` argument, an address), a peer's copy
/// of a window address (the same offset from that rank's window base,
/// `windowsIn[peer]`) and of a GM view. Guarded, so several kernels can
/// share a translation unit (`htp.pto.isa_check`).
const COMM_HELPERS: &str = r#"#ifndef HTP_COMM_HELPERS
#define HTP_COMM_HELPERS
// This chip's CommContext (its rank, the domain's size, every rank's window base).
AICORE inline __gm__ CommContext *htp_comm(int64_t context) {
    return reinterpret_cast<__gm__ CommContext *>(static_cast<uint64_t>(context));
}
// A peer's copy of a window address: the same offset from the peer's window base.
template <typename T>
AICORE inline __gm__ T *htp_comm_peer(int64_t context, __gm__ T *local, int64_t peer) {
    __gm__ CommContext *ctx = htp_comm(context);
    const uint64_t offset = reinterpret_cast<uint64_t>(local) - ctx->windowsIn[ctx->rankId];
    return reinterpret_cast<__gm__ T *>(ctx->windowsIn[peer] + offset);
}
// A GM view of a window block, moved to a peer's copy of the window.
template <typename GT>
AICORE inline GT htp_comm_peer_view(int64_t context, GT &view, int64_t peer) {
    return GT(htp_comm_peer(context, view.data(), peer),
              typename GT::Shape(view.GetShape(0), view.GetShape(1), view.GetShape(2), view.GetShape(3), view.GetShape(4)),
              typename GT::Stride(view.GetStride(0), view.GetStride(1), view.GetStride(2), view.GetStride(3), view.GetStride(4)));
}
#endif"#;

/// The cross-core pipes of a cluster task's kernel (`pto.fifo`): one
/// one-way `TPipe` per direction that carries tiles, through the GM ring
/// argument; the aic and the aiv kernel declare the same types (the
/// simulator pairs them by type, the chip by flag ids). Each pipe has its GM
/// slots (`pto.fifo`'s counts: two, or a CSP channel's depth) and one
/// consumer slot, the buffer this core pops into.
/// Returns what a large kernel's parts need of them (`parts.rs`).
fn pipes(w: &mut Writer, function: OperationRef, fifo: &DenseI64ArrayAttribute, parameters: &[String]) -> Result<PartPipes, String> {
    let element = |i: usize| fifo.element(i).map_err(|e| e.to_string());
    let (ring, c2v, v2c) = (element(0)? as usize, element(1)?, element(2)?);
    // Slot counts (a CSP channel's depth); two when not given.
    let count = |i: usize| if fifo.len() > i { element(i) } else { Ok(2) };
    let (c2v_slots, v2c_slots) = (count(3)?, count(4)?);
    let ring = parameters.get(ring).cloned().unwrap_or_else(|| format!("arg{ring}"));
    let mut consumer = [0i64; 2];
    let mut failure = None;
    function.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if let Some(pop) = view::<pto::TPopOperation>(op) {
            let dir = op.attribute("dir").ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|a| a.value() as usize).unwrap_or(0);
            let tile = pop.dst().map(|tile| unsafe { melior::ir::Value::from_raw(tile.to_raw()) });
            match tile.ok().and_then(htp_ir::query::defining_op).map(root_address) {
                Some(Ok(address)) => consumer[dir.min(1)] = address,
                Some(Err(e)) => failure = Some(e),
                None => failure = Some("a pop into a tile that is not placed".to_string()),
            }
        }
        melior::ir::operation::WalkResult::Advance
    });
    if let Some(e) = failure {
        return Err(e);
    }
    w.line("// Cross-core pipes of this cluster task (the same types in its aic and aiv kernels):");
    w.line(&format!("// {c2v_slots} GM slots c2v and {v2c_slots} v2c in the task's ring, one consumer slot on chip."));
    w.reserve(&format!("{ring}_ring"));
    w.line(&format!("__gm__ uint8_t *{ring}_ring = reinterpret_cast<__gm__ uint8_t *>({ring});"));
    let mut offset = 0;
    let mut for_parts = PartPipes::default();
    for ((flag, dir), (slot, slots)) in [(0, "C2V"), (2, "V2C")].into_iter().zip([(c2v, c2v_slots), (v2c, v2c_slots)]) {
        if slot > 0 {
            let pipe = dir.to_lowercase();
            let ty = format!("TPipe<{flag}, Direction::DIR_{dir}, {slot}, {slots}, 1, true>");
            let alias = format!("using Pipe{dir} = {ty};");
            w.line(&alias);
            w.line(&format!("Pipe{dir} {pipe}({ring}_ring + {offset}, 0x{:x}, 0x{:x});", consumer[0], consumer[1]));
            // A part takes the pipe by reference, under the same alias (the instructions name it).
            for_parts.parameters.push((format!("{ty} &{pipe}"), pipe));
            for_parts.aliases.push(alias);
        }
        offset += slots * slot;
    }
    Ok(for_parts)
}

/// The pipes as a large kernel's parts take them: `(declaration, argument)` and `Pipe<DIR>` aliases.
#[derive(Default)]
struct PartPipes {
    parameters: Vec<(String, String)>,
    aliases: Vec<String>,
}

/// `lane_guard`: an aiv kernel of a cluster task runs on both vector cores
/// of the cluster (both must take part in every pipe hand-over); only the
/// first writes results to GM.
struct KernelOps {
    lane_guard: bool,
}

impl Ops for KernelOps {
    fn dim(&self, tensor: &str, dim: i64) -> String {
        format!("{tensor}_desc->shapes[{dim}]")
    }

    fn op(&mut self, w: &mut Writer, op: OperationRef) -> Result<bool, String> {
        if op_name(op) == "func.return" {
            return Ok(true);
        }
        let Some(kind) = PtoOp::of(op) else { return Ok(false) };
        use PtoOp::*;
        let instruction = kind.mnemonic();
        if !matches!(kind, SetFlag | WaitFlag | Barrier) {
            w.source_comment(op);
        }
        let operands: Vec<String> = op.operands().map(|v| w.name(v)).collect::<Result<_, _>>()?;
        let operand_type = |i: usize| op.operand(i).map(|v| v.r#type()).map_err(|e| e.to_string());
        match kind {
            AllocTile | TileView => Self::tile(w, op, kind == TileView, None)?,
            GlobalView => global_view(w, op, None)?,
            SetFlag | WaitFlag => {
                let pipe = |attribute: &str| pipe_name(op, attribute);
                let id = IntegerAttribute::try_from(op.attribute("event_id").map_err(|e| e.to_string())?).map_err(|_| "event id")?.value();
                w.line(&format!("{instruction}({}, {}, EVENT_ID{id});", pipe("src_pipe")?, pipe("dst_pipe")?));
            }
            Barrier => w.line(&format!("pipe_barrier({});", pipe_name(op, "pipe")?)),
            TCvt => {
                let mode = enum_case(op, "round", &["CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD"])?;
                w.line(&format!("TCVT({}, {}, RoundMode::{mode});", operands[0], operands[1]));
            }
            TRowExpandBin | TColExpandBin => {
                let operation = enum_case(op, "kind", &["ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF"])?;
                let base = if kind == TRowExpandBin { TRowExpand } else { TColExpand }.mnemonic().to_uppercase();
                w.line(&format!("{base}{operation}({});", operands.join(", ")));
            }
            TCmp | TCmpS => {
                let mode = enum_case(op, "mode", &["EQ", "NE", "LT", "LE", "GT", "GE"])?;
                w.line(&format!("{}({}, CmpMode::{mode});", instruction.to_uppercase(), operands.join(", ")));
            }
            TCi => {
                let tile = tile_type_text(TileType::try_from(operand_type(0)?).map_err(|_| "tile")?)?;
                let element = c_type(operand_type(1)?)?;
                let descending = i32::from(op.attribute("descending").is_ok());
                w.line(&format!("TCI<{tile}, {element}, {descending}>({});", operands.join(", ")));
            }
            // The accumulating matmul in its 4-operand form (out, in, a, b),
            // the one both the simulator and the chip headers provide.
            TMatmulAcc => w.line(&format!("TMATMUL_ACC({0}, {0}, {1}, {2});", operands[0], operands[1], operands[2])),
            TDivS if op.attribute("reverse").is_ok() => {
                w.line(&format!("TDIVS({}, {}, {});", operands[0], operands[2], operands[1]));
            }
            TStore if op.attribute("atomic_add").is_ok() => {
                let tile = tile_type_text(TileType::try_from(operand_type(1)?).map_err(|_| "tile")?)?;
                let view = w.name(op.operand(0).map_err(|e| e.to_string())?)? + "_t";
                w.line(&format!("TSTORE<{tile}, {view}, AtomicType::AtomicAdd>({});", operands.join(", ")));
            }
            TPush | TPop | TFree => {
                let dir = enum_case(op, "dir", &["C2V", "V2C"])?;
                let pipe = dir.to_lowercase();
                let axis = "TileSplitAxis::TILE_NO_SPLIT";
                if kind == TFree {
                    w.line(&format!("TFREE<Pipe{dir}, {axis}>({pipe});"));
                } else {
                    let tile = tile_type_text(TileType::try_from(operand_type(0)?).map_err(|_| "tile")?)?;
                    w.line(&format!("{}<Pipe{dir}, {tile}, {axis}>({pipe}, {});", instruction.to_uppercase(), operands[0]));
                }
            }
            // The merge's run length is a compile-time number of the instruction.
            TMrgSort => {
                let block = IntegerAttribute::try_from(op.attribute("block_len").map_err(|e| e.to_string())?).map_err(|_| "block_len")?.value();
                w.line(&format!("TMRGSORT({}, {}, {block});", operands[0], operands[1]));
            }
            // The pattern form of TGATHER names its tile types and pattern as template arguments.
            TGatherMask => {
                let pattern = IntegerAttribute::try_from(op.attribute("pattern").map_err(|e| e.to_string())?).map_err(|_| "pattern")?.value();
                let name = ["P0101", "P1010", "P0001", "P0010", "P0100", "P1000"].get((pattern - 1) as usize).ok_or("an unknown mask pattern")?;
                let dst = tile_type_text(TileType::try_from(operand_type(0)?).map_err(|_| "tile")?)?;
                let src = tile_type_text(TileType::try_from(operand_type(1)?).map_err(|_| "tile")?)?;
                w.line(&format!("TGATHER<{dst}, {src}, MaskPattern::{name}>({}, {});", operands[0], operands[1]));
            }
            // A larger destination: the mode that copies into its corner.
            TFillPad if expands(op) => w.line(&format!("TFILLPAD_EXPAND({});", operands.join(", "))),
            // Whole rows by index; the simulator's un-templated MGATHER
            // gathers single elements, so the mode is spelled out.
            MGather => w.line(&format!("MGATHER<Coalesce::Row>({});", operands.join(", "))),
            // Whole rows by index, as MGATHER reads them.
            MScatter => w.line(&format!("MSCATTER<Coalesce::Row>({});", operands.join(", "))),
            TStore if self.lane_guard => {
                w.line(&format!("if (get_sub_block_id(args) == 0) TSTORE({});", operands.join(", ")));
            }
            CommRank | CommSize => {
                let field = if kind == CommRank { "rankId" } else { "rankNum" };
                let result = op.result(0).map_err(|e| e.to_string())?;
                let name = w.fresh(if kind == CommRank { "rank" } else { "ranks" });
                w.line(&format!("const int64_t {name} = static_cast<int64_t>(htp_comm({})->{field});", operands[0]));
                w.bind(result.into(), name);
            }
            // TPUT's store: the tile into the peer's copy of the window block.
            CommPut => {
                let remote = w.fresh("remote");
                w.line(&format!("auto {remote} = htp_comm_peer_view({}, {}, {});", operands[3], operands[0], operands[2]));
                w.line(&format!("TSTORE({remote}, {});", operands[1]));
            }
            CommNotify | CommWait => {
                let (offset, next) = w.element_offset(op, 0)?;
                let signals = &operands[0];
                let text = |name: &str| {
                    op.attribute(name).ok().and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok()).map(|s| s.value().to_string()).ok_or(format!("{} without its {name}", kind.name()))
                };
                let signal = w.fresh("signal");
                if kind == CommNotify {
                    let (value, peer, context) = (&operands[next], &operands[next + 1], &operands[next + 2]);
                    let mode = if text("op")? == "set" { "Set" } else { "AtomicAdd" };
                    w.line(&format!("comm::Signal {signal}(htp_comm_peer({context}, {signals} + {offset}, {peer}));"));
                    w.line(&format!("comm::TNOTIFY({signal}, static_cast<int32_t>({value}), comm::NotifyOp::{mode});"));
                } else {
                    let value = &operands[next];
                    let cmp = text("cmp")?.to_uppercase();
                    w.line(&format!("comm::Signal {signal}({signals} + {offset});"));
                    w.line(&format!("comm::TWAIT({signal}, static_cast<int32_t>({value}), comm::WaitCmp::{cmp});"));
                }
            }
            AvailableCores | Submit | CreateTensor => return Err(format!("{} belongs in an orchestration", kind.name())),
            ClusterSend | ClusterRecv => return Err(format!("{} is tile IR: convert-tile-to-pto makes it a pipe hand-over", kind.name())),
            _ => w.line(&format!("{}({});", instruction.to_uppercase(), operands.join(", "))),
        }
        Ok(true)
    }
}

impl KernelOps {
    /// `Tile<...> name(valid...); TASSIGN<addr>(name);` (`existing`: again, under its name, in a part).
    fn tile(w: &mut Writer, op: OperationRef, view: bool, existing: Option<String>) -> Result<(), String> {
        let result = op.result(0).map_err(|e| e.to_string())?;
        let tile = TileType::try_from(result.r#type()).map_err(|_| "tile")?;
        let ty = tile_type_text(tile)?;
        let base = if view { "view".to_string() } else { tile_name(op) };
        let name = match existing {
            Some(name) => name,
            None => w.fresh(&base),
        };
        let skip = usize::from(view);
        let valid: Vec<String> = op.operands().skip(skip).map(|v| w.name(v).map(|n| format!("static_cast<unsigned>({n})"))).collect::<Result<_, _>>()?;
        let arguments = if valid.is_empty() { String::new() } else { format!("({})", valid.join(", ")) };
        w.line(&format!("{ty} {name}{arguments};"));
        let address = root_address(op)?;
        w.line(&format!("TASSIGN<0x{address:x}>({name});"));
        w.bind(result.into(), name);
        Ok(())
    }
}

/// Named after the instruction that first writes the tile (`exp`, `load`, ...).
fn tile_name(alloc: OperationRef) -> String {
    let Ok(result) = alloc.result(0) else { return "tile".into() };
    let result: Value = result.into();
    let mut use_ = unsafe { mlir_sys::mlirValueGetFirstUse(result.to_raw()) };
    let mut best: Option<(OperationRef, usize)> = None;
    while !use_.ptr.is_null() {
        let owner = unsafe { OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(use_)) };
        let index = unsafe { mlir_sys::mlirOpOperandGetOperandNumber(use_) } as usize;
        let earlier = best.is_none_or(|(b, _)| unsafe { mlir_sys::mlirOperationIsBeforeInBlock(owner.to_raw(), b.to_raw()) });
        if PtoOp::of(owner) != Some(PtoOp::TileView) && earlier {
            best = Some((owner, index));
        }
        use_ = unsafe { mlir_sys::mlirOpOperandGetNextUse(use_) };
    }
    match best {
        Some((owner, index)) => {
            let kind = PtoOp::of(owner);
            if kind == Some(PtoOp::TStore) {
                "result".into()
            } else if index != 0 {
                // First used as a source: a scratch operand (TROWSUM's tmp, ...).
                "scratch".into()
            } else {
                let name = op_name(owner);
                let instruction = match kind {
                    Some(kind) => kind.mnemonic().strip_prefix('t').unwrap_or(kind.mnemonic()),
                    None => name.as_str(),
                };
                instruction.trim_end_matches("_op").replace("expand", "bcast")
            }
        }
        None => "tile".into(),
    }
}

/// The byte offset the tile (or the buffer a view looks at) was placed at.
fn root_address(op: OperationRef) -> Result<i64, String> {
    let tile = unsafe { melior::ir::Value::from_raw(op.result(0).map_err(|e| e.to_string())?.to_raw()) };
    root_alloc(tile)
        .and_then(|alloc| alloc.attribute("addr").ok())
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map(|a| a.value())
        .ok_or_else(|| "an unplaced tile: run pto-allocate-tiles before emitting C++".to_string())
}

fn pipe_name(op: OperationRef, attribute: &str) -> Result<String, String> {
    let text = op.attribute(attribute).map_err(|e| e.to_string())?.to_string();
    let pipe = text.trim_start_matches("#pto<pipe ").trim_end_matches('>').to_uppercase();
    Ok(format!("PIPE_{pipe}"))
}

fn enum_case(op: OperationRef, attribute: &str, cases: &[&'static str]) -> Result<&'static str, String> {
    let value = IntegerAttribute::try_from(op.attribute(attribute).map_err(|e| e.to_string())?).map_err(|_| attribute.to_string())?.value();
    cases.get(value as usize).copied().ok_or_else(|| format!("bad {attribute}"))
}

/// The C++ spelling of a `!pto.tile` type. Left/Right/Acc go through PTO's
/// aliases, whose layouts are the target's (TileLeft differs between the
/// simulator and A2/A3).
pub fn tile_type_text(tile: TileType) -> Result<String, String> {
    let element = c_type(tile.element_type())?;
    let (rows, cols) = (tile.rows(), tile.cols());
    let valid = |dim: u32| match tile.valid_size(dim) {
        ValidSize::Static(n) => n.to_string(),
        ValidSize::Dynamic => "-1".to_string(),
    };
    let alias = match tile.location() {
        TileLocation::Left => Some("TileLeft"),
        TileLocation::Right => Some("TileRight"),
        TileLocation::Acc => Some("TileAcc"),
        _ => None,
    };
    if let Some(alias) = alias {
        return Ok(format!("{alias}<{element}, {rows}, {cols}, {}, {}>", valid(0), valid(1)));
    }
    let location = match tile.location() {
        TileLocation::Vec => "Vec",
        TileLocation::Mat => "Mat",
        _ => "Bias",
    };
    let blayout = if tile.blayout() == BLayout::ColMajor { "ColMajor" } else { "RowMajor" };
    let slayout = ["NoneBox", "RowMajor", "ColMajor"][tile.slayout() as usize];
    let pad = ["Null", "Zero", "Max", "Min"][tile.pad() as usize];
    Ok(format!(
        "Tile<TileType::{location}, {element}, {rows}, {cols}, BLayout::{blayout}, {}, {}, SLayout::{slayout}, {}, PadValue::{pad}>",
        valid(0),
        valid(1),
        tile.fractal()
    ))
}

/// `GlobalTensor<T, Shape<1,1,1,R,C>, Stride<1,1,1,RS,CS>[, Layout::DN]> gm(ptr + offset, shape, stride);`
/// (`existing`: again, under its name, in a part).
fn global_view(w: &mut Writer, op: OperationRef, existing: Option<String>) -> Result<(), String> {
    let source = op.operand(0).map_err(|e| e.to_string())?;
    let memref = source.r#type();
    let shape = shape_of(memref);
    let rank = shape.len();
    let mut tensor = w.name(source)?;
    // The tensor's shape descriptor is `<name>_desc` whatever the pointer is seen as.
    let desc = format!("{tensor}_desc");
    let result = op.result(0).map_err(|e| e.to_string())?;
    let view = result.r#type();
    let element_type = GlobalTensorType::try_from(view).map_err(|_| "a global_view of a non-gtensor")?.element_type();
    let element = c_type(element_type)?;
    if element_type != element_of(memref) {
        // A bool tensor's bytes.
        tensor = format!("reinterpret_cast<__gm__ {element} *>({tensor})");
    }
    let dims = DenseI64ArrayAttribute::try_from(op.attribute("dims").map_err(|e| e.to_string())?).map_err(|_| "dims")?;
    let (row_dim, col_dim) = (dims.element(0).map_err(|e| e.to_string())?, dims.element(1).map_err(|e| e.to_string())?);

    // Row-major strides of the tensor: static where every inner dim is.
    let stride = |d: usize| -> String {
        if (d + 1..rank).all(|k| shape[k] >= 0) {
            shape[d + 1..].iter().product::<i64>().to_string()
        } else {
            (d + 1..rank)
                .map(|k| if shape[k] >= 0 { shape[k].to_string() } else { format!("static_cast<int64_t>({desc}->shapes[{k}])") })
                .collect::<Vec<_>>()
                .join(" * ")
        }
    };
    let offsets: Vec<String> = (0..rank).map(|d| w.name(op.operand(1 + d).map_err(|e| e.to_string())?)).collect::<Result<_, _>>()?;
    let offset = (0..rank)
        .filter(|&d| offsets[d] != "0")
        .map(|d| {
            let s = stride(d);
            if s == "1" {
                offsets[d].clone()
            } else {
                format!("{} * ({s})", offsets[d])
            }
        })
        .collect::<Vec<_>>();
    let pointer = if offset.is_empty() { tensor.clone() } else { format!("{tensor} + {}", offset.join(" + ")) };

    let view = GlobalTensorType::try_from(view).map_err(|_| "a global_view of a non-gtensor")?;
    let extent = |dim: u32| match view.size(dim) {
        ValidSize::Static(n) => n,
        ValidSize::Dynamic => -1,
    };
    let (rows, cols) = (extent(0), extent(1));
    let is_dynamic = |n: i64| n < 0;
    let text = |n: i64| if is_dynamic(n) { "-1".to_string() } else { n.to_string() };
    let mut dynamic_sizes = Vec::new();
    let mut operand = 1 + rank;
    for n in [rows, cols] {
        if is_dynamic(n) {
            dynamic_sizes.push(w.name(op.operand(operand).map_err(|e| e.to_string())?)?);
            operand += 1;
        }
    }
    let row_stride = if row_dim >= 0 { stride(row_dim as usize) } else { "1".into() };
    // Every `row_step`-th row (a slice with a step, `x[0:32:2, :]`).
    let row_step = op.attribute("row_step").ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map_or(1, |a| a.value());
    let row_stride = match row_stride.parse::<i64>() {
        _ if row_step == 1 => row_stride,
        Ok(n) => (n * row_step).to_string(),
        Err(_) => format!("({row_stride}) * {row_step}"),
    };
    let col_stride = stride(col_dim as usize);
    let static_strides = row_stride.parse::<i64>().is_ok() && col_stride.parse::<i64>().is_ok();
    let layout = if view.layout() == GTLayout::Dn { ", Layout::DN" } else { "" };
    let shape_t = format!("Shape<1, 1, 1, {}, {}>", text(rows), text(cols));
    let stride_t = if static_strides {
        format!("Stride<1, 1, 1, {row_stride}, {col_stride}>")
    } else {
        "Stride<1, 1, 1, -1, -1>".to_string()
    };
    let name = match existing {
        Some(name) => name,
        None => w.fresh("gm"),
    };
    w.line(&format!("using {name}_t = GlobalTensor<{element}, {shape_t}, {stride_t}{layout}>;"));
    let mut arguments = vec![pointer];
    if !dynamic_sizes.is_empty() || !static_strides {
        let sizes: Vec<String> = dynamic_sizes.iter().map(|s| format!("static_cast<int>({s})")).collect();
        arguments.push(format!("{shape_t}({})", sizes.join(", ")));
    }
    if !static_strides {
        arguments.push(format!("Stride<1, 1, 1, -1, -1>(static_cast<int>({row_stride}), static_cast<int>({col_stride}))"));
    }
    w.line(&format!("{name}_t {name}({});", arguments.join(", ")));
    w.bind(result.into(), name);
    Ok(())
}

/// A `pto.tfillpad` whose destination has more rows or columns than its source.
fn expands(op: OperationRef) -> bool {
    let dims = |i: usize| htp_ir::query::operand_at(op, i).and_then(|v| TileType::try_from(v.r#type()).ok()).map(|t| (t.rows(), t.cols()));
    dims(0) != dims(1)
}
