//! The API every HTP extension is written against: a [`Target`] lowers a
//! module and returns an [`Artifact`] that runs with [`Argument`]s; the
//! [`registry`] is where targets register themselves and where the driver
//! (which names no backend) finds them. In-tree backends use exactly this
//! API, as a third-party crate would.

pub mod architecture;
mod argument;
pub mod capabilities;
pub mod registry;
mod target;

pub use architecture::{Architecture, MemorySpace, ParallelLevel};
pub use argument::Argument;
pub use registry::{find_target, register_target, targets};
pub use target::{source_line, Artifact, Target};
