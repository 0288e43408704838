//! The grab: throttle → in-process sold-out view → the inventory's atomic script → Kafka (awaiting the
//! delivery report), and the sale set-up that keeps Redis and Postgres telling the same story.

use std::time::Duration;

use super::model::{ConsoleSale, GrabCode, NewFlashSale, PUZZLE_FIELD, SaleAudit, SaleState};
use super::store;
use crate::auth::model::CurrentUser;
use crate::breaker::Service;
use crate::catalog::service::CatalogError;
use crate::clock::now_ms;
use crate::error::{AppError, BackendError};
use crate::inventory;
use crate::kafka::{self, Delivery, ORDERS_CREATED, OrderCreated};
use crate::state::AppState;

/// Why a grab or a sale change did not happen; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum SeckillError {
    /// The script refused (window, stock, one per user, unknown sale).
    #[error("refused: {0:?}")]
    Refused(GrabCode),
    /// Throttled; retry after this long.
    #[error("rate limited for {0} ms")]
    RateLimited(u64),
    /// No order id can be minted right now (this instance's id lease is not confirmed); nothing was taken.
    #[error(transparent)]
    NoIds(#[from] crate::ids::IdError),
    /// The broker certainly did not take the order; the grab was given back.
    #[error("broker refused the order: {0}")]
    BrokerUnavailable(String),
    /// The sale script's answer was lost (Redis timed out or dropped the connection); it is being checked,
    /// and if the grab happened its order appears in "My orders".
    #[error("grab outcome unknown: {0}")]
    Unsure(String),
    /// Redis lost its data and the sale's state is being rebuilt from Postgres; nothing was taken.
    #[error("sale state is being restored")]
    Restoring,
    /// The slider puzzle's answer was refused (the page shows a new puzzle).
    #[error("puzzle refused: {0}")]
    Puzzle(#[from] crate::human_check::Refusal),
    /// Input failed validation.
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// The sale has started (or ended): its stock is fixed.
    #[error("sale already started")]
    AlreadyStarted,
    /// Not allowed, not found, or invalid (the catalog's owner check).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The orders capability failed (its own error, converted at the edge).
    #[error(transparent)]
    Orders(#[from] crate::orders::service::OrderError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(SeckillError);

impl From<SeckillError> for AppError {
    fn from(e: SeckillError) -> Self {
        match e {
            SeckillError::Refused(GrabCode::NoSuchSale) => AppError::NotFound("Flash sale".into()),
            // Its own field, so the page knows to show the puzzle (again).
            SeckillError::Refused(GrabCode::NeedsPuzzle) => {
                AppError::invalid(PUZZLE_FIELD, GrabCode::NeedsPuzzle.message())
            }
            SeckillError::Puzzle(refusal) => AppError::invalid(PUZZLE_FIELD, refusal.message()),
            SeckillError::Refused(code) => AppError::invalid("grab", code.message()),
            SeckillError::RateLimited(ms) => {
                let secs = ms.div_ceil(1000).max(1);
                AppError::TooManyRequests { message: format!("Too many tries, wait {secs} s."), retry_after_secs: secs }
            }
            SeckillError::BrokerUnavailable(cause) => {
                tracing::warn!(%cause, "grab given back: broker unavailable");
                AppError::Unavailable("We could not queue your order, so nothing was taken. Please try again.".into())
            }
            SeckillError::NoIds(cause) => {
                tracing::error!(%cause, "grab refused: no order ids");
                AppError::Unavailable("We cannot take orders for a moment, so nothing was taken. Please try again.".into())
            }
            SeckillError::Unsure(cause) => {
                tracing::warn!(%cause, "grab outcome unknown; checking in the background");
                AppError::Unavailable(
                    "We lost touch with the sale mid-grab. If it went through, the order appears in My orders within \
                     a minute; if not, nothing was taken and you can try again."
                        .into(),
                )
            }
            SeckillError::Restoring => AppError::Unavailable(
                "Sales are being restored after a hiccup on our side, so nothing was taken. Try again in a few seconds."
                    .into(),
            ),
            SeckillError::AlreadyStarted => {
                AppError::invalid("stock", "The sale has started: its stock can no longer change.")
            }
            SeckillError::Catalog(e) => e.into(),
            SeckillError::Invalid(e) => e,
            SeckillError::Orders(e) => e.into(),
            SeckillError::Backend(e) => e.into(),
        }
    }
}

/// The per-address limit, in this instance's memory (the per-user limit is inside the sale script).
fn throttle_address(state: &AppState, ip: &str) -> Result<(), SeckillError> {
    state.grab_gate.spend_address(ip).map_err(|wait| {
        state.metrics.seckill.rate_limited.inc();
        SeckillError::RateLimited(wait.as_millis().max(1) as u64)
    })
}

impl SeckillError {
    /// How a grab that failed this way is labelled in `/metrics`.
    pub fn outcome_label(&self) -> &'static str {
        match self {
            Self::Refused(code) => code.label(),
            Self::RateLimited(_) => "rate_limited",
            Self::Puzzle(_) => "puzzle_refused",
            Self::NoIds(_) => "no_ids",
            Self::BrokerUnavailable(_) => "broker_unavailable",
            Self::Unsure(_) => "unsure",
            Self::Restoring => "restoring",
            Self::Invalid(_) | Self::AlreadyStarted | Self::Catalog(_) => "invalid",
            Self::Backend(BackendError::Open(_)) => "breaker_open",
            Self::Orders(_) | Self::Backend(_) => "backend_error",
        }
    }
}

/// A new slider puzzle for `user_id` on sale `voucher_id` (nothing stored: the ticket carries it).
pub fn puzzle(state: &AppState, user_id: i64, voucher_id: i64) -> crate::human_check::Puzzle {
    state.config.human_check.issue(user_id, voucher_id, now_ms())
}

/// Judges an answer to a puzzle of [`puzzle`] and, if the piece landed in the gap, answers the pass for one
/// grab. The puzzle is spent whatever the answer, so each one buys a single guess.
pub async fn solve(
    state: &AppState,
    user_id: i64,
    voucher_id: i64,
    ticket: &str,
    x: u16,
    drag_ms: u32,
) -> Result<String, SeckillError> {
    use crate::human_check::{LIFETIME, Refusal};
    state.breakers.admit(Service::Redis)?;
    let judged = state.config.human_check.judge(ticket, user_id, voucher_id, x, drag_ms, now_ms());
    let outcome = match judged {
        Ok(judged) => {
            inventory::record_solution(
                &state.redis,
                &state.keys,
                voucher_id,
                user_id,
                &judged.nonce,
                judged.hit,
                LIFETIME,
            )
            .await?
        }
        Err(refusal) => {
            state.grab_tally.add(voucher_id, "puzzle_refused");
            return Err(refusal.into());
        }
    };
    match outcome {
        inventory::Solution::Passed(pass) => Ok(pass),
        inventory::Solution::Missed => {
            state.grab_tally.add(voucher_id, "puzzle_refused");
            Err(Refusal::Missed.into())
        }
        inventory::Solution::Reused => Err(Refusal::Reused.into()),
    }
}

/// One grab for a logged-in user, with no puzzle pass (for sales without the human check: tools and
/// tests); see [`grab_with_pass`].
pub async fn grab(state: &AppState, user_id: i64, voucher_id: i64, ip: &str) -> Result<i64, SeckillError> {
    grab_with_pass(state, user_id, voucher_id, ip, None).await
}

/// One grab for a logged-in user, spending the puzzle `pass` of [`solve`] if the sale asks for one. On
/// `Ok` the order is in Kafka (or, if the broker's answer was lost, on the resend queue that re-sends
/// it), so it will be written; the id is what the page then follows. Its latency lands in `/metrics` by
/// outcome.
pub async fn grab_with_pass(
    state: &AppState,
    user_id: i64,
    voucher_id: i64,
    ip: &str,
    pass: Option<&str>,
) -> Result<i64, SeckillError> {
    let started = std::time::Instant::now();
    let result = grab_once(state, user_id, voucher_id, ip, pass).await;
    let outcome = match &result {
        Ok(order_id) => {
            tracing::info!(order = order_id, user = user_id, voucher = voucher_id, "grab queued its order");
            "ok"
        }
        Err(e) => e.outcome_label(),
    };
    state.grab_tally.add(voucher_id, outcome);
    let labels = crate::metrics::OutcomeLabels { outcome };
    state.metrics.seckill.grab_seconds.get_or_create(&labels).observe(started.elapsed().as_secs_f64());
    result
}

async fn grab_once(
    state: &AppState,
    user_id: i64,
    voucher_id: i64,
    ip: &str,
    pass: Option<&str>,
) -> Result<i64, SeckillError> {
    // Both breakers before anything is taken: with Redis or the broker failing, "try again in n s" at once.
    state.breakers.admit(Service::Redis)?;
    state.breakers.kafka.admit()?;
    throttle_address(state, ip)?;
    if state.sold_out.is_sold_out(voucher_id) || state.live_stock.is_sold_out(voucher_id) {
        state.metrics.seckill.sold_out_flag_hits.inc();
        return Err(SeckillError::Refused(GrabCode::SoldOut));
    }
    // The id first: if none can be minted, nothing has been taken yet.
    let order_id = state.ids.next_id()?;
    let attempts = inventory::AttemptLimit {
        limit: state.config.seckill_rate_limit,
        window_ms: state.config.seckill_rate_window.as_millis() as u64,
    };
    let grabbed =
        inventory::try_grab_limited(&state.redis, &state.keys, voucher_id, user_id, order_id, attempts, pass).await;
    let code = match grabbed {
        Ok((GrabCode::RateLimited, wait)) => {
            state.metrics.seckill.outcome(GrabCode::RateLimited);
            state.metrics.seckill.rate_limited.inc();
            return Err(SeckillError::RateLimited(wait));
        }
        Ok((code, _)) => code,
        // The script may or may not have run: check in the background, never guess.
        Err(e) if e.is_timeout() || e.is_connection_dropped() || e.is_io_error() => {
            crate::breaker::note_failure(Service::Redis);
            let order = OrderCreated { order_id, user_id, voucher_id, ts: now_ms() };
            tokio::spawn(settle_unknown_grab(state.clone(), order));
            return Err(SeckillError::Unsure(e.to_string()));
        }
        Err(e) => return Err(e.into()),
    };
    state.metrics.seckill.outcome(code);
    match code {
        GrabCode::Ok => {}
        GrabCode::SoldOut => {
            state.sold_out.mark_sold_out(voucher_id).await;
            return Err(SeckillError::Refused(code));
        }
        // Unknown to Redis: either no such sale, or Redis lost its data and the state is being rebuilt.
        GrabCode::NoSuchSale if !crate::marker::state_present(&state.redis, &state.keys).await? => {
            return Err(SeckillError::Restoring);
        }
        other => return Err(SeckillError::Refused(other)),
    }
    let order = OrderCreated { order_id, user_id, voucher_id, ts: now_ms() };
    // Its own task: if the buyer's request is dropped mid-send, the outcome is still settled (given back,
    // or queued for a resend) instead of leaving a deduction nobody follows up.
    let settle = tokio::spawn({
        let state = state.clone();
        async move { publish(&state, &order).await }
    });
    settle.await.map_err(|e| SeckillError::BrokerUnavailable(format!("publish task failed: {e}")))??;
    Ok(order_id)
}

/// How long an unsure grab is checked on before it is given up (Redis that does not answer this long has
/// lost the grab's record with everything else, and the rebuild counts only orders that exist).
const UNSURE_GRAB_PATIENCE: Duration = Duration::from_secs(120);

/// Settles a grab whose script call failed mid-way: asks Redis (with a backoff) whether the grab was
/// recorded under its order id; if it was, the order is produced like any other, so no buyer is left
/// recorded without an order; if not, nothing was taken and nothing is done.
async fn settle_unknown_grab(state: AppState, order: OrderCreated) {
    let started = std::time::Instant::now();
    let mut backoff = kafka::Backoff::default();
    while started.elapsed() < UNSURE_GRAB_PATIENCE {
        match inventory::grab_recorded(&state.redis, &state.keys, order.voucher_id, order.user_id, order.order_id).await
        {
            Ok(false) => return,
            Ok(true) => {
                tracing::warn!(order = order.order_id, "an unsure grab had happened; producing its order");
                if let Err(e) = publish(&state, &order).await {
                    tracing::error!(order = order.order_id, "unsure grab's order not produced: {e}");
                }
                return;
            }
            Err(e) => tracing::warn!(order = order.order_id, "cannot check an unsure grab yet: {e}"),
        }
        backoff.wait().await;
    }
    tracing::error!(order = order.order_id, "unsure grab not settled: Redis did not answer");
}

/// Produces the order and settles every outcome: acknowledged → done; certainly lost → grab given back
/// and an error; unknown → onto the resend queue in Postgres (the writer is idempotent, so a resend is
/// safe).
async fn publish(state: &AppState, order: &OrderCreated) -> Result<(), SeckillError> {
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let delivery = match serde_json::to_vec(order) {
        Ok(payload) => state.publisher.send(&topic, &order.order_id.to_string(), &payload).await,
        Err(e) => Delivery::NotPersisted(format!("cannot encode the order: {e}")),
    };
    // Recorded here, not by the request: this runs in its own task, and may outlive the request.
    match &delivery {
        Delivery::Persisted => state.breakers.kafka.success(),
        Delivery::NotPersisted(_) | Delivery::Unknown(_) => state.breakers.kafka.failure(),
    }
    match delivery {
        Delivery::Persisted => Ok(()),
        Delivery::NotPersisted(cause) => {
            state.metrics.seckill.produce_failures.inc();
            inventory::release(&state.redis, &state.keys, order.voucher_id, order.user_id, order.order_id).await?;
            Err(SeckillError::BrokerUnavailable(cause))
        }
        Delivery::Unknown(cause) => {
            state.metrics.seckill.produce_unknown.inc();
            tracing::warn!(order = order.order_id, %cause, "produce outcome unknown; queued for compensation");
            Ok(store::push_compensation(state.postgres()?, order).await?)
        }
    }
}

/// Re-sends the resend queue until it is empty or the broker stops taking messages; returns how many were
/// delivered. Oldest first; an order leaves the queue only after the broker acknowledged it.
pub async fn drain_compensation(state: &AppState) -> Result<usize, SeckillError> {
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let mut delivered = 0;
    loop {
        let batch = store::compensation_orders(state.postgres()?, Some(100)).await?;
        if batch.is_empty() {
            return Ok(delivered);
        }
        for order in batch {
            let payload = serde_json::to_vec(&order).map_err(|e| SeckillError::BrokerUnavailable(e.to_string()))?;
            match state.publisher.send(&topic, &order.order_id.to_string(), &payload).await {
                Delivery::Persisted => {
                    state.breakers.kafka.success();
                    store::remove_compensation(state.postgres()?, order.order_id).await?;
                    state.metrics.seckill.compensated.inc();
                    delivered += 1;
                }
                Delivery::NotPersisted(cause) | Delivery::Unknown(cause) => {
                    state.breakers.kafka.failure();
                    tracing::info!(%cause, "compensation resend failed; will retry");
                    return Ok(delivered);
                }
            }
        }
    }
}

/// Queues an order whose produce outcome is unknown, for the compensation worker to re-send.
pub async fn queue_for_resend(state: &AppState, order: &OrderCreated) -> Result<(), SeckillError> {
    Ok(store::push_compensation(state.postgres()?, order).await?)
}

/// How many orders wait for a resend.
pub async fn compensation_backlog(state: &AppState) -> Result<u64, SeckillError> {
    Ok(store::compensation_backlog(state.postgres()?).await?)
}

/// Keeps the resend queue draining for the life of the process.
pub fn spawn_compensation(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match drain_compensation(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(delivered = n, "compensation backlog re-sent"),
                Err(e) => tracing::error!("compensation worker: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    })
}

/// When Redis may forget a sale that ends at `end_ms` (a day after its last unpaid order could close).
pub fn forget_at_ms(state: &AppState, end_ms: i64) -> i64 {
    inventory::forget_at_ms(state.config.pay_timeout, end_ms)
}

/// Orders acknowledged to their buyers that the order writer has not handled: those waiting for a resend
/// (their produce's outcome was unknown; the queue is in Postgres, so it outlives Redis), then those in
/// Kafka past the writer's offsets — looked at in the order an order travels, so one that moves on between
/// the two looks is found at the later one (a resend leaves the queue only once Kafka has it).
async fn orders_in_flight(state: &AppState) -> Result<Vec<OrderCreated>, SeckillError> {
    let mut in_flight = store::compensation_orders(state.postgres()?, None).await?;
    in_flight.extend(kafka::unconsumed_orders(&state.config, &crate::orders::writer::group(&state.config)).await?);
    Ok(in_flight)
}

/// Loads the Redis state of every sale Redis should hold but does not (first start, or Redis lost its
/// data); sales Redis already knows are left alone. Postgres is the truth except for orders still in
/// Kafka or waiting for a resend: those count as sold — stock = Postgres stock − orders in flight, buyers =
/// live orders ∪ in flight — so nobody can grab a coupon twice or a coupon that is already someone's.
pub async fn restore_sales(state: &AppState) -> Result<usize, SeckillError> {
    // Left out, the orders in flight would have their coupons sold again and be refused later.
    let in_flight = orders_in_flight(state).await?;
    let ids: Vec<i64> = in_flight.iter().map(|o| o.order_id).collect();
    let keep = inventory::kept_after_end(state.config.pay_timeout);
    let (sales, handled) = store::restorable_sales(state.postgres()?, keep, &ids).await?;
    let handled: std::collections::HashSet<i64> = handled.into_iter().collect();
    let mut restored = 0;
    for mut sale in sales {
        for order in in_flight.iter().filter(|o| o.voucher_id == sale.voucher_id && !handled.contains(&o.order_id)) {
            if !sale.buyers.contains(&order.user_id) {
                sale.buyers.push(order.user_id);
                sale.stock -= 1;
            }
        }
        if inventory::restore_sale(&state.redis, &state.keys, &sale, forget_at_ms(state, sale.end_ms)).await? {
            restored += 1;
        }
    }
    Ok(restored)
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
    let id = store::insert_sale(&mut tx, None, shop_id, "Flash sale", &sale)
        .await?
        .ok_or_else(|| sqlx::Error::Protocol("a new sale's id was taken".into()))?;
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
    if !store::set_stock_before_start(&mut tx, voucher_id, stock).await? {
        return Err(SeckillError::AlreadyStarted);
    }
    inventory::set_stock(&state.redis, &state.keys, voucher_id, stock).await?;
    tx.commit().await?;
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

/// Gives back grabs whose order exists nowhere — not in Postgres (as an order or a recorded failure), not
/// in Kafka, not on the resend queue — and whose script ran longer ago than `older_than`
/// (`STRANDED_GRAB_SECS`, far past the produce timeout and the compensation push, so an order on its way is
/// never taken for one): the instance that ran
/// the script died before producing (`kill -9` between the script and the send). Without this its buyer
/// would hold the coupon ("you already have one") with no order until the sale ends. Returns how many.
pub async fn release_stranded(state: &AppState, older_than: Duration) -> Result<usize, SeckillError> {
    let keep = inventory::kept_after_end(state.config.pay_timeout);
    let cutoff = now_ms() - older_than.as_millis() as i64;
    let mut suspects = Vec::new();
    for voucher_id in store::recent_sale_ids(state.postgres()?, keep).await? {
        for grab in inventory::recorded_grabs(&state.redis, &state.keys, voucher_id).await? {
            // Aged from when the script ran (Redis' clock; the instances' clocks agree with it far more
            // closely than `STRANDED_GRAB_SECS`), not from the order id's minting: a grab whose call waited
            // out a failover may still be on its way to Kafka.
            if grab.at_ms < cutoff {
                suspects.push(OrderCreated { order_id: grab.order_id, user_id: grab.user_id, voucher_id, ts: 0 });
            }
        }
    }
    if suspects.is_empty() {
        return Ok(0);
    }
    let ids: Vec<i64> = suspects.iter().map(|o| o.order_id).collect();
    // Looked for in the order an order travels — the resend queue, then Kafka past the writer's offsets,
    // then Postgres — so one that moves on between two looks is found at the later one (a resend leaves
    // the queue only once Kafka has it; the writer commits its offsets only after Postgres).
    // Postgres first would miss an order the writer stored and committed past in between, and give back
    // a coupon that was sold.
    let mut accounted: std::collections::HashSet<i64> =
        orders_in_flight(state).await?.into_iter().map(|o| o.order_id).collect();
    accounted.extend(crate::orders::service::known_order_ids(state, &ids).await?);
    let mut released = 0;
    for o in suspects.iter().filter(|o| !accounted.contains(&o.order_id)) {
        if inventory::release(&state.redis, &state.keys, o.voucher_id, o.user_id, o.order_id).await? {
            tracing::warn!(order = o.order_id, user = o.user_id, voucher = o.voucher_id, "stranded grab given back");
            state.metrics.seckill.stranded_released.inc();
            released += 1;
        }
    }
    Ok(released)
}

/// Runs [`release_stranded`] for the life of the process, three times per `STRANDED_GRAB_SECS`.
pub fn spawn_stranded_sweeper(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let older_than = state.config.stranded_grab_after;
        loop {
            tokio::time::sleep(older_than / 3).await;
            if let Err(e) = release_stranded(&state, older_than).await {
                tracing::warn!("stranded-grab sweep skipped: {e}");
            }
        }
    })
}

/// Postgres next to Redis for every flash sale (of one shop, or all): the reconciliation report.
/// It only reports; it never "fixes" Postgres from Redis.
pub async fn audit(state: &AppState, shop_id: Option<i64>) -> Result<Vec<SaleAudit>, SeckillError> {
    let mut sales = store::sale_ledgers(state.postgres()?, shop_id).await?;
    let now = now_ms();
    for s in &mut sales {
        let (stock, buyers) = inventory::sale_state(&state.redis, &state.keys, s.voucher_id).await?;
        s.redis_stock = stock;
        s.redis_buyers = buyers as i64;
        s.redis_expected = forget_at_ms(state, s.end_ms) > now;
    }
    Ok(sales)
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

/// Audits every sale now and then and logs drift loudly (the same figures are on `/metrics`).
pub fn spawn_reconciliation(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match audit(&state, None).await {
                Ok(sales) => {
                    for s in sales.iter().filter(|s| s.drift() != 0) {
                        tracing::error!(
                            voucher = s.voucher_id,
                            drift = s.drift(),
                            ?s,
                            "flash sale drift between Redis and Postgres"
                        );
                    }
                }
                Err(e) => tracing::warn!("reconciliation skipped: {e}"),
            }
        }
    })
}

async fn authorize_owner(state: &AppState, user: Option<&CurrentUser>, shop_id: i64) -> Result<(), SeckillError> {
    Ok(crate::catalog::service::authorize_owner(state, user, shop_id).await?)
}

/// Adds this instance's grab outcomes counted since the last flush to Postgres (kept for the next flush
/// if the write fails); answers how many grabs it added.
pub async fn flush_grab_tally(state: &AppState) -> Result<i64, SeckillError> {
    let rows = state.grab_tally.take();
    if rows.is_empty() {
        return Ok(0);
    }
    let total = rows.iter().map(|r| r.2).sum();
    let written = match state.postgres() {
        Ok(db) => store::add_outcomes(db, &rows).await.map_err(SeckillError::from),
        Err(e) => Err(e.into()),
    };
    if let Err(e) = written {
        state.grab_tally.put_back(rows);
        return Err(e);
    }
    Ok(total)
}

/// Flushes the grab tally every second for the life of the process.
pub fn spawn_tally_flusher(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if let Err(e) = flush_grab_tally(&state).await {
                tracing::warn!("grab outcomes not stored yet, kept for the next try: {e}");
            }
        }
    })
}

