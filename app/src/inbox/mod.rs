//! The inbox (消息): notices of what happened to a person's orders, reviews and followers — written by
//! the capabilities where it happens, kept in Postgres, listed at `/me/inbox` with per-kind switches.

pub mod api;
#[cfg(feature = "ssr")]
pub mod live;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
