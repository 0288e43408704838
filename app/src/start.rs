//! The composition root: connects Postgres, Redis and Kafka, applies the migrations and builds the
//! instance's [`AppState`] — the platform's handles and each capability's own part (the shop cache). It
//! sits above every capability, beside the routes (`lib.rs`), so the state it builds names none of them.

use std::sync::Arc;

use leptos::prelude::LeptosOptions;

use crate::catalog::service::ShopCache;
use crate::platform::breaker::Breakers;
use crate::platform::config::Config;
use crate::platform::kafka::Publisher;
use crate::platform::keys::Keys;
use crate::platform::metrics::Metrics;
use crate::platform::redis_conn::Redis;
use crate::platform::replica::ReadRoute;
use crate::sale::live_stock::LiveStock;
use crate::web::abuse::{AbuseLimits, GrabGate};
use crate::web::state::{AppState, Handles, Parts};

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
    Ids(#[from] crate::platform::ids::LeaseError),
    /// The Kafka client could not be configured.
    #[error("cannot set up Kafka: {0}")]
    Kafka(#[from] rdkafka::error::KafkaError),
}

/// The embedded migrations of `migrations/`, applied at start-up and by tests.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");

/// Connects to Postgres (applying migrations), Redis and Kafka.
pub async fn connect(config: Config, leptos_options: LeptosOptions) -> Result<AppState, StartupError> {
    // Migrations on a connection of their own, without the pages' statement timeout: building an index
    // over a big table takes longer than any page may.
    let mut migrating = <sqlx::PgConnection as sqlx::Connection>::connect_with(&config.database_url.parse()?).await?;
    MIGRATOR.run(&mut migrating).await?;
    sqlx::Connection::close(migrating).await?;
    let db = pool_options(&config).connect_with(pg_options(&config)?).await?;
    with_db(config, leptos_options, db).await
}

/// Builds the state around an existing pool (tests hand in a per-test database) and starts the
/// cache-invalidation listener.
pub async fn with_db(
    config: Config,
    leptos_options: LeptosOptions,
    db: sqlx::PgPool,
) -> Result<AppState, StartupError> {
    if config.human_check.key_is_local() {
        tracing::warn!("HUMAN_CHECK_SECRET is unset: slider puzzles verify only on this instance");
    }
    let redis = redis_connection(&config.redis_url).await?;
    let grab_redis = if config.grab_replicas > 0 { redis_connection(&config.redis_url).await? } else { redis.clone() };
    let kafka = crate::platform::kafka::producer(&config)?;
    let keys = Keys::new(config.redis_key_prefix.clone());
    let db_read = read_pool(&config, &db)?;
    let read_route = match config.database_read_url {
        Some(_) => ReadRoute::watching(db_read.clone()),
        None => ReadRoute::primary_only(),
    };
    let ids = Arc::new(crate::platform::ids::acquire(&db, config.id_lease_ttl).await?);
    crate::platform::ids::spawn_heartbeat(ids.clone(), db.clone());
    let breakers = Breakers::new(config.breakers);
    let shops = ShopCache::new(&config, &db, &redis, &breakers, &keys);
    let sessions = Arc::new(crate::web::session::SessionCache::new(config.session_cache));
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
    let sms = Arc::new(crate::platform::sms::OutboxSms::new(redis.clone(), keys.clone()));
    let metrics = Arc::new(Metrics::new(|registry| shops.register_metrics(registry)));
    let inbox = crate::inbox::live::InboxLive::default();
    inbox.spawn_listener(&config.redis_url, keys.inbox_channel());
    let mut parts = Parts::default();
    parts.insert(shops);
    parts.insert(inbox);
    parts.insert(crate::catalog::service::Suggestions::default());
    Ok(AppState::new(Handles {
        db,
        db_read,
        read_route,
        redis,
        grab_redis,
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
        picture_slots: Arc::new(tokio::sync::Semaphore::new(config.picture_decodes_max.max(1))),
        metrics,
        ids,
        keys,
        parts,
        config: Arc::new(config),
        leptos_options,
    }))
}

/// Looks the orders' topic up in the background, so a serving instance's first grabs do not wait for its
/// metadata on top of their produce (a broker away now only leaves that to the first grab). Only once the
/// topics exist: a broker that creates topics on request would otherwise make this one with its own
/// partition count, before `kafka::ensure_topics` could (it did, in the consumer-groups test).
pub fn prepare_orders_topic(state: &AppState) {
    let topic = crate::platform::kafka::topic(&state.config, crate::platform::kafka::ORDERS_CREATED);
    let publisher = state.publisher.clone();
    drop(tokio::task::spawn_blocking(move || {
        if let Err(e) = publisher.prepare(&topic, std::time::Duration::from_secs(10)) {
            tracing::warn!(%topic, "could not look the orders' topic up ahead of the first grab: {e}");
        }
    }));
}

/// The pool the catalog's, search's, nearby's, reviews' and rankings' reads use: the hot standby
/// `DATABASE_READ_URL` names (connected lazily: a replica still starting does not hold the instance up),
/// else the primary's own pool. A standby has the primary's databases, so a URL without one reads the
/// database the primary pool is on (a test's own, say).
pub fn read_pool(config: &Config, primary: &sqlx::PgPool) -> Result<sqlx::PgPool, sqlx::Error> {
    let Some(url) = &config.database_read_url else { return Ok(primary.clone()) };
    let mut options = limited(config, url)?;
    if options.get_database().is_none()
        && let Some(name) = primary.connect_options().get_database()
    {
        options = options.database(name);
    }
    Ok(pool_options(config).connect_lazy_with(options))
}

/// The primary's and the replica's pools alike: `DATABASE_MAX_CONNECTIONS` each, and a request that waits
/// five seconds for a connection gives up.
fn pool_options(config: &Config) -> sqlx::postgres::PgPoolOptions {
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(config.database_max_connections)
        .acquire_timeout(std::time::Duration::from_secs(5))
}

/// How the instance connects to Postgres: `DATABASE_URL`, with every statement cut off after
/// `DATABASE_STATEMENT_TIMEOUT_MS`, so one slow query (a crafted search, a lock queue) cannot hold a pooled
/// connection for long.
pub fn pg_options(config: &Config) -> Result<sqlx::postgres::PgConnectOptions, sqlx::Error> {
    limited(config, &config.database_url)
}

/// `url` with the statement timeout, without JIT compilation (the usual setting for short queries; not a
/// measured gain: the one such query timed here, the big city's scan for a two-character word, took 606 ms
/// with JIT and 614 ms without), and planned for each execution's own parameters. sqlx prepares every
/// statement once per connection, and after five runs Postgres may switch to a generic plan that ignores
/// the values: the many queries whose filters are optional (`$2 IS NULL OR status = $2`) then lose their
/// index. Measured on the big city: a merchant's order page by generic plan read all 999,730 of the shop's
/// orders (21 s), by its own plan 1,001 rows down the primary key; the areas of a type 17 ms against 1.9 ms.
/// Planning anew costs little beside that (the ranking's query: 0.1 ms).
fn limited(config: &Config, url: &str) -> Result<sqlx::postgres::PgConnectOptions, sqlx::Error> {
    let timeout = config.database_statement_timeout.as_millis().to_string();
    Ok(url.parse::<sqlx::postgres::PgConnectOptions>()?.options([
        ("statement_timeout", timeout.as_str()),
        ("jit", "off"),
        ("plan_cache_mode", "force_custom_plan"),
    ]))
}

/// Opens the instance's Redis connection: one node or a cluster, as `REDIS_URL` says (`redis_conn`).
pub async fn redis_connection(url: &str) -> Result<Redis, redis::RedisError> {
    Redis::connect(&crate::platform::redis_conn::RedisTarget::parse(url)).await
}
