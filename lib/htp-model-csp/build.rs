//! Builds the `csp` dialect this crate owns (`dialects/csp/`: ODS + C++)
//! with `htp_build::build_dialects`; `register()` registers it with the core.

use htp_build::{build_dialects, DialectEntry};

fn main() {
    build_dialects("htp_model_csp_cpp", &htp_build::repo_dialects(), &[DialectEntry::new("csp", "CSP")], &[]);
}
