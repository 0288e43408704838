//! Notes about shops, likes (a time-scored sorted set per note), follows (Postgres + a Redis set, kept in
//! step both ways) and the follow feed (an inbox sorted set per user, filled when a note is written).

pub mod api;
#[cfg(feature = "ssr")]
pub mod images;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
#[cfg(feature = "ssr")]
pub mod upload;
