//! Dialects defined at run time in IRDL (MLIR's IR Definition Language),
//! for extensions that cannot link C++ into HTP (Python packages): the
//! source is checked and registered once, and every context HTP makes
//! afterwards (`new_context`) loads it, so its ops parse, verify and print
//! like any other dialect's. Names are unique: a dialect HTP or MLIR
//! already has, or one another extension defined, is refused.

use std::sync::Mutex;

use melior::{
    ir::{attribute::StringAttribute, block::BlockLike, operation::OperationLike, Module},
    Context,
};

use crate::diagnostics::{collect_errors, joined};

/// One registered IRDL module: who gave it, the dialects it defines, its text.
#[derive(Clone, Debug)]
struct Definition {
    provider: String,
    dialects: Vec<String>,
    source: String,
}

static DEFINITIONS: Mutex<Vec<Definition>> = Mutex::new(Vec::new());

fn definitions() -> Vec<Definition> {
    DEFINITIONS.lock().map(|d| d.clone()).unwrap_or_default()
}

/// The dialects (`irdl.dialect @name`) an IRDL module defines, in order.
fn dialect_names(module: &Module) -> Vec<String> {
    let mut names = Vec::new();
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if current.name().as_string_ref().as_str() == Ok("irdl.dialect") {
            if let Some(name) = current.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) {
                names.push(name.value().to_string());
            }
        }
        op = current.next_in_block();
    }
    names
}

/// Loads the dialects of the parsed IRDL `module` into its context; the
/// errors MLIR reported otherwise.
fn load(context: &Context, module: &Module) -> Result<(), String> {
    let (loaded, errors) = collect_errors(context, || unsafe { mlir_sys::mlirLoadIRDLDialects(module.to_raw()).value } != 0);
    if loaded {
        Ok(())
    } else if errors.is_empty() {
        Err("MLIR could not load it".to_string())
    } else {
        Err(joined(&errors))
    }
}

/// Loads every registered IRDL dialect into `context` (`new_context` does).
pub fn load_registered(context: &Context) {
    for definition in definitions() {
        // Checked when it was registered, in a context like this one.
        if let Some(module) = Module::parse(context, &definition.source) {
            let _ = load(context, &module);
        }
    }
}

/// Registers the dialects the IRDL module `source` defines, for `provider`
/// (an extension's name). Returns their names; an error (MLIR's message, or
/// the name clash) registers nothing.
pub fn register(provider: &str, source: &str) -> Result<Vec<String>, String> {
    let context = crate::new_context();
    let (module, errors) = collect_errors(&context, || Module::parse(&context, source));
    let module = module.ok_or_else(|| format!("the IRDL of '{provider}' does not parse: {}", joined(&errors)))?;
    let names = dialect_names(&module);
    if names.is_empty() {
        return Err(format!("the IRDL of '{provider}' defines no dialect (expected `irdl.dialect @name {{ ... }}`)"));
    }
    for name in &names {
        if let Some(other) = definitions().iter().find(|d| d.dialects.contains(name)) {
            return Err(format!("the dialect '{name}' of '{provider}' is already defined by '{}'", other.provider));
        }
        // A namespace the context's registry knows (HTP's or MLIR's): MLIR
        // would keep that dialect and ignore this one.
        let known = unsafe {
            let name = mlir_sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() };
            !mlir_sys::mlirContextGetOrLoadDialect(context.to_raw(), name).ptr.is_null()
        };
        if known {
            return Err(format!("the dialect '{name}' of '{provider}' is already a dialect of HTP or MLIR"));
        }
    }
    load(&context, &module).map_err(|message| format!("the IRDL of '{provider}' does not load: {message}"))?;
    let mut registered = DEFINITIONS.lock().map_err(|_| "the IRDL registry is poisoned".to_string())?;
    registered.push(Definition { provider: provider.into(), dialects: names.clone(), source: source.into() });
    Ok(names)
}

/// (dialect, provider) of every registered IRDL dialect.
pub fn registered() -> Vec<(String, String)> {
    definitions().into_iter().flat_map(|d| d.dialects.into_iter().map(move |name| (name, d.provider.clone()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
irdl.dialect @irdltest {
  irdl.operation @twice {
    %any = irdl.any
    irdl.operands(value: %any)
    irdl.results(result: %any)
  }
}
"#;

    #[test]
    fn registered_dialects_load_in_every_new_context() {
        assert_eq!(register("test", SOURCE), Ok(vec!["irdltest".to_string()]));
        let context = crate::new_context();
        let module = Module::parse(&context, "func.func @f(%x: f32) -> f32 {\n  %y = \"irdltest.twice\"(%x) : (f32) -> f32\n  return %y : f32\n}");
        assert!(module.is_some_and(|m| m.as_operation().verify()));
        // The same name again, from anyone, is refused.
        assert!(register("other", SOURCE).unwrap_err().contains("already defined by 'test'"));
        assert!(registered().contains(&("irdltest".to_string(), "test".to_string())));
    }

    #[test]
    fn names_of_existing_dialects_and_bad_sources_are_refused() {
        let arith = SOURCE.replace("@irdltest", "@arith");
        assert!(register("test", &arith).unwrap_err().contains("already a dialect of HTP or MLIR"));
        let tile = SOURCE.replace("@irdltest", "@tile");
        assert!(register("test", &tile).unwrap_err().contains("already a dialect of HTP or MLIR"));
        assert!(register("test", "irdl.dialect @x {").unwrap_err().contains("does not parse"));
        assert!(register("test", "func.func private @f()").unwrap_err().contains("defines no dialect"));
    }
}
