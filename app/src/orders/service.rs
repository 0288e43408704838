//! Order lifecycle rules: close unpaid orders (closer and sweeper share one path), pay, buy normal coupons.

use std::time::Duration;

use super::model::{
    DayTrade, OrderQuery, OrderStatus, OrderView, OrdersPage, PayOutcome, RedeemCode, Redemption, ShopOrder,
    ShopOrdersPage, StatusCounts,
};
use super::store;
use crate::platform::backend::BackendError;
use crate::platform::kafka::{self, CloseCheck, ORDERS_CLOSE_DELAY, OrderCreated};
use crate::sale::inventory;
use crate::shared::clock;
use crate::shared::error::AppError;
use crate::web::state::AppState;

/// What can go wrong with an order; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    /// No such order of this user (someone else's order looks exactly like a missing one).
    #[error("order not found")]
    NotFound,
    /// No such coupon on sale.
    #[error("coupon not found")]
    VoucherNotFound,
    /// No order of the merchant's shops has this redemption code.
    #[error("unknown redemption code")]
    CodeUnknown,
    /// The order with this code is not paid, so there is nothing to honour.
    #[error("order is {0:?}, not paid")]
    NotPaid(OrderStatus),
    /// No order id can be minted right now (this instance's id lease is not confirmed).
    #[error(transparent)]
    NoIds(#[from] crate::platform::ids::IdError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(OrderError);

impl From<OrderError> for AppError {
    fn from(e: OrderError) -> Self {
        match e {
            OrderError::NotFound => AppError::NotFound("Order".into()),
            OrderError::VoucherNotFound => AppError::NotFound("Coupon".into()),
            OrderError::CodeUnknown => {
                AppError::invalid("code", "No coupon of your shops has this code. Check the digits and try again.")
            }
            OrderError::NotPaid(status) => AppError::invalid(
                "code",
                format!("This order is {}, not paid, so there is nothing to honour.", status.label()),
            ),
            OrderError::NoIds(cause) => {
                tracing::error!(%cause, "purchase refused: no order ids");
                AppError::Unavailable(
                    "We cannot take orders for a moment, so nothing was bought. Please try again.".into(),
                )
            }
            OrderError::Backend(e) => e.into(),
        }
    }
}

/// How a close attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseOutcome {
    /// Closed now; stock returned (Postgres now, Redis once per order).
    Closed,
    /// Already settled (paid, closed earlier, refunded) or unknown: nothing changed.
    Unchanged,
}

/// Closes order `id` if it is still unpaid. Postgres decides (one guarded UPDATE, stock in the same
/// transaction); the Redis give-back runs for every closed flash order but is once-only per order, so a
/// redelivered check, or a retry after Redis failed, never releases twice.
pub async fn close(state: &AppState, order_id: i64) -> Result<CloseOutcome, OrderError> {
    let (changed, order) = store::close_if_unpaid(state.postgres()?, order_id).await?;
    let Some(order) = order else {
        tracing::warn!(order_id, "close check for an unknown order");
        return Ok(CloseOutcome::Unchanged);
    };
    if order.kind == "flash" && order.status == "closed" {
        inventory::release(&state.redis, &state.keys, order.voucher_id, order.user_id, order.id).await?;
    }
    if changed {
        state.metrics.orders.closed.inc();
        Ok(CloseOutcome::Closed)
    } else {
        Ok(CloseOutcome::Unchanged)
    }
}

/// Which of `ids` Postgres knows, as an order in any state or as a failure it recorded.
pub async fn known_order_ids(state: &AppState, ids: &[i64]) -> Result<std::collections::HashSet<i64>, OrderError> {
    Ok(store::known_order_ids(state.postgres()?, ids).await?.into_iter().collect())
}

