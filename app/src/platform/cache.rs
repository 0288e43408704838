//! A read-through cache of rows by id: L1 moka (per instance) → L2 Redis with logical expiry → Postgres.
//! The catalog keeps its shops in one; the mechanism knows nothing about shops.
//!
//! * L1: `try_get_with` runs one loader per key per instance; every other caller awaits it.
//! * L2: `{data, expires_at}` with no Redis TTL. Past `expires_at`, the first reader to win the Redis lock
//!   rebuilds in the background; everyone (winner included) gets the stale value at once.
//! * A cold key loads through the same lock; losers wait briefly and re-read the cache.
//! * A missing id is cached as a null marker (`data: null`) with a short real TTL.
//! * Every TTL carries jitter so keys written together do not expire together.
//! * An edit deletes L2 and publishes the id; every instance's listener drops its L1 copy. If Redis cannot
//!   be reached then, the edit still stands and the invalidation is retried in the background.
//! * Each id has an edit epoch beside its entry, moved on by every invalidation. A load reads it before
//!   Postgres and writes L2 only if it has not moved (`lua/cache_fill.lua`), so a load that read the row
//!   before an edit cannot put it back after the edit's invalidation (it reads again instead).

use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use crate::platform::redis_conn::Redis;
use futures::future::BoxFuture;
use moka::Expiry;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;
use rand::Rng;
use redis::Script;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;

use crate::platform::backend::BackendError;
use crate::platform::breaker::Breaker;
use crate::platform::channel::Heard;
use crate::platform::keys::Keys;
use crate::platform::lock;
use crate::shared::clock::now_ms;

/// What happened to one cache read, for `/metrics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheEvent {
    /// A read asked of the cache.
    Requests,
    /// Served from this instance's memory.
    L1Hits,
    /// Had to go past L1.
    L1Misses,
    /// A fresh L2 entry served.
    L2Hits,
    /// A logically expired L2 entry served while a rebuild runs.
    L2StaleHits,
    /// A null marker served (an id known not to exist).
    NullHits,
    /// A Postgres load.
    DbLoads,
    /// A background rebuild of an expired entry.
    Rebuilds,
    /// Served straight from Postgres because Redis was unreachable.
    RedisFallbacks,
    /// A load not written to L2 because an edit landed while it read Postgres (it reads again).
    StaleFillsRefused,
    /// An invalidation that failed after the edit's commit and was handed to the background retry.
    InvalidationRetries,
}

impl CacheEvent {
    /// Every event, in the order `/metrics` lists them.
    pub const ALL: [CacheEvent; 11] = [
        Self::Requests,
        Self::L1Hits,
        Self::L1Misses,
        Self::L2Hits,
        Self::L2StaleHits,
        Self::NullHits,
        Self::DbLoads,
        Self::Rebuilds,
        Self::RedisFallbacks,
        Self::StaleFillsRefused,
        Self::InvalidationRetries,
    ];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Requests => "requests",
            Self::L1Hits => "l1_hits",
            Self::L1Misses => "l1_misses",
            Self::L2Hits => "l2_hits",
            Self::L2StaleHits => "l2_stale_hits",
            Self::NullHits => "null_hits",
            Self::DbLoads => "db_loads",
            Self::Rebuilds => "rebuilds",
            Self::RedisFallbacks => "redis_fallbacks",
            Self::StaleFillsRefused => "stale_fills_refused",
            Self::InvalidationRetries => "invalidation_retries",
        }
    }
}

/// `cache="shop",event="…"`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelSet)]
struct CacheEventLabels {
    cache: &'static str,
    event: &'static str,
}

/// One cache's read outcomes, registered as `haodian_cache_events_total{cache,event}`.
#[derive(Debug)]
pub struct CacheMetrics {
    cache: &'static str,
    events: Family<CacheEventLabels, Counter>,
}

impl CacheMetrics {
    /// Counters for the cache called `cache`.
    pub fn new(cache: &'static str) -> Self {
        Self { cache, events: Family::default() }
    }

    fn count(&self, event: CacheEvent) {
        self.events.get_or_create(&CacheEventLabels { cache: self.cache, event: event.label() }).inc();
    }

    /// How many times `event` happened.
    pub fn get(&self, event: CacheEvent) -> u64 {
        self.events.get_or_create(&CacheEventLabels { cache: self.cache, event: event.label() }).get()
    }

