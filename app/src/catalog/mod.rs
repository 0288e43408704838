//! Shops and shop types: what the home and category pages browse.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod store;
