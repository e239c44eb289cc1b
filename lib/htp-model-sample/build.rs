//! Builds the `cells` dialect this crate owns (`dialect/cells/`, inside
//! the crate, as a crate outside HTP's repository would keep it).

use std::path::PathBuf;

use htp_build::{build_dialects, DialectEntry};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("dialect");
    build_dialects("htp_model_sample_cpp", &root, &[DialectEntry::new("cells", "Cells")], &[]);
}
