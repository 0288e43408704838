//! Order lifecycle rules: end unpaid orders (the closer, the sweeper and the buyer's cancel share one path),
//! pay, refund (asked for, or on expiry: the delayed check and the sweeper share one path), buy normal coupons.

use std::time::Duration;

use super::model::{
    CancelOutcome, DayTrade, OrderQuery, OrderStatus, OrderView, OrdersPage, PayOutcome, RedeemCode, Redemption,
    RefundCause, RefundOutcome, RefundReason, ShopOrder, ShopOrdersPage, SiteTrade, StatusCounts, order_code,
};
use super::store::{self, OrderKey, Unpaid};
use crate::inbox::model::{Facts, NoticeKind, RefundWhy};
use crate::inbox::service::{self as inbox, News};
use crate::platform::backend::BackendError;
use crate::platform::kafka::{self, DueCheck, ORDERS_CLOSE_DELAY, ORDERS_EXPIRE_DELAY, OrderCreated};
use crate::sale::inventory;
use crate::shared::clock;
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{locale, td_string};
use crate::shared::money::{VALIDITY_DAYS, yuan_amount};
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
    /// The code's coupon is paid but its validity ended (at this unix ms): it is being refunded.
    #[error("coupon expired at {0}")]
    CouponExpired(i64),
    /// The buyer asked to cancel an order that is not unpaid.
    #[error("order is {0:?}, not unpaid: it cannot be cancelled")]
    NotCancellable(OrderStatus),
    /// The buyer asked for a refund of an order that is not paid and unused.
    #[error("order is {0:?}, not paid and unused: it cannot be refunded")]
    NotRefundable(OrderStatus),
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
        let locale = locale();
        match e {
            OrderError::NotFound => AppError::NotFound(Thing::Order),
            OrderError::VoucherNotFound => AppError::NotFound(Thing::Coupon),
            OrderError::CodeUnknown => AppError::invalid("code", td_string!(locale, orders.err_code_unknown)),
            OrderError::NotPaid(status) => AppError::invalid(
                "code",
                td_string!(locale, orders.err_not_paid, status = super::pages::status_label(locale, status)),
            ),
            OrderError::CouponExpired(use_by_ms) => AppError::invalid(
                "code",
                td_string!(locale, orders.err_coupon_expired, day = clock::when(locale, use_by_ms)),
            ),
            OrderError::NotCancellable(status) => AppError::invalid(
                "order",
                match status {
                    OrderStatus::Paid => td_string!(locale, orders.err_cancel_paid),
                    _ => td_string!(locale, orders.err_cancel_not_waiting),
                },
            ),
            OrderError::NotRefundable(status) => AppError::invalid(
                "order",
                match status {
                    OrderStatus::Used => td_string!(locale, orders.err_refund_used),
                    OrderStatus::Unpaid => td_string!(locale, orders.err_refund_unpaid),
                    _ => td_string!(locale, orders.err_refund_never_paid),
                },
            ),
            OrderError::NoIds(cause) => {
                tracing::error!(%cause, "purchase refused: no order ids");
                AppError::Unavailable(td_string!(locale, orders.err_no_ids).into())
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

/// Ends an unpaid order (`how`: its time ran out, or its buyer cancelled). Postgres decides (one guarded
/// UPDATE, stock in the same transaction); the Redis give-back runs for every ended flash order but is
/// once-only per order, so a redelivered check, a retry after Redis failed, or a cancel racing the closer
/// never releases twice. Returns whether it ended now, and the order as it stands.
async fn end_unpaid(state: &AppState, order_id: i64, how: Unpaid) -> Result<(bool, Option<OrderKey>), OrderError> {
    let (changed, order) = store::end_unpaid(state.postgres()?, order_id, how).await?;
    if let Some(order) = &order
        && order.kind == "flash"
        && matches!(order.status.as_str(), "closed" | "cancelled")
    {
        inventory::release(&state.redis, &state.keys, order.voucher_id, order.user_id, order.id).await?;
    }
    Ok((changed, order))
}

/// Closes order `id` if it is still unpaid (the closer's and the sweeper's path).
pub async fn close(state: &AppState, order_id: i64) -> Result<CloseOutcome, OrderError> {
    let (changed, order) = end_unpaid(state, order_id, Unpaid::Closed).await?;
    if order.is_none() {
        tracing::warn!(order_id, "close check for an unknown order");
    }
    if changed {
        state.metrics.orders.closed.inc();
        if let Some(o) = &order {
            inbox::tell(state, o.user_id, order_news(o.id, Facts::Closed { code: order_code(o.id) })).await;
        }
        Ok(CloseOutcome::Closed)
    } else {
        Ok(CloseOutcome::Unchanged)
    }
}

/// The buyer cancels their unpaid order: the coupon goes back at once, through the closer's own path, so
/// whichever of the two comes first ends it and the other finds it ended.
pub async fn cancel(state: &AppState, user_id: i64, order_id: i64) -> Result<CancelOutcome, OrderError> {
    let (changed, order) = end_unpaid(state, order_id, Unpaid::Cancelled { user_id }).await?;
    let order = order.ok_or(OrderError::NotFound)?;
    if changed {
        state.metrics.orders.cancelled.inc();
        inbox::tell(state, user_id, order_news(order_id, Facts::Cancelled { code: order_code(order_id) })).await;
        return Ok(CancelOutcome::Cancelled);
    }
    match OrderStatus::from_db(&order.status) {
        OrderStatus::Closed | OrderStatus::Cancelled => Ok(CancelOutcome::AlreadyEnded),
        status => Err(OrderError::NotCancellable(status)),
    }
}

/// Refunds a paid, unused order for `cause`: the buyer's (`user_id`) request, or its expiry. The coupon
/// goes back to its flash sale only while that sale runs — in Postgres in the refund's transaction — and
/// Redis hears of it after the commit ([`settle_refund_in_redis`]); if Redis fails then, the refund stands
/// and the sweeper finishes the Redis step. After the sale has ended, a refunded coupon is not sold again.
async fn refund(
    state: &AppState,
    order_id: i64,
    user_id: Option<i64>,
    cause: RefundCause,
) -> Result<Refund, OrderError> {
    let (order, restocked, outcome) = match store::refund(state.postgres()?, order_id, user_id, cause).await? {
        store::Refunded::Now { order, amount_cents, restocked } => {
            match cause {
                RefundCause::Expired => state.metrics.orders.refunds_expired.inc(),
                _ => state.metrics.orders.refunds_requested.inc(),
            };
            let why = match cause {
                RefundCause::Requested(_) => RefundWhy::Asked,
                RefundCause::Expired => RefundWhy::Expired,
                RefundCause::PaidLate => RefundWhy::PaidLate,
            };
            let facts = Facts::Refunded { code: order_code(order.id), yuan: Some(yuan_amount(amount_cents)), why };
            inbox::tell(state, order.user_id, order_news(order.id, facts)).await;
            (order, restocked, RefundOutcome::Refunded { amount_cents })
        }
        store::Refunded::Before { order, restocked } => (order, restocked, RefundOutcome::AlreadyRefunded),
        store::Refunded::NotYet { validity } => return Ok(Refund::NotYet(validity)),
        store::Refunded::Refused(order) => return Err(OrderError::NotRefundable(OrderStatus::from_db(&order.status))),
        store::Refunded::Unknown => return Err(OrderError::NotFound),
    };
    if let Err(e) = settle_refund_in_redis(state, &order, restocked).await {
        tracing::warn!(order = order.id, "refund not told to Redis yet, the sweeper will: {e}");
    }
    Ok(Refund::Done(outcome))
}

/// What a refund attempt came to, inside this module.
enum Refund {
    /// Refunded now or before.
    Done(RefundOutcome),
    /// An expiry for a coupon still valid until this.
    NotYet(store::Validity),
}

/// Tells Redis of a flash coupon's refund — back on sale if Postgres took it back, else only its buyer let
/// go — once per order (`lua/release.lua`'s marker), then clears the refund's pending mark.
async fn settle_refund_in_redis(state: &AppState, order: &OrderKey, restocked: bool) -> Result<(), OrderError> {
    if order.kind != "flash" {
        return Ok(());
    }
    let (redis, keys) = (&state.redis, &state.keys);
    if restocked {
        inventory::release(redis, keys, order.voucher_id, order.user_id, order.id).await?;
    } else {
        inventory::forget_buyer(redis, keys, order.voucher_id, order.user_id, order.id).await?;
    }
    Ok(store::refund_settled(state.postgres()?, order.id).await?)
}

/// The buyer asks for their money back on a paid, unused coupon ("refund any time").
pub async fn request_refund(
    state: &AppState,
    user_id: i64,
    order_id: i64,
    reason: RefundReason,
) -> Result<RefundOutcome, OrderError> {
    match refund(state, order_id, Some(user_id), RefundCause::Requested(reason)).await? {
        Refund::Done(outcome) => Ok(outcome),
        // A request refunds any paid order; only an expiry waits for the use-by.
        Refund::NotYet(_) => Err(OrderError::NotRefundable(OrderStatus::Paid)),
    }
}

/// Refunds order `id` if it is paid, unused and past its use-by ("refund on expiry"); the expiry check's
/// and the sweeper's one path. A check that came before the use-by (clocks apart, or sent early) is sent
/// again for the real one. `Ok(false)`: nothing done now.
pub async fn expire(state: &AppState, order_id: i64) -> Result<bool, OrderError> {
    match refund(state, order_id, None, RefundCause::Expired).await {
        Ok(Refund::Done(RefundOutcome::Refunded { .. })) => Ok(true),
        Ok(Refund::NotYet(v)) => {
            publish_expiry_check(state, order_id, v.days, v.use_by_ms).await?;
            Ok(false)
        }
        Ok(Refund::Done(RefundOutcome::AlreadyRefunded)) | Err(OrderError::NotRefundable(_) | OrderError::NotFound) => {
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Which of `ids` Postgres knows, as an order in any state or as a failure it recorded.
pub async fn known_order_ids(state: &AppState, ids: &[i64]) -> Result<std::collections::HashSet<i64>, OrderError> {
    Ok(store::known_order_ids(state.postgres()?, ids).await?.into_iter().collect())
}

/// The user pays order `id` (simulated payment). Loses cleanly to the closer: then a payment made within
/// the deadline is refunded; after it, nothing is charged, so nothing is refunded.
pub async fn pay(state: &AppState, user_id: i64, order_id: i64) -> Result<PayOutcome, OrderError> {
    let (outcome, validity) = store::pay(state.postgres()?, user_id, order_id, state.config.pay_timeout)
        .await?
        .ok_or(OrderError::NotFound)?;
    match outcome {
        PayOutcome::Paid => {
            state.metrics.orders.paid.inc();
            inbox::tell(state, user_id, order_news(order_id, Facts::Paid { code: order_code(order_id) })).await;
            // Sent in the background: the buyer need not wait on a check due in weeks, and if the send fails
            // the sweeper still refunds the coupon when its time comes.
            if let Some(v) = validity {
                let state = state.clone();
                tokio::spawn(async move {
                    if let Err(e) = publish_expiry_check(&state, order_id, v.days, v.use_by_ms).await {
                        tracing::warn!(order = order_id, "expiry check not queued, the sweeper will see to it: {e}");
                    }
                });
            }
        }
        PayOutcome::Refunded => {
            state.metrics.orders.refunds.inc();
            let facts = Facts::Refunded { code: order_code(order_id), yuan: None, why: RefundWhy::PaidLate };
            inbox::tell(state, user_id, order_news(order_id, facts)).await;
        }
        // Past its deadline: close it now rather than wait for the closer, so the coupon goes back at once.
        PayOutcome::Expired => {
            close(state, order_id).await?;
        }
        PayOutcome::AlreadyPaid | PayOutcome::Cancelled | PayOutcome::RefundedBefore => {}
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
    let check = DueCheck {
        order_ids: orders.iter().map(|&(id, _)| id).collect(),
        due_ms: latest + state.config.pay_timeout.as_millis() as i64,
    };
    publish_due_check(state, ORDERS_CLOSE_DELAY, first, &check).await
}

/// The expiry topic of a validity length (one topic per length keeps due times rising in each).
pub fn expiry_topic(valid_days: i32) -> Option<&'static str> {
    VALIDITY_DAYS.iter().position(|&d| d == valid_days).map(|i| ORDERS_EXPIRE_DELAY[i])
}

/// Produces the expiry check of a newly paid coupon, due at its use-by, and awaits the ack.
pub async fn publish_expiry_check(
    state: &AppState,
    order_id: i64,
    valid_days: i32,
    use_by_ms: i64,
) -> Result<(), OrderError> {
    // The schema allows only the fixed lengths; any other is the sweeper's to find.
    let Some(topic) = expiry_topic(valid_days) else {
        tracing::warn!(order = order_id, valid_days, "no expiry topic for this validity");
        return Ok(());
    };
    publish_due_check(state, topic, order_id, &DueCheck { order_ids: vec![order_id], due_ms: use_by_ms }).await
}

/// Produces one due check to the fixed-delay topic `name`, keyed by its first order, and awaits the ack.
async fn publish_due_check(state: &AppState, name: &str, key: i64, check: &DueCheck) -> Result<(), OrderError> {
    let topic = kafka::topic(&state.config, name);
    let payload = serde_json::to_vec(check).unwrap_or_default();
    let key = key.to_string();
    let record = rdkafka::producer::FutureRecord::to(&topic).key(&key).payload(&payload);
    state.kafka.send(record, Duration::from_secs(10)).await.map(|_| ()).map_err(|(e, _)| e.into())
}

/// Close checks for orders the writer just stored (or found stored on a redelivery).
pub async fn close_checks_for(state: &AppState, orders: &[&OrderCreated]) -> Result<(), OrderError> {
    let pairs: Vec<(i64, i64)> = orders.iter().map(|o| (o.order_id, o.ts)).collect();
    publish_close_checks(state, &pairs).await
}

/// One sweep: closes unpaid orders past the timeout, and refunds paid coupons past their use-by, that the
/// delayed checks missed, and tells Redis of refunds it missed hearing; returns how many orders it ended.
pub async fn sweep(state: &AppState) -> Result<usize, OrderError> {
    let overdue = store::overdue_unpaid(state.postgres()?, state.config.pay_timeout, 500).await?;
    let expired = store::expired_paid(state.postgres()?, 500).await?;
    let mut ended = 0;
    for id in overdue {
        state.metrics.orders.sweeper_finds.inc();
        if close(state, id).await? == CloseOutcome::Closed {
            ended += 1;
        }
    }
    // One order that cannot be settled (its data refused, say) must not stop the others behind it.
    for id in expired {
        state.metrics.orders.sweeper_finds.inc();
        match expire(state, id).await {
            Ok(true) => ended += 1,
            Ok(false) => {}
            Err(e) => tracing::warn!(order = id, "expired coupon not refunded yet: {e}"),
        }
    }
    for (order, restocked) in store::unsettled_refunds(state.postgres()?, Duration::from_secs(10), 500).await? {
        if let Err(e) = settle_refund_in_redis(state, &order, restocked).await {
            tracing::warn!(order = order.id, "refund still not told to Redis: {e}");
        }
    }
    if let Err(e) = tell_closing_soon(state).await {
        tracing::warn!("buyers not told of orders closing soon: {e}");
    }
    Ok(ended)
}

/// A notice about order `order_id`, leading to "My orders".
fn order_news(order_id: i64, facts: Facts) -> News<'static> {
    News { subject_id: order_id, facts, link: "/orders" }
}

/// Tells the buyers of unpaid orders that close within [`CLOSING_NOTICE`] (once each: the inbox keeps one
/// notice per order and kind). Only when paying takes longer than that: a shorter time to pay is all
/// countdown on "My orders".
async fn tell_closing_soon(state: &AppState) -> Result<(), inbox::InboxError> {
    let timeout = state.config.pay_timeout;
    let Some(opened) = timeout.checked_sub(CLOSING_NOTICE).filter(|d| !d.is_zero()) else { return Ok(()) };
    let due = store::unpaid_older_than(state.postgres()?, opened, timeout, 20_000).await?;
    let news: Vec<(i64, News<'_>)> = due
        .iter()
        .map(|(order_id, user_id)| (*user_id, order_news(*order_id, Facts::Closing { code: order_code(*order_id) })))
        .collect();
    inbox::notify_many(state, NoticeKind::OrderClosing, &news).await
}

/// How long before its close an unpaid order's buyer is told.
const CLOSING_NOTICE: Duration = Duration::from_secs(5 * 60);

/// Sweeps every `every` for the life of the process.
pub fn spawn_sweeper(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match sweep(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::warn!(ended = n, "sweeper ended overdue orders the delayed checks missed"),
                Err(e) => tracing::error!("sweeper: {e}"),
            }
        }
    })
}

/// Orders on one page of "My orders".
pub const MY_ORDERS_PAGE: usize = 20;

/// One page of the user's "My orders", newest first, after order `before` (the last one the page before
/// showed). A paid order's QR code is not in it: the page loads each as an image ([`code_qr`]), so the
/// list costs what its rows do and a phone draws only the codes it scrolls to.
pub async fn my_orders(state: &AppState, user_id: i64, before: Option<i64>) -> Result<OrdersPage, OrderError> {
    let mut orders: Vec<OrderView> =
        store::orders_of_user(state.postgres()?, user_id, before, MY_ORDERS_PAGE as i64 + 1).await?;
    let more = orders.len() > MY_ORDERS_PAGE;
    orders.truncate(MY_ORDERS_PAGE);
    let next_before = if more { orders.last().map(|o| o.id) } else { None };
    Ok(OrdersPage {
        orders,
        next_before,
        server_now_ms: clock::now_ms(),
        pay_timeout_ms: state.config.pay_timeout.as_millis() as i64,
    })
}

/// The redemption code of `user_id`'s paid order `order_id` as a QR code the counter's camera reads (an SVG
/// document). Anyone else's order, and an order with no code to honour, is not found.
pub async fn code_qr(state: &AppState, user_id: i64, order_id: i64) -> Result<String, OrderError> {
    let order = store::order_of_user(state.postgres()?, user_id, order_id).await?;
    let code = order.filter(|o| o.status == OrderStatus::Paid).and_then(|o| o.redeem_code);
    // A code is a few ASCII characters, far below what a QR code holds, so drawing it cannot fail.
    let qr = code.and_then(|code| qrcode::QrCode::new(code.as_bytes()).ok()).ok_or(OrderError::NotFound)?;
    Ok(qr.render::<qrcode::render::svg::Color>().min_dimensions(148, 148).quiet_zone(true).build())
}

/// A merchant (`owner_id`) honours a redemption code at the counter: the paid order of one of their shops
/// becomes `used`, once. A second scan answers when it was used; another shop's code is unknown here.
pub async fn redeem(state: &AppState, owner_id: i64, code: &RedeemCode) -> Result<Redemption, OrderError> {
    match store::redeem(state.postgres()?, owner_id, code.as_str()).await? {
        store::Redeemed::Done(r, buyer) => {
            if !r.earlier {
                state.metrics.orders.used.inc();
                let facts = Facts::Redeemed { coupon: r.title.clone(), shop: r.shop_name.clone() };
                inbox::tell(state, buyer, order_news(r.order_id, facts)).await;
            }
            Ok(r)
        }
        store::Redeemed::NotPaid(status) => Err(OrderError::NotPaid(status)),
        store::Redeemed::Expired { use_by_ms } => Err(OrderError::CouponExpired(use_by_ms)),
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

/// The whole site's orders, charges and refunds per business day from `since_ms` on (days without any
/// absent), for the operators.
pub async fn site_trade(state: &AppState, since_ms: i64) -> Result<Vec<SiteTrade>, OrderError> {
    Ok(store::site_trade(state.postgres()?, since_ms).await?)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_validity_has_its_own_expiry_topic_named_for_it() {
        for days in VALIDITY_DAYS {
            assert_eq!(expiry_topic(days), Some(format!("orders.expire-{days}d")).as_deref());
        }
        assert_eq!(expiry_topic(31), None);
    }
}
