//! Shared handles of one server instance: pools, clients, settings and the per-instance state of the
//! capabilities (caches, counters) — whose types live in leaf modules, so nothing here imports a capability
//! service and nothing below imports this module back.

use std::sync::Arc;

use crate::redis_conn::Redis;
use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use rdkafka::producer::FutureProducer;
use sqlx::PgPool;

use crate::abuse::{AbuseLimits, GrabGate};
use crate::breaker::{Breakers, Service};
use crate::cache::{CacheKeys, CacheTtls, TieredCache};
use crate::catalog::model::Shop;
use crate::config::Config;
use crate::error::BackendError;
use crate::funnel::GrabTally;
use crate::ids::IdGenerator;
use crate::inventory::SoldOutFlags;
use crate::kafka::Publisher;
use crate::keys::Keys;
use crate::live_stock::LiveStock;
use crate::metrics::Metrics;

/// Everything a request handler or worker needs. Stateless apart from caches: instances can scale out.
///
/// One allocation shared by every clone: each request takes a copy (axum's `State`, Leptos' context, the
/// metrics layer), and copying the thirty handles field by field was a tenth of a cached shop read's CPU.
/// Reads go through `Deref`; a write (`state.db = …`, tests) copies the handles first if the state is
/// shared, so it changes this copy only, as assigning a field of a plain struct did.
#[derive(Clone)]
pub struct AppState(Arc<Handles>);

impl std::ops::Deref for AppState {
    type Target = Handles;

    fn deref(&self) -> &Handles {
        &self.0
    }
}

impl std::ops::DerefMut for AppState {
    fn deref_mut(&mut self) -> &mut Handles {
        Arc::make_mut(&mut self.0)
    }
}

/// The handles behind an [`AppState`].
#[derive(Clone)]
pub struct Handles {
    /// Postgres pool.
    pub db: PgPool,
    /// Self-reconnecting multiplexed Redis connection (clone per use; never held across unrelated awaits).
    pub redis: Redis,
    /// Idempotent Kafka producer (acks=all) for workers' sends.
    pub kafka: FutureProducer,
    /// The `orders.created` producer that reports whether a message was persisted.
    pub publisher: Publisher,
    /// This instance's view of sold-out sales.
    pub sold_out: Arc<SoldOutFlags>,
    /// This instance's copies of recently read sessions (the session store's cache).
    pub sessions: Arc<crate::session::SessionCache>,
    /// What each sale's channel last announced (the shop pages' live stock; sold out without Redis).
    pub live_stock: Arc<LiveStock>,
    /// Grab outcomes per sale not yet added to Postgres.
    pub grab_tally: Arc<GrabTally>,
    /// Circuit breakers around Postgres, Redis and Kafka.
    pub breakers: Breakers,
    /// Where text messages go (the local outbox here; a gateway in production).
    pub sms: Arc<dyn crate::sms::SmsSender>,
    /// Per-client budgets of the actions bots abuse.
    pub abuse: Arc<AbuseLimits>,
    /// The grab's in-process filters: the admission bucket and the per-address limit.
    pub grab_gate: Arc<GrabGate>,
    /// Password hashes computed at once: a registration or log-in flood queues here instead of
    /// exhausting memory (19 MiB per hash).
    pub argon2_slots: Arc<tokio::sync::Semaphore>,
    /// This instance's metrics (the shop cache's included), encoded by `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Redis key builder.
    pub keys: Keys,
    /// Order-id generator with this instance's leased worker number (renewed by a heartbeat).
    pub ids: Arc<IdGenerator>,
    /// This instance's shop cache (L1 over the shared L2) and its counters.
    pub shops: Arc<TieredCache<Shop>>,
    /// Settings.
    pub config: Arc<Config>,
    /// Leptos' own options (site root, pkg dir) for rendering.
    pub leptos_options: LeptosOptions,
}

