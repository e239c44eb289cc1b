//! Compiles the C++ glue that registers Rust passes with MLIR by name.
fn main() {
    let glue = std::path::Path::new("cpp/RegisterExternalPass.cpp");
    println!("cargo:rerun-if-changed={}", glue.display());
    htp_build::cxx_build().file(glue).compile("htp_passes_cpp");
}
