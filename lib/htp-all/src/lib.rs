//! Registers every in-tree extension of HTP, as MLIR's `InitAll*` headers
//! do: the target-neutral transforms and the `cpu`, PTO and AIE backends. Tools
//! and bindings call [`register_all`] once; the core crates (driver, pass
//! framework, API) never name a backend. A Rust crate out of tree is named
//! at build time instead (`HTP_RUST_EXTENSIONS`, docs/extending.md): the
//! `htp` binding calls its `register()` after this one.

/// Registers every in-tree pass, pipeline and target, and MLIR's upstream
/// passes (so any pipeline text, an extension's too, can name them).
/// Idempotent.
pub fn register_all() -> Result<(), String> {
    htp_pass::register_upstream_passes();
    htp_transforms::register()?;
    htp_backend_cpu::register()?;
    htp_backend_pto::register()?;
    htp_backend_aie::register()?;
    htp_backend_sample::register()?;
    htp_model_sample::register()?;
    htp_model_serving::register()?;
    htp_model_wsp::register()?;
    htp_conversion_wsp_to_cpu::register()?;
    htp_conversion_wsp_to_pto::register()?;
    htp_model_csp::register()?;
    htp_conversion_csp_to_cpu::register()?;
    htp_conversion_csp_to_pto::register()?;
    htp_conversion_csp_to_aie::register()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_every_in_tree_target_and_is_idempotent() {
        register_all().unwrap();
        register_all().unwrap();
        let names: Vec<_> = htp_api::targets().iter().map(|t| t.name()).collect();
        assert_eq!(names, ["cpu", "pto-a2a3sim", "pto-a2a3", "aie-npu1", "aie-npu2", "aie-sim", "sample"]);
        let pipelines: Vec<_> = htp_pass::pipelines().iter().map(|p| p.name).collect();
        assert_eq!(pipelines, ["htp-cpu-lowering", "htp-pto-lowering"]);
    }

    #[test]
    fn every_dialect_is_registered_by_the_crate_that_owns_it() {
        register_all().unwrap();
        let registered: Vec<&str> = htp_dialects::dialects().iter().map(|(namespace, _)| *namespace).collect();
        // The repository's dialects/ (also the CMake package's list, HTPDialects.def) ...
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dialects");
        let listed = std::fs::read_to_string(root.join("HTPDialects.def")).unwrap();
        for folder in std::fs::read_dir(&root).unwrap().flatten().filter(|e| e.path().is_dir()) {
            let namespace = folder.file_name().to_string_lossy().into_owned();
            assert!(registered.contains(&namespace.as_str()), "dialects/{namespace} is registered by no crate: {registered:?}");
            assert!(listed.contains(&format!("HTP_DIALECT({namespace},")), "dialects/{namespace} is not in HTPDialects.def");
        }
        // ... and those crates keep beside them, registered the same way.
        assert!(registered.contains(&"sample"), "{registered:?}");
        let context = htp_dialects::new_context();
        for namespace in registered {
            assert!(context.get_or_load_dialect(namespace).namespace().is_ok(), "{namespace}");
        }
    }

    #[test]
    fn registered_passes_and_pipelines_parse_in_textual_pipelines() {
        use melior::{ir::Module, pass::PassManager, utility::parse_pass_pipeline};
        register_all().unwrap();
        let context = htp_dialects::new_context();
        let passes = htp_pass::registered_passes();
        assert!(passes.len() >= 5);
        for pass in passes {
            let manager = PassManager::new(&context);
            let pipeline = pass.module_pipeline();
            parse_pass_pipeline(manager.as_operation_pass_manager(), &pipeline).unwrap_or_else(|e| panic!("{pipeline}: {e}"));
            let mut module = Module::parse(&context, "func.func @f() { return }").unwrap();
            // A pass with a required option (no default) refuses to run without it.
            let required = pass.options.iter().any(|option| option.default.is_empty());
            let (ran, _) = htp_dialects::diagnostics::collect_errors(&context, || manager.run(&mut module).is_ok());
            assert_eq!(ran, !required, "{pipeline}");
        }
        for pipeline in htp_pass::pipelines() {
            let manager = PassManager::new(&context);
            let text = format!("builtin.module({})", pipeline.name);
            parse_pass_pipeline(manager.as_operation_pass_manager(), &text).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    #[test]
    fn pass_names_are_unique_and_kebab_case() {
        register_all().unwrap();
        let names: Vec<_> = htp_pass::registered_passes().iter().map(|p| p.argument).collect();
        assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-')), "{names:?}");
    }

    #[test]
    fn a_model_no_target_provides_is_refused_at_its_function() {
        use htp_api::models::{register_model, Construct, ConstructSite, ModelValue, ProgrammingModel};
        fn nothing<'c>(_: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
            Ok(ModelValue::None)
        }
        static SKETCH: ProgrammingModel = ProgrammingModel {
            name: "sketch",
            namespace: "sketch",
            description: "a model no target provides (tests)",
            entry_decorator: "routine",
            dialects: &[], rules: &[],
            constructs: &[Construct { name: "step", summary: "nothing", lower: nothing }],
            loops: &[],
            blocks: &[],
            types: &[],
            pipeline: None,
            python: None,
        };
        register_all().unwrap();
        register_model(&SKETCH).unwrap();
        let source = "import htp\nimport sketch\n\n@sketch.routine\ndef r(x: htp.Tensor[htp.f32, 16, 64]):\n    sketch.step()\n";
        let sources = [htp_api::SourceText::new(source, "r.py", 1)];
        let request = htp_driver::Request {
            sources: &sources,
            kernel: "r",
            constants: htp_api::Constants::new(),
            target: "cpu",
            pipelines: &[],
            dump_ir: None,
        };
        let error = htp_driver::compile(&request).err().expect("refused").to_string();
        assert!(error.contains("r.py:4:1: error: the 'sketch' programming model is not available on target 'cpu' (no registered target provides it)"), "{error}");
    }

    /// No programming model depends on a backend:
    /// a model on a backend is a conversion crate depending on both
    /// (`lib/htp-conversion-<model>-to-<backend>`, as CIRCT's
    /// `lib/Conversion/<A>To<B>/`).
    #[test]
    fn no_model_crate_depends_on_a_backend_crate() {
        let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut manifests: Vec<_> = std::fs::read_dir(&lib)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("htp-model-"))
            .map(|e| e.path().join("Cargo.toml"))
            .filter(|p| p.is_file())
            .collect();
        manifests.sort();
        assert!(manifests.iter().any(|p| p.parent().unwrap().ends_with("htp-model-wsp")), "{manifests:?}");
        for manifest in manifests {
            let text = std::fs::read_to_string(&manifest).unwrap();
            for dependency in dependencies(&text) {
                assert!(!dependency.starts_with("htp-backend-"), "{} depends on {dependency}", manifest.display());
                // Running a model on a target (threads, task graphs) is a conversion crate's too.
                assert!(dependency != "htp-runtime", "{} depends on {dependency}", manifest.display());
            }
        }
    }

    /// The crates a manifest names in its dependency tables (`[dependencies]`,
    /// `[dev-dependencies]`, `[build-dependencies]`, `[target.'...'.dependencies]`,
    /// `[dependencies.<name>]`), by key and by `package = "..."`.
    fn dependencies(manifest: &str) -> Vec<String> {
        let mut names = Vec::new();
        // In a table of dependencies (keys are crates), in one dependency's table, or elsewhere.
        let (mut in_table, mut in_one) = (false, false);
        for line in manifest.lines().map(|l| l.split('#').next().unwrap_or("").trim()) {
            if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                let header = header.trim_matches(['[', ']']).trim();
                in_table = header.rsplit('.').next() == Some("dependencies") || header.ends_with("-dependencies");
                in_one = false;
                if let Some((_, name)) = header.split_once("dependencies.") {
                    names.push(name.trim_matches(['"', '\'', ' ']).to_string());
                    in_one = true;
                }
                continue;
            }
            let Some((key, value)) = line.split_once('=') else { continue };
            let key = key.trim().trim_matches(['"', '\'']);
            if in_table {
                names.push(key.split('.').next().unwrap_or(key).to_string());
            }
            // `x = { package = "htp-backend-..." }`, or `package = "..."` in a dependency's own table.
            let renamed = match (in_table, in_one) {
                (true, _) => value.split_once("package").map(|(_, v)| v),
                (_, true) if key == "package" => Some(value),
                _ => None,
            };
            if let Some(name) = renamed.and_then(|v| v.split('"').nth(1)) {
                names.push(name.to_string());
            }
        }
        names
    }

    #[test]
    fn dependencies_of_a_manifest_are_read_from_every_dependency_table() {
        let manifest = r#"
[package]
name = "htp-model-x"
links = "htp_model_x"

[dependencies]
melior = { workspace = true }
renamed = { package = "htp-backend-a", path = "../a" }  # a comment

[dev-dependencies]
htp-backend-b.workspace = true

[target.'cfg(unix)'.dependencies]
"htp-backend-c" = "1"

[build-dependencies]
htp-build = { path = "../htp-build" }

[dependencies.htp-backend-d]
path = "../d"

[dependencies.e]
package = "htp-backend-e"
"#;
        let names = dependencies(manifest);
        for name in ["melior", "renamed", "htp-backend-a", "htp-backend-b", "htp-backend-c", "htp-build", "htp-backend-d", "e", "htp-backend-e"] {
            assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
        }
        assert!(!names.iter().any(|n| ["name", "links", "path", "htp-model-x"].contains(&n.as_str())), "{names:?}");
    }
}
