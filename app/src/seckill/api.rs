//! Flash-sale server functions: the grab and the order it produced, and the owner's sale management.

use leptos::prelude::*;

use super::model::{SaleAudit, SaleForm, SalesNow};
use crate::orders::model::OrderStatus;
use crate::shared::error::AppError;
use crate::shared::human_check::Puzzle;

/// The flash sales on now and starting soonest across the city (the home page; no log-in needed).
#[server(endpoint = "seckill/sales-now", input = leptos::server_fn::codec::GetUrl)]
pub async fn get_sales_now() -> Result<SalesNow, AppError> {
    /// How many the home page shows: a row of cards on a desktop, a short scroll on a phone.
    const HOME_SALES: usize = 6;
    crate::web::edge::run(|cx| async move { Ok(super::service::sales_now(&cx.state, HOME_SALES).await?) }).await
}

/// A slider puzzle for the logged-in user on flash sale `voucher_id` (sales with the human check ask for
/// one before each grab).
#[server(endpoint = "seckill/puzzle")]
pub async fn grab_puzzle(voucher_id: i64) -> Result<Puzzle, AppError> {
    crate::web::edge::run(|cx| async move {
        let user_id = crate::auth::api::require_shopper_id(&cx).await?;
        Ok(super::service::puzzle(&cx.state, user_id, voucher_id))
    })
    .await
}

/// Answers a puzzle of [`grab_puzzle`]: the piece's left edge `x` (px) after a drag of `drag_ms`. Answers
/// the pass for one [`grab_coupon`] if the piece landed in the gap; a refusal is reported against the
/// `puzzle` field and the page draws a new one. Answers come in the same burst as grabs, so the same gate
/// sheds them, at the HTTP edge before the call (server/src/server_fns.rs).
#[server(endpoint = "seckill/solve")]
pub async fn solve_puzzle(voucher_id: i64, ticket: String, x: u16, drag_ms: u32) -> Result<String, AppError> {
    crate::web::edge::run(|cx| async move {
        let user_id = crate::auth::api::require_shopper_id(&cx).await?;
        Ok(super::service::solve(&cx.state, user_id, voucher_id, &ticket, x, drag_ms).await?)
    })
    .await
}

/// Grabs one coupon of flash sale `voucher_id` for the logged-in user, spending the puzzle `pass` if the
/// sale asks for one; answers the order id, which the page then follows with [`get_order_status`]
/// ("queued" until the order writer has stored it). The grab gate sheds at the HTTP edge before the call
/// (server/src/server_fns.rs), so a shed grab's body is not even read.
#[server(endpoint = "seckill/grab")]
pub async fn grab_coupon(voucher_id: i64, pass: Option<String>) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user_id = crate::auth::api::require_shopper_id(&cx).await?;
        let ip = cx.client_network().await;
        Ok(super::service::grab_with_pass(&cx.state, user_id, voucher_id, &ip, pass.as_deref()).await?)
    })
    .await
}

/// Where one of the user's orders stands; an id the writer has not stored yet is "queued" (an id that is
/// not the user's looks the same, so nothing leaks about other people's orders).
#[server(endpoint = "orders/status")]
pub async fn get_order_status(order_id: i64) -> Result<OrderStatus, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        Ok(crate::orders::writer::status(&cx.state, user.id, order_id).await?)
    })
    .await
}

/// The owner's flash sales with Postgres and Redis side by side (401/403/404 for anyone else).
#[server(endpoint = "seckill/shop-sales")]
pub async fn shop_sales(shop_id: i64) -> Result<Vec<SaleAudit>, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::shop_sales(&cx.state, user.as_ref(), shop_id).await?)
    })
    .await
}

/// The owner creates a flash sale (times are China Standard Time, `YYYY-MM-DDTHH:MM`).
#[server(endpoint = "seckill/create-sale")]
pub async fn create_flash_sale(shop_id: i64, form: SaleForm) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        // Authorise before validating, so a stranger learns nothing about the form's rules.
        crate::catalog::service::authorize_owner(&cx.state, user.as_ref(), shop_id).await?;
        let sale = super::model::NewFlashSale::try_from(form)?;
        Ok(super::service::create_sale(&cx.state, user.as_ref(), shop_id, sale).await?)
    })
    .await
}

/// The owner changes the stock of a sale that has not started.
#[server(endpoint = "seckill/change-stock")]
pub async fn change_sale_stock(voucher_id: i64, stock: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let stock = super::model::parse_stock(&stock);
        Ok(super::service::change_stock(&cx.state, user.as_ref(), voucher_id, stock).await?)
    })
    .await
}
