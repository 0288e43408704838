//! Flash sales: the atomic Redis grab, giving a grab back, and throttling.

pub mod model;
#[cfg(feature = "ssr")]
pub mod store;
