//! Notices as the inbox shows them, shared by browser and server.

use serde::{Deserialize, Serialize};

use crate::shared::i18n::{Locale, td_string};

/// What a notice is about. Each kind can be switched off by its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NoticeKind {
    /// An order was paid.
    OrderPaid,
    /// An unpaid order closes in five minutes.
    OrderClosing,
    /// An unpaid order closed (its time ran out).
    OrderClosed,
    /// The buyer cancelled an unpaid order.
    OrderCancelled,
    /// Money went back: asked for, the coupon expired unused, or paid after closing.
    OrderRefunded,
    /// The coupon was used at the counter.
    OrderRedeemed,
    /// A merchant replied to the reader's review.
    ReviewReply,
    /// Someone followed the reader.
    NewFollower,
    /// An operator decided the reader's application to open a shop.
    MerchantApplication,
    /// An operator hid or restored a review or note the reader wrote.
    Moderation,
}

impl NoticeKind {
    /// Every kind, in the order the switches list them.
    pub const ALL: [Self; 10] = [
        Self::OrderPaid,
        Self::OrderClosing,
        Self::OrderClosed,
        Self::OrderCancelled,
        Self::OrderRefunded,
        Self::OrderRedeemed,
        Self::ReviewReply,
        Self::NewFollower,
        Self::MerchantApplication,
        Self::Moderation,
    ];

    /// The `notices.kind` column value.
    pub fn as_db(self) -> &'static str {
        match self {
            Self::OrderPaid => "order_paid",
            Self::OrderClosing => "order_closing",
            Self::OrderClosed => "order_closed",
            Self::OrderCancelled => "order_cancelled",
            Self::OrderRefunded => "order_refunded",
            Self::OrderRedeemed => "order_redeemed",
            Self::ReviewReply => "review_reply",
            Self::NewFollower => "new_follower",
            Self::MerchantApplication => "merchant_application",
            Self::Moderation => "moderation",
        }
    }

    /// Reads the column value back.
    pub fn from_db(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_db() == s)
    }

    /// Parses a kind a form sent (its column value), or says what is wrong against the field.
    pub fn parse(raw: &str) -> Result<Self, crate::shared::error::AppError> {
        Self::from_db(raw).ok_or_else(|| {
            let locale = crate::shared::i18n::locale();
            crate::shared::error::AppError::invalid("kind", td_string!(locale, inbox.err_kind_pick))
        })
    }

    /// The switch's label, in the reader's language.
    pub fn label(self, locale: Locale) -> &'static str {
        match self {
            Self::OrderPaid => td_string!(locale, inbox.kind_order_paid),
            Self::OrderClosing => td_string!(locale, inbox.kind_order_closing),
            Self::OrderClosed => td_string!(locale, inbox.kind_order_closed),
            Self::OrderCancelled => td_string!(locale, inbox.kind_order_cancelled),
            Self::OrderRefunded => td_string!(locale, inbox.kind_order_refunded),
            Self::OrderRedeemed => td_string!(locale, inbox.kind_order_redeemed),
            Self::ReviewReply => td_string!(locale, inbox.kind_review_reply),
            Self::NewFollower => td_string!(locale, inbox.kind_new_follower),
            Self::MerchantApplication => td_string!(locale, inbox.kind_merchant_application),
            Self::Moderation => td_string!(locale, inbox.kind_moderation),
        }
    }

    /// The sentence of a notice of this kind about `detail` (a coupon, a shop, a person).
    pub fn sentence(self, detail: &str) -> String {
        match self {
            Self::OrderPaid => format!("Paid: {detail}. Show its code at the counter before its use-by."),
            Self::OrderClosing => format!("Closes in 5 minutes unless you pay: {detail}."),
            Self::OrderClosed => format!("Closed unpaid: {detail}; the coupon went back on sale."),
            Self::OrderCancelled => format!("Cancelled: {detail}; the coupon went back on sale."),
            Self::OrderRefunded => format!("Refunded: {detail}."),
            Self::OrderRedeemed => format!("Used at the counter: {detail}."),
            Self::ReviewReply => format!("{detail} replied to your review."),
            Self::NewFollower => format!("{detail} follows you now."),
            Self::MerchantApplication => format!("Your application to open a shop: {detail}"),
            Self::Moderation => format!("A moderator {detail}"),
        }
    }
}

/// One notice in the inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// Its id.
    pub id: i64,
    /// What it is about.
    pub kind: NoticeKind,
    /// The sentence.
    pub text: String,
    /// Where it leads.
    pub link: String,
    /// When it was written, unix ms.
    pub at_ms: i64,
    /// Whether the reader marked it read.
    pub read: bool,
}

/// The inbox page: the latest notices, how many are unread, and which kinds are switched on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inbox {
    /// The latest notices, newest first.
    pub notices: Vec<Notice>,
    /// Unread notices in all.
    pub unread: i64,
    /// Each kind with whether it is switched on.
    pub switches: Vec<(NoticeKind, bool)>,
}

/// How many notices the inbox page lists.
pub const INBOX_PAGE: i64 = 50;
