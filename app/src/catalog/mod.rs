//! Shops and shop types: what the home, category and search pages browse; shops through the cache;
//! who owns a shop.

pub mod api;
pub mod hours;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod rest;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
#[cfg(feature = "ssr")]
pub mod visitors;
