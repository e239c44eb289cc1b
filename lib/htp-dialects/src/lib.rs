//! HTP's MLIR dialects for Rust: the dialect handles (one per line of
//! `dialects/HTPDialects.def`), registration, typed helpers over the C API,
//! and the one function that builds a context with everything HTP uses.

pub mod diagnostics;
pub mod irdl;
pub mod layout;
pub mod ods;
pub mod tile;

use melior::{
    dialect::DialectRegistry,
    utility::{register_all_dialects, register_all_llvm_translations},
    Context,
};

/// Handle functions generated from `dialects/HTPDialects.def`.
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

unsafe extern "C" {
    fn htpRegisterAllDialects(registry: mlir_sys::MlirDialectRegistry);
}

/// Inserts every HTP dialect into `registry`.
pub fn register_htp_dialects(registry: &DialectRegistry) {
    unsafe { htpRegisterAllDialects(registry.to_raw()) }
}

/// A context with HTP's dialects, MLIR's upstream dialects and the LLVM IR
/// translations registered, and HTP's dialects and the IRDL dialects
/// extensions registered (`irdl`) loaded.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    register_htp_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    register_all_llvm_translations(&context);
    for namespace in handles::NAMESPACES {
        context.get_or_load_dialect(namespace);
    }
    irdl::load_registered(&context);
    context
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::{operation::OperationLike, Module};

    #[test]
    fn every_dialect_folder_is_listed() {
        let dialects = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dialects");
        let mut folders: Vec<String> = std::fs::read_dir(&dialects)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        folders.sort();
        let mut listed: Vec<String> = handles::NAMESPACES.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(folders, listed, "every folder in dialects/ must be listed in HTPDialects.def");
    }

    #[test]
    fn parses_and_verifies_tile_ir() {
        let context = new_context();
        let module = Module::parse(
            &context,
            "func.func @f(%a: memref<32x64xf32>) {\n\
               %c0 = arith.constant 0 : index\n\
               %t = tile.load %a[%c0, %c0] : memref<32x64xf32> -> !tile.tile<16x64xf32>\n\
               %e = tile.exp %t : !tile.tile<16x64xf32>\n\
               tile.store %e, %a[%c0, %c0] : !tile.tile<16x64xf32>, memref<32x64xf32>\n\
               return\n}",
        )
        .expect("tile IR parses");
        assert!(module.as_operation().verify());
    }

    #[test]
    fn handles_name_their_dialects() {
        assert_eq!(handles::tile().namespace().as_str().unwrap(), "tile");
    }
}
