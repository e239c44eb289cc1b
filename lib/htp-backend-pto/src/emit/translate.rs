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

use melior::ir::{attribute::StringAttribute, block::BlockLike, operation::OperationLike, Module, OperationRef};

use crate::ops::ORCHESTRATION_ATTRIBUTE;
use crate::{package, Flavour};

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
        if current.attribute(ORCHESTRATION_ATTRIBUTE).is_ok() {
            found = true;
            let program = StringAttribute::try_from(current.attribute("sym_name").map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?
                .value()
                .to_string();
            // The IR's `?` sizes stay unnamed (only a kernel's signature names them).
            for (path, text) in package(module, &program, &|_, _| None, flavour, &lines, &[])?.files {
                out.push_str(&format!("// ----- {path}\n{text}"));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        op = current.next_in_block();
    }
    if !found {
        return Err(format!("no {ORCHESTRATION_ATTRIBUTE} function: lower the module with the PTO pipeline first"));
    }
    Ok(out)
}

