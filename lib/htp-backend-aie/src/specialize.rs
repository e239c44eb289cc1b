//! A kernel with symbolic dimensions (`htp.Tensor[f32, "N", 32]`) on
//! `aie-sim`: an mlir-aie design is static (the runtime sequence's
//! transfers, the cores' trip counts), so the simulator builds the design
//! for the sizes of each call's arrays, as the NPU targets build it for
//! `htp.Const` dimensions. [`specialize`] gives the kernel's tensors those
//! sizes (each `memref.dim` of them becomes the constant), and the AIE
//! lowering then sees a kernel with static shapes; a row block past the end
//! of `N` is the ragged last block it masks.

use htp_dialects::diagnostics::MlirError;
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationLike, OperationPrintingFlags},
        r#type::{MemRefType, ShapedTypeLike, TypeLike},
        Module, RegionLike, Type, Value, ValueLike,
    },
    Context,
};

/// The size every symbolic dimension takes when a kernel's structure is
/// checked at compile time: whole 32-bit words of any element type, several
/// blocks of the usual heights, small enough for a core.
pub const PROBE: i64 = 64;

/// The sizes the check tries, in order, when PROBE's design exceeds a
/// size-dependent limit (tensors moved whole to one core): still whole
/// 32-bit words of any element type.
pub const SMALL_PROBES: [i64; 2] = [16, 4];

fn fail(message: impl Into<String>) -> Vec<MlirError> {
    vec![MlirError { position: None, message: message.into() }]
}

use htp_ir::query::op_name;

/// The module's text with its locations (the user's lines).
pub fn text_of(module: &Module) -> Result<String, Vec<MlirError>> {
    module.as_operation().to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false)).map_err(|e| fail(e.to_string()))
}

/// Whether the module's kernel takes a tensor with a symbolic (run-time) size.
pub fn has_symbolic_sizes(module: &Module) -> bool {
    htp_ir::query::kernel_functions(module.as_operation()).iter().any(|kernel| {
        let Some(body) = kernel.region(0).ok().and_then(|r| r.first_block()) else { return false };
        (0..body.argument_count()).any(|i| body.argument(i).is_ok_and(|a| MemRefType::try_from(a.r#type()).is_ok() && htp_ir::builder::shape_of(a.r#type()).iter().any(|&d| d < 0)))
    })
}

/// `text` (a module with one kernel) with the kernel's symbolic sizes
/// fixed: dimension `d` of argument `i` is `size(i, d)`. Only row-major
/// tensors of rank 1 to 3 and column-major 2-D ones change (the AIE targets
/// take no other; the lowering refuses the rest at their parameters).
pub fn specialize<'c>(context: &'c Context, text: &str, size: impl Fn(usize, usize) -> i64) -> Result<Module<'c>, Vec<MlirError>> {
    let module = Module::parse(context, text).ok_or_else(|| fail("internal error: the kernel does not parse back"))?;
    let kernels = htp_ir::query::kernel_functions(module.as_operation());
    let [kernel] = kernels.as_slice() else { return Ok(module) };
    let body = kernel.region(0).ok().and_then(|r| r.first_block()).ok_or_else(|| fail("internal error: a kernel without a body"))?;
    let index = Type::index(context);
    for i in 0..body.argument_count() {
        let argument = body.argument(i).map_err(|e| fail(e.to_string()))?;
        let ty: Type = argument.r#type();
        let column_major = htp_ir::builder::is_column_major(ty);
        let memref = MemRefType::try_from(ty).ok().filter(|m| column_major || unsafe { mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(m.to_raw())) });
        // (A scalar has no shape to ask for.)
        let shape = if memref.is_some() { htp_ir::builder::shape_of(ty) } else { Vec::new() };
        let Some(memref) = memref.filter(|_| (1..=3).contains(&shape.len()) && shape.iter().any(|&d| d < 0)) else {
            continue;
        };
        let sizes: Vec<i64> = shape.iter().enumerate().map(|(d, &s)| if s < 0 { size(i, d) } else { s }).collect();
        let fixed: Type = match sizes.as_slice() {
            // A Fortran-order tensor keeps its order: its columns `rows` elements apart.
            [rows, columns] if column_major => htp_ir::builder::parse_type(context, &format!("memref<{rows}x{columns}x{}, strided<[1, {rows}]>>", memref.element())),
            _ => MemRefType::new(memref.element(), &sizes, None, memref.memory_space()).into(),
        };
        let value: Value = argument.into();
        unsafe { mlir_sys::mlirValueSetType(value.to_raw(), fixed.to_raw()) };
        for user in htp_ir::query::uses(htp_ir::builder::detach(value)) {
            if op_name(user) != "memref.dim" || !user.operand(0).is_ok_and(|v| v.to_raw().ptr == value.to_raw().ptr) {
                continue;
            }
            let Some(d) = user.operand(1).ok().and_then(|v| htp_ir::query::constant_int(htp_ir::builder::detach(v))) else { continue };
            let Some(&extent) = sizes.get(d as usize) else { continue };
            let block = user.block().expect("an op in a block");
            let constant = block.insert_operation_before(user, melior::dialect::arith::constant(context, IntegerAttribute::new(index, extent).into(), user.location()));
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(user.result(0).expect("a dim").to_raw(), constant.result(0).expect("a constant").to_raw());
                mlir_sys::mlirOperationDestroy(user.to_raw());
            }
        }
    }
    htp_ir::builder::sync_function_inputs(context, *kernel);
    // A 1-D tensor's `1 x ?` views (the front end's) take its size too.
    crate::lower::rows_of_vectors(context, &module);
    let (verified, errors) = htp_dialects::diagnostics::collect_errors(context, || module.as_operation().verify());
    if !verified {
        return Err(if errors.is_empty() { fail("internal error: the kernel with its sizes fixed does not verify") } else { errors });
    }
    Ok(module)
}
