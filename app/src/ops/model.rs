//! The operators' pages as browser and server share them: the audit log, the dashboard and the moderation
//! queue.

use serde::{Deserialize, Serialize};

use crate::shared::i18n::{Locale, td_string};

/// A person's reading of an action, in the page's language (a function: the words are the locale's).
pub type ActionWords = fn(Locale) -> &'static str;

/// Every action an operator can take, as the log spells it and as a person reads it.
pub const ACTIONS: [(&str, ActionWords); 8] = [
    ("review.hide", |l| td_string!(l, ops.action_review_hide)),
    ("review.keep", |l| td_string!(l, ops.action_review_keep)),
    ("review.restore", |l| td_string!(l, ops.action_review_restore)),
    ("note.hide", |l| td_string!(l, ops.action_note_hide)),
    ("note.keep", |l| td_string!(l, ops.action_note_keep)),
    ("note.restore", |l| td_string!(l, ops.action_note_restore)),
    ("application.approve", |l| td_string!(l, ops.action_application_approve)),
    ("application.reject", |l| td_string!(l, ops.action_application_reject)),
];

/// What a log's action means in words, in `locale` (the spelling itself when unknown to this build).
pub fn action_label(locale: Locale, action: &str) -> &str {
    ACTIONS.iter().find(|(a, _)| *a == action).map_or(action, |(_, words)| words(locale))
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

/// Days the dashboard's charts cover.
pub const DASHBOARD_DAYS: i64 = 30;

/// The site on one business day, every figure counted from its record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteDay {
    /// `YYYY-MM-DD`, business time.
    pub day: String,
    /// Distinct visitors (anyone who opened a shop page; the site's HyperLogLog, about 1% off).
    pub visitors: u64,
    /// Accounts made.
    pub new_accounts: i64,
    /// Orders created.
    pub orders: i64,
    /// Money charged, fen.
    pub sales_cents: i64,
    /// Refunds made.
    pub refunds: i64,
    /// Money refunded, fen.
    pub refunded_cents: i64,
}

/// A flash sale running or to come, with its shop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteSale {
    /// The shop's id.
    pub shop_id: i64,
    /// The shop's name.
    pub shop_name: String,
    /// The sale, with what is left as Redis counts it.
    pub sale: crate::seckill::model::ConsoleSale,
}

/// The operators' dashboard at `/ops`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dashboard {
    /// The last [`DASHBOARD_DAYS`] days, oldest first (a figure named in `unavailable` reads 0 here and
    /// is not drawn).
    pub days: Vec<SiteDay>,
    /// Figures that could not be read now ("visitors" when Redis did not answer).
    pub unavailable: Vec<String>,
    /// Flash sales running or to come, soonest first.
    pub sales: Vec<SiteSale>,
    /// Messages the order writer on this instance is behind (`None`: it reads no partition now).
    pub writer_lag: Option<i64>,
    /// Each dependency's circuit breaker on this instance: (service, "closed" | "half-open" | "open").
    pub breakers: Vec<(String, String)>,
    /// When the figures were read, unix ms.
    pub read_at_ms: i64,
}

/// Reported items of each kind the queue shows at once, longest waiting first.
pub const QUEUE_SIZE: i64 = 50;

/// Hidden items of each kind listed for restoring, last hidden first.
pub const HIDDEN_LIST: i64 = 20;

/// Hidden items that make an author a repeat offender.
pub const REPEAT_OFFENDER: i64 = 2;

/// An author with more than one item hidden.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offender {
    /// The author.
    pub user_id: i64,
    /// Their nickname.
    pub name: String,
    /// Their reviews hidden now.
    pub reviews: i64,
    /// Their notes hidden now.
    pub notes: i64,
}

impl Offender {
    /// Everything of theirs hidden now.
    pub fn hidden(&self) -> i64 {
        self.reviews + self.notes
    }
}

/// The operators' moderation page at `/ops/moderation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moderation {
    /// Reviews with open reports, longest waiting first.
    pub reviews: Vec<crate::reviews::model::ReportedReview>,
    /// Notes with open reports, longest waiting first.
    pub notes: Vec<crate::social::model::ReportedNote>,
    /// Reviews hidden lately, to restore.
    pub hidden_reviews: Vec<crate::reviews::model::HiddenReview>,
    /// Notes hidden lately, to restore.
    pub hidden_notes: Vec<crate::social::model::ModeratedNote>,
    /// Every author with anything hidden, most first (repeat offenders: [`REPEAT_OFFENDER`] or more).
    pub authors: Vec<Offender>,
}

impl Moderation {
    /// How much of `user_id`'s writing is hidden now.
    pub fn hidden_of(&self, user_id: i64) -> i64 {
        self.authors.iter().find(|a| a.user_id == user_id).map_or(0, Offender::hidden)
    }
}
