//! `htp-rust-sample`: the smallest HTP extension written in Rust outside
//! HTP's workspace (docs/extending.md, "A Rust extension out of tree"). It
//! uses only the API in-tree crates use, and registers:
//!
//! - the intrinsic set `rsample` with one intrinsic, `rsample.square(t)`
//!   (`tile.intrinsic "rsample.square"`): `t * t`, elementwise;
//! - the pass `rsample-square-to-mul`, which rewrites that intrinsic into
//!   `tile.mul %t, %t` (`square_to_mul.rs`);
//! - the target `rsample-cpu`: the pass, then the `cpu` target, which lowers
//!   and runs the kernel (`target.rs`). The `cpu` target itself lacks the
//!   intrinsic, so the capability check refuses a kernel using it there.
//!
//! `HTP_RUST_EXTENSIONS=examples/extensions/htp-rust-sample scripts/install-python`
//! links it into the `htp` package; `import htp` calls [`register`] after
//! HTP's own `htp_all::register_all()`.

pub mod square_to_mul;
pub mod target;

use htp_api::intrinsics::{register_intrinsic_set, Intrinsic, IntrinsicSet, IntrinsicShape};

/// The `rsample` intrinsic set: kernels call `rsample.square(t)` after
/// importing a module whose `__htp_namespace__` is `"rsample"`.
pub static RSAMPLE: IntrinsicSet = IntrinsicSet {
    namespace: "rsample",
    description: "the out-of-tree Rust sample extension (examples/extensions/htp-rust-sample)",
    intrinsics: &[Intrinsic {
        name: "square",
        op: square_to_mul::SQUARE,
        shape: IntrinsicShape::Elementwise { arity: 1 },
        elements: &["f32", "f16"],
        summary: "t * t, elementwise (lowered by the rsample-cpu target)",
    }],
};

static TARGET: target::RsampleCpu = target::RsampleCpu;

/// What the `htp` binding calls at import (the convention of
/// `HTP_RUST_EXTENSIONS`): registers the intrinsic set, the pass and the
/// target. Idempotent, as every `register` in HTP is.
pub fn register() -> Result<(), String> {
    register_intrinsic_set(&RSAMPLE)?;
    htp_pass::register_passes(&[square_to_mul::DEFINITION])?;
    htp_api::register_target(&TARGET)
}
