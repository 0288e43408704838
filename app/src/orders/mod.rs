//! Orders: the message a grab produces, the idempotent writer that persists it, the closer of unpaid
//! orders, payment, and the buyer's views.

pub mod api;
#[cfg(feature = "ssr")]
pub mod closer;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
#[cfg(feature = "ssr")]
pub mod writer;
