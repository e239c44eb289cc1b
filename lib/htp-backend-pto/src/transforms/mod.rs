//! The PTO backend's passes over `pto` kernels: placing tile buffers in
//! on-chip memory (`pto-allocate-tiles`) and synchronising the pipes
//! (`pto-insert-sync`).

pub mod allocate_tiles;
pub mod insert_sync;
