//! Build-script helpers shared by every HTP crate that compiles C++ against
//! Debian's MLIR 22: where LLVM lives, the flags its headers need, and how
//! ODS files are turned into C++ with `mlir-tblgen`.

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

/// The LLVM/MLIR install prefix (`HTP_LLVM_PREFIX`, set in `.cargo/config.toml`).
pub fn llvm_prefix() -> PathBuf {
    println!("cargo:rerun-if-env-changed=HTP_LLVM_PREFIX");
    PathBuf::from(env::var("HTP_LLVM_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()))
}

/// The repository root (two levels above a crate under `lib/` or `tools/`).
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    manifest.ancestors().nth(2).expect("crate lives two levels below the root").to_path_buf()
}

/// A `cc::Build` set up the way MLIR's headers need: C++17, no exceptions,
/// RTTI kept (Debian builds LLVM with RTTI), NDEBUG to match the release build.
pub fn cxx_build() -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .include(llvm_prefix().join("include"))
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .define("NDEBUG", None)
        .flag("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-comment")
        .warnings(false)
        // Debug info for MLIR-heavy C++ is large and slow to link; line
        // numbers in backtraces come from the Rust side.
        .debug(false);
    build
}

/// Compiles a tool's C++ driver entry point (`source`, relative to the
/// crate) into the static library `name`, with `dialects/` on the include
/// path for `Registration.h`.
pub fn compile_tool_driver(source: &str, name: &str) {
    println!("cargo:rerun-if-changed={source}");
    cxx_build().include(repo_root().join("dialects")).file(source).compile(name);
}

/// Runs `mlir-tblgen <args> <td> -o <out>` with the MLIR include path and
/// every directory in `includes`. Panics with the tool's message on failure:
/// a build script has no other way to report it.
pub fn tblgen(td: &Path, args: &[&str], includes: &[&Path], out: &Path) {
    let tool = llvm_prefix().join("bin/mlir-tblgen");
    let mut cmd = Command::new(&tool);
    cmd.args(args).arg(td).arg("-I").arg(llvm_prefix().join("include"));
    for dir in includes {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg("-o").arg(out);
    let output = cmd.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", tool.display()));
    if !output.status.success() {
        panic!(
            "mlir-tblgen {} {} failed:\n{}",
            args.join(" "),
            td.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Tells cargo to rerun the build script when anything below `dir` changes.
pub fn rerun_if_tree_changed(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rerun_if_tree_changed(&path);
            } else {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
}

/// One line of `dialects/HTPDialects.def`: `HTP_DIALECT(namespace, Prefix)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectEntry {
    pub namespace: String,
    pub prefix: String,
}

/// Parses `HTPDialects.def` (C comments and blank lines are skipped).
pub fn parse_dialect_list(text: &str) -> Result<Vec<DialectEntry>, String> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let inner = line
            .strip_prefix("HTP_DIALECT(")
            .and_then(|rest| rest.strip_suffix(')'))
            .ok_or_else(|| format!("line {}: expected HTP_DIALECT(namespace, Prefix), got `{line}`", number + 1))?;
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        match parts.as_slice() {
            [ns, prefix] if !ns.is_empty() && !prefix.is_empty() => entries.push(DialectEntry {
                namespace: ns.to_string(),
                prefix: prefix.to_string(),
            }),
            _ => return Err(format!("line {}: expected two names in `{line}`", number + 1)),
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_and_skips_comments() {
        let list = parse_dialect_list("// c\n\nHTP_DIALECT(tile, Tile)\nHTP_DIALECT( pto , Pto )\n").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1], DialectEntry { namespace: "pto".into(), prefix: "Pto".into() });
    }

    #[test]
    fn rejects_malformed_lines() {
        assert!(parse_dialect_list("HTP_DIALECT(tile)").is_err());
        assert!(parse_dialect_list("DIALECT(tile, Tile)").is_err());
    }
}
