//! IR utilities every HTP pass uses, whatever its dialects: [`builder`]
//! builds ops (upstream ones through helpers, others by name from the pass
//! that owns them) and [`query`] answers questions about existing IR. This
//! crate knows no HTP dialect and no backend.

pub mod arith;
pub mod builder;
pub mod json;
pub mod query;
