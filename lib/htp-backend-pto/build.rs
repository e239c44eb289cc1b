//! Builds the `pto` dialect this backend owns (`dialects/pto/`: ODS + C++)
//! with `htp_build::build_dialects`; `register()` registers it with the core.

use htp_build::{build_dialects, DialectEntry};

fn main() {
    build_dialects("htp_backend_pto_cpp", &htp_build::repo_dialects(), &[DialectEntry::new("pto", "PTO")], &[]);
}
