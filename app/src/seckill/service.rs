//! The grab: throttle → local sold-out flag → atomic Redis script → Kafka (awaiting the delivery report),
//! and the sale set-up that keeps Redis and Postgres telling the same story.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use super::model::{GrabCode, NewFlashSale, SaleAudit};
use super::store;
use crate::auth::model::CurrentUser;
use crate::catalog::service::CatalogError;
use crate::error::AppError;
use crate::kafka::{self, Delivery, ORDERS_CREATED};
use crate::orders::model::OrderCreated;
use crate::state::AppState;

/// How long an instance remembers "sold out" without asking Redis. Short, because closed orders give
/// stock back; the flag only ever skips work Redis would refuse anyway.
const SOLD_OUT_FLAG_TTL: Duration = Duration::from_millis(500);

/// How long Redis keeps a sale after the last of its unpaid orders could have closed: a late grab still
/// hears "ended" and the audit still sees it, yet old buyer sets do not pile up in memory for ever.
const SALE_STATE_GRACE: Duration = Duration::from_secs(24 * 3600);

/// When Redis may forget a sale that ends at `end_ms` (unix ms).
pub fn forget_at_ms(state: &AppState, end_ms: i64) -> i64 {
    end_ms.saturating_add((state.config.pay_timeout + SALE_STATE_GRACE).as_millis() as i64)
}

/// Why a grab did not produce an order; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum SeckillError {
    /// The script refused (window, stock, one per user, unknown sale).
    #[error("refused: {0:?}")]
    Refused(GrabCode),
    /// Throttled; retry after this long.
    #[error("rate limited for {0} ms")]
    RateLimited(u64),
    /// The broker certainly did not take the order; the grab was given back.
    #[error("broker refused the order: {0}")]
    BrokerUnavailable(String),
    /// Input failed validation.
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// The sale has started (or ended): its stock is fixed.
    #[error("sale already started")]
    AlreadyStarted,
    /// Not allowed, not found, or invalid (the catalog's owner check).
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// Redis failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// Postgres failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

impl From<SeckillError> for AppError {
    fn from(e: SeckillError) -> Self {
        match e {
            SeckillError::Refused(GrabCode::NoSuchSale) => AppError::NotFound("Flash sale".into()),
            SeckillError::Refused(code) => AppError::invalid("grab", code.message()),
            SeckillError::RateLimited(ms) => {
                let secs = ms.div_ceil(1000).max(1);
                AppError::TooManyRequests { message: format!("Too many tries, wait {secs} s."), retry_after_secs: secs }
            }
            SeckillError::BrokerUnavailable(cause) => {
                tracing::warn!(%cause, "grab given back: broker unavailable");
                AppError::Unavailable("We could not queue your order, so nothing was taken. Please try again.".into())
            }
            SeckillError::AlreadyStarted => {
                AppError::invalid("stock", "The sale has started: its stock can no longer change.")
            }
            SeckillError::Catalog(e) => e.into(),
            SeckillError::Invalid(e) => e,
            other => AppError::internal(other),
        }
    }
}

/// Per-instance flash-sale counters for `/metrics`.
#[derive(Debug)]
pub struct SeckillMetrics {
    /// Script answers, indexed like `lua/seckill.lua` codes (0 ok … 5 already bought).
    pub outcomes: [AtomicU64; 6],
    /// Answered from the local sold-out flag without Redis.
    pub sold_out_flag_hits: AtomicU64,
    /// Requests refused by a rate limit.
    pub rate_limited: AtomicU64,
    /// Sends the broker certainly refused (grab given back).
    pub produce_failures: AtomicU64,
    /// Sends with an unknown outcome (queued for compensation).
    pub produce_unknown: AtomicU64,
    /// Compensation messages re-sent successfully.
    pub compensated: AtomicU64,
    /// The order writer's consumer lag on `orders.created` (from librdkafka statistics; -1 = not yet known).
    pub writer_lag: Arc<AtomicI64>,
}

impl Default for SeckillMetrics {
    fn default() -> Self {
        Self {
            outcomes: Default::default(),
            sold_out_flag_hits: AtomicU64::new(0),
            rate_limited: AtomicU64::new(0),
            produce_failures: AtomicU64::new(0),
            produce_unknown: AtomicU64::new(0),
            compensated: AtomicU64::new(0),
            writer_lag: Arc::new(AtomicI64::new(-1)),
        }
    }
}

