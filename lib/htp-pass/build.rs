//! Compiles the C++ glue that registers Rust passes and named pipelines with MLIR.
fn main() {
    let glue = std::path::Path::new("cpp/Registration.cpp");
    println!("cargo:rerun-if-changed={}", glue.display());
    htp_build::cxx_build().file(glue).compile("htp_pass_cpp");
}
