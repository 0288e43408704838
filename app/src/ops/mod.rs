//! The operators' side: the audit log of every operator action (`/ops/audit`). Operators only; the
//! moderation queue itself lives with what it moderates (`reviews`).

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
