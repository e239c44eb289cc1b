//! `htp-translate --pto-to-cpp`: the package of a module already lowered to
//! `pto` (by `htp-opt` with [`crate::PIPELINE`]), printed as text with each
//! file after a `// ----- <path>` line. It is how lit tests check the
//! emitted C++, and how a C++ MLIR user gets PTO-ISA sources without Python.
//!
//! Everything the Python driver knows from the kernel's signature is read
//! off the orchestration function instead: parameter names from the names
//! the front end put on the argument locations, dtypes and shapes from the
//! memref types (dynamic sizes print as "?").

use std::{cell::RefCell, collections::HashMap};

use htp_api::translation::{Direction, Translation, TranslationOption, TranslationOptions};

use melior::ir::{
    attribute::StringAttribute, block::BlockLike, operation::OperationLike, r#type::{DimSize, MemRefType}, Module,
    OperationRef, RegionLike, ShapedTypeLike, TypeLike, ValueLike,
};

use crate::{package, ArgumentInfo, Flavour};

/// `--pto-to-cpp [--pto-target pto-a2a3sim|pto-a2a3]`.
pub static PTO_TO_CPP: Translation = Translation {
    name: "pto-to-cpp",
    description: "Write the PTO-ISA C++ kernels, orchestration and manifest of a module lowered to pto",
    options: &[TranslationOption {
        name: "pto-target",
        description: "Target of --pto-to-cpp: pto-a2a3sim (default) or pto-a2a3",
        default: "pto-a2a3sim",
        repeatable: false,
    }],
    direction: Direction::FromMlir(export),
};

fn export(module: &Module, options: &TranslationOptions) -> Result<String, String> {
    let flavour = match options.get("pto-target").unwrap_or("pto-a2a3sim") {
        "pto-a2a3sim" => Flavour::Sim,
        "pto-a2a3" => Flavour::Chip,
        other => return Err(format!("--pto-target must be pto-a2a3sim or pto-a2a3, got '{other}'")),
    };
    translate(module, flavour)
}

fn translate(module: &Module, flavour: Flavour) -> Result<String, String> {
    let files = RefCell::new(HashMap::<String, Option<String>>::new());
    let lines = |file: &str, line: u32| -> Option<String> {
        let mut files = files.borrow_mut();
        let text = files.entry(file.to_string()).or_insert_with(|| std::fs::read_to_string(file).ok());
        text.as_ref()?.lines().nth(line.checked_sub(1)? as usize).map(str::to_string)
    };
    let mut out = String::new();
    let mut found = false;
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        let current: OperationRef = unsafe { OperationRef::from_raw(current.to_raw()) };
        if current.attribute("pto.orchestration").is_ok() {
            found = true;
            let program = StringAttribute::try_from(current.attribute("sym_name").map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?
                .value()
                .to_string();
            let arguments = arguments_of(current)?;
            for (path, text) in package(module, &program, &arguments, flavour, &lines, &[])?.files {
                out.push_str(&format!("// ----- {path}\n{text}"));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        op = current.next_in_block();
    }
    if !found {
        return Err("no pto.orchestration function: lower the module with the PTO pipeline first".into());
    }
    Ok(out)
}

fn arguments_of(orchestration: OperationRef) -> Result<Vec<ArgumentInfo>, String> {
    let entry = orchestration.region(0).unwrap().first_block().ok_or("an orchestration without a body")?;
    (0..entry.argument_count())
        .map(|i| {
            let argument = entry.argument(i).unwrap();
            let location = unsafe { mlir_sys::mlirValueGetLocation(argument.to_raw()) };
            let name = unsafe {
                if mlir_sys::mlirLocationIsAName(location) {
                    let id = mlir_sys::mlirLocationNameGetName(location);
                    let name = mlir_sys::mlirIdentifierStr(id);
                    String::from_utf8_lossy(std::slice::from_raw_parts(name.data as *const u8, name.length)).into_owned()
                } else {
                    format!("arg{i}")
                }
            };
            let ty = argument.r#type();
            if let Ok(memref) = MemRefType::try_from(ty) {
                let dims: Vec<String> = (0..memref.rank())
                    .map(|d| match memref.dim_size(d) {
                        Ok(DimSize::Static(size)) => size.to_string(),
                        _ => "\"?\"".to_string(),
                    })
                    .collect();
                Ok(ArgumentInfo { name, kind: "tensor", dtype: dtype_of(memref.element())?, shape_json: format!("[{}]", dims.join(", ")) })
            } else {
                Ok(ArgumentInfo { name, kind: "scalar", dtype: dtype_of(ty)?, shape_json: String::new() })
            }
        })
        .collect()
}

fn dtype_of(ty: melior::ir::Type) -> Result<String, String> {
    let text = if ty.is_index() { "i64".to_string() } else { ty.to_string() };
    numpy_dtype(&text).map(str::to_string).ok_or_else(|| format!("no numpy dtype for {text}"))
}

/// The numpy name of an MLIR element type (`f32` -> `float32`).
pub fn numpy_dtype(mlir: &str) -> Option<&'static str> {
    Some(match mlir {
        "f32" => "float32",
        "f16" => "float16",
        "bf16" => "bfloat16",
        "i64" => "int64",
        "i32" => "int32",
        "i16" => "int16",
        "i8" => "int8",
        "i1" => "bool",
        _ => return None,
    })
}
