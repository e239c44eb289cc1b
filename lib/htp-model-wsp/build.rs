//! Builds the `wsp` dialect this crate owns (`dialects/wsp/`: ODS + C++)
//! with `htp_build::build_dialects`; `register()` registers it with the core.

use htp_build::{build_dialects, DialectEntry};

fn main() {
    build_dialects("htp_model_wsp_cpp", &htp_build::repo_dialects(), &[DialectEntry::new("wsp", "WSP")], &[]);
}
