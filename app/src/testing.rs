//! Test support shared by the `app` and `server` test suites: an `AppState` on a per-test database
//! with a unique Redis key prefix and Kafka topic prefix, so tests never see each other's data.

use leptos::prelude::LeptosOptions;
use sqlx::PgPool;

use crate::platform::config::Config;
use crate::seckill::model::NewFlashSale;
use crate::seckill::service::SeckillError;
use crate::web::state::AppState;

/// A short random token for namespacing one test's keys and topics.
pub fn unique_token() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// Settings from the environment, with this test's own namespaces and `overrides` applied on top.
pub fn test_config(overrides: &[(&str, &str)]) -> Config {
    let token = unique_token();
    let redis_prefix = format!("test:{token}:");
    let topic_prefix = format!("test.{token}.");
    Config::from_lookup(|name| {
        if let Some((_, v)) = overrides.iter().find(|(k, _)| *k == name) {
            return Some((*v).to_string());
        }
        match name {
            "REDIS_KEY_PREFIX" => Some(redis_prefix.clone()),
            "KAFKA_TOPIC_PREFIX" => Some(topic_prefix.clone()),
            "KAFKA_PARTITIONS" => Some("2".to_string()),
            _ => std::env::var(name).ok(),
        }
    })
    .expect("test configuration parses")
}

/// An `AppState` around `db` (a `#[sqlx::test]` database) with fresh namespaces.
pub async fn test_state(db: PgPool, overrides: &[(&str, &str)]) -> AppState {
    test_instances(db, 1, overrides).await.remove(0)
}

/// `n` "server instances" sharing one database, Redis namespace and topics, each with its own L1 cache
/// and invalidation listener — the scale-out shape in one process. Redis counts as holding its state (as
/// after a server's start-up rebuild), so a sale the test never loaded is "no such sale".
pub async fn test_instances(db: PgPool, n: usize, overrides: &[(&str, &str)]) -> Vec<AppState> {
    let config = test_config(overrides);
    let mut states = Vec::with_capacity(n);
    for _ in 0..n {
        let options = LeptosOptions::builder().output_name("haodian").build();
        states
            .push(crate::start::with_db(config.clone(), options, db.clone()).await.expect("Redis and Kafka reachable"));
    }
    crate::platform::marker::mark_present(&states[0].redis, &states[0].keys, crate::shared::clock::now_ms())
        .await
        .expect("Redis reachable");
    states
}

/// Inserts shop type 1 and shop 1 (idempotent), the parents every test coupon hangs off.
pub async fn seed_shop(db: &PgPool) -> Result<(), sqlx::Error> {
    sqlx::query!("INSERT INTO shop_types (id, name) VALUES (1, 'T') ON CONFLICT DO NOTHING").execute(db).await?;
    sqlx::query!(
        "INSERT INTO shops (id, name, type_id, owner_id, address, longitude, latitude)
         VALUES (1, 'S', 1, NULL, '杭州市某路1号', 120.1, 30.2) ON CONFLICT DO NOTHING",
    )
    .execute(db)
    .await?;
    // Ids given by hand leave the sequences behind; a shop opened afterwards takes the next free id.
    sqlx::query!(
        "SELECT setval(pg_get_serial_sequence('shops', 'id'), (SELECT max(id) FROM shops)) AS shops,
                setval(pg_get_serial_sequence('shop_types', 'id'), (SELECT max(id) FROM shop_types)) AS types"
    )
    .fetch_one(db)
    .await?;
    Ok(())
}

/// Inserts flash sale `voucher_id` on shop 1 with `stock`, running from `begin_secs` to `end_secs` relative
/// to now (negative = in the past), through the same SQL as a merchant's sale.
pub async fn seed_flash_sale(
    db: &PgPool,
    voucher_id: i64,
    stock: i32,
    begin_secs: i64,
    end_secs: i64,
) -> Result<(), SeckillError> {
    seed_shop(db).await?;
    let now = crate::shared::clock::now_ms();
    let sale = NewFlashSale {
        title: "V".into(),
        rules: String::new(),
        pay_cents: 990,
        actual_cents: 5000,
        stock,
        begin_ms: now + begin_secs * 1000,
        end_ms: now + end_secs * 1000,
        // The tests grab through the service directly; the puzzle has tests of its own.
        human_check: false,
    };
    let mut conn = db.acquire().await?;
    crate::seckill::service::seed_sale(&mut conn, voucher_id, 1, "Flash sale", &sale).await
}

