//! Orders: the idempotent writer that persists grabbed orders, the closer of unpaid orders, payment,
//! buying normal coupons, and the buyer's views.

pub mod api;
#[cfg(feature = "ssr")]
pub mod closer;
#[cfg(feature = "testing")]
pub mod lifecycle;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod qr;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
#[cfg(feature = "ssr")]
pub mod writer;
