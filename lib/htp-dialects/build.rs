//! Builds the core's dialects, `layout` and `tile` (ODS + C++ under
//! `dialects/`), with `htp_build::build_dialects`. A backend or programming
//! model builds its own dialects the same way, in its own crate.

use htp_build::{build_dialects, DialectEntry};

fn main() {
    let gen = build_dialects("htp_dialects_cpp", &htp_build::repo_dialects(), &[DialectEntry::new("layout", "Layout"), DialectEntry::new("tile", "Tile")], &[]);
    // Lets dependants' build scripts find the generated headers (DEP_HTP_DIALECTS_INCLUDE).
    println!("cargo:include={}", gen.display());
    println!("cargo:dialects={}", htp_build::repo_dialects().display());
}
