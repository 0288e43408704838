//! Redis failing or forgetting: with Redis gone, a shop page is served from Postgres (no visitor count, the
//! database's stock) instead of failing, and a Redis that lost its scripts costs a burst of grabs one load —
//! each on a Redis server of the test's own.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use app::storefront::service::shop_page;
use app::testing::{seed_flash_sale, seed_users, test_state};
use sqlx::PgPool;

/// A throw-away Redis (nothing on disk) that the test can stop.
struct OwnRedis {
    port: u16,
    child: Child,
}

impl OwnRedis {
    fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on PATH");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { port, child }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_shop_page_is_served_from_postgres_while_redis_is_down(db: PgPool) {
    let mut redis = OwnRedis::start();
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let state = test_state(db.clone(), &[("REDIS_URL", url.as_str()), ("SHOP_CACHE_L1_TTL_SECS", "1")]).await;
    seed_flash_sale(&db, 60, 10, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    let up = shop_page(&state, 1, None, "a:someone").await.expect("Redis up");
    assert_eq!(up.visitors_today, 1);

    redis.stop();
    tokio::time::sleep(Duration::from_millis(1_500)).await; // the L1 copy has expired too
    let asked = Instant::now();
    let down = shop_page(&state, 1, None, "a:someone-else").await.expect("served from Postgres");
    assert!(
        asked.elapsed() < Duration::from_secs(8),
        "answered in {:?}, not after Redis' reconnect backoff",
        asked.elapsed()
    );
    assert_eq!(down.shop.name, up.shop.name);
    assert_eq!(down.visitors_today, 0, "no count without Redis");
    let sale = down.vouchers.iter().find(|v| v.id == 60).expect("the sale is listed");
    assert_eq!(sale.stock, Some(10), "Postgres' stock");
    assert!(
        app::catalog::service::ShopCache::of(&state)
            .unwrap()
            .metrics
            .get(app::platform::cache::CacheEvent::RedisFallbacks)
            >= 1
    );
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_operators_dashboard_shows_postgres_figures_while_redis_is_down(db: PgPool) {
    let mut redis = OwnRedis::start();
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let state = test_state(db.clone(), &[("REDIS_URL", url.as_str())]).await;
    seed_flash_sale(&db, 61, 10, -60, 3600).await.unwrap();
    let ops: i64 = sqlx::query_scalar(
        "INSERT INTO users (phone, nickname, password_hash, role) VALUES ('13900000061', 'ops', '!', 'operator')
         RETURNING id",
    )
    .fetch_one(&db)
    .await
    .unwrap();
    let operator = app::auth::model::CurrentUser {
        id: ops,
        nickname: "ops".into(),
        role: app::auth::model::Role::Operator,
        masked_account: String::new(),
    };
    redis.stop();
    let d = app::ops::service::dashboard(&state, Some(&operator)).await.expect("shown without Redis");
    assert_eq!(d.unavailable, ["visitors"], "the visitor counts live in Redis only");
    assert_eq!(d.days.last().map(|t| t.new_accounts), Some(1), "Postgres' figures are all there");
    let sale = d.sales.iter().find(|s| s.sale.id == 61).expect("the sale is listed");
    assert_eq!(sale.sale.left, 10, "with Postgres' stock");
}

/// A Redis that lost its scripts (restarted, or a failover's new primary that never ran them) meets a
/// sale's burst all at once: every grab in flight is answered `NOSCRIPT`. One load of the sale script
/// serves them all, where each grab used to load it for itself, and every grab is answered as before.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_burst_of_grabs_on_a_redis_that_lost_its_scripts_loads_the_sale_script_once(db: PgPool) {
    let redis = OwnRedis::start();
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let state = test_state(db.clone(), &[("REDIS_URL", url.as_str())]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    seed_flash_sale(&db, 62, 100, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();
    let users = seed_users(&db, 62, 150).await.unwrap();
    let mut admin = redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let () = redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut admin).await.unwrap();
    let () = redis::cmd("CONFIG").arg("RESETSTAT").query_async(&mut admin).await.unwrap();

    let grabs = users.iter().enumerate().map(|(i, &user)| {
        let ip = format!("10.62.{}.{}", i / 200, i % 200 + 1);
        app::web::edge::run_outside(state.clone(), move |cx| async move {
            let outcome = app::seckill::service::grab(&cx.state, user, 62, &ip).await;
            Ok::<_, app::web::edge::Failure>(outcome.map_or_else(|e| e.outcome_label(), |_| "ok"))
        })
    });
    let outcomes: Vec<&str> = futures::future::join_all(grabs).await.into_iter().map(Result::unwrap).collect();
    let ok = outcomes.iter().filter(|o| **o == "ok").count();
    let sold_out = outcomes.iter().filter(|o| **o == "sold_out").count();
    assert_eq!((ok, sold_out), (100, 50), "{outcomes:?}");

    let stats: String = redis::cmd("INFO").arg("commandstats").query_async(&mut admin).await.unwrap();
    let calls = |name: &str| -> u64 {
        stats
            .lines()
            .find_map(|l| l.strip_prefix(&format!("cmdstat_{name}:")))
            .and_then(|rest| rest.split(',').find_map(|kv| kv.strip_prefix("calls=")?.parse().ok()))
            .unwrap_or(0)
    };
    // The sale script once; the stock's announcement (a script of its own, sent after a quiet spell)
    // may load its own too.
    assert!(calls("script|load") <= 2, "one load for the whole burst, not one a grab: {stats}");
    assert!(calls("evalsha") <= 2 * 150 + 2, "{stats}");
}
