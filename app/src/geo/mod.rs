//! Nearby shops: Redis GEO per shop type, kept in step with Postgres, and the `geo` crate on our side.

pub mod api;
pub mod map;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
