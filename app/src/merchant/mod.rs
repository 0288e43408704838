//! The merchant console: where a merchant lands after logging in — their shops at a glance, coupons and
//! flash sales, the shop's orders (and their CSV export), redemption at the counter, and charts of how the
//! shop is doing. It composes the capabilities below it; it owns no table of its own.

pub mod api;
#[cfg(feature = "ssr")]
pub mod export;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