/// Inserts `n` shoppers with distinct phone numbers (by `tag`); returns their ids in order.
pub async fn seed_users(db: &PgPool, tag: u32, n: u32) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "INSERT INTO users (phone, nickname, password_hash)
         SELECT '1' || lpad($1::INT::TEXT, 3, '0') || lpad(g::TEXT, 7, '0'), 'n' || g, 'x' FROM generate_series(1, $2) AS g
         ORDER BY g RETURNING id",
        tag as i32,
        n as i32,
    )
    .fetch_all(db)
    .await
}

/// Flash sale `voucher_id`'s end as Postgres records it, unix ms.
pub async fn sale_end_ms(db: &PgPool, voucher_id: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar!(
        r#"SELECT (extract(epoch FROM end_at) * 1000)::BIGINT AS "end_ms!" FROM vouchers WHERE id = $1"#,
        voucher_id
    )
    .fetch_one(db)
    .await
}

/// When Redis will drop `key`, unix ms (-1: never, -2: no such key).
pub async fn expires_at(redis: &crate::platform::redis_conn::Redis, key: &str) -> Result<i64, redis::RedisError> {
    redis::cmd("PEXPIRETIME").arg(key).query_async(&mut redis.clone()).await
}

/// What a [`Proxy`] does with traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyMode {
    /// Forwards both ways.
    Up,
    /// Drops every connection, open and new: the service looks dead.
    Cut,
    /// Forwards requests but holds the answers back until the mode changes: the service looks hung
    /// (the client times out although the server did the work).
    Stall,
}

/// A TCP forwarder in front of a real service, which a test can cut or stall to inject an outage.
pub struct Proxy {
    /// Where clients connect.
    pub addr: std::net::SocketAddr,
    shared: std::sync::Arc<ProxyShared>,
    accept: tokio::task::JoinHandle<()>,
}

struct ProxyShared {
    mode: tokio::sync::watch::Sender<ProxyMode>,
    /// Connections clients opened, whatever became of them.
    opened: std::sync::atomic::AtomicU64,
    /// Bytes whose appearance in a request switches the proxy to `Stall`.
    trigger: std::sync::Mutex<Option<Vec<u8>>>,
}

impl ProxyShared {
    /// Stalls if `request` carries the armed trigger (once).
    fn check_trigger(&self, request: &[u8]) {
        let mut trigger = self.trigger.lock().unwrap_or_else(|p| p.into_inner());
        if trigger.as_ref().is_some_and(|t| request.windows(t.len()).any(|w| w == t.as_slice())) {
            *trigger = None;
            self.mode.send_replace(ProxyMode::Stall);
        }
    }
}

impl Proxy {
    /// Starts forwarding 127.0.0.1:{ephemeral} → `target`.
    pub async fn start(target: std::net::SocketAddr) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = std::sync::Arc::new(ProxyShared {
            mode: tokio::sync::watch::channel(ProxyMode::Up).0,
            opened: std::sync::atomic::AtomicU64::new(0),
            trigger: std::sync::Mutex::new(None),
        });
        let accept = tokio::spawn({
            let shared = shared.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    shared.opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if *shared.mode.borrow() == ProxyMode::Cut {
                        continue; // dropped: the client sees the connection closed
                    }
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        if let Ok(server) = tokio::net::TcpStream::connect(target).await {
                            forward(client, server, shared).await;
                        }
                    });
                }
            }
        });
        Ok(Self { addr, shared, accept })
    }

    /// Switches what the proxy does; `Cut` also closes every open connection.
    pub fn set(&self, mode: ProxyMode) {
        self.shared.mode.send_replace(mode);
    }

    /// How many connections clients have opened through the proxy (cut ones too).
    pub fn connections(&self) -> u64 {
        self.shared.opened.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Stalls the answers from the moment a request carrying `pattern` passes (it is forwarded, so the
    /// server does the work; its answer is held back).
    pub fn stall_on(&self, pattern: &[u8]) {
        *self.shared.trigger.lock().unwrap_or_else(|p| p.into_inner()) = Some(pattern.to_vec());
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.shared.mode.send_replace(ProxyMode::Cut);
    }
}

/// Pumps both directions until either side closes or the proxy is cut; answers wait out a stall.
async fn forward(client: tokio::net::TcpStream, server: tokio::net::TcpStream, shared: std::sync::Arc<ProxyShared>) {
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::select! {
        _ = pump(client_read, server_write, &shared, false) => {}
        _ = pump(server_read, client_write, &shared, true) => {}
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    shared: &ProxyShared,
    answers: bool,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut watch = shared.mode.subscribe();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            read = from.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = watch.wait_for(|m| *m == ProxyMode::Cut) => return,
        };
        if !answers {
            shared.check_trigger(&buf[..n]);
        }
        loop {
            match *watch.borrow_and_update() {
                ProxyMode::Cut => return,
                ProxyMode::Stall if answers => {}
                _ => break,
            }
            if watch.changed().await.is_err() {
                return;
            }
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
