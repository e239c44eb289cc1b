//! The API every HTP extension is written against: a [`Target`] lowers a
//! module and returns an [`Artifact`] that runs with [`Argument`]s; the
//! [`registry`] is where targets register themselves and where the driver
//! (which names no backend) finds them. In-tree backends use exactly this
//! API, as a third-party crate would. What the front end, the driver, the
//! backends and the binding share lives here too, below all of them: a
//! kernel's [`signature`], its [`SourceText`], element types ([`Elem`]),
//! and the registries of [`intrinsics`] sets and programming [`models`].

pub mod architecture;
mod argument;
pub mod capabilities;
pub mod checks;
pub mod extensions;
pub mod host;
mod elem;
pub mod intrinsics;
pub mod layers;
pub mod models;
pub mod registry;
pub mod signature;
pub mod translation;
mod source;
mod target;

pub use architecture::{Architecture, DmaChannels, Direction, MemorySpace, NeighbourAccess, ParallelLevel, TileArray, TileCoord, TileKind};
pub use argument::{Argument, Dims};
pub use elem::Elem;
pub use signature::{ConstValue, Constants, DimSig, KernelSignature, ParamKind, ParamSignature, TensorLayout};
pub use source::SourceText;
pub use extensions::{register_target_extension, ExtensionPoint, TargetExtension, BEFORE_LOWERING};
pub use layers::{register_artifact_layer, ArtifactLayer, ArtifactWrapper};
pub use registry::{find_target, register_target, targets};
pub use target::{source_line, Artifact, CallArgument, FileContents, PackageFile, RunError, RunErrorKind, Target};
