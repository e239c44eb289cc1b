//! `htp-apply-pdl{patterns=<name>}` (or `{file=<path>}`): applies a registered set of PDL
//! rewrite patterns (`pdl.pattern` ops, MLIR's pattern language) greedily
//! to the module, through MLIR's PDL bytecode interpreter. Extensions that
//! cannot link C++ (Python packages) register pattern sets by name
//! ([`register_patterns`]; `registry.rewrite` in `htp.extensions`), and a
//! pipeline names them — the rewrites an extension writes as data. `file=`
//! reads the patterns from a file instead (`htp-opt`, lit).

use std::sync::Mutex;

use htp_pass::Failure;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, OperationRef},
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"htp-apply-pdl", "builtin.module"> {
        summary: "Apply a registered set of PDL rewrite patterns greedily (rewrites registered by extensions)",
        dialects: [pdl],
        options: Options {
            #[option("patterns", default = "", "the name of a registered PDL pattern set")]
            patterns: String,
            #[option("file", default = "", "a file of pdl.pattern ops (instead of a registered set)")]
            file: String,
        },
        run: run,
    }
}

/// A registered pattern set: its name, who registered it, its PDL text.
#[derive(Clone, Debug)]
struct PatternSet {
    name: String,
    provider: String,
    source: String,
}

static PATTERN_SETS: Mutex<Vec<PatternSet>> = Mutex::new(Vec::new());

fn find(name: &str) -> Option<PatternSet> {
    PATTERN_SETS.lock().ok()?.iter().find(|set| set.name == name).cloned()
}

/// Parses `source` as a module of `pdl.pattern`s in `context` (MLIR's
/// PDL compiler expects nothing else there).
fn parse<'c>(context: &'c Context, source: &str) -> Result<Module<'c>, String> {
    let (module, errors) = htp_dialects::diagnostics::collect_errors(context, || {
        Module::parse(context, source).filter(|module| module.as_operation().verify())
    });
    let module = module.ok_or_else(|| htp_dialects::diagnostics::joined(&errors))?;
    let mut patterns = 0;
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        let name = current.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name != "pdl.pattern" {
            return Err(format!("expected only pdl.pattern ops, found {name}"));
        }
        patterns += 1;
        op = current.next_in_block();
    }
    if patterns == 0 {
        return Err("it holds no pdl.pattern".into());
    }
    Ok(module)
}

/// Registers the PDL patterns `source` (a module of `pdl.pattern` ops)
/// under `name`, for `provider`. The text must parse and verify; a name
/// already taken is an error.
pub fn register_patterns(name: &str, provider: &str, source: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a PDL pattern set needs a name".into());
    }
    let context = htp_dialects::new_context();
    parse(&context, source).map_err(|message| format!("the PDL patterns '{name}' of '{provider}' are not valid: {message}"))?;
    let mut sets = PATTERN_SETS.lock().map_err(|_| "the PDL pattern registry is poisoned".to_string())?;
    if let Some(other) = sets.iter().find(|set| set.name == name) {
        return Err(format!("the PDL pattern set '{name}' is already registered by '{}'", other.provider));
    }
    sets.push(PatternSet { name: name.into(), provider: provider.into(), source: source.into() });
    Ok(())
}

/// (name, provider) of every registered pattern set.
pub fn pattern_sets() -> Vec<(String, String)> {
    PATTERN_SETS.lock().map(|sets| sets.iter().map(|s| (s.name.clone(), s.provider.clone())).collect()).unwrap_or_default()
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>> {
    let (name, file) = (&options.patterns, &options.file);
    let source = match (name.is_empty(), file.is_empty()) {
        (false, true) => find(&name).map(|set| set.source).ok_or_else(|| {
            let known: Vec<String> = pattern_sets().into_iter().map(|(name, _)| name).collect();
            let known = if known.is_empty() { "none".into() } else { known.join(", ") };
            (module.location(), format!("htp-apply-pdl: no PDL pattern set named '{name}' is registered (registered: {known})"))
        })?,
        (true, false) => std::fs::read_to_string(&file)
            .map_err(|e| (module.location(), format!("htp-apply-pdl: cannot read the PDL patterns in '{file}': {e}")))?,
        _ => return Err((module.location(), "htp-apply-pdl: give exactly one of patterns=<registered name> and file=<path>".into())),
    };
    let patterns = parse(context, &source).map_err(|message| (module.location(), format!("htp-apply-pdl: the patterns are not valid: {message}")))?;
    unsafe {
        use mlir_sys::*;
        // Each call takes ownership of its argument (the module, then the
        // PDL module's patterns, then the set).
        let raw = patterns.to_raw();
        std::mem::forget(patterns);
        let pdl = mlirPDLPatternModuleFromModule(raw);
        let frozen = mlirFreezeRewritePattern(mlirRewritePatternSetFromPDLPatternModule(pdl));
        let config = mlirGreedyRewriteDriverConfigCreate();
        let result = mlirApplyPatternsAndFoldGreedilyWithOp(module.to_raw(), frozen, config);
        mlirGreedyRewriteDriverConfigDestroy(config);
        mlirFrozenRewritePatternSetDestroy(frozen);
        if result.value == 0 {
            return Err((module.location(), format!("htp-apply-pdl: the patterns '{}' did not converge", if name.is_empty() { &file } else { &name })));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEGATE_TWICE: &str = r#"
pdl.pattern @fold_double_negation : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "arith.negf"(%x : !pdl.value) -> (%type : !pdl.type)
  %negated = pdl.result 0 of %inner
  %outer = pdl.operation "arith.negf"(%negated : !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%x : !pdl.value)
  }
}
"#;

    #[test]
    fn registered_patterns_rewrite_through_a_pipeline() {
        crate::register().unwrap();
        register_patterns("test-double-negation", "test", NEGATE_TWICE).unwrap();
        assert!(register_patterns("test-double-negation", "other", NEGATE_TWICE).unwrap_err().contains("already registered by 'test'"));
        let context = htp_dialects::new_context();
        let mut module = Module::parse(
            &context,
            "func.func @f(%x: f32) -> f32 {\n  %a = arith.negf %x : f32\n  %b = arith.negf %a : f32\n  return %b : f32\n}",
        )
        .unwrap();
        htp_pass::dump::run_pipeline(&context, &mut module, "htp-apply-pdl{patterns=test-double-negation}").unwrap();
        let text = module.as_operation().to_string();
        assert!(!text.contains("arith.negf %a"), "{text}");
        assert!(text.contains("return %arg0"), "{text}");
    }

    #[test]
    fn bad_pattern_sets_are_refused() {
        assert!(register_patterns("test-bad", "test", "pdl.pattern : benefit(1) {").unwrap_err().contains("are not valid"));
        assert!(register_patterns("test-empty", "test", "func.func private @f()").unwrap_err().contains("expected only pdl.pattern ops, found func.func"));
    }
}
