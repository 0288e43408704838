//! The audit log as the operators' page shows it, shared by browser and server.

use serde::{Deserialize, Serialize};

/// Every action an operator can take, as the log spells it and as a person reads it.
pub const ACTIONS: [(&str, &str); 4] = [
    ("review.hide", "Hid a review"),
    ("review.keep", "Kept a reported review"),
    ("application.approve", "Approved a shop's application"),
    ("application.reject", "Rejected a shop's application"),
];

/// What a log's action means in words (the spelling itself when unknown to this build).
pub fn action_label(action: &str) -> &str {
    ACTIONS.iter().find(|(a, _)| *a == action).map_or(action, |(_, label)| label)
}

/// One page of the audit log, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditLog {
    /// The actions.
    pub entries: Vec<AuditItem>,
    /// Operators to filter by: (id, name).
    pub operators: Vec<(i64, String)>,
    /// Where the next (older) page starts, if there is one.
    pub next_before: Option<i64>,
}

/// One recorded operator action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditItem {
    /// Its place in the log.
    pub id: i64,
    /// Who acted.
    pub operator_id: i64,
    /// Their name.
    pub operator_name: String,
    /// What (`subject.verb`).
    pub action: String,
    /// On what.
    pub subject_id: i64,
    /// Why.
    pub reason: Option<String>,
    /// When, unix ms.
    pub at_ms: i64,
}

/// Entries per page of the log.
pub const AUDIT_PAGE: i64 = 50;
