//! Compiles htp-translate's C++ driver (HtpTranslateMain.cpp).
fn main() {
    htp_build::compile_tool_driver("HtpTranslateMain.cpp", "htp_translate_main");
}
