//! Sale administration: a merchant opens, restocks, cancels and clones sales — Postgres and Redis changed
//! in one step (the row commits only once Redis agrees) — the console's overview of a shop's sales, and
//! the sales on now across the city that the home page shows.

use super::audit::audit;
use super::model::{ConsoleSale, GrabCode, NewFlashSale, SaleAudit, SaleState, SaleTeaser, SalesNow};
use super::service::SeckillError;
use super::store;
use crate::auth::model::CurrentUser;
use crate::sale::inventory;
use crate::shared::clock::now_ms;
use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};
use crate::web::state::AppState;

/// When Redis may forget a sale that ends at `end_ms` (a day after its last unpaid order could close).
pub fn forget_at_ms(state: &AppState, end_ms: i64) -> i64 {
    inventory::forget_at_ms(state.config.pay_timeout, end_ms)
}

/// A merchant creates a flash sale on their shop: Postgres and Redis in one step (the row commits only
/// once the Redis state is loaded; a failed commit removes the Redis state again).
pub async fn create_sale(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
    sale: NewFlashSale,
) -> Result<i64, SeckillError> {
    authorize_owner(state, user, shop_id).await?;
    open_sale(state, shop_id, sale).await
}

/// Creates a flash sale on `shop_id` without asking who wants it (the merchant's path checks first; the
/// benchmark and tools call this directly): the row commits only once Redis holds the sale.
pub async fn open_sale(state: &AppState, shop_id: i64, sale: NewFlashSale) -> Result<i64, SeckillError> {
    let mut tx = state.postgres()?.begin().await?;
    let id = store::insert_sale(&mut tx, None, shop_id, "", &sale).await?.ok_or(SeckillError::SaleIdTaken)?;
    let forget_at = forget_at_ms(state, sale.end_ms);
    let window = (sale.begin_ms, sale.end_ms);
    inventory::load_sale(&state.redis, &state.keys, id, i64::from(sale.stock), window, sale.human_check, forget_at)
        .await?;
    if let Err(e) = tx.commit().await {
        inventory::forget_sale(&state.redis, &state.keys, id).await?;
        return Err(e.into());
    }
    Ok(id)
}

/// A merchant changes the stock of a sale that has not started yet.
/// `stock` arrives as its parse result, so the owner check comes before any word about the form's rules.
pub async fn change_stock(
    state: &AppState,
    user: Option<&CurrentUser>,
    voucher_id: i64,
    stock: Result<i32, AppError>,
) -> Result<(), SeckillError> {
    let shop_id =
        store::sale_shop(state.postgres()?, voucher_id).await?.ok_or(SeckillError::Refused(GrabCode::NoSuchSale))?;
    authorize_owner(state, user, shop_id).await?;
    let stock = stock.map_err(SeckillError::Invalid)?;
    let mut tx = state.postgres()?.begin().await?;
    let Some(before) = store::set_stock_before_start(&mut tx, voucher_id, stock).await? else {
        return Err(SeckillError::AlreadyStarted);
    };
    // Redis decides last, atomically with the grabs: Postgres' "a second before the start" may be stale by
    // the time the request gets here. Dropping the transaction rolls Postgres back.
    if inventory::set_stock(&state.redis, &state.keys, voucher_id, stock).await? == inventory::StockSet::Refused {
        return Err(SeckillError::AlreadyStarted);
    }
    if let Err(e) = tx.commit().await {
        // Redis took the new stock and Postgres did not: put the old one back (still before any grab).
        if let Err(undo) = inventory::set_stock(&state.redis, &state.keys, voucher_id, before).await {
            tracing::error!(voucher_id, "sale stock change not undone in Redis, which now holds the new stock: {undo}");
        }
        return Err(e.into());
    }
    Ok(())
}

/// The demo seed's sale `id` on `shop_id`, written inside the seed's transaction unless it exists already
/// (the seed is idempotent; Redis learns of it through [`restore_sales`]).
pub async fn seed_sale(
    tx: &mut sqlx::PgConnection,
    id: i64,
    shop_id: i64,
    sub_title: &str,
    sale: &NewFlashSale,
) -> Result<(), SeckillError> {
    store::insert_sale(tx, Some(id), shop_id, sub_title, sale).await?;
    Ok(())
}

/// The flash sales of a shop (ids).
pub async fn sales_of_shop(state: &AppState, shop_id: i64) -> Result<Vec<i64>, SeckillError> {
    Ok(store::sales_of_shop(state.postgres()?, shop_id).await?)
}

/// Ends sales whose rows are gone (their shop was removed): Redis forgets them, so a grab answers "no
/// such sale" instead of selling coupons of a shop that no longer exists.
pub async fn forget_sales(state: &AppState, voucher_ids: &[i64]) -> Result<(), SeckillError> {
    for id in voucher_ids {
        inventory::forget_sale(&state.redis, &state.keys, *id).await?;
    }
    Ok(())
}

/// The merchant's view of one shop's sales (owner only).
pub async fn shop_sales(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
) -> Result<Vec<SaleAudit>, SeckillError> {
    authorize_owner(state, user, shop_id).await?;
    audit(state, Some(shop_id)).await
}

/// The owner's flash sales of a shop for the console, with what is left (Redis' count where it holds the
/// sale, one round trip for all of them).
pub async fn console_sales(
    state: &AppState,
    user: Option<&CurrentUser>,
    shop_id: i64,
) -> Result<Vec<ConsoleSale>, SeckillError> {
    authorize_owner(state, user, shop_id).await?;
    sales_overview(state, shop_id).await
}

