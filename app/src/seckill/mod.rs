//! Flash sales: the grab (throttle → in-process sold-out view → inventory script → Kafka), merchants'
//! sales, reconciliation, and the sale card on shop pages.

pub mod api;
#[cfg(feature = "ssr")]
pub mod live;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
