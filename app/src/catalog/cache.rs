//! The shop read path: L1 moka (per instance) → L2 Redis with logical expiry → Postgres.
//!
//! * L1: `try_get_with` runs one loader per key per instance; every other caller awaits it.
//! * L2: `{data, expires_at}` with no Redis TTL. Past `expires_at`, the first reader to win the Redis lock
//!   rebuilds in the background; everyone (winner included) gets the stale value at once.
//! * A cold key loads through the same lock; losers wait briefly and re-read the cache.
//! * A missing id is cached as a null marker (`data: null`) with a short real TTL.
//! * Every TTL carries jitter so keys written together do not expire together.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use moka::Expiry;
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::model::Shop;
use super::store;
use crate::state::AppState;

/// A read failed in a backing service.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// Postgres failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// Redis failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
}

/// Counters for `/metrics`.
#[derive(Debug, Default)]
pub struct CacheMetrics {
    /// Reads asked of the cache.
    pub requests: AtomicU64,
    /// Reads that had to go past L1.
    pub l1_misses: AtomicU64,
    /// Fresh L2 entries served.
    pub l2_hits: AtomicU64,
    /// Logically expired L2 entries served while a rebuild runs.
    pub l2_stale_hits: AtomicU64,
    /// Null markers served (ids known not to exist).
    pub null_hits: AtomicU64,
    /// Postgres loads.
    pub db_loads: AtomicU64,
    /// Background rebuilds of expired entries.
    pub rebuilds: AtomicU64,
}

impl CacheMetrics {
    fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// (name, value) pairs in a stable order.
    pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
        let requests = self.requests.load(Ordering::Relaxed);
        let misses = self.l1_misses.load(Ordering::Relaxed);
        vec![
            ("requests", requests),
            ("l1_hits", requests.saturating_sub(misses)),
            ("l1_misses", misses),
            ("l2_hits", self.l2_hits.load(Ordering::Relaxed)),
            ("l2_stale_hits", self.l2_stale_hits.load(Ordering::Relaxed)),
            ("null_hits", self.null_hits.load(Ordering::Relaxed)),
            ("db_loads", self.db_loads.load(Ordering::Relaxed)),
            ("rebuilds", self.rebuilds.load(Ordering::Relaxed)),
        ]
    }
}

/// The L2 value. `data: None` is the null marker of an id that does not exist.
#[derive(Debug, Serialize, Deserialize)]
pub struct L2Entry {
    /// The shop, or `None` for "does not exist".
    pub data: Option<Shop>,
    /// Logical expiry, unix milliseconds.
    pub expires_at: i64,
}

type L1Value = Option<Arc<Shop>>;

/// Per-entry L1 lifetime: the configured TTL plus up to 20 % jitter.
struct JitteredTtl(Duration);

impl Expiry<i64, L1Value> for JitteredTtl {
    fn expire_after_create(&self, _: &i64, _: &L1Value, _: Instant) -> Option<Duration> {
        Some(jitter(self.0))
    }
}

/// `base` plus a random 0–20 %.
pub fn jitter(base: Duration) -> Duration {
    let extra = base.as_millis() as u64 / 5;
    base + Duration::from_millis(if extra == 0 { 0 } else { rand::thread_rng().gen_range(0..=extra) })
}

fn now_ms() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1_000_000
}

/// How long a rebuild lock lives if its holder dies without releasing it.
const LOCK_TTL: Duration = Duration::from_secs(5);
/// How long a cold-key reader waits between re-reads while someone else loads.
const WAIT_STEP: Duration = Duration::from_millis(20);
/// How many times it re-reads before loading from Postgres itself.
const MAX_WAITS: u32 = 150;

/// One instance's shop cache.
pub struct ShopCache {
    l1: moka::future::Cache<i64, L1Value>,
    /// Counters.
    pub metrics: Arc<CacheMetrics>,
}

impl ShopCache {
    /// An empty cache with the given L1 lifetime.
    pub fn new(l1_ttl: Duration) -> Self {
        let l1 = moka::future::Cache::builder().max_capacity(100_000).expire_after(JitteredTtl(l1_ttl)).build();
        Self { l1, metrics: Arc::default() }
    }

    /// The shop, or `None` if it does not exist.
    pub async fn get(&self, state: &AppState, id: i64) -> Result<Option<Arc<Shop>>, Arc<CacheError>> {
        CacheMetrics::inc(&self.metrics.requests);
        self.l1.try_get_with(id, load_through_l2(state.clone(), id)).await
    }

    /// Drops one id from this instance's L1.
    pub async fn invalidate_local(&self, id: i64) {
        self.l1.invalidate(&id).await;
    }

