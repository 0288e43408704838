//! The shop as a whole: the shop page (cached shop, live sale stock, coupons, notes, visitors) and the
//! merchant's flows that touch several capabilities at once (edit, open and remove a shop).

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
