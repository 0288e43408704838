//! Daily check-ins: one bit per day in a monthly bitmap, the current streak, and the month calendar.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
