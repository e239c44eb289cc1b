//! `htp-translate --tile-to-aie [--aie-device npu1]`: the mlir-aie design of
//! an imported tile kernel (`htp-translate --import-python k.py | htp-translate
//! --tile-to-aie`), as the `aie-npu1`/`aie-npu2` targets build it. It is how
//! lit tests check designs, and how a user without Python gets one.

use htp_api::translation::{Direction, Translation, TranslationOption, TranslationOptions};
use melior::ir::{
    operation::{OperationLike, OperationPrintingFlags},
    Module,
};

use crate::architecture::Device;

pub static TILE_TO_AIE: Translation = Translation {
    name: "tile-to-aie",
    description: "Lower an imported tile kernel to an mlir-aie design (the aie-npu1/aie-npu2 targets' lowering)",
    options: &[TranslationOption {
        name: "aie-device",
        description: "Device of --tile-to-aie: npu1 (default), npu2, npu1_Ncol, npu2_Ncol",
        default: "npu1",
        repeatable: false,
    }],
    direction: Direction::FromMlir(export),
};

fn export(module: &Module, options: &TranslationOptions) -> Result<String, String> {
    let device = Device::from_name(options.get("aie-device").unwrap_or("npu1"))?;
    // `to_ref` borrows the `ContextRef` itself: it must outlive `context`
    // (a temporary here dangled, and crashed release builds).
    let context_ref = module.context();
    let context = unsafe { context_ref.to_ref() };
    // The lowering rewrites its module: a copy of the one given, with its
    // locations (the user's lines, the parameters' names).
    let text = module.as_operation().to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false)).map_err(|e| e.to_string())?;
    let mut copy = Module::parse(context, &text).ok_or("the module does not parse back")?;
    let design = crate::lower::lower(context, &mut copy, device, &[]).map_err(|errors| errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))?;
    Ok(design.text)
}