impl SeckillMetrics {
    fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// (outcome label, count) in script-code order.
    pub fn outcomes(&self) -> Vec<(&'static str, u64)> {
        ["ok", "no_such_sale", "not_started", "ended", "sold_out", "already_bought"]
            .into_iter()
            .zip(self.outcomes.iter().map(|c| c.load(Ordering::Relaxed)))
            .collect()
    }
}

/// This instance's flash-sale state: the sold-out flags and counters.
pub struct SeckillLocal {
    sold_out: moka::future::Cache<i64, ()>,
    /// Counters.
    pub metrics: SeckillMetrics,
}

impl Default for SeckillLocal {
    fn default() -> Self {
        Self {
            sold_out: moka::future::Cache::builder().time_to_live(SOLD_OUT_FLAG_TTL).build(),
            metrics: SeckillMetrics::default(),
        }
    }
}

fn code_index(code: GrabCode) -> usize {
    match code {
        GrabCode::Ok => 0,
        GrabCode::NoSuchSale => 1,
        GrabCode::NotStarted => 2,
        GrabCode::Ended => 3,
        GrabCode::SoldOut => 4,
        GrabCode::AlreadyBought => 5,
    }
}

/// Applies both sliding windows: per user and sale, and per client address.
async fn throttle(state: &AppState, user_id: i64, voucher_id: i64, ip: &str) -> Result<(), SeckillError> {
    let window = state.config.seckill_rate_window.as_millis() as u64;
    let limits = [
        (state.keys.rate_limit("grab", &format!("{user_id}:{voucher_id}")), state.config.seckill_rate_limit),
        (state.keys.rate_limit("grab-ip", ip), state.config.ip_rate_limit),
    ];
    for (key, limit) in limits {
        if let Some(wait) = store::rate_limit(&state.redis, &key, window, limit).await? {
            SeckillMetrics::inc(&state.seckill.metrics.rate_limited);
            return Err(SeckillError::RateLimited(wait));
        }
    }
    Ok(())
}

/// One grab for a logged-in user. On `Ok` the order is in Kafka (or, if the broker's answer was lost, on
/// the compensation list that re-sends it), so it will be written; the id is what the page then follows.
pub async fn grab(state: &AppState, user_id: i64, voucher_id: i64, ip: &str) -> Result<i64, SeckillError> {
    throttle(state, user_id, voucher_id, ip).await?;
    let local = &state.seckill;
    if local.sold_out.contains_key(&voucher_id) {
        SeckillMetrics::inc(&local.metrics.sold_out_flag_hits);
        return Err(SeckillError::Refused(GrabCode::SoldOut));
    }
    let code = store::try_grab(&state.redis, &state.keys, voucher_id, user_id).await?;
    SeckillMetrics::inc(&local.metrics.outcomes[code_index(code)]);
    match code {
        GrabCode::Ok => {}
        GrabCode::SoldOut => {
            local.sold_out.insert(voucher_id, ()).await;
            return Err(SeckillError::Refused(code));
        }
        other => return Err(SeckillError::Refused(other)),
    }
    let order = OrderCreated { order_id: state.ids.next_id(), user_id, voucher_id, ts: now_ms() };
    let order_id = order.order_id;
    // Its own task: if the buyer's request is dropped mid-send, the outcome is still settled (given back,
    // or queued for a resend) instead of leaving a deduction nobody follows up.
    let settle = tokio::spawn({
        let state = state.clone();
        async move { publish(&state, &order).await }
    });
    settle.await.map_err(|e| SeckillError::BrokerUnavailable(format!("publish task failed: {e}")))??;
    Ok(order_id)
}