    /// Listens on the invalidation channel for the life of the process, re-subscribing after a
    /// disconnect. Messages may be lost while disconnected, so a (re)subscription clears all of L1.
    pub fn spawn_invalidation_listener(state: &AppState) -> tokio::task::JoinHandle<()> {
        let state = state.clone();
        tokio::spawn(async move {
            let channel = state.keys.shop_invalidation_channel();
            let mut backoff = Duration::from_millis(100);
            loop {
                match subscribe(&state.config.redis_url, &channel).await {
                    Ok(mut pubsub) => {
                        backoff = Duration::from_millis(100);
                        state.shops.l1.invalidate_all();
                        let mut messages = pubsub.on_message();
                        while let Some(msg) = messages.next().await {
                            match msg.get_payload::<i64>() {
                                Ok(id) => state.shops.invalidate_local(id).await,
                                Err(e) => tracing::warn!("bad invalidation message: {e}"),
                            }
                        }
                        tracing::warn!("shop invalidation subscription ended; re-subscribing");
                    }
                    Err(e) => tracing::warn!("cannot subscribe to {channel}: {e}"),
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        })
    }
}

async fn subscribe(url: &str, channel: &str) -> Result<redis::aio::PubSub, redis::RedisError> {
    let mut pubsub = redis::Client::open(url)?.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    Ok(pubsub)
}

/// L1 miss: read L2, serving stale data while one background rebuild runs; on an L2 miss load through
/// the lock. Runs once per key per instance at a time (moka coalesces callers).
async fn load_through_l2(state: AppState, id: i64) -> Result<L1Value, CacheError> {
    let m = &state.shops.metrics;
    CacheMetrics::inc(&m.l1_misses);
    let key = state.keys.shop(id);
    for _ in 0..MAX_WAITS {
        if let Some(entry) = read_l2(&state, &key).await? {
            return Ok(match entry.data {
                None => {
                    CacheMetrics::inc(&m.null_hits);
                    None
                }
                Some(shop) => {
                    if entry.expires_at > now_ms() {
                        CacheMetrics::inc(&m.l2_hits);
                    } else {
                        CacheMetrics::inc(&m.l2_stale_hits);
                        spawn_rebuild(state.clone(), id);
                    }
                    Some(Arc::new(shop))
                }
            });
        }
        if let Some(loaded) = with_lock(&state, id, LockPurpose::Fill).await? {
            return Ok(loaded.map(Arc::new));
        }
        tokio::time::sleep(WAIT_STEP).await;
    }
    // The lock holder is far too slow (or died holding it): serve from Postgres rather than fail the page.
    tracing::warn!(id, "shop cache: gave up waiting for the rebuild lock");
    Ok(load_db(&state, id).await?.map(Arc::new))
}

async fn read_l2(state: &AppState, key: &str) -> Result<Option<L2Entry>, CacheError> {
    let Some(raw) = store::l2_get(&state.redis, key).await? else { return Ok(None) };
    match serde_json::from_str(&raw) {
        Ok(entry) => Ok(Some(entry)),
        Err(e) => {
            // A corrupt or old-format entry is a miss; the reload overwrites it.
            tracing::warn!(key, "unreadable shop cache entry: {e}");
            Ok(None)
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum LockPurpose {
    /// Cold key: load it (unless someone filled it meanwhile).
    Fill,
    /// Logically expired: rebuild it (unless someone refreshed it meanwhile).
    Rebuild,
}

/// Takes the lock and (re)loads the entry. `Ok(None)` = someone else holds the lock.
/// Re-checks L2 after winning, so a reader that saw the old state just before another holder finished
/// does not load a second time.
async fn with_lock(state: &AppState, id: i64, purpose: LockPurpose) -> Result<Option<Option<Shop>>, CacheError> {
    let lock = state.keys.shop_lock(id);
    let token = format!("{:032x}", rand::random::<u128>());
    if !store::try_lock(&state.redis, &lock, &token, LOCK_TTL.as_millis() as u64).await? {
        return Ok(None);
    }
    let result = async {
        let current = read_l2(state, &state.keys.shop(id)).await?;
        let done_already = match (&current, purpose) {
            (Some(_), LockPurpose::Fill) => true,
            (Some(e), LockPurpose::Rebuild) => e.expires_at > now_ms(),
            (None, _) => false,
        };
        if let (true, Some(entry)) = (done_already, current) {
            if purpose == LockPurpose::Fill {
                // Someone filled it between our miss and our lock: that is a cache hit, not a load.
                let m = &state.shops.metrics;
                CacheMetrics::inc(if entry.data.is_some() { &m.l2_hits } else { &m.null_hits });
            }
            return Ok(entry.data);
        }
        if purpose == LockPurpose::Rebuild {
            CacheMetrics::inc(&state.shops.metrics.rebuilds);
        }
        load_db(state, id).await
    }
    .await;
    if let Err(e) = store::unlock(&state.redis, &lock, &token).await {
        tracing::warn!(id, "could not release shop lock (it expires by itself): {e}");
    }
    result.map(Some)
}

fn spawn_rebuild(state: AppState, id: i64) {
    tokio::spawn(async move {
        if let Err(e) = with_lock(&state, id, LockPurpose::Rebuild).await {
            tracing::warn!(id, "shop cache rebuild failed; stale data stays until the next try: {e}");
        }
    });
}

/// Reads Postgres and writes L2: the shop with a jittered logical expiry, or a null marker with a short TTL.
async fn load_db(state: &AppState, id: i64) -> Result<Option<Shop>, CacheError> {
    CacheMetrics::inc(&state.shops.metrics.db_loads);
    let shop = store::shop_by_id(&state.db, id).await?;
    let cfg = &state.config;
    let (entry, ttl) = match &shop {
        Some(s) => {
            let expires_at = now_ms() + jitter(cfg.shop_cache_l2_ttl).as_millis() as i64;
            (L2Entry { data: Some(s.clone()), expires_at }, None)
        }
        None => (L2Entry { data: None, expires_at: 0 }, Some(jitter(cfg.shop_cache_null_ttl).as_millis() as u64)),
    };
    let json = serde_json::to_string(&entry).unwrap_or_default();
    store::l2_set(&state.redis, &state.keys.shop(id), &json, ttl).await?;
    Ok(shop)
}