/// The user pays order `id` (simulated payment). Loses cleanly to the closer: then a payment made within
/// the deadline is refunded; after it, nothing is charged, so nothing is refunded.
pub async fn pay(state: &AppState, user_id: i64, order_id: i64) -> Result<PayOutcome, OrderError> {
    let outcome = store::pay(state.postgres()?, user_id, order_id, state.config.pay_timeout)
        .await?
        .ok_or(OrderError::NotFound)?;
    match outcome {
        PayOutcome::Paid => {
            state.metrics.orders.paid.inc();
        }
        PayOutcome::Refunded => {
            state.metrics.orders.refunds.inc();
        }
        // Past its deadline: close it now rather than wait for the closer, so the coupon goes back at once.
        PayOutcome::Expired => {
            close(state, order_id).await?;
        }
        PayOutcome::AlreadyPaid => {}
    }
    Ok(outcome)
}

/// Buys a normal coupon: an unpaid order at once, with its close check queued.
pub async fn buy(state: &AppState, user_id: i64, voucher_id: i64) -> Result<i64, OrderError> {
    let id = state.ids.next_id()?;
    let created_ms = store::insert_normal_order(state.postgres()?, id, user_id, voucher_id)
        .await?
        .ok_or(OrderError::VoucherNotFound)?;
    // If this send fails the sweeper still closes the order on time; the buyer need not wait or retry.
    if let Err(e) = publish_close_checks(state, &[(id, created_ms)]).await {
        tracing::warn!(order = id, "close check not queued, the sweeper will close it: {e}");
    }
    Ok(id)
}

/// Produces one close check for newly written orders (`(order id, created unix ms)`), due when the latest
/// of them reaches its deadline, and awaits the ack.
pub async fn publish_close_checks(state: &AppState, orders: &[(i64, i64)]) -> Result<(), OrderError> {
    let (Some(&(first, _)), Some(latest)) = (orders.first(), orders.iter().map(|&(_, created)| created).max()) else {
        return Ok(());
    };
    let check = CloseCheck {
        order_ids: orders.iter().map(|&(id, _)| id).collect(),
        due_ms: latest + state.config.pay_timeout.as_millis() as i64,
    };
    let topic = kafka::topic(&state.config, ORDERS_CLOSE_DELAY);
    let payload = serde_json::to_vec(&check).unwrap_or_default();
    let key = first.to_string();
    let record = rdkafka::producer::FutureRecord::to(&topic).key(&key).payload(&payload);
    state.kafka.send(record, Duration::from_secs(10)).await.map(|_| ()).map_err(|(e, _)| e.into())
}

/// Close checks for orders the writer just stored (or found stored on a redelivery).
pub async fn close_checks_for(state: &AppState, orders: &[&OrderCreated]) -> Result<(), OrderError> {
    let pairs: Vec<(i64, i64)> = orders.iter().map(|o| (o.order_id, o.ts)).collect();
    publish_close_checks(state, &pairs).await
}

/// One sweep: closes unpaid orders past the timeout that the closer missed; returns how many it closed.
pub async fn sweep(state: &AppState) -> Result<usize, OrderError> {
    let overdue = store::overdue_unpaid(state.postgres()?, state.config.pay_timeout, 500).await?;
    let mut closed = 0;
    for id in overdue {
        state.metrics.orders.sweeper_finds.inc();
        if close(state, id).await? == CloseOutcome::Closed {
            closed += 1;
        }
    }
    Ok(closed)
}

/// Sweeps every `every` for the life of the process.
pub fn spawn_sweeper(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match sweep(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::warn!(closed = n, "sweeper closed overdue orders the closer missed"),
                Err(e) => tracing::error!("sweeper: {e}"),
            }
        }
    })
}

/// The user's "My orders" page.
pub async fn my_orders(state: &AppState, user_id: i64) -> Result<OrdersPage, OrderError> {
    let mut orders: Vec<OrderView> = store::orders_of_user(state.postgres()?, user_id, 100).await?;
    for order in &mut orders {
        if order.status == OrderStatus::Paid {
            order.qr_svg = order.redeem_code.as_deref().and_then(qr_svg);
        }
    }
    Ok(OrdersPage {
        orders,
        server_now_ms: clock::now_ms(),
        pay_timeout_ms: state.config.pay_timeout.as_millis() as i64,
    })
}

