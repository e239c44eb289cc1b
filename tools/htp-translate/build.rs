fn main() {
    let source = std::path::Path::new("HtpTranslateMain.cpp");
    println!("cargo:rerun-if-changed={}", source.display());
    htp_build::cxx_build()
        .include(htp_build::repo_root().join("dialects"))
        .file(source)
        .compile("htp_translate_main");
}