/// [`console_sales`] for a caller that has already checked the owner (the console, once per page).
pub async fn sales_overview(state: &AppState, shop_id: i64) -> Result<Vec<ConsoleSale>, SeckillError> {
    let rows = store::console_sales(state.postgres()?, shop_id).await?;
    Ok(with_live_stock(state, rows).await)
}

/// The flash sales running or still to come on the whole site (the operators' dashboard), soonest first,
/// at most 50, each with its shop's id and name and what is left.
pub async fn current_sales(state: &AppState) -> Result<Vec<(i64, String, ConsoleSale)>, SeckillError> {
    let rows = store::current_sales(state.postgres()?, 50).await?;
    let (shops, rows): (Vec<(i64, String)>, Vec<store::ConsoleSaleRow>) =
        rows.into_iter().map(|(id, name, row)| ((id, name), row)).unzip();
    let sales = with_live_stock(state, rows).await;
    Ok(shops.into_iter().zip(sales).map(|((id, name), sale)| (id, name, sale)).collect())
}

/// The sales worth a shopper's look now (the home page): those live with stock left, then those
/// starting soonest, at most `limit`. Sold out and cancelled ones are left out.
pub async fn sales_now(state: &AppState, limit: usize) -> Result<SalesNow, SeckillError> {
    let server_now_ms = now_ms();
    // `current_sales` comes soonest start first, so the sales on now (started already) lead those to come.
    let sales = current_sales(state)
        .await?
        .into_iter()
        .filter(|(_, _, s)| match s.state {
            SaleState::Live => s.left > 0,
            SaleState::Upcoming => true,
            SaleState::Ended | SaleState::Cancelled => false,
        })
        .take(limit)
        .map(|(shop_id, shop_name, s)| SaleTeaser {
            voucher_id: s.id,
            shop_id,
            shop_name,
            title: s.title,
            pay_value_cents: s.pay_value_cents,
            begin_ms: s.begin_ms,
            end_ms: s.end_ms,
            left: s.left,
        })
        .collect();
    Ok(SalesNow { server_now_ms, sales })
}

/// Sales as Postgres has them, with what is left as Redis counts it where it holds the sale (one round
/// trip for all); without Redis, Postgres' count.
async fn with_live_stock(state: &AppState, rows: Vec<store::ConsoleSaleRow>) -> Vec<ConsoleSale> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let (now, live) = match inventory::live_stocks(&state.redis, &state.keys, &ids).await {
        Ok((now, stocks)) => (now, stocks.into_iter().collect::<std::collections::HashMap<_, _>>()),
        Err(e) => {
            tracing::warn!("sales listed with Postgres' stock only: {e}");
            (now_ms(), Default::default())
        }
    };
    rows.into_iter()
        .map(|r| ConsoleSale {
            id: r.id,
            title: r.title,
            pay_value_cents: r.pay_value_cents,
            begin_ms: r.begin_ms,
            end_ms: r.end_ms,
            total: r.pg_stock + r.holders,
            left: live.get(&r.id).copied().flatten().unwrap_or(r.pg_stock),
            state: SaleState::of(r.active, r.begin_ms, r.end_ms, now),
        })
        .collect()
}

/// The owner cancels a sale that has not started: Postgres and Redis in one step (the row changes only
/// once Redis has forgotten the sale; if the commit then fails, the healer's restore loads it again).
pub async fn cancel_sale(state: &AppState, user: Option<&CurrentUser>, voucher_id: i64) -> Result<(), SeckillError> {
    let shop_id =
        store::sale_shop(state.postgres()?, voucher_id).await?.ok_or(SeckillError::Refused(GrabCode::NoSuchSale))?;
    authorize_owner(state, user, shop_id).await?;
    let mut tx = state.postgres()?.begin().await?;
    if !store::cancel_before_start(&mut tx, voucher_id).await? {
        return Err(SeckillError::Invalid(AppError::invalid("sale", td_string!(locale(), seckill.err_cancel_started))));
    }
    inventory::forget_sale(&state.redis, &state.keys, voucher_id).await?;
    tx.commit().await?;
    Ok(())
}

/// The owner opens a new sale like sale `voucher_id` (title, rules, prices, opening stock, length),
/// starting at `begin_ms`; answers the new sale's id.
pub async fn clone_sale(
    state: &AppState,
    user: Option<&CurrentUser>,
    voucher_id: i64,
    begin_ms: Result<i64, AppError>,
) -> Result<i64, SeckillError> {
    let shop_id =
        store::sale_shop(state.postgres()?, voucher_id).await?.ok_or(SeckillError::Refused(GrabCode::NoSuchSale))?;
    authorize_owner(state, user, shop_id).await?;
    let begin_ms = begin_ms.map_err(SeckillError::Invalid)?;
    if begin_ms <= now_ms() {
        return Err(SeckillError::Invalid(AppError::invalid("begin", td_string!(locale(), seckill.err_begin_in_past))));
    }
    let sale = store::sale_as_template(state.postgres()?, voucher_id, begin_ms)
        .await?
        .ok_or(SeckillError::Refused(GrabCode::NoSuchSale))?;
    open_sale(state, shop_id, sale).await
}

/// The shop a flash sale belongs to.
pub async fn shop_of_sale(state: &AppState, voucher_id: i64) -> Result<i64, SeckillError> {
    store::sale_shop(state.postgres()?, voucher_id).await?.ok_or(SeckillError::Refused(GrabCode::NoSuchSale))
}

async fn authorize_owner(state: &AppState, user: Option<&CurrentUser>, shop_id: i64) -> Result<(), SeckillError> {
    Ok(crate::catalog::service::authorize_owner(state, user, shop_id).await?)
}