    /// (event, count) for every event, in a stable order.
    pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
        CacheEvent::ALL.iter().map(|e| (e.label(), self.get(*e))).collect()
    }

    /// Adds the counters to `/metrics` (all caches share one family).
    pub fn register(&self, registry: &mut Registry) {
        // Every event shows, as 0 until it first happens.
        let _ = self.snapshot();
        registry.register("cache_events", "Cache reads by outcome (per instance).", self.events.clone());
    }
}

/// The L2 value. `data: None` is the null marker of an id that does not exist.
#[derive(Debug, Serialize, Deserialize)]
pub struct L2Entry<V> {
    /// The row, or `None` for "does not exist".
    pub data: Option<V>,
    /// Logical expiry, unix milliseconds.
    pub expires_at: i64,
}

/// Where one cache keeps its entries in Redis (the names live in [`Keys`], the one table of keys).
#[derive(Clone, Copy)]
pub struct CacheKeys {
    /// The cache's name in `/metrics`.
    pub name: &'static str,
    /// The L2 entry of an id.
    pub entry: fn(&Keys, i64) -> String,
    /// The rebuild lock of an id.
    pub lock: fn(&Keys, i64) -> String,
    /// The edit epoch of an id (in the entry's hash slot: the fill and invalidation scripts touch both).
    pub epoch: fn(&Keys, i64) -> String,
    /// The channel ids are announced on after an edit.
    pub channel: fn(&Keys) -> String,
}

/// How long entries live.
#[derive(Debug, Clone, Copy)]
pub struct CacheTtls {
    /// In-process copy.
    pub l1: Duration,
    /// Logical expiry of an L2 entry.
    pub l2: Duration,
    /// Real TTL of a null marker.
    pub null: Duration,
}

/// Loads one row from Postgres (`None`: no such id). A plain function, so background rebuilds can own it.
pub type Loader<V> = fn(PgPool, i64) -> BoxFuture<'static, Result<Option<V>, sqlx::Error>>;

type L1Value<V> = Option<Arc<V>>;

/// Per-entry L1 lifetime: the configured TTL plus up to 20 % jitter.
struct JitteredTtl(Duration);

impl<V> Expiry<i64, L1Value<V>> for JitteredTtl {
    fn expire_after_create(&self, _: &i64, _: &L1Value<V>, _: Instant) -> Option<Duration> {
        Some(jitter(self.0))
    }
}

/// `base` plus a random 0–20 %.
pub fn jitter(base: Duration) -> Duration {
    let extra = base.as_millis() as u64 / 5;
    base + Duration::from_millis(if extra == 0 { 0 } else { rand::thread_rng().gen_range(0..=extra) })
}

/// How long a rebuild lock lives if its holder dies without releasing it.
const LOCK_TTL: Duration = Duration::from_secs(5);
/// How long a cold-key reader waits between re-reads while someone else loads.
const WAIT_STEP: Duration = Duration::from_millis(20);
/// How many times it re-reads before loading from Postgres itself.
const MAX_WAITS: u32 = 150;
/// How many times a load reads Postgres again when edits keep landing during its read; after that its
/// row is answered but not cached.
const MAX_LOAD_TRIES: u32 = 3;
/// How long an edit epoch outlives the id's last edit. It only has to outlast a load in flight (seconds);
/// ids nobody edits keep no epoch at all (absent reads as 0).
const EPOCH_TTL: Duration = Duration::from_secs(24 * 3600);
/// The first pause of a failed invalidation's retry; it doubles up to [`MAX_RETRY_PAUSE`].
const FIRST_RETRY_PAUSE: Duration = Duration::from_millis(100);
/// The longest pause between retries, so an invalidation lands within seconds of Redis' return.
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(5);

/// Writes an entry only if the id's edit epoch is still the one its loader read first.
static FILL: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/cache_fill.lua")));
/// Moves an id's edit epoch on and deletes its entry, in one step.
static INVALIDATE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/cache_invalidate.lua")));

/// One instance's cache of one kind of row.
pub struct TieredCache<V> {
    l1: moka::future::Cache<i64, L1Value<V>>,
    db: PgPool,
    redis: Redis,
    /// Redis' circuit breaker: while open, misses go straight to Postgres instead of waiting on Redis.
    redis_breaker: Arc<Breaker>,
    keys: Keys,
    names: CacheKeys,
    ttls: CacheTtls,
    /// Counters.
    pub metrics: CacheMetrics,
}

