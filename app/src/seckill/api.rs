//! Flash-sale server functions: thin — session, call the service, map errors.
// A server function takes one argument per form field, and the macro also emits the client-side twin of
// each, which an attribute on the function does not reach.
#![allow(clippy::too_many_arguments)]

use leptos::prelude::*;

use super::model::SaleAudit;
use crate::error::AppError;

/// Grabs one coupon of flash sale `voucher_id` for the logged-in user; answers the order id, which the
/// page then follows with `order_status` ("queued" until the order writer has stored it).
#[server(endpoint = "seckill/grab")]
pub async fn grab_coupon(voucher_id: i64) -> Result<i64, AppError> {
    let state = crate::edge::state()?;
    let user_id = crate::edge::session_user_id().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    let ip = crate::edge::client_ip(&state).await;
    super::service::grab(&state, user_id, voucher_id, &ip).await.map_err(|e| AppError::from(e).respond())
}

/// The owner's flash sales with Postgres and Redis side by side (401/403/404 for anyone else).
#[server(endpoint = "seckill/shop-sales")]
pub async fn shop_sales(shop_id: i64) -> Result<Vec<SaleAudit>, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    super::service::shop_sales(&state, user.as_ref(), shop_id).await.map_err(|e| AppError::from(e).respond())
}

/// The owner creates a flash sale (times are China Standard Time, `YYYY-MM-DDTHH:MM`).
#[server(endpoint = "seckill/create-sale")]
pub async fn create_flash_sale(
    shop_id: i64,
    title: String,
    rules: String,
    pay: String,
    actual: String,
    stock: String,
    begin: String,
    end: String,
) -> Result<i64, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    let run = async {
        // Authorise before validating, so a stranger learns nothing about the form's rules.
        super::service::shop_sales(&state, user.as_ref(), shop_id).await?;
        let sale = super::model::NewFlashSale::parse(&title, &rules, &pay, &actual, &stock, &begin, &end)
            .map_err(super::service::SeckillError::Invalid)?;
        super::service::create_sale(&state, user.as_ref(), shop_id, sale).await
    };
    run.await.map_err(|e| AppError::from(e).respond())
}

/// The owner changes the stock of a sale that has not started.
#[server(endpoint = "seckill/change-stock")]
pub async fn change_sale_stock(voucher_id: i64, stock: String) -> Result<(), AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?;
    let run = async {
        let stock = super::model::parse_stock(&stock);
        super::service::change_stock(&state, user.as_ref(), voucher_id, stock).await
    };
    run.await.map_err(|e| AppError::from(e).respond())
}
