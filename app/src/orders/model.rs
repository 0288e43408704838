//! The order message on `orders.created`, shared by producer and consumer.

use serde::{Deserialize, Serialize};

/// One grabbed coupon, as produced to Kafka after the Redis deduction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderCreated {
    /// The app-minted order id (idempotency key).
    pub order_id: i64,
    /// Buyer.
    pub user_id: i64,
    /// Flash-sale voucher.
    pub voucher_id: i64,
    /// When the grab succeeded, unix ms.
    pub ts: i64,
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
