//! Builds the `aie` and `aiex` dialects this backend owns (`dialects/aie/`,
//! `dialects/aiex/`: ODS + C++) with `htp_build::build_dialects`;
//! `register()` registers them with the core.

use htp_build::{build_dialects, DialectEntry};

fn main() {
    build_dialects(
        "htp_backend_aie_cpp",
        &htp_build::repo_dialects(),
        &[DialectEntry::new("aie", "AIE"), DialectEntry::new("aiex", "AIEX")],
        &[],
    );
}
