//! The PTO backend's passes over `pto` kernels: placing tile buffers in
//! on-chip memory (`pto-allocate-tiles`), synchronising the pipes
//! (`pto-insert-sync`) and checking cluster tasks' cross-core hand-overs
//! (`pto-verify-pipes`).

pub mod allocate_tiles;
pub mod insert_sync;
pub mod verify_pipes;
