//! What buyers see of their orders, shared by browser and server.

use serde::{Deserialize, Serialize};

/// What paying came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PayOutcome {
    /// Paid now.
    Paid,
    /// It was paid before (a repeated click); nothing charged twice.
    AlreadyPaid,
    /// The order had expired and was closed a moment before: the payment was refunded.
    Refunded,
}

impl PayOutcome {
    /// The sentence shown to the buyer.
    pub fn message(self) -> &'static str {
        match self {
            Self::Paid => "Paid. Enjoy!",
            Self::AlreadyPaid => "This order is already paid.",
            Self::Refunded => {
                "This order had expired and was closed before your payment arrived, so your payment was refunded."
            }
        }
    }
}

/// Where an order stands, as the buyer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderStatus {
    /// Accepted by the grab, not yet written by the order writer.
    Queued,
    /// Written; waiting for payment until the pay deadline.
    Unpaid,
    /// Paid.
    Paid,
    /// Closed unpaid (the coupon went back on sale).
    Closed,
    /// Paid after closing, money returned.
    Refunded,
}

impl OrderStatus {
    /// Parses the `orders.status` column.
    pub fn from_db(s: &str) -> Self {
        match s {
            "paid" => Self::Paid,
            "closed" => Self::Closed,
            "refunded" => Self::Refunded,
            _ => Self::Unpaid,
        }
    }

    /// The label shown to the buyer.
    pub fn label(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Unpaid => "awaiting payment",
            Self::Paid => "paid",
            Self::Closed => "closed",
            Self::Refunded => "refunded",
        }
    }
}

/// One line of "My orders".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderView {
    /// Order id.
    pub id: i64,
    /// Coupon.
    pub voucher_id: i64,
    /// Coupon title.
    pub title: String,
    /// Shop of the coupon.
    pub shop_id: i64,
    /// Shop name.
    pub shop_name: String,
    /// Price paid or to pay, fen.
    pub amount_cents: i64,
    /// `flash` or `normal`.
    pub kind: String,
    /// Status.
    pub status: OrderStatus,
    /// Creation, unix ms.
    pub created_ms: i64,
}

/// "My orders": the list plus what its countdowns need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdersPage {
    /// Newest first.
    pub orders: Vec<OrderView>,
    /// The server's clock when the page was built, unix ms (countdowns run on it, not the browser's).
    pub server_now_ms: i64,
    /// Unpaid orders close this long after creation, ms.
    pub pay_timeout_ms: i64,
}
