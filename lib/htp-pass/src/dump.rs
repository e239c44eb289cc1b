//! IR dumps after every pass, on request: while a dump directory is set
//! for the compiling thread ([`dumping_into`]), a pipeline run through
//! [`run_pipeline`] runs its passes one at a time and writes the module
//! after each to `<dir>/<NN>-<pass>.mlir` (numbered across the compile).

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use htp_dialects::diagnostics::{collect_errors, MlirError};
use melior::{ir::Module, pass::PassManager, Context};

thread_local! {
    static DUMPS: RefCell<Option<(PathBuf, usize)>> = const { RefCell::new(None) };
}

/// Runs `body` with IR dumps going to `directory` (none if `None`).
pub fn dumping_into<R>(directory: Option<&Path>, body: impl FnOnce() -> R) -> R {
    let previous = DUMPS.with(|d| d.replace(directory.map(|p| (p.to_path_buf(), 0))));
    let result = body();
    DUMPS.with(|d| *d.borrow_mut() = previous);
    result
}

/// Writes `module` as stage `name` if dumps are on (the import, a target's
/// own stages); errors writing are reported, not fatal to the compile.
pub fn dump(module: &Module, name: &str) -> Result<(), String> {
    DUMPS.with(|d| {
        let mut state = d.borrow_mut();
        let Some((directory, count)) = state.as_mut() else { return Ok(()) };
        std::fs::create_dir_all(&*directory).map_err(|e| format!("cannot create the IR dump directory {}: {e}", directory.display()))?;
        let file = directory.join(format!("{:02}-{}.mlir", *count, sanitize(name)));
        *count += 1;
        std::fs::write(&file, module.as_operation().to_string()).map_err(|e| format!("cannot write {}: {e}", file.display()))
    })
}

/// Runs `passes` (the text inside `builtin.module(...)`) on `module`: in
/// one pass manager, or, with dumps on, one top-level pass at a time (a
/// nested `func.func(a,b)` as `func.func(a)` then `func.func(b)`), dumping
/// after each. `Err` is a message when the text does not parse; a failing
/// pass returns `Err` with an empty message (its diagnostics went to the
/// context's handlers).
pub fn run_pipeline(context: &Context, module: &mut Module, passes: &str) -> Result<(), String> {
    let dumping = DUMPS.with(|d| d.borrow().is_some());
    let steps = if dumping { split_pipeline(passes) } else { vec![passes.to_string()] };
    for step in steps {
        let manager = PassManager::new(context);
        melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), &format!("builtin.module({step})"))
            .map_err(|e| format!("the pipeline '{step}' does not parse: {e}"))?;
        manager.run(module).map_err(|_| String::new())?;
        if dumping {
            dump(module, &step)?;
        }
    }
    Ok(())
}

/// [`run_pipeline`] with the context's error diagnostics collected: `Err`
/// holds them, or, when there are none (the text did not parse, or a pass
/// failed silently), one error without a position saying that `what`
/// failed. The one way targets, the driver and Python targets run passes.
pub fn run_pipeline_collecting(context: &Context, module: &mut Module, passes: &str, what: &str) -> Result<(), Vec<MlirError>> {
    let (outcome, errors) = collect_errors(context, || run_pipeline(context, module, passes));
    match outcome {
        Ok(()) => Ok(()),
        Err(_) if !errors.is_empty() => Err(errors),
        Err(message) => {
            let message = if message.is_empty() { format!("{what} failed") } else { format!("{what}: {message}") };
            Err(vec![MlirError { position: None, message }])
        }
    }
}

/// The top-level elements of a pipeline, nested ones split one level:
/// `a,func.func(b,c{x=1}),d` -> `a`, `func.func(b)`, `func.func(c{x=1})`, `d`.
pub fn split_pipeline(passes: &str) -> Vec<String> {
    let mut steps = Vec::new();
    for element in split_top_level(passes) {
        match element.find('(') {
            Some(open) if element.ends_with(')') && !element[..open].contains('{') => {
                let anchor = &element[..open];
                for inner in split_top_level(&element[open + 1..element.len() - 1]) {
                    steps.push(format!("{anchor}({inner})"));
                }
            }
            _ => steps.push(element),
        }
    }
    steps
}

fn split_top_level(text: &str) -> Vec<String> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (index, c) in text.char_indices() {
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..index].trim().to_string());
                start = index + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last.to_string());
    }
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

fn sanitize(name: &str) -> String {
    let cleaned: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
    cleaned.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::split_pipeline;

    #[test]
    fn a_pipeline_splits_into_top_level_passes_and_nested_ones() {
        assert_eq!(
            split_pipeline("canonicalize,func.func(cse,tile-x{a=1,b=2}),convert-to-llvm{index-bitwidth=64}"),
            vec!["canonicalize", "func.func(cse)", "func.func(tile-x{a=1,b=2})", "convert-to-llvm{index-bitwidth=64}"]
        );
        assert_eq!(split_pipeline(" a , b "), vec!["a", "b"]);
        assert!(split_pipeline("").is_empty());
    }
}
