//! Orders: the message a grab produces and the idempotent writer that persists it.

pub mod model;
#[cfg(feature = "ssr")]
pub mod store;
#[cfg(feature = "ssr")]
pub mod writer;
