//! What the settings page shows, shared by browser and server.

use serde::{Deserialize, Serialize};

/// The logged-in person's account as their settings page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountSettings {
    /// The name others see.
    pub nickname: String,
    /// The picture others see, if chosen.
    pub avatar: Option<String>,
    /// The log-in identifier, partly masked.
    pub masked_account: String,
    /// Whether a password logs the account in (else it is set here for the first time).
    pub has_password: bool,
    /// Whether the account runs shops or the platform (such accounts are not closed from here).
    pub runs_something: bool,
    /// The browsers logged in to it, the most recently active first.
    pub devices: Vec<Device>,
}

/// One browser logged in to the account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// The browser and its system, in the reader's words ("Android 上的 Chrome").
    pub label: String,
    /// When it logged in, unix ms.
    pub signed_in_ms: i64,
    /// When it was last active, unix ms (to within minutes).
    pub seen_ms: i64,
    /// Whether it is the browser looking at the list.
    pub current: bool,
}

/// The field the confirmation of closing is typed into.
pub const CONFIRM_FIELD: &str = "confirm";
/// The field the current password is typed into when changing it.
pub const CURRENT_PASSWORD_FIELD: &str = "current_password";
