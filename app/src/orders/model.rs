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
