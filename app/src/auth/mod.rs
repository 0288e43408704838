//! Accounts: register, log in/out, "me", login throttling.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
