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

    /// A notice written before notices kept [`Facts`]: its kind, then the words it was stored with.
    pub fn earlier(self, locale: Locale, detail: &str) -> String {
        format!("{}: {detail}", self.label(locale))
    }
}

/// What a notice is about, kept as facts rather than as a sentence, so that each reader reads it in the
/// language they use when they read it (and the kind follows from the facts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum Facts {
    /// Order `code` (as "My orders" shows it) was paid.
    Paid { code: String },
    /// Order `code` closes in five minutes unless paid.
    Closing { code: String },
    /// Order `code` closed unpaid.
    Closed { code: String },
    /// The buyer cancelled order `code`.
    Cancelled { code: String },
    /// Money went back for order `code`: how much (yuan, none when it was never taken) and why.
    Refunded { code: String, yuan: Option<String>, why: RefundWhy },
    /// Coupon `coupon` was used at the counter of shop `shop`.
    Redeemed { coupon: String, shop: String },
    /// Shop `shop` replied to the reader's review.
    Replied { shop: String },
    /// `name` followed the reader.
    Followed { name: String },
    /// The reader's application to open shop `shop` was decided: approved, or refused for `reason`.
    Application { shop: String, approved: bool, reason: String },
    /// A moderator hid (or restored) the reader's note, or their review of shop `review_of`, for `reason`.
    Moderated { hidden: bool, review_of: Option<String>, reason: String },
}

/// Why money went back, as a refund notice says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefundWhy {
    /// The buyer asked.
    Asked,
    /// The coupon's validity ended before it was used.
    Expired,
    /// The payment came after the order had closed.
    PaidLate,
}

impl Facts {
    /// The kind of notice these facts make.
    pub fn kind(&self) -> NoticeKind {
        match self {
            Self::Paid { .. } => NoticeKind::OrderPaid,
            Self::Closing { .. } => NoticeKind::OrderClosing,
            Self::Closed { .. } => NoticeKind::OrderClosed,
            Self::Cancelled { .. } => NoticeKind::OrderCancelled,
            Self::Refunded { .. } => NoticeKind::OrderRefunded,
            Self::Redeemed { .. } => NoticeKind::OrderRedeemed,
            Self::Replied { .. } => NoticeKind::ReviewReply,
            Self::Followed { .. } => NoticeKind::NewFollower,
            Self::Application { .. } => NoticeKind::MerchantApplication,
            Self::Moderated { .. } => NoticeKind::Moderation,
        }
    }

    /// The notice's sentence in `locale`.
    pub fn sentence(&self, locale: Locale) -> String {
        match self {
            Self::Paid { code } => td_string!(locale, inbox.said_paid, code),
            Self::Closing { code } => td_string!(locale, inbox.said_closing, code),
            Self::Closed { code } => td_string!(locale, inbox.said_closed, code),
            Self::Cancelled { code } => td_string!(locale, inbox.said_cancelled, code),
            Self::Refunded { code, yuan: None, .. } => td_string!(locale, inbox.said_refunded_late, code),
            Self::Refunded { code, yuan: Some(yuan), why: RefundWhy::Expired } => {
                td_string!(locale, inbox.said_refunded_expired, code, yuan)
            }
            Self::Refunded { code, yuan: Some(yuan), .. } => td_string!(locale, inbox.said_refunded_asked, code, yuan),
            Self::Redeemed { coupon, shop } => td_string!(locale, inbox.said_redeemed, coupon, shop),
            Self::Replied { shop } => td_string!(locale, inbox.said_replied, shop),
            Self::Followed { name } => td_string!(locale, inbox.said_followed, name),
            Self::Application { shop, approved: true, .. } => td_string!(locale, inbox.said_approved, shop),
            Self::Application { shop, reason, .. } => td_string!(locale, inbox.said_refused, shop, reason),
            Self::Moderated { hidden: true, review_of: None, reason } => {
                td_string!(locale, inbox.said_hid_note, reason)
            }
            Self::Moderated { hidden: false, review_of: None, reason } => {
                td_string!(locale, inbox.said_restored_note, reason)
            }
            Self::Moderated { hidden: true, review_of: Some(shop), reason } => {
                td_string!(locale, inbox.said_hid_review, shop, reason)
            }
            Self::Moderated { hidden: false, review_of: Some(shop), reason } => {
                td_string!(locale, inbox.said_restored_review, shop, reason)
            }
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
