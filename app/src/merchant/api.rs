//! The console's server functions: each checks the merchant (401 logged out, 403 a shopper or not the
//! owner) before it looks at the input, then calls the service.

use leptos::prelude::*;

use super::model::{Console, CouponsPage, OrdersConsole, SaleFunnel, ShopReport};
use crate::catalog::model::CouponForm;
use crate::orders::model::{OrderFilter, Redemption};
use crate::shared::error::AppError;

/// The console's front page.
#[server(endpoint = "merchant/console")]
pub async fn merchant_console() -> Result<Console, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        super::service::console(&cx.state, user.as_ref()).await
    })
    .await
}

/// A shop's charts and notes.
#[server(endpoint = "merchant/report")]
pub async fn get_shop_report(shop_id: i64) -> Result<ShopReport, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        super::service::shop_report(&cx.state, user.as_ref(), shop_id).await
    })
    .await
}

/// A shop's coupons and flash sales.
#[server(endpoint = "merchant/coupons")]
pub async fn get_coupons_page(shop_id: i64) -> Result<CouponsPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        super::service::coupons_page(&cx.state, user.as_ref(), shop_id).await
    })
    .await
}

/// Adds a normal coupon (no `coupon_id`) or changes one; answers its id.
#[server(endpoint = "merchant/save-coupon")]
pub async fn save_coupon(shop_id: i64, coupon_id: Option<i64>, form: CouponForm) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        // Authorise before validating, so a stranger learns nothing about the form's rules.
        crate::catalog::service::authorize_owner(&cx.state, user.as_ref(), shop_id).await?;
        let coupon = crate::catalog::model::NewCoupon::try_from(form)?;
        Ok(crate::catalog::service::save_coupon(&cx.state, user.as_ref(), shop_id, coupon_id, &coupon).await?)
    })
    .await
}

/// Pauses a normal coupon (`on` false) or puts it back on sale.
#[server(endpoint = "merchant/coupon-on-sale")]
pub async fn set_coupon_on_sale(shop_id: i64, coupon_id: i64, on: bool) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(crate::catalog::service::set_coupon_on_sale(&cx.state, user.as_ref(), shop_id, coupon_id, on).await?)
    })
    .await
}

/// Cancels a flash sale that has not started.
#[server(endpoint = "merchant/cancel-sale")]
pub async fn cancel_sale(voucher_id: i64) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(crate::seckill::service::cancel_sale(&cx.state, user.as_ref(), voucher_id).await?)
    })
    .await
}

/// Opens a new flash sale like `voucher_id`, starting at `begin` (`YYYY-MM-DDTHH:MM`, China Standard
/// Time); answers the new sale's id.
#[server(endpoint = "merchant/clone-sale")]
pub async fn clone_sale(voucher_id: i64, begin: String) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let begin_ms = crate::shared::clock::parse_local(&begin).ok_or_else(|| {
            let locale = crate::shared::i18n::locale();
            AppError::invalid("begin", crate::shared::i18n::td_string!(locale, merchant.err_date_time))
        });
        Ok(crate::seckill::service::clone_sale(&cx.state, user.as_ref(), voucher_id, begin_ms).await?)
    })
    .await
}

/// One page of a shop's orders, filtered, below order `before`.
#[server(endpoint = "merchant/orders")]
pub async fn shop_orders(shop_id: i64, filter: OrderFilter, before: Option<i64>) -> Result<OrdersConsole, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        crate::catalog::service::authorize_owner(&cx.state, user.as_ref(), shop_id).await?;
        let q = crate::orders::model::OrderQuery::try_from(&filter)?;
        super::service::orders_page(&cx.state, user.as_ref(), shop_id, &q, before).await
    })
    .await
}

/// A flash sale's funnel and live figures.
#[server(endpoint = "merchant/sale")]
pub async fn get_sale_funnel(voucher_id: i64) -> Result<SaleFunnel, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        super::service::sale_funnel(&cx.state, user.as_ref(), voucher_id).await
    })
    .await
}

/// Redeems a customer's code at the counter: the order becomes `used`, once.
#[server(endpoint = "merchant/redeem")]
pub async fn redeem_code(code: String) -> Result<Redemption, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let me = crate::catalog::service::require_merchant(user.as_ref())?;
        // 12 digits cannot be guessed at this pace, and a counter never needs more.
        cx.spend(crate::web::abuse::Action::Redeem, &format!("u:{}", me.id))?;
        let code = crate::orders::model::RedeemCode::parse(&code)?;
        super::service::redeem(&cx.state, user.as_ref(), &code).await
    })
    .await
}