/// How the grabs of sale `voucher_id` ended, by outcome label, as Postgres holds them (each instance's
/// last second is still on its way).
pub async fn grab_outcomes(state: &AppState, voucher_id: i64) -> Result<Vec<(String, i64)>, SeckillError> {
    Ok(store::outcomes_of(state.postgres()?, voucher_id).await?)
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
    let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
    // Without Redis the console still lists the sales, with Postgres' count.
    let (now, live) = match inventory::live_stocks(&state.redis, &state.keys, &ids).await {
        Ok((now, stocks)) => (now, stocks.into_iter().collect::<std::collections::HashMap<_, _>>()),
        Err(e) => {
            tracing::warn!("console shows Postgres' stock only: {e}");
            (now_ms(), Default::default())
        }
    };
    Ok(rows
        .into_iter()
        .map(|(id, title, pay_value_cents, begin_ms, end_ms, pg_stock, holders, active)| ConsoleSale {
            id,
            title,
            pay_value_cents,
            begin_ms,
            end_ms,
            total: pg_stock + holders,
            left: live.get(&id).copied().flatten().unwrap_or(pg_stock),
            state: SaleState::of(active, begin_ms, end_ms, now),
        })
        .collect())
}

/// The owner cancels a sale that has not started: Postgres and Redis in one step (the row changes only
/// once Redis has forgotten the sale; if the commit then fails, the healer's restore loads it again).
pub async fn cancel_sale(state: &AppState, user: Option<&CurrentUser>, voucher_id: i64) -> Result<(), SeckillError> {
    let shop_id =
        store::sale_shop(state.postgres()?, voucher_id).await?.ok_or(SeckillError::Refused(GrabCode::NoSuchSale))?;
    authorize_owner(state, user, shop_id).await?;
    let mut tx = state.postgres()?.begin().await?;
    if !store::cancel_before_start(&mut tx, voucher_id).await? {
        return Err(SeckillError::Invalid(AppError::invalid(
            "sale",
            "Only a sale that has not started can be cancelled.",
        )));
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
        return Err(SeckillError::Invalid(AppError::invalid("begin", "Pick a start in the future.")));
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
