//! Flash sales: the atomic Redis grab, giving a grab back, throttling, and the sale card on shop pages.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
