//! CSP, HTP's process/channel programming model, built only through the
//! extension API (docs/csp.md): it owns the `csp` dialect
//! (`dialects/csp/`, built by `build.rs`), registers it, the model `csp`
//! (`model.rs`: channels, processes, send/recv/consume), the protocol of a
//! program as a small program of its own (`protocol/`: extracted from the
//! IR, run over the declared depths to find unbalanced channels and
//! deadlocks), the pass that checks it before anything runs
//! (`verify_protocol.rs`), and the process outliner every target's
//! conversion uses (`outline.rs`). It depends on no backend and no runtime:
//! the targets are conversion crates (`htp-conversion-csp-to-cpu`: processes
//! on threads over `htp-runtime`'s CSP network; `htp-conversion-csp-to-pto`:
//! one cluster task). It is named in one line of `htp-all`.
//!
//! ```python
//! csp = htp.model("csp")
//!
//! @csp.program
//! def double(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
//!     a = csp.channel(f32, (16, 64), depth=2)
//!     with csp.process(name="load"):
//!         for i in range(0, x.shape[0], 16):
//!             csp.send(a, x[i:i + 16, :])
//!     with csp.process(name="store"):
//!         for i in range(0, x.shape[0], 16):
//!             y[i:i + 16, :] = csp.recv(a) * 2.0
//! ```

pub mod ir;
pub mod model;
pub mod dissolve;
pub mod outline;
pub mod protocol;
pub mod verify_protocol;

/// Handle functions of the dialects this crate builds (`csp`).
pub mod handles {
    include!(concat!(env!("OUT_DIR"), "/handles.rs"));
}

/// The model's name (the capability `model:csp`) and its dialect's.
pub const MODEL_NAME: &str = "csp";

/// Registers the dialect, the pass and the model (the targets that run it
/// are added by the conversion crates, `htp-conversion-csp-to-*`).
pub fn register() -> Result<(), String> {
    for (namespace, handle) in handles::DIALECTS {
        htp_dialects::register_dialect(namespace, *handle)?;
    }
    htp_pass::register_passes(&[verify_protocol::DEFINITION])?;
    htp_api::models::register_model(&model::CSP)
}
