//! Order server functions for the buyer: "My orders", paying, cancelling, refunds, and buying a normal coupon.

use leptos::prelude::*;

use super::model::{CancelOutcome, OrdersPage, PayOutcome, RefundOutcome};
use crate::shared::error::AppError;

/// One page of the user's orders, newest first, after order `before` (absent: the newest), with the clock
/// their countdowns need.
#[server(endpoint = "orders/mine")]
pub async fn my_orders(#[server(default)] before: Option<i64>) -> Result<OrdersPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        Ok(super::service::my_orders(&cx.state, user.id, before).await?)
    })
    .await
}

/// Pays one of the user's orders (simulated: no provider). 404 for anyone else's order.
#[server(endpoint = "orders/pay")]
pub async fn pay_order(order_id: i64) -> Result<PayOutcome, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        Ok(super::service::pay(&cx.state, user.id, order_id).await?)
    })
    .await
}

/// Cancels one of the user's unpaid orders; the coupon goes back on sale at once. 404 for anyone else's.
#[server(endpoint = "orders/cancel")]
pub async fn cancel_order(order_id: i64) -> Result<CancelOutcome, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        Ok(super::service::cancel(&cx.state, user.id, order_id).await?)
    })
    .await
}

/// Refunds one of the user's paid, unused coupons, for a reason picked from the list (`RefundReason`'s
/// values). 404 for anyone else's order.
#[server(endpoint = "orders/refund")]
pub async fn refund_order(order_id: i64, reason: String) -> Result<RefundOutcome, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        let reason = super::model::RefundReason::parse(&reason)?;
        Ok(super::service::request_refund(&cx.state, user.id, order_id, reason).await?)
    })
    .await
}

/// Buys a normal coupon: an unpaid order at once; answers its id.
#[server(endpoint = "orders/buy")]
pub async fn buy_voucher(voucher_id: i64) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper(&cx).await?;
        cx.spend(crate::web::abuse::Action::Buy, &format!("u:{}", user.id))?;
        Ok(super::service::buy(&cx.state, user.id, voucher_id).await?)
    })
    .await
}
