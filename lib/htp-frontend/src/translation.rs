//! `htp-translate --import-python`: the front end as a registered
//! translation (`htp_api::translation`), so the tool's driver names it no
//! more than it names a backend.

use htp_api::translation::{Direction, Translation, TranslationOption, TranslationOptions};
use melior::{
    ir::{Location, Module},
    Context,
};

use crate::{import_python, Constants};

/// `--import-python FILE.py [--htp-const NAME=VALUE ...]`.
pub static IMPORT_PYTHON: Translation = Translation {
    name: "import-python",
    description: "Import HTP kernels from Python source",
    options: &[TranslationOption {
        name: "htp-const",
        description: "Value of a compile-time constant for --import-python (NAME=VALUE, repeatable)",
        default: "",
        repeatable: true,
    }],
    direction: Direction::ToMlir(import),
};

/// Imports the Python `source` (of `file_name`) with the compile-time
/// constants of `--htp-const`; the user's errors at their file:line:col.
fn import<'c>(context: &'c Context, source: &str, file_name: &str, options: &TranslationOptions) -> Result<Module<'c>, Vec<(Location<'c>, String)>> {
    let mut constants = Constants::new();
    for assignment in options.all("htp-const").iter().filter(|a| !a.trim().is_empty()) {
        constants.insert_assignment(assignment).map_err(|e| vec![(Location::unknown(context), format!("--htp-const: {e}"))])?;
    }
    let imported = import_python(context, source, file_name, 1, &constants).map_err(|diagnostics| {
        diagnostics
            .iter()
            .map(|d| {
                let location = if d.line > 0 { Location::new(context, &d.file, d.line as usize, d.col as usize) } else { Location::unknown(context) };
                (location, d.message.clone())
            })
            .collect::<Vec<_>>()
    })?;
    // A constant no kernel declares would be silently ignored (a typo'd name
    // compiles with the default): an error naming the ones there are.
    let declared: std::collections::BTreeSet<&str> = imported
        .kernels
        .iter()
        .flat_map(|k| k.params.iter())
        .filter(|p| matches!(p.kind, htp_api::ParamKind::Constant { .. }))
        .map(|p| p.name.as_str())
        .collect();
    if let Some(unknown) = constants.0.keys().find(|name| !declared.contains(name.as_str())) {
        let known = if declared.is_empty() { "none".to_string() } else { declared.iter().copied().collect::<Vec<_>>().join(", ") };
        return Err(vec![(
            Location::unknown(context),
            format!("--htp-const {unknown}=...: no kernel in {file_name} has a compile-time constant named '{unknown}' (its constants: {known})"),
        )]);
    }
    Ok(imported.module)
}
