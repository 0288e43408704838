//! The Redis and Kafka breakers proven on real outages, as `breakers.rs` proves the Postgres one: the real
//! service is cut behind a proxy the test controls, and over HTTP grabs answer 503 with `Retry-After`, after
//! `BREAKER_FAILURES` of them the breaker opens and answers at once without trying the service, `/metrics`
//! shows it open, nothing is taken from the sale, and once the service is back one probe closes it.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

use app::sale::inventory;
use app::shared::error::AppError;
use app::testing::{Proxy, ProxyMode, seed_flash_sale, seed_users, test_state, unique_token};
use app::web::state::AppState;
use server::router::SESSION_COOKIE;

/// The tests here take turns, for the reason `breakers.rs` gives (routers built and rendering at once
/// across runtimes); a private broker and two proxies apiece are also lighter one at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The flash sale both tests grab from.
const SALE: i64 = 9;

/// Breaker settings: 3 failures open it for 2 s, as in `breakers.rs`.
const BREAKER: [(&str, &str); 2] = [("BREAKER_FAILURES", "3"), ("BREAKER_OPEN_SECS", "2")];

async fn grab(router: &Router, sid: &str) -> Response<Body> {
    let req = Request::post("/api/seckill/grab")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .header(header::COOKIE, format!("{SESSION_COOKIE}={sid}"))
        .body(Body::from(format!("voucher_id={SALE}")))
        .unwrap();
    router.clone().oneshot(req).await.unwrap()
}

async fn shop_page(router: &Router) -> Response<Body> {
    let req = Request::post("/api/catalog/shop")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .body(Body::from("id=1"))
        .unwrap();
    router.clone().oneshot(req).await.unwrap()
}

async fn json(resp: Response<Body>) -> serde_json::Value {
    serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap()
}

async fn metrics(admin: &Router) -> String {
    let resp = admin.clone().oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

fn retry_after(resp: &Response<Body>) -> u64 {
    let value = resp.headers().get(header::RETRY_AFTER).expect("a 503 says when to come back");
    value.to_str().unwrap().parse().unwrap()
}

/// A 503 whose body is the "try again" the user reads.
async fn assert_try_again(resp: Response<Body>, what: &str) {
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE, "{what}");
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let err: AppError = serde_json::from_slice(&body).unwrap();
    assert!(matches!(err, AppError::Unavailable(_)), "{what}: {err:?}");
}

/// A logged-in shopper's session id for each of `n` new users.
async fn shoppers(state: &AppState, db: &PgPool, tag: u32, n: u32) -> Vec<String> {
    let store = app::web::session::durable(state);
    let mut sids = Vec::new();
    for user in seed_users(db, tag, n).await.unwrap() {
        sids.push(app::web::session::mint(&store, user, time::Duration::hours(1)).await.unwrap());
    }
    sids
}

