//! Order server functions for the buyer: one order's status, and "My orders".

use leptos::prelude::*;

use super::model::{OrderStatus, OrdersPage, PayOutcome};
use crate::error::AppError;

/// Status of one of the user's orders; an id the writer has not stored yet is "queued" (an id that is
/// not the user's looks the same, so nothing leaks about other people's orders).
#[server(endpoint = "orders/status")]
pub async fn get_order_status(order_id: i64) -> Result<OrderStatus, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    let order =
        super::store::order_of_user(&state.db, user.id, order_id).await.map_err(|e| AppError::internal(e).respond())?;
    Ok(order.map_or(OrderStatus::Queued, |o| o.status))
}

/// The user's latest orders, newest first, with the clock their countdowns need.
#[server(endpoint = "orders/mine")]
pub async fn my_orders() -> Result<OrdersPage, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    super::service::my_orders(&state, user.id).await.map_err(|e| AppError::from(e).respond())
}

/// Pays one of the user's orders (simulated: no provider). 404 for anyone else's order.
#[server(endpoint = "orders/pay")]
pub async fn pay_order(order_id: i64) -> Result<PayOutcome, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    super::service::pay(&state, user.id, order_id).await.map_err(|e| AppError::from(e).respond())
}

/// Buys a normal coupon: an unpaid order at once; answers its id.
#[server(endpoint = "orders/buy")]
pub async fn buy_voucher(voucher_id: i64) -> Result<i64, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    super::service::buy(&state, user.id, voucher_id).await.map_err(|e| AppError::from(e).respond())
}
