//! Flash sales: the grab (throttle → in-process sold-out view → inventory script → Kafka), merchants'
//! sales, healing after Redis loses its data, the audit, and the sale card on shop pages. Other
//! capabilities use `service` (the public face); the job files behind it are private.

#[cfg(feature = "ssr")]
mod admin;
pub mod api;
#[cfg(feature = "ssr")]
mod audit;
#[cfg(feature = "ssr")]
mod grab;
#[cfg(feature = "ssr")]
mod healing;
#[cfg(feature = "ssr")]
pub mod live;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
