//! Serving routines (docs/serving.md): what an LLM server runs every step.
//! A routine names its steps — WSP workloads or kernels, compiled once per
//! target — and the parameters that are its **state**: tensors placed on
//! the target once when a session starts (weights, a paged KV cache, the
//! step's workspaces) and handed to every step in place, never copied back
//! and forth. State updates are the steps' own task writes, ordered by the
//! workload's dependency inference as any write is.
//!
//! A routine is a layer over compiled artifacts, not a new kind of
//! program: it adds no dialect, construct or pass, and no target names it.
//! Its surface is Python (`python/routine.py`, run in the namespace
//! `htp.model("serving")`); where a step runs is the step's target's
//! business — in this process on the cpu, and through the target's runner
//! module's `open_session` (device memory kept between runs) for targets
//! whose packages another runtime runs (PTO's `htp.pto.runtime`), on one
//! chip or on every chip of a group (`start(chips=n)`: per-chip state,
//! one run of the step on every chip per call).
//!
//! ```python
//! serving = htp.model("serving")
//! decoder = serving.routine(state=("weights", "k_cache"), decode=decode_step)
//! with decoder.compile(target="cpu").start(weights=w, k_cache=cache) as session:
//!     next_tokens = session.decode(tokens, positions)
//! ```

use htp_api::models::ProgrammingModel;

/// The model's name and Python namespace.
pub const MODEL_NAME: &str = "serving";

/// The model, as registered: no constructs (a routine's steps are written
/// in other models), its surface in Python.
pub static SERVING: ProgrammingModel = ProgrammingModel {
    name: MODEL_NAME,
    namespace: MODEL_NAME,
    description: "serving routines: steps compiled once and run every step, their state kept on the target (docs/serving.md)",
    entry_decorator: "routine",
    dialects: &[],
    rules: &[],
    constructs: &[],
    loops: &[],
    blocks: &[],
    types: &[],
    pipeline: None,
    python: Some(include_str!("../python/routine.py")),
};

/// Registers the model. Idempotent.
pub fn register() -> Result<(), String> {
    htp_api::models::register_model(&SERVING)
}

#[cfg(test)]
mod tests {
    #[test]
    fn registers_once_under_its_name() {
        super::register().unwrap();
        super::register().unwrap();
        let model = htp_api::models::model_in(super::MODEL_NAME).expect("registered");
        assert_eq!(model.name, "serving");
        assert!(model.python.is_some_and(|surface| surface.contains("def routine(")));
    }
}
