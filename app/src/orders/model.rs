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
    /// The pay deadline had passed: nothing was charged and the order is closed.
    Expired,
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
            Self::Expired => "This order's time to pay is up, so it was closed and nothing was charged.",
        }
    }
}

/// Why the order writer could not turn a grab into an order (the grab was given back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailReason {
    /// Postgres had no stock left for it (Redis and Postgres disagreed; Postgres wins).
    SoldOut,
    /// The buyer already holds a live order of this sale.
    AlreadyHolds,
    /// The sale no longer exists.
    SaleGone,
    /// The buyer's account no longer exists.
    NoSuchUser,
}

impl FailReason {
    /// The column value in `order_failures`.
    pub fn as_db(self) -> &'static str {
        match self {
            Self::SoldOut => "sold_out",
            Self::AlreadyHolds => "already_holds",
            Self::SaleGone => "sale_gone",
            Self::NoSuchUser => "no_such_user",
        }
    }

    /// Parses the column value (an unknown one reads as the sale being gone: nothing to retry).
    pub fn from_db(s: &str) -> Self {
        match s {
            "sold_out" => Self::SoldOut,
            "already_holds" => Self::AlreadyHolds,
            "no_such_user" => Self::NoSuchUser,
            _ => Self::SaleGone,
        }
    }

    /// What the buyer is told.
    pub fn message(self) -> &'static str {
        match self {
            Self::SoldOut => "sold out after all",
            Self::AlreadyHolds => "you already have this coupon",
            Self::SaleGone => "the sale was removed",
            Self::NoSuchUser => "your account no longer exists",
        }
    }
}

/// Where an order stands, as the buyer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderStatus {
    /// Accepted by the grab, not yet written by the order writer.
    Queued,
    /// The writer could not make it an order; nothing was charged and the coupon went back.
    Failed(FailReason),
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
            Self::Failed(_) => "failed",
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
