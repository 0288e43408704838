//! Account settings (`/me`): the name and picture others see, the password (changed, or set on an account
//! made with a texted code), the signed-in devices with "log out the others", and closing the account.
//! It sits above the capabilities whose records a person leaves behind when they go.

pub mod api;
pub mod model;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod service;
