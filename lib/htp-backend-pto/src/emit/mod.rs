//! From placed, synchronised PTO IR to a pto-runtime package: the C++
//! writer shared by kernels and orchestration (`writer.rs`), kernel sources
//! (`kernel.rs`; a large one as outlined parts, `parts.rs`), C++ names for the user's parameters (`names.rs`), the orchestration source (`orchestration.rs`; scheduled tasks, `schedule.rs`), the
//! package with its manifest (`package.rs`) and `htp-translate
//! --pto-to-cpp` (`translate.rs`).

mod kernel;
pub mod names;
mod parts;
pub mod orchestration;
pub mod package;
pub mod schedule;
pub mod translate;
pub mod writer;
