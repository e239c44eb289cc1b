//! Builds the `sample` dialect this crate owns (`dialect/sample/`, inside
//! the crate, as a crate outside HTP's repository would keep it).

use std::path::PathBuf;

use htp_build::{build_dialects, DialectEntry};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("dialect");
    build_dialects("htp_backend_sample_cpp", &root, &[DialectEntry::new("sample", "Sample")], &[]);
}
