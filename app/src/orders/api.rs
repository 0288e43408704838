//! Order server functions for the buyer: one order's status, and "My orders".

use leptos::prelude::*;

use super::model::{OrderStatus, OrderView};
use crate::error::AppError;

/// Status of one of the user's orders; an id the writer has not stored yet is "queued" (an id that is
/// not the user's looks the same, so nothing leaks about other people's orders).
#[server(endpoint = "orders/status")]
pub async fn get_order_status(order_id: i64) -> Result<OrderStatus, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    let order = super::store::order_of_user(&state.db, user.id, order_id).await.map_err(|e| AppError::internal(e).respond())?;
    Ok(order.map_or(OrderStatus::Queued, |o| o.status))
}

/// The user's latest orders, newest first.
#[server(endpoint = "orders/mine")]
pub async fn my_orders() -> Result<Vec<OrderView>, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    super::store::orders_of_user(&state.db, user.id, 100).await.map_err(|e| AppError::internal(e).respond())
}
