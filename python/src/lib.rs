//! `htp._htp` without Rust extensions: the plain package's `#[pymodule]`.
//! Everything else is `htp-binding` (`python/binding/`), which a package
//! built with `HTP_RUST_EXTENSIONS` links under a `#[pymodule]` of its own.

use htp_binding::pyo3::prelude::*;

#[pymodule(crate = "htp_binding::pyo3")]
fn _htp(module: &Bound<'_, PyModule>) -> PyResult<()> {
    htp_binding::init_module(module, &[])
}
