//! Compiles htp-opt's C++ driver (HtpOptMain.cpp).
fn main() {
    htp_build::compile_tool_driver("HtpOptMain.cpp", "htp_opt_main");
}