/// The sale's stock and buyer count in Redis.
async fn sale_in_redis(state: &AppState) -> (Option<i64>, u64) {
    inventory::sale_state(&state.redis, &state.keys, SALE).await.unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_redis_outage_fails_grabs_fast_with_retry_after_and_a_probe_closes_the_breaker(db: PgPool) {
    let _turn = ONE_AT_A_TIME.lock().await;
    // Always the standalone Redis, whatever REDIS_URL says: the suite also runs against a Redis Cluster,
    // and a cluster's clients learn every node's address, so one proxy cannot cut it.
    let redis: SocketAddr = "127.0.0.1:6379".parse().unwrap();
    // Two proxies, cut together so Redis is gone as a whole: one carries the instance's commands (the
    // grab's script, the session reads), the other its subscriptions and the shop cache. Only the first
    // is counted: subscribers reconnect on their own backoff whatever requests do.
    let (commands, others) = (Proxy::start(redis).await.unwrap(), Proxy::start(redis).await.unwrap());
    let others_url = format!("redis://{}/0", others.addr);
    let mut settings = vec![("REDIS_URL", others_url.as_str()), ("IP_RATE_LIMIT", "1000000")];
    settings.extend(BREAKER);
    let mut state = test_state(db.clone(), &settings).await;
    state.redis = app::start::redis_connection(&format!("redis://{}/0", commands.addr)).await.unwrap();
    // On one node the grab shares the instance's connection (it waits for no replica), as at start-up.
    state.grab_redis = state.redis.clone();
    seed_flash_sale(&db, SALE, 100, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    let sids = shoppers(&state, &db, 531, 4).await;
    let (router, admin) = (server::router::build(state.clone()), server::router::admin(state.clone()));
    assert_eq!(grab(&router, &sids[0]).await.status(), StatusCode::OK);

    commands.set(ProxyMode::Cut);
    others.set(ProxyMode::Cut);
    // The lost subscription reaches the session cache, which then stops trusting its copies.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for attempt in 1..=3 {
        let resp = grab(&router, &sids[1]).await;
        assert_eq!(retry_after(&resp), 1, "attempt {attempt}: not open yet, try again soon");
        assert_try_again(resp, &format!("attempt {attempt} with Redis gone")).await;
    }
    let (asked, tried) = (Instant::now(), commands.connections());
    for _ in 0..20 {
        let resp = grab(&router, &sids[1]).await;
        assert!((1..=2).contains(&retry_after(&resp)), "come back when the probe is due");
        assert_try_again(resp, "open").await;
    }
    assert_eq!(commands.connections(), tried, "open: Redis is not even tried");
    assert!(asked.elapsed() < Duration::from_millis(500), "20 answers in {:?}", asked.elapsed());
    let text = metrics(&admin).await;
    assert!(text.contains("haodian_circuit_breaker_state{breaker=\"redis\"} 2"), "{text}");
    // The shop page does not need Redis: it is served from Postgres meanwhile, with Postgres' stock.
    let page = shop_page(&router).await;
    assert_eq!(page.status(), StatusCode::OK, "the shop page falls back to Postgres");
    let page = json(page).await;
    let sale = page["vouchers"].as_array().unwrap().iter().find(|v| v["id"] == SALE).expect("the sale is listed");
    assert_eq!(sale["stock"], 100, "Postgres' stock (the order of the first grab is still in Kafka)");

    commands.set(ProxyMode::Up);
    others.set(ProxyMode::Up);
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    assert_eq!(grab(&router, &sids[1]).await.status(), StatusCode::OK, "the probe goes through");
    let text = metrics(&admin).await;
    assert!(text.contains("haodian_circuit_breaker_state{breaker=\"redis\"} 0"), "{text}");
    assert_eq!(grab(&router, &sids[2]).await.status(), StatusCode::OK);
    assert_eq!(sale_in_redis(&state).await, (Some(97), 3), "three grabs taken, none while Redis was away");
}

/// A Nisshi broker of the test's own, storing in its own database, listening on one port and advertising
/// another (the proxy's). Kafka clients connect to whatever address the broker advertises once they have
/// its metadata, so the shared broker on 9092, which advertises itself, would be reached past the proxy.
struct Broker {
    name: String,
    dir: std::path::PathBuf,
    child: Child,
}

impl Broker {
    /// Starts it on `listen`, telling clients to come through `advertised`.
    async fn start(db: &PgPool, listen: u16, advertised: SocketAddr) -> Self {
        let name = format!("nisshi_{}", unique_token());
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(db).await.unwrap();
        let dir = std::env::temp_dir().join(&name);
        std::fs::create_dir_all(&dir).unwrap(); // the broker reads .env from its working directory
        let storage = format!("postgres://postgres:postgres@127.0.0.1/{name}?sslmode=disable");
        let child = Command::new("nisshi")
            .args(["broker", "--listener-url", &format!("tcp://127.0.0.1:{listen}")])
            .args(["--advertised-listener-url", &format!("tcp://{advertised}")])
            .args(["--storage-engine", &storage, "--group-initial-rebalance-delay", "250ms"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nisshi on PATH (scripts/setup.sh installs it)");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", listen)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "broker did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Self { name, dir, child }
    }

    /// Stops the broker and drops its storage.
    async fn remove(mut self, db: &PgPool) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).execute(db).await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_broker_outage_fails_grabs_fast_gives_the_stock_back_and_a_probe_closes_the_breaker(db: PgPool) {
    let _turn = ONE_AT_A_TIME.lock().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let proxy = Proxy::start(SocketAddr::from(([127, 0, 0, 1], port))).await.unwrap();
    let broker = Broker::start(&db, port, proxy.addr).await;
    let brokers = proxy.addr.to_string();
    let mut settings =
        vec![("KAFKA_BROKERS", brokers.as_str()), ("KAFKA_PRODUCE_TIMEOUT_MS", "1500"), ("IP_RATE_LIMIT", "1000000")];
    settings.extend(BREAKER);
    let state = test_state(db.clone(), &settings).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    seed_flash_sale(&db, SALE, 100, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    let sids = shoppers(&state, &db, 532, 6).await;
    let (router, admin) = (server::router::build(state.clone()), server::router::admin(state.clone()));
    assert_eq!(grab(&router, &sids[0]).await.status(), StatusCode::OK);
    assert_eq!(sale_in_redis(&state).await, (Some(99), 1));

    proxy.set(ProxyMode::Cut);
    for (attempt, sid) in (1..=3).zip(&sids[1..]) {
        let asked = Instant::now();
        let resp = grab(&router, sid).await;
        assert_eq!(retry_after(&resp), 1, "attempt {attempt}: not open yet, try again soon");
        assert_try_again(resp, &format!("attempt {attempt} with the broker gone")).await;
        // The produce timeout, the second's grace for the delivery report, and a margin.
        assert!(asked.elapsed() < Duration::from_millis(4_500), "answered in {:?}", asked.elapsed());
    }
    assert_eq!(sale_in_redis(&state).await, (Some(99), 1), "every refused grab was given back");
    let refused = state.metrics.seckill.produce_failures.get();
    assert_eq!(refused, 3, "each of them reached the broker's client and failed there");
    // librdkafka keeps reconnecting in the background whatever the requests do, so the proxy's connection
    // count cannot tell whether a grab tried the broker; the publisher's failure count can.
    let asked = Instant::now();
    for _ in 0..20 {
        let resp = grab(&router, &sids[4]).await;
        assert!((1..=2).contains(&retry_after(&resp)), "come back when the probe is due");
        assert_try_again(resp, "open").await;
    }
    assert!(asked.elapsed() < Duration::from_millis(500), "20 answers in {:?}", asked.elapsed());
    assert_eq!(state.metrics.seckill.produce_failures.get(), refused, "open: the broker is not even tried");
    assert_eq!(sale_in_redis(&state).await, (Some(99), 1), "open: nothing is taken from the sale");
    let text = metrics(&admin).await;
    assert!(text.contains("haodian_circuit_breaker_state{breaker=\"kafka\"} 2"), "{text}");

    proxy.set(ProxyMode::Up);
    let back = Instant::now();
    // librdkafka reconnects on its own backoff (up to 10 s after a long outage), whatever is queued: a
    // message of the test's own on the dead-letter topic (nobody reads it here), sent past the breaker,
    // tells when the client talks to the broker again, so the probe below tests the breaker, not that.
    let dlq = app::platform::kafka::topic(&state.config, app::platform::kafka::ORDERS_DLQ);
    while !matches!(state.publisher.send(&dlq, b"{}").await, app::platform::kafka::Delivery::Persisted) {
        assert!(back.elapsed() < Duration::from_secs(30), "the client never reached the broker again");
    }
    tokio::time::sleep(Duration::from_millis(2_100).saturating_sub(back.elapsed())).await;
    assert_eq!(grab(&router, &sids[4]).await.status(), StatusCode::OK, "the probe goes through");
    let text = metrics(&admin).await;
    assert!(text.contains("haodian_circuit_breaker_state{breaker=\"kafka\"} 0"), "{text}");
    assert_eq!(grab(&router, &sids[5]).await.status(), StatusCode::OK);
    assert_eq!(sale_in_redis(&state).await, (Some(97), 3), "only the acknowledged grabs are taken");
    broker.remove(&db).await;
}
