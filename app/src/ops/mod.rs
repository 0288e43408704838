//! The operators' side: the site's dashboard (`/ops`) and the audit log of every operator action
//! (`/ops/audit`). Operators only; the queues live with what they decide on (`reviews`, `onboarding`).

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