impl<V> TieredCache<V>
where
    V: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    /// An empty cache over these handles.
    pub fn new(
        db: PgPool,
        redis: Redis,
        redis_breaker: Arc<Breaker>,
        keys: Keys,
        names: CacheKeys,
        ttls: CacheTtls,
    ) -> Self {
        let l1 = moka::future::Cache::builder().max_capacity(100_000).expire_after(JitteredTtl(ttls.l1)).build();
        Self { l1, db, redis, redis_breaker, keys, names, ttls, metrics: CacheMetrics::new(names.name) }
    }

    /// The row `id` (loaded by `load` on a miss), or `None` if it does not exist.
    ///
    /// A hit is answered without building the miss path's future (Redis, the rebuild lock, Postgres),
    /// which moka's entry API takes by value even when it will not run; the miss path is boxed so that its
    /// size stays out of this future and of every future that awaits it.
    pub async fn get(self: &Arc<Self>, id: i64, load: Loader<V>) -> Result<Option<Arc<V>>, Arc<BackendError>> {
        self.metrics.count(CacheEvent::Requests);
        if let Some(value) = self.l1.get(&id).await {
            self.metrics.count(CacheEvent::L1Hits);
            return Ok(value);
        }
        Box::pin(self.get_on_miss(id, load)).await
    }

    /// [`TieredCache::get`] past an L1 miss: one load per key per instance (moka coalesces the callers).
    async fn get_on_miss(self: &Arc<Self>, id: i64, load: Loader<V>) -> Result<Option<Arc<V>>, Arc<BackendError>> {
        let entry = self.l1.entry(id).or_try_insert_with(self.clone().load_through_l2(id, load)).await?;
        // Not fresh: loaded by another caller meanwhile, which this one waited for.
        if !entry.is_fresh() {
            self.metrics.count(CacheEvent::L1Hits);
        }
        Ok(entry.into_value())
    }

    /// After `id` changed in Postgres (and the change committed): drops this instance's L1 copy, moves the
    /// id's edit epoch on and deletes the L2 entry, and tells every instance to drop its L1 copy, so the
    /// next read anywhere loads the new row. Never fails the caller, whose edit already stands: if Redis
    /// cannot be reached, the invalidation is retried in the background with backoff until it lands or the
    /// entry's logical lifetime (which ends its stale copy anyway) has passed.
    pub async fn invalidate(self: &Arc<Self>, id: i64) {
        self.l1.invalidate(&id).await;
        if let Err(e) = self.invalidate_l2(id).await {
            tracing::warn!(id, "cache invalidation failed after the commit; retrying in the background: {e}");
            self.metrics.count(CacheEvent::InvalidationRetries);
            self.spawn_invalidation_retry(id);
        }
    }

    /// The Redis side of [`TieredCache::invalidate`]: epoch and entry in one script (one slot), then the
    /// announcement (the channel is not in the entry's slot, so it cannot go in the script).
    async fn invalidate_l2(&self, id: i64) -> Result<(), BackendError> {
        let _epoch: i64 = INVALIDATE
            .key((self.names.entry)(&self.keys, id))
            .key((self.names.epoch)(&self.keys, id))
            .arg(EPOCH_TTL.as_millis() as u64)
            .invoke_async(&mut self.redis.clone())
            .await?;
        let _: i64 = redis::cmd(self.redis.announce_command())
            .arg((self.names.channel)(&self.keys))
            .arg(id)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Retries a failed invalidation with doubling pauses. Until it lands, other instances may serve the
    /// old row from L2; past the entry's logical lifetime a rebuild replaces it anyway, so the retry stops.
    fn spawn_invalidation_retry(self: &Arc<Self>, id: i64) {
        let cache = self.clone();
        let give_up = Instant::now() + self.ttls.l2 + self.ttls.l2 / 5 + self.ttls.l1;
        tokio::spawn(async move {
            let mut pause = FIRST_RETRY_PAUSE;
            loop {
                tokio::time::sleep(pause).await;
                match cache.invalidate_l2(id).await {
                    Ok(()) => {
                        tracing::info!(id, "cache invalidation landed on retry");
                        // A read between the failure and now may have put the old L2 row back in L1.
                        cache.l1.invalidate(&id).await;
                        return;
                    }
                    Err(e) if Instant::now() >= give_up => {
                        tracing::error!(id, "cache invalidation never landed; the entry's lifetime is over: {e}");
                        return;
                    }
                    Err(e) => tracing::warn!(id, "cache invalidation retry failed: {e}"),
                }
                pause = (pause * 2).min(MAX_RETRY_PAUSE);
            }
        });
    }

    /// The L2 entry of `id` as Redis holds it (tests).
    #[cfg(feature = "testing")]
    pub async fn l2_entry(&self, id: i64) -> Result<Option<L2Entry<V>>, BackendError> {
        self.read_l2(id).await
    }

    /// Writes an L2 entry as it is, without a TTL (tests that stage an expired entry).
    #[cfg(feature = "testing")]
    pub async fn put_l2(&self, id: i64, entry: &L2Entry<V>) -> Result<(), BackendError> {
        let json = serde_json::to_string(entry).unwrap_or_default();
        let _: () = redis::cmd("SET")
            .arg((self.names.entry)(&self.keys, id))
            .arg(json)
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    /// Listens on the invalidation channel for the life of the process. Notices may be lost while the
    /// subscription is down, so each (re)subscription clears all of L1.
    pub fn spawn_invalidation_listener(self: &Arc<Self>, redis_url: String) -> tokio::task::JoinHandle<()> {
        let cache = self.clone();
        let channel = (cache.names.channel)(&cache.keys);
        let mut heard = crate::platform::channel::follow(&redis_url, crate::platform::channel::Topic::Channel(channel));
        tokio::spawn(async move {
            while let Some(notice) = heard.recv().await {
                match notice {
                    Heard::Subscribed(_) => cache.l1.invalidate_all(),
                    Heard::Notice { payload, .. } => match payload.parse::<i64>() {
                        Ok(id) => cache.l1.invalidate(&id).await,
                        Err(e) => tracing::warn!("bad invalidation message {payload:?}: {e}"),
                    },
                    Heard::Lost(_) => {}
                }
            }
        })
    }

    /// L1 miss: through L2, or straight from Postgres while Redis is unreachable or its breaker is open
    /// (the page stays up; L1 still spares Postgres all but one read per key per instance and TTL). Runs
    /// once per key per instance at a time (moka coalesces callers).
    async fn load_through_l2(self: Arc<Self>, id: i64, load: Loader<V>) -> Result<L1Value<V>, BackendError> {
        self.metrics.count(CacheEvent::L1Misses);
        let cause = match self.redis_breaker.admit() {
            Err(open) => open.to_string(),
            Ok(()) => match self.clone().read_through_l2(id, load).await {
                Err(BackendError::Redis(e)) => {
                    if crate::platform::redis_conn::is_outage(&e) {
                        self.redis_breaker.failure();
                    }
                    e.to_string()
                }
                other => {
                    self.redis_breaker.success();
                    return other;
                }
            },
        };
        tracing::warn!(id, "cache: Redis unavailable, reading Postgres directly: {cause}");
        self.metrics.count(CacheEvent::RedisFallbacks);
        self.metrics.count(CacheEvent::DbLoads);
        Ok(load(self.db.clone(), id).await?.map(Arc::new))
    }

    /// Reads L2, serving stale data while one background rebuild runs; on an L2 miss loads through the lock.
    async fn read_through_l2(self: Arc<Self>, id: i64, load: Loader<V>) -> Result<L1Value<V>, BackendError> {
        let m = &self.metrics;
        for _ in 0..MAX_WAITS {
            if let Some(entry) = self.read_l2(id).await? {
                return Ok(match entry.data {
                    None => {
                        m.count(CacheEvent::NullHits);
                        None
                    }
                    Some(row) => {
                        if entry.expires_at > now_ms() {
                            m.count(CacheEvent::L2Hits);
                        } else {
                            m.count(CacheEvent::L2StaleHits);
                            self.spawn_rebuild(id, load);
                        }
                        Some(Arc::new(row))
                    }
                });
            }
            if let Some(loaded) = self.with_lock(id, LockPurpose::Fill, load).await? {
                return Ok(loaded.map(Arc::new));
            }
            tokio::time::sleep(WAIT_STEP).await;
        }
        // The lock holder is far too slow (or died holding it): serve from Postgres rather than fail the page.
        tracing::warn!(id, "cache: gave up waiting for the rebuild lock");
        Ok(self.load_db(id, load).await?.map(Arc::new))
    }

    async fn read_l2(&self, id: i64) -> Result<Option<L2Entry<V>>, BackendError> {
        let key = (self.names.entry)(&self.keys, id);
        let raw: Option<String> = redis::cmd("GET").arg(&key).query_async(&mut self.redis.clone()).await?;
        let Some(raw) = raw else { return Ok(None) };
        match serde_json::from_str(&raw) {
            Ok(entry) => Ok(Some(entry)),
            Err(e) => {
                // A corrupt or old-format entry is a miss; the reload overwrites it.
                tracing::warn!(key, "unreadable cache entry: {e}");
                Ok(None)
            }
        }
    }

    /// Takes the lock and (re)loads the entry. `Ok(None)` = someone else holds the lock.
    /// Re-checks L2 after winning, so a reader that saw the old state just before another holder finished
    /// does not load a second time.
    async fn with_lock(
        &self,
        id: i64,
        purpose: LockPurpose,
        load: Loader<V>,
    ) -> Result<Option<Option<V>>, BackendError> {
        let lock = (self.names.lock)(&self.keys, id);
        let token = lock::token();
        if !lock::try_lock(&self.redis, &lock, &token, LOCK_TTL).await? {
            return Ok(None);
        }
        let result = async {
            let current = self.read_l2(id).await?;
            let done_already = match (&current, purpose) {
                (Some(_), LockPurpose::Fill) => true,
                (Some(e), LockPurpose::Rebuild) => e.expires_at > now_ms(),
                (None, _) => false,
            };
            if let (true, Some(entry)) = (done_already, current) {
                if purpose == LockPurpose::Fill {
                    // Someone filled it between our miss and our lock: that is a cache hit, not a load.
                    let m = &self.metrics;
                    m.count(if entry.data.is_some() { CacheEvent::L2Hits } else { CacheEvent::NullHits });
                }
                return Ok(entry.data);
            }
            if purpose == LockPurpose::Rebuild {
                self.metrics.count(CacheEvent::Rebuilds);
            }
            self.load_db(id, load).await
        }
        .await;
        if let Err(e) = lock::unlock(&self.redis, &lock, &token).await {
            tracing::warn!(id, "could not release a cache lock (it expires by itself): {e}");
        }
        result.map(Some)
    }

    fn spawn_rebuild(self: &Arc<Self>, id: i64, load: Loader<V>) {
        let cache = self.clone();
        tokio::spawn(async move {
            if let Err(e) = cache.with_lock(id, LockPurpose::Rebuild, load).await {
                tracing::warn!(id, "cache rebuild failed; stale data stays until the next try: {e}");
            }
        });
    }

    /// Reads Postgres and writes L2: the row with a jittered logical expiry, or a null marker with a short TTL.
    /// The id's edit epoch is read first and the write happens only if it has not moved since; if it has,
    /// an edit committed while Postgres was read, so the row may predate it and is read again.
    async fn load_db(&self, id: i64, load: Loader<V>) -> Result<Option<V>, BackendError> {
        let mut tries = 1;
        loop {
            let epoch = self.read_epoch(id).await?;
            self.metrics.count(CacheEvent::DbLoads);
            let row = load(self.db.clone(), id).await?;
            let written = match &row {
                Some(r) => {
                    let expires_at = now_ms() + jitter(self.ttls.l2).as_millis() as i64;
                    self.fill_l2(id, &epoch, &L2Entry { data: Some(r.clone()), expires_at }, None).await?
                }
                None => {
                    let null = L2Entry { data: None, expires_at: 0 };
                    self.fill_l2(id, &epoch, &null, Some(jitter(self.ttls.null))).await?
                }
            };
            if written {
                return Ok(row);
            }
            self.metrics.count(CacheEvent::StaleFillsRefused);
            if tries == MAX_LOAD_TRIES {
                tracing::warn!(id, "cache: edits kept landing during the load; answered without caching");
                return Ok(row);
            }
            tries += 1;
        }
    }

    /// The id's edit epoch as Redis holds it (`"0"` before any edit, or once it has expired).
    async fn read_epoch(&self, id: i64) -> Result<String, BackendError> {
        let epoch: Option<String> =
            redis::cmd("GET").arg((self.names.epoch)(&self.keys, id)).query_async(&mut self.redis.clone()).await?;
        Ok(epoch.unwrap_or_else(|| "0".to_owned()))
    }

    /// Writes an L2 entry if the id's edit epoch is still `epoch` (`lua/cache_fill.lua`); true if written.
    async fn fill_l2(
        &self,
        id: i64,
        epoch: &str,
        entry: &L2Entry<V>,
        ttl: Option<Duration>,
    ) -> Result<bool, BackendError> {
        let written: i64 = FILL
            .key((self.names.entry)(&self.keys, id))
            .key((self.names.epoch)(&self.keys, id))
            .arg(epoch)
            .arg(serde_json::to_string(entry).unwrap_or_default())
            .arg(ttl.map_or(0, |t| t.as_millis() as u64))
            .invoke_async(&mut self.redis.clone())
            .await?;
        Ok(written == 1)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum LockPurpose {
    /// Cold key: load it (unless someone filled it meanwhile).
    Fill,
    /// Logically expired: rebuild it (unless someone refreshed it meanwhile).
    Rebuild,
}
