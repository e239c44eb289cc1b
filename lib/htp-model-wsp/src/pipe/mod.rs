//! Pipes: CSP's task level inside a workload (docs/wsp.md, "Pipes").
//! `constructs.rs` is the surface (`wsp.channel`, `wsp.pipe`,
//! `wsp.process`, `wsp.produce`, `wsp.consume`, `wsp.send`), `lower.rs` the
//! pass `wsp-lower-pipes`, after which a pipe is an ordinary workload loop
//! over views of the channels' rings (the `wsp.channel` ops stay: each
//! target allocates the rings once per call).

pub mod constructs;
pub mod lower;
