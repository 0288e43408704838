//! The operators' side: the site's dashboard (`/ops`), the moderation of reported reviews and notes
//! (`/ops/moderation`: the queue is put together here, each decision carried out by the capability that keeps
//! the item) and the audit log of every operator action (`/ops/audit`). Operators only; the applications'
//! queue lives with onboarding.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
