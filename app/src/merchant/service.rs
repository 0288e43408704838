//! The console's rules: only a merchant gets in, only a shop's owner sees or changes it; every page is
//! composed from the services of the capabilities below (catalog, orders, reviews, seckill, social).

use super::model::{Console, CouponsPage, OrdersConsole, SaleFunnel, ShopCard, ShopReport};
use crate::auth::model::CurrentUser;
use crate::catalog::service as catalog;
use crate::orders::model::{OrderQuery, RedeemCode, Redemption};
use crate::orders::service as orders;
use crate::reviews::service as reviews;
use crate::seckill::model::SaleState;
use crate::seckill::service::{self as seckill, SeckillError};
use crate::shared::clock;
use crate::social::service as social;
use crate::web::edge::Failure;
use crate::web::state::AppState;

/// Days the console's charts cover.
pub const CHART_DAYS: i64 = 30;

/// The console's front page: each of the merchant's shops with today's figures and its running sales.
/// A figure whose store is down reads 0 rather than taking the page down with it.
pub async fn console(state: &AppState, user: Option<&CurrentUser>) -> Result<Console, Failure> {
    let me = catalog::require_merchant(user)?;
    let own = catalog::shops_of_owner(state, me.id).await?;
    let ids: Vec<i64> = own.iter().map(|s| s.id).collect();
    let unanswered = reviews::unanswered_counts(state, &ids).await?;
    let mut shops = Vec::new();
    for shop in own {
        let visitors_today = catalog::visitors_per_day(state, shop.id, 1)
            .await
            .map(|days| days.last().map_or(0, |d| d.1))
            .unwrap_or_else(|e| {
                tracing::warn!(shop = shop.id, "visitors unavailable: {e}");
                0
            });
        let today = orders::daily_trade(state, shop.id, 1).await?.pop();
        // The merchant's own shops: no owner check per shop.
        let live_sales =
            seckill::sales_overview(state, shop.id).await?.into_iter().filter(|s| s.state == SaleState::Live).collect();
        shops.push(ShopCard {
            id: shop.id,
            name: shop.name,
            area: shop.area,
            visitors_today,
            orders_today: today.as_ref().map_or(0, |d| d.orders),
            revenue_today_cents: today.map_or(0, |d| d.revenue_cents),
            live_sales,
            unanswered_reviews: unanswered.get(&shop.id).copied().unwrap_or(0),
        });
    }
    Ok(Console { shops })
}

/// A shop's report: visitors, orders and revenue per day for [`CHART_DAYS`], and the notes about it.
pub async fn shop_report(state: &AppState, user: Option<&CurrentUser>, shop_id: i64) -> Result<ShopReport, Failure> {
    let shop = catalog::shop_for_owner(state, user, shop_id).await?;
    let visitors = catalog::visitors_per_day(state, shop_id, CHART_DAYS).await?;
    let trade = orders::daily_trade(state, shop_id, CHART_DAYS).await?;
    let notes = social::notes_of_shop(state, shop_id).await?;
    Ok(ShopReport { shop_id, name: shop.name.clone(), visitors, trade, notes })
}

/// A shop's normal coupons and flash sales.
pub async fn coupons_page(state: &AppState, user: Option<&CurrentUser>, shop_id: i64) -> Result<CouponsPage, Failure> {
    let shop = catalog::shop_for_owner(state, user, shop_id).await?;
    let coupons = catalog::coupons_of_shop(state, shop_id).await?;
    let sales = seckill::sales_overview(state, shop_id).await?;
    Ok(CouponsPage { shop_id, name: shop.name.clone(), coupons, sales })
}

/// One page of a shop's orders with the filter's choices.
pub async fn orders_page(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
    q: &OrderQuery,
    before: Option<i64>,
) -> Result<OrdersConsole, Failure> {
    let shop = catalog::shop_for_owner(state, user, shop_id).await?;
    let mut coupons = catalog::coupon_titles(state, shop_id).await?;
    coupons.extend(seckill::sales_overview(state, shop_id).await?.into_iter().map(|s| (s.id, s.title)));
    let page = orders::shop_orders(state, shop_id, q, before).await?;
    Ok(OrdersConsole { shop_id, name: shop.name.clone(), coupons, page })
}

/// A sale's funnel (and, while it runs, the live view's figures): grab outcomes as the instances have
/// flushed them, orders by status, and orders still on their way.
pub async fn sale_funnel(state: &AppState, user: Option<&CurrentUser>, voucher_id: i64) -> Result<SaleFunnel, Failure> {
    let shop_id = seckill::shop_of_sale(state, voucher_id).await?;
    catalog::authorize_owner(state, user, shop_id).await?;
    let sale = seckill::sales_overview(state, shop_id)
        .await?
        .into_iter()
        .find(|s| s.id == voucher_id)
        .ok_or(SeckillError::Refused(crate::sale::inventory::GrabCode::NoSuchSale))?;
    let outcomes = seckill::grab_outcomes(state, voucher_id).await?;
    let count = |label: &str| outcomes.iter().filter(|o| o.outcome == label).map(|o| o.n).sum::<i64>();
    let attempts: i64 = outcomes.iter().map(|o| o.n).sum();
    let (rate_limited, sold_out, duplicate, queued) =
        (count("rate_limited"), count("sold_out"), count("already_bought"), count("ok"));
    let puzzle_failed = count("puzzle_refused") + count("needs_puzzle");
    let orders = orders::status_counts(state, &[voucher_id]).await?.remove(&voucher_id).unwrap_or_default();
    let live_holders = orders.unpaid + orders.paid + orders.used;
    let in_flight = (sale.total - sale.left - live_holders).max(0);
    Ok(SaleFunnel {
        sale,
        shop_id,
        attempts,
        puzzle_failed,
        rate_limited,
        sold_out,
        duplicate,
        other: attempts - puzzle_failed - rate_limited - sold_out - duplicate - queued,
        queued,
        orders,
        in_flight,
        server_now_ms: clock::now_ms(),
    })
}

/// The merchant redeems a code at the counter (only codes of their own shops).
pub async fn redeem(state: &AppState, user: Option<&CurrentUser>, code: &RedeemCode) -> Result<Redemption, Failure> {
    let me = catalog::require_merchant(user)?;
    Ok(orders::redeem(state, me.id, code).await?)
}
