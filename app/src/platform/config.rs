//! Runtime settings, read once from the environment with local-development defaults.

use std::net::SocketAddr;
use std::time::Duration;

use crate::platform::redis_conn::RedisTarget;

/// Where Redis is when `REDIS_URL` does not say: the local single node.
const DEFAULT_REDIS: &str = "redis://127.0.0.1:6379/0";

/// A setting that was present but could not be understood.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("setting {name}={value:?} is invalid: {reason}")]
pub struct ConfigError {
    /// The environment variable.
    pub name: &'static str,
    /// What it held.
    pub value: String,
    /// Why it was refused.
    pub reason: String,
}

/// Every tunable of the process. See the README's settings table.
#[derive(Debug, Clone)]
pub struct Config {
    /// `DATABASE_URL`: the application database.
    pub database_url: String,
    /// `DATABASE_MAX_CONNECTIONS`: pool size.
    pub database_max_connections: u32,
    /// `DATABASE_READ_URL`: a hot standby of the primary that the catalog, search, nearby, review and
    /// ranking reads go to (`db_read`); without a database in its path it reads the primary's database of
    /// the same name. Unset or empty: those reads go to the primary.
    pub database_read_url: Option<String>,
    /// `DATABASE_STATEMENT_TIMEOUT_MS`: Postgres cancels any statement of ours that runs longer.
    pub database_statement_timeout: Duration,
    /// `REDIS_URL`.
    pub redis_url: String,
    /// `GRAB_REPLICAS`: Redis replicas that must hold a grab before its buyer hears "yours" (`WAIT`), so a
    /// failover to a replica cannot sell the coupon again. Defaults to 1 on a cluster, 0 on one node.
    pub grab_replicas: u32,
    /// `GRAB_REPLICA_WAIT_MS`: how long a grab waits for them; a grab they did not confirm in time is given
    /// back and its buyer asked to try again.
    pub grab_replica_wait: Duration,
    /// `REDIS_KEY_PREFIX`: namespace for every key we write (tests use a unique one each).
    pub redis_key_prefix: String,
    /// `KAFKA_BROKERS`: bootstrap servers, comma-separated.
    pub kafka_brokers: String,
    /// `KAFKA_TOPIC_PREFIX`: prepended to topic names (tests isolate themselves with it).
    pub kafka_topic_prefix: String,
    /// `KAFKA_PARTITIONS`: partitions per topic when the app creates them.
    pub kafka_partitions: i32,
    /// `KAFKA_REPLICATION_FACTOR`: replicas per partition when the app creates its topics (3 on a real cluster).
    pub kafka_replication: i32,
    /// `KAFKA_PRODUCE_TIMEOUT_MS`: how long a grab waits for the broker before the outcome counts as unknown.
    pub kafka_produce_timeout: Duration,
    /// `KAFKA_LINGER_MS`: how long the order producer gathers messages into one request (bigger batches
    /// under load, at most this much added latency when idle). 20 ms: a grab cost the server 121 µs of CPU
    /// against 143–170 µs at 5 ms (fewer, fuller produce requests and order batches; docs/benchmarks.md).
    pub kafka_linger: Duration,
    /// `UPLOAD_DIR`: where uploaded note images are stored (served at `/uploads/`).
    pub upload_dir: std::path::PathBuf,
    /// `UPLOAD_QUOTA_BYTES`: the most one person's pictures may take in all.
    pub upload_quota_bytes: u64,
    /// `UPLOAD_ORPHAN_HOURS`: an upload no note or shop shows is removed after this long.
    pub upload_orphan_grace: Duration,
    /// `LISTEN_ADDR`: where the HTTP server binds (overrides Leptos' site address).
    pub listen_addr: SocketAddr,
    /// `ADMIN_ADDR`: where `/healthz` and `/metrics` are served (loopback by default: operators only).
    pub admin_addr: SocketAddr,
    /// `PAY_TIMEOUT_SECS`: unpaid orders close after this long.
    pub pay_timeout: Duration,
    /// How long an instance's order-id worker number stays leased without a heartbeat.
    pub id_lease_ttl: Duration,
    /// `BREAKER_FAILURES` failures in a row open a circuit breaker (Postgres, Redis, Kafka) for
    /// `BREAKER_OPEN_SECS`.
    pub breakers: crate::platform::breaker::BreakerSettings,
    /// `STRANDED_GRAB_SECS`: how old a grab with no order anywhere must be before it is given back.
    pub stranded_grab_after: Duration,
    /// `LIVE_STOCK_QUIET_MS`: the least time between two announcements of a sale's stock during a burst
    /// of grabs (the last coupon's is always sent, and the figure a burst leaves one spell later); 0
    /// announces every grab.
    pub live_stock_quiet: Duration,
    /// `FAULT_WRITER_ABORTS`: fault injection for `scripts/chaos.sh` — the process aborts after this many
    /// order batches are committed to Postgres and before their offsets are. 0 (the default): never.
    pub fault_writer_aborts: u32,
    /// `DEV_OUTBOX`: show the local text-message outbox at `/dev/outbox` (development only).
    pub dev_outbox: bool,
    /// `LOGIN_CODE_COOLDOWN_SECS`: the wait between two codes to one phone.
    pub login_code_cooldown: Duration,
    /// `ABUSE_LIMIT_FACTOR`: multiplies every per-client action budget (`abuse`); 1 in production.
    pub abuse_limit_factor: u32,
    /// `ARGON2_MAX_CONCURRENT`: password hashes computed at once (19 MiB each); more wait, briefly.
    pub argon2_max_concurrent: usize,
    /// `PICTURE_DECODES_MAX`: uploaded pictures decoded at once across everyone (up to ~450 MiB each);
    /// more wait, briefly, then are asked to try again.
    pub picture_decodes_max: usize,
    /// `HTTP_TIMEOUT_SECS`: a request still unanswered after this long gets a 503.
    pub http_timeout: Duration,
    /// `HTTP_MAX_IN_FLIGHT`: requests served at once; past it, an immediate 503 with `Retry-After`
    /// rather than a queue that makes everyone slow.
    pub http_max_in_flight: usize,
    /// `HTTP_LISTEN_BACKLOG`: connections the kernel queues for the instance to accept (capped by
    /// `net.core.somaxconn`). A burst beyond the queue has its connection attempts dropped, and each comes
    /// back only after the client's SYN retry of 1 s, then 3 s, …: a deeper queue lets the instance answer
    /// them — a grab or a 429/503 — instead.
    pub http_listen_backlog: u32,
    /// `HTTP_MAX_CONNECTIONS`: connections open at once; past it the instance stops accepting and the rest
    /// wait in the listen queue. Keep it under the process's descriptor limit (`ulimit -n`) less what the
    /// pools hold.
    pub http_max_connections: usize,
    /// `HTTP_IDLE_SECS`: a connection with no traffic either way for this long is closed (a live update
    /// stream sends a keep-alive every 15 s, so it stays open).
    pub http_idle: Duration,
    /// `SHOP_CACHE_L1_TTL_SECS`: in-process cache lifetime.
    pub shop_cache_l1_ttl: Duration,
    /// `SHOP_CACHE_L2_TTL_SECS`: logical expiry of a Redis shop entry.
    pub shop_cache_l2_ttl: Duration,
    /// `SHOP_CACHE_NULL_TTL_SECS`: how long a missing id is remembered as missing.
    pub shop_cache_null_ttl: Duration,
    /// `SECKILL_RATE_LIMIT`: grabs allowed per user and voucher in one window.
    pub seckill_rate_limit: u32,
    /// `SECKILL_RATE_WINDOW_SECS`: the sliding window of that limit.
    pub seckill_rate_window: Duration,
    /// `IP_RATE_LIMIT`: grabs per client address and window, counted by each instance in memory.
    pub ip_rate_limit: u32,
    /// `GRAB_ADMIT_PER_SEC`: grabs one instance lets in per second (its back end's capacity); the rest are
    /// answered 429 at once.
    pub grab_admit_per_sec: u32,
    /// The slider puzzle before a grab: `HUMAN_CHECK_SECRET` signs the puzzles (every instance behind one
    /// site needs the same; unset, each process draws its own), `HUMAN_CHECK_TOLERANCE_PX` is how far from
    /// the gap an answer may land, `HUMAN_CHECK_MIN_DRAG_MS` the least time a person's drag takes;
    /// `HUMAN_CHECK_FIXED_GAP` (browser tests only) puts every gap at that x.
    pub human_check: crate::shared::human_check::Settings,
    /// `LOGIN_MAX_FAILURES`: log-in attempts per account and address (and 4× per address) before that
    /// address is locked out; also the attempts on an account before it is slowed down.
    pub login_max_failures: u32,
    /// `LOGIN_LOCKOUT_SECS`: how long the failures are remembered, i.e. the lockout length.
    pub login_lockout: Duration,
    /// `LOGIN_SLOWDOWN_MAX_SECS`: the longest wait between attempts on an account that has seen many
    /// (the wait doubles from 1 s per attempt; an account is slowed down, never locked for everyone).
    pub login_slowdown_max: Duration,
    /// `SESSION_CACHE_SECS`: the longest an instance keeps its copy of a session (copies are dropped at
    /// once when the session changes anywhere; this bounds them when that news cannot arrive).
    pub session_cache: Duration,
    /// `VISITOR_SNAPSHOT_SECS`: how often the day's visitor counts are copied to Postgres (what a total
    /// Redis loss can cost of them).
    pub visitor_snapshot_every: Duration,
    /// `SESSION_TTL_SECS`: idle lifetime of a login session.
    pub session_ttl: Duration,
    /// `SESSION_MAX_AGE_SECS`: a session ends this long after its login, however active.
    pub session_max_age: Duration,
    /// `COOKIE_SECURE`: mark cookies Secure (set behind HTTPS).
    pub cookie_secure: bool,
    /// `TRUSTED_PROXIES`: our proxies' networks; the client address is the right-most
    /// `X-Forwarded-For` hop that is not one of them (none: the socket peer).
    pub trusted_proxies: crate::platform::client_addr::TrustedProxies,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests can feed a map instead of the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let r = Reader { lookup: &lookup };
        let config = Self {
            database_url: r.string("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/haodian"),
            database_max_connections: r.parse("DATABASE_MAX_CONNECTIONS", 20)?,
            database_read_url: Some(r.string("DATABASE_READ_URL", "")).filter(|url| !url.trim().is_empty()),
            database_statement_timeout: Duration::from_millis(r.parse("DATABASE_STATEMENT_TIMEOUT_MS", 5000u64)?),
            redis_url: r.string("REDIS_URL", DEFAULT_REDIS),
            redis_key_prefix: r.string("REDIS_KEY_PREFIX", ""),
            grab_replicas: r.parse(
                "GRAB_REPLICAS",
                match RedisTarget::parse(&r.string("REDIS_URL", DEFAULT_REDIS)) {
                    RedisTarget::Cluster(_) => 1,
                    RedisTarget::Single(_) => 0,
                },
            )?,
            grab_replica_wait: Duration::from_millis(r.parse("GRAB_REPLICA_WAIT_MS", 1000u64)?.max(1)),
            kafka_brokers: r.string("KAFKA_BROKERS", "127.0.0.1:9092"),
            kafka_topic_prefix: r.string("KAFKA_TOPIC_PREFIX", ""),
            kafka_partitions: r.parse("KAFKA_PARTITIONS", 4)?,
            kafka_replication: r.parse("KAFKA_REPLICATION_FACTOR", 1)?,
            kafka_produce_timeout: Duration::from_millis(r.parse("KAFKA_PRODUCE_TIMEOUT_MS", 5000u64)?.max(100)),
            kafka_linger: Duration::from_millis(r.parse("KAFKA_LINGER_MS", 20u64)?),
            upload_dir: r.string("UPLOAD_DIR", "target/uploads").into(),
            upload_quota_bytes: r.parse("UPLOAD_QUOTA_BYTES", 100 * 1024 * 1024)?,
            upload_orphan_grace: Duration::from_secs(r.parse("UPLOAD_ORPHAN_HOURS", 24u64)? * 3600),
            listen_addr: r.parse("LISTEN_ADDR", SocketAddr::from(([127, 0, 0, 1], 3000)))?,
            admin_addr: r.parse("ADMIN_ADDR", SocketAddr::from(([127, 0, 0, 1], 3901)))?,
            pay_timeout: r.secs("PAY_TIMEOUT_SECS", 15 * 60)?,
            id_lease_ttl: r.secs("ID_LEASE_TTL_SECS", 15)?,
            breakers: crate::platform::breaker::BreakerSettings {
                threshold: r.parse("BREAKER_FAILURES", 5)?,
                cool_down: r.secs("BREAKER_OPEN_SECS", 5)?,
            },
            stranded_grab_after: r.secs("STRANDED_GRAB_SECS", 30)?,
            live_stock_quiet: Duration::from_millis(r.parse("LIVE_STOCK_QUIET_MS", 100u64)?),
            fault_writer_aborts: r.parse("FAULT_WRITER_ABORTS", 0)?,
            dev_outbox: r.parse("DEV_OUTBOX", false)?,
            login_code_cooldown: Duration::from_secs(r.parse("LOGIN_CODE_COOLDOWN_SECS", 60u64)?),
            abuse_limit_factor: r.parse("ABUSE_LIMIT_FACTOR", 1)?,
            argon2_max_concurrent: r.parse("ARGON2_MAX_CONCURRENT", 4)?,
            picture_decodes_max: r.parse("PICTURE_DECODES_MAX", 2)?,
            http_timeout: r.secs("HTTP_TIMEOUT_SECS", 30)?,
            http_max_in_flight: r.parse("HTTP_MAX_IN_FLIGHT", 2048)?,
            http_listen_backlog: r.parse("HTTP_LISTEN_BACKLOG", 4096)?,
            http_max_connections: r.parse("HTTP_MAX_CONNECTIONS", 4096)?,
            http_idle: r.secs("HTTP_IDLE_SECS", 60)?,
            shop_cache_l1_ttl: r.secs("SHOP_CACHE_L1_TTL_SECS", 5)?,
            shop_cache_l2_ttl: r.secs("SHOP_CACHE_L2_TTL_SECS", 30 * 60)?,
            shop_cache_null_ttl: r.secs("SHOP_CACHE_NULL_TTL_SECS", 60)?,
            seckill_rate_limit: r.parse("SECKILL_RATE_LIMIT", 5)?,
            seckill_rate_window: r.secs("SECKILL_RATE_WINDOW_SECS", 10)?,
            ip_rate_limit: r.parse("IP_RATE_LIMIT", 200)?,
            grab_admit_per_sec: r.parse("GRAB_ADMIT_PER_SEC", 20_000)?,
            human_check: crate::shared::human_check::Settings::new(
                lookup("HUMAN_CHECK_SECRET").as_deref(),
                r.parse("HUMAN_CHECK_TOLERANCE_PX", 5)?,
                Duration::from_millis(r.parse("HUMAN_CHECK_MIN_DRAG_MS", 300u64)?),
            )
            .with_fixed_gap(r.parse("HUMAN_CHECK_FIXED_GAP", 0u16)?),
            login_max_failures: r.parse("LOGIN_MAX_FAILURES", 5)?,
            login_lockout: r.secs("LOGIN_LOCKOUT_SECS", 15 * 60)?,
            login_slowdown_max: r.secs("LOGIN_SLOWDOWN_MAX_SECS", 30)?,
            session_ttl: r.secs("SESSION_TTL_SECS", 7 * 24 * 3600)?,
            session_cache: r.secs("SESSION_CACHE_SECS", 10)?,
            visitor_snapshot_every: r.secs("VISITOR_SNAPSHOT_SECS", 300)?,
            session_max_age: r.secs("SESSION_MAX_AGE_SECS", 30 * 24 * 3600)?,
            cookie_secure: r.parse("COOKIE_SECURE", false)?,
            trusted_proxies: r.parse("TRUSTED_PROXIES", crate::platform::client_addr::TrustedProxies::default())?,
        };
        config.sweeper_after_sends()?;
        Ok(config)
    }

    /// The longest an order's send takes to settle — acknowledged, purged, or given up as unknown and
    /// queued for a resend: the produce timeout, a second more for its report, a second to purge what
    /// never left, two to queue it.
    pub fn send_settle_time(&self) -> Duration {
        self.kafka_produce_timeout + Duration::from_secs(4)
    }

    /// The stranded-grab sweeper must not look for a grab's order before the grab could have sent it: a
    /// grab sends only while its script is younger than `STRANDED_GRAB_SECS` less the send's settle time
    /// and a second's margin for the clocks, and needs its replicas' `WAIT` and a second besides, or none
    /// would ever be sent.
    fn sweeper_after_sends(&self) -> Result<(), ConfigError> {
        let least = self.send_settle_time() + self.grab_replica_wait + Duration::from_secs(2);
        if self.stranded_grab_after >= least {
            return Ok(());
        }
        Err(ConfigError {
            name: "STRANDED_GRAB_SECS",
            value: self.stranded_grab_after.as_secs().to_string(),
            reason: format!(
                "must be at least {} s (KAFKA_PRODUCE_TIMEOUT_MS + GRAB_REPLICA_WAIT_MS + 6 s), so a grab's order \
                 is on its way before the sweeper takes the grab for one whose instance died",
                least.as_secs_f64().ceil()
            ),
        })
    }
}