/// A redemption code as a QR code the counter's camera reads (SVG; the XML prolog dropped for inline HTML).
fn qr_svg(code: &str) -> Option<String> {
    let qr = qrcode::QrCode::new(code.as_bytes()).ok()?;
    let svg = qr.render::<qrcode::render::svg::Color>().min_dimensions(148, 148).quiet_zone(true).build();
    Some(svg.find("<svg").map_or(svg.clone(), |at| svg[at..].to_string()))
}

/// A merchant (`owner_id`) honours a redemption code at the counter: the paid order of one of their shops
/// becomes `used`, once. A second scan answers when it was used; another shop's code is unknown here.
pub async fn redeem(state: &AppState, owner_id: i64, code: &RedeemCode) -> Result<Redemption, OrderError> {
    match store::redeem(state.postgres()?, owner_id, code.as_str()).await? {
        store::Redeemed::Done(r) => {
            if !r.earlier {
                state.metrics.orders.used.inc();
            }
            Ok(r)
        }
        store::Redeemed::NotPaid(status) => Err(OrderError::NotPaid(status)),
        store::Redeemed::Unknown => Err(OrderError::CodeUnknown),
    }
}

/// Orders on one page of a shop's list.
pub const SHOP_ORDERS_PAGE: i64 = 50;

/// One page of a shop's orders matching `q`, below order `before` (the caller has checked the owner).
pub async fn shop_orders(
    state: &AppState,
    shop_id: i64,
    q: &OrderQuery,
    before: Option<i64>,
) -> Result<ShopOrdersPage, OrderError> {
    let (orders, more) = store::shop_orders(state.postgres()?, shop_id, q, before, SHOP_ORDERS_PAGE).await?;
    let next_before = if more { orders.last().map(|o| o.id) } else { None };
    Ok(ShopOrdersPage { orders, next_before })
}

/// Every order of a shop matching `q`, streamed (the caller has checked the owner).
pub fn export_shop_orders(
    state: &AppState,
    shop_id: i64,
    q: OrderQuery,
) -> Result<impl futures::Stream<Item = Result<ShopOrder, OrderError>> + Send + 'static, OrderError> {
    use futures::StreamExt;
    let db = state.postgres()?.clone();
    Ok(store::stream_shop_orders(db, shop_id, q).map(|row| row.map_err(OrderError::from)))
}

/// A shop's orders and revenue on each of the last `days` business days, oldest first, every day present.
pub async fn daily_trade(state: &AppState, shop_id: i64, days: i64) -> Result<Vec<DayTrade>, OrderError> {
    let today = clock::today();
    let first = today - time::Duration::days(days - 1);
    let stored = store::daily_trade(state.postgres()?, shop_id, clock::day_start_ms(first)).await?;
    let mut by_day: std::collections::HashMap<String, DayTrade> =
        stored.into_iter().map(|d| (d.day.clone(), d)).collect();
    Ok((0..days)
        .map(|n| {
            let day = clock::iso_day(first + time::Duration::days(n));
            by_day.remove(&day).unwrap_or(DayTrade { day, orders: 0, revenue_cents: 0 })
        })
        .collect())
}

/// How many orders of each of `voucher_ids` stand in each status.
pub async fn status_counts(
    state: &AppState,
    voucher_ids: &[i64],
) -> Result<std::collections::HashMap<i64, StatusCounts>, OrderError> {
    Ok(store::status_counts(state.postgres()?, voucher_ids).await?)
}

/// Whether `user_id` has redeemed a coupon of `shop_id` (a review's "verified visit").
pub async fn redeemed_at_shop(state: &AppState, user_id: i64, shop_id: i64) -> Result<bool, OrderError> {
    Ok(store::redeemed_at_shop(state.postgres()?, user_id, shop_id).await?)
}
