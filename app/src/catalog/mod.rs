//! Shops and shop types: what the home and category pages browse.

pub mod api;
#[cfg(feature = "ssr")]
pub mod cache;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod rest;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