struct Reader<'a, F: Fn(&str) -> Option<String>> {
    lookup: &'a F,
}

impl<F: Fn(&str) -> Option<String>> Reader<'_, F> {
    fn string(&self, name: &str, default: &str) -> String {
        (self.lookup)(name).unwrap_or_else(|| default.to_string())
    }

    fn parse<T>(&self, name: &'static str, default: T) -> Result<T, ConfigError>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        match (self.lookup)(name) {
            None => Ok(default),
            Some(raw) => {
                raw.trim().parse().map_err(|e: T::Err| ConfigError { name, value: raw.clone(), reason: e.to_string() })
            }
        }
    }

    fn secs(&self, name: &'static str, default: u64) -> Result<Duration, ConfigError> {
        let secs: u64 = self.parse(name, default)?;
        if secs == 0 {
            return Err(ConfigError { name, value: "0".into(), reason: "must be at least 1 second".into() });
        }
        Ok(Duration::from_secs(secs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_point_at_local_services() {
        let c = with(&[]).expect("defaults parse");
        assert_eq!(c.kafka_brokers, "127.0.0.1:9092");
        assert_eq!(c.listen_addr.to_string(), "127.0.0.1:3000");
        assert_eq!(c.pay_timeout, Duration::from_secs(900));
        assert!(!c.cookie_secure);
    }

    #[test]
    fn values_override_defaults() {
        let c = with(&[("PAY_TIMEOUT_SECS", "5"), ("COOKIE_SECURE", "true"), ("LISTEN_ADDR", "0.0.0.0:8080")])
            .expect("parses");
        assert_eq!(c.pay_timeout, Duration::from_secs(5));
        assert!(c.cookie_secure);
        assert_eq!(c.listen_addr.port(), 8080);
    }

    #[test]
    fn garbage_is_refused_with_the_setting_named() {
        let err = with(&[("PAY_TIMEOUT_SECS", "soon")]).expect_err("must fail");
        assert_eq!(err.name, "PAY_TIMEOUT_SECS");
        let err = with(&[("LOGIN_LOCKOUT_SECS", "0")]).expect_err("zero refused");
        assert_eq!(err.name, "LOGIN_LOCKOUT_SECS");
        let err = with(&[("COOKIE_SECURE", "maybe")]).expect_err("bool refused");
        assert!(err.to_string().contains("COOKIE_SECURE"));
        let err = with(&[("STRANDED_GRAB_SECS", "9"), ("KAFKA_PRODUCE_TIMEOUT_MS", "3000")])
            .expect_err("a sweeper that could take a grab whose order is still being sent is refused");
        assert_eq!(err.name, "STRANDED_GRAB_SECS");
        with(&[("STRANDED_GRAB_SECS", "10"), ("KAFKA_PRODUCE_TIMEOUT_MS", "3000")])
            .expect("10 s leaves room for the send: 3 s + 4 s to settle, 1 s for a replica's WAIT, 2 s besides");
    }
}