impl AppState {
    /// The Postgres pool, through its circuit breaker: while Postgres is failing, callers get a 503 with
    /// `Retry-After` at once instead of each waiting out the pool's timeout.
    pub fn postgres(&self) -> Result<&PgPool, BackendError> {
        self.breakers.admit(Service::Postgres)?;
        Ok(&self.db)
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// Why the process could not reach one of its backing services at start-up.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// Postgres refused or was unreachable.
    #[error("cannot connect to Postgres: {0}")]
    Db(#[from] sqlx::Error),
    /// Migrations failed.
    #[error("cannot apply migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Redis refused or was unreachable.
    #[error("cannot connect to Redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// No order-id worker number could be leased.
    #[error("cannot lease an order-id worker number: {0}")]
    Ids(#[from] crate::ids::LeaseError),
    /// The Kafka client could not be configured.
    #[error("cannot set up Kafka: {0}")]
    Kafka(#[from] rdkafka::error::KafkaError),
}

/// The embedded migrations of `migrations/`, applied at start-up and by tests.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");

impl AppState {
    /// Connects to Postgres (applying migrations), Redis and Kafka.
    pub async fn connect(config: Config, leptos_options: LeptosOptions) -> Result<Self, StartupError> {
        let db = sqlx::postgres::PgPoolOptions::new()
            .max_connections(config.database_max_connections)
            .acquire_timeout(std::time::Duration::from_secs(5))
            .connect_with(pg_options(&config)?)
            .await?;
        MIGRATOR.run(&db).await?;
        Self::with_db(config, leptos_options, db).await
    }

    /// Builds the state around an existing pool (tests hand in a per-test database) and starts the
    /// cache-invalidation listener.
    pub async fn with_db(config: Config, leptos_options: LeptosOptions, db: PgPool) -> Result<Self, StartupError> {
        if config.human_check.key_is_local() {
            tracing::warn!("HUMAN_CHECK_SECRET is unset: slider puzzles verify only on this instance");
        }
        let redis = redis_connection(&config.redis_url).await?;
        let kafka = crate::kafka::producer(&config)?;
        let keys = Keys::new(config.redis_key_prefix.clone());
        let ids = Arc::new(crate::ids::acquire(&db, config.id_lease_ttl).await?);
        crate::ids::spawn_heartbeat(ids.clone(), db.clone());
        let breakers = Breakers::new(config.breakers);
        let shops = Arc::new(TieredCache::new(
            db.clone(),
            redis.clone(),
            breakers.redis.clone(),
            keys.clone(),
            SHOP_KEYS,
            CacheTtls { l1: config.shop_cache_l1_ttl, l2: config.shop_cache_l2_ttl, null: config.shop_cache_null_ttl },
        ));
        shops.spawn_invalidation_listener(config.redis_url.clone());
        let sessions = Arc::new(crate::session::SessionCache::new(config.session_cache));
        sessions.spawn_listener(config.redis_url.clone(), keys.clone());
        let live_stock = Arc::new(LiveStock::default());
        live_stock.spawn_listener(config.redis_url.clone(), config.redis_key_prefix.clone());
        let abuse = Arc::new(AbuseLimits::new(config.abuse_limit_factor));
        let grab_gate =
            Arc::new(GrabGate::new(config.grab_admit_per_sec, config.ip_rate_limit, config.seckill_rate_window));
        tokio::spawn({
            let (abuse, grab_gate) = (abuse.clone(), grab_gate.clone());
            async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                    abuse.forget_idle();
                    grab_gate.forget_idle();
                }
            }
        });
        let sms = Arc::new(crate::sms::OutboxSms::new(redis.clone(), keys.clone()));
        Ok(Self(Arc::new(Handles {
            db,
            redis,
            kafka,
            publisher: Publisher::new(&config)?,
            sold_out: Arc::default(),
            grab_tally: Arc::default(),
            live_stock,
            sessions,
            breakers,
            abuse,
            grab_gate,
            sms,
            argon2_slots: Arc::new(tokio::sync::Semaphore::new(config.argon2_max_concurrent.max(1))),
            metrics: Arc::new(Metrics::new(|registry| shops.metrics.register(registry))),
            ids,
            keys,
            shops,
            config: Arc::new(config),
            leptos_options,
        })))
    }
}

/// How the instance connects to Postgres: `DATABASE_URL`, with every statement cut off after
/// `DATABASE_STATEMENT_TIMEOUT_MS`, so one slow query (a crafted search, a lock queue) cannot hold a pooled
/// connection for long.
pub fn pg_options(config: &Config) -> Result<sqlx::postgres::PgConnectOptions, sqlx::Error> {
    let timeout = config.database_statement_timeout.as_millis().to_string();
    Ok(config.database_url.parse::<sqlx::postgres::PgConnectOptions>()?.options([("statement_timeout", timeout)]))
}

/// Where the shop cache keeps its entries: `shop:{id}`, `lock:shop:{id}`, `chan:shop:invalidate`.
const SHOP_KEYS: CacheKeys =
    CacheKeys { name: "shop", entry: Keys::shop, lock: Keys::shop_lock, channel: Keys::shop_invalidation_channel };

/// Opens the instance's Redis connection: one node or a cluster, as `REDIS_URL` says (`redis_conn`).
pub async fn redis_connection(url: &str) -> Result<Redis, redis::RedisError> {
    Redis::connect(&crate::redis_conn::RedisTarget::parse(url)).await
}
