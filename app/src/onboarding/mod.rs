//! Merchant onboarding (商家入驻): a shopper applies to open a shop (`/me/open-shop`); an operator
//! approves — the account becomes a merchant and the shop opens — or rejects with a reason
//! (`/ops/applications`); the applicant follows the state on their page and is told in the inbox.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
