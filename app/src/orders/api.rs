//! Order server functions for the buyer: "My orders", paying, and buying a normal coupon.

use leptos::prelude::*;

use super::model::{OrdersPage, PayOutcome};
use crate::shared::error::AppError;

/// The user's latest orders, newest first, with the clock their countdowns need.
#[server(endpoint = "orders/mine")]
pub async fn my_orders() -> Result<OrdersPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        Ok(super::service::my_orders(&cx.state, user.id).await?)
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

/// Buys a normal coupon: an unpaid order at once; answers its id.
#[server(endpoint = "orders/buy")]
pub async fn buy_voucher(voucher_id: i64) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        cx.spend(crate::web::abuse::Action::Buy, &format!("u:{}", user.id))?;
        Ok(super::service::buy(&cx.state, user.id, voucher_id).await?)
    })
    .await
}
