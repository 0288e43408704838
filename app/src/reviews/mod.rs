//! Reviews (点评): a shopper's stars, sub-scores, words and photos about a shop, one per shopper and shop with
//! every version kept; the shop's figures kept by Postgres with each write; helpful votes, the merchant's
//! reply, reports for the operators; and the rankings (榜单) kept in Redis from those figures.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
mod store;