/// Produces the order and settles every outcome: acknowledged → done; certainly lost → grab given back
/// and an error; unknown → onto the compensation list (the writer is idempotent, so a resend is safe).
async fn publish(state: &AppState, order: &OrderCreated) -> Result<(), SeckillError> {
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let (payload, delivery) = match serde_json::to_vec(order) {
        Ok(payload) => {
            let delivery = state.publisher.send(&topic, &order.order_id.to_string(), &payload).await;
            (payload, delivery)
        }
        Err(e) => (Vec::new(), Delivery::NotPersisted(format!("cannot encode the order: {e}"))),
    };
    match delivery {
        Delivery::Persisted => Ok(()),
        Delivery::NotPersisted(cause) => {
            SeckillMetrics::inc(&state.seckill.metrics.produce_failures);
            store::release(&state.redis, &state.keys, order.voucher_id, order.user_id, order.order_id).await?;
            Err(SeckillError::BrokerUnavailable(cause))
        }
        Delivery::Unknown(cause) => {
            SeckillMetrics::inc(&state.seckill.metrics.produce_unknown);
            tracing::warn!(order = order.order_id, %cause, "produce outcome unknown; queued for compensation");
            store::push_compensation(&state.redis, &state.keys, &payload).await?;
            Ok(())
        }
    }
}

/// Unix time in ms (message timestamps; sale windows are judged on Redis' clock, not this one).
pub fn now_ms() -> i64 {
    (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

/// Re-sends the compensation list until it is empty or the broker stops taking messages; returns how
/// many were delivered. Oldest first; an entry leaves the list only after the broker acknowledged it.
pub async fn drain_compensation(state: &AppState) -> Result<usize, SeckillError> {
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let mut delivered = 0;
    loop {
        let batch = store::oldest_compensation(&state.redis, &state.keys, 100).await?;
        if batch.is_empty() {
            return Ok(delivered);
        }
        for payload in batch {
            let key =
                serde_json::from_slice::<OrderCreated>(&payload).map(|o| o.order_id.to_string()).unwrap_or_default();
            match state.publisher.send(&topic, &key, &payload).await {
                Delivery::Persisted => {
                    store::remove_compensation(&state.redis, &state.keys, &payload).await?;
                    SeckillMetrics::inc(&state.seckill.metrics.compensated);
                    delivered += 1;
                }
                Delivery::NotPersisted(cause) | Delivery::Unknown(cause) => {
                    tracing::info!(%cause, "compensation resend failed; will retry");
                    return Ok(delivered);
                }
            }
        }
    }
}

/// Keeps the compensation list draining for the life of the process.
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

/// Loads the Redis state of every current flash sale that Redis does not have (first start, or Redis lost
/// its data): stock from Postgres and buyers from live orders. Sales Redis already knows are left alone.
pub async fn restore_sales(state: &AppState) -> Result<usize, SeckillError> {
    let sales = store::current_sales(&state.db).await?;
    let mut restored = 0;
    for sale in sales {
        if store::restore_sale(&state.redis, &state.keys, &sale, forget_at_ms(state, sale.end_ms)).await? {
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
    let mut tx = state.db.begin().await?;
    let id = store::insert_sale(&mut tx, shop_id, &sale).await?;
    let forget_at = forget_at_ms(state, sale.end_ms);
    store::load_sale(&state.redis, &state.keys, id, i64::from(sale.stock), (sale.begin_ms, sale.end_ms), forget_at)
        .await?;
    if let Err(e) = tx.commit().await {
        store::forget_sale(&state.redis, &state.keys, id).await?;
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
    let shop_id = store::sale_shop(&state.db, voucher_id).await?.ok_or(SeckillError::Refused(GrabCode::NoSuchSale))?;
    authorize_owner(state, user, shop_id).await?;
    let stock = stock.map_err(SeckillError::Invalid)?;
    let mut tx = state.db.begin().await?;
    if !store::set_stock_before_start(&mut tx, voucher_id, stock).await? {
        return Err(SeckillError::AlreadyStarted);
    }
    store::set_stock(&state.redis, &state.keys, voucher_id, stock).await?;
    tx.commit().await?;
    Ok(())
}

/// Postgres next to Redis for every flash sale (of one shop, or all): the reconciliation report.
/// It only reports; it never "fixes" Postgres from Redis.
pub async fn audit(state: &AppState, shop_id: Option<i64>) -> Result<Vec<SaleAudit>, SeckillError> {
    let mut sales = store::sale_ledgers(&state.db, shop_id).await?;
    for s in &mut sales {
        let (stock, buyers) = store::sale_state(&state.redis, &state.keys, s.voucher_id).await?;
        s.redis_stock = stock;
        s.redis_buyers = buyers as i64;
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
