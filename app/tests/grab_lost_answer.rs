//! A grab whose sale-script answer is lost — Redis ran the script, then hung before answering — is
//! settled by checking, not by guessing: the buyer hears "we lost touch; if it went through it appears in
//! My orders", and the order does appear, so nobody is left recorded as a buyer without an order. Nor is a
//! grab whose buyer hangs up half-way left half-done. Redis sits behind a proxy that holds answers back.

use std::time::{Duration, Instant};

use app::sale::inventory;
use app::seckill::service::{self, SeckillError};
use app::testing::{Proxy, ProxyMode, seed_flash_sale, seed_users, test_state};
use sqlx::PgPool;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_lost_script_answer_is_settled_by_checking_and_the_order_appears(db: PgPool) {
    let proxy = Proxy::start("127.0.0.1:6379".parse().unwrap()).await.unwrap();
    let url = format!("redis://{}/0", proxy.addr);
    let state = test_state(db.clone(), &[("REDIS_URL", url.as_str()), ("IP_RATE_LIMIT", "1000000")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let writer = app::orders::writer::spawn(state.clone());
    let users = seed_users(&db, 431, 2).await.unwrap();
    seed_flash_sale(&db, 31, 10, -60, 3600).await.unwrap();
    service::restore_sales(&state).await.unwrap();

    // The script call is the one request that names the sale's stock key.
    proxy.stall_on(state.keys.seckill_stock(31).as_bytes());
    let asked = Instant::now();
    let answer = service::grab(&state, users[0], 31, "10.0.0.31").await;
    assert!(matches!(answer, Err(SeckillError::Unsure(_))), "told the outcome is being checked: {answer:?}");
    assert!(asked.elapsed() < Duration::from_secs(8), "answered in {:?}", asked.elapsed());
    proxy.set(ProxyMode::Up);

    // The script did run, so its order must come through.
    let started = Instant::now();
    loop {
        let orders: i64 = sqlx::query_scalar("SELECT count(*) FROM orders WHERE user_id = $1 AND voucher_id = 31")
            .bind(users[0])
            .fetch_one(&db)
            .await
            .unwrap();
        if orders == 1 {
            break;
        }
        // Usually 0.2 s; the bound only stops a hang (a fresh broker can be slow to seat the writer's group).
        assert!(started.elapsed() < Duration::from_secs(60), "the unsure grab's order never appeared");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (stock, buyers) = inventory::sale_state(&state.redis, &state.keys, 31).await.unwrap();
    assert_eq!((stock, buyers), (Some(9), 1), "one coupon taken, one buyer, one order");

    // A grab whose script never ran leaves nothing behind either: the next buyer is served normally.
    let second = service::grab(&state, users[1], 31, "10.0.0.31").await.expect("Redis answers again");
    assert!(second > 0);
    writer.abort();
}

/// A buyer who hangs up after the sale script took their coupon, while the grab is being made safe, does
/// not leave it half-done: the rest of the grab goes on without them — here the replicas it waits for never
/// confirm, so the coupon goes back at once, not half a minute later by the stranded-grab sweeper (which
/// this test does not run, so nothing else could give it back).
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_buyer_hanging_up_mid_grab_leaves_nothing_half_done(db: PgPool) {
    let proxy = Proxy::start("127.0.0.1:6379".parse().unwrap()).await.unwrap();
    let url = format!("redis://{}/0", proxy.addr);
    let overrides = [
        ("REDIS_URL", url.as_str()),
        ("IP_RATE_LIMIT", "1000000"),
        // One Redis node with no replica: the wait for one ends unconfirmed, and the grab is given back.
        ("GRAB_REPLICAS", "1"),
        ("GRAB_REPLICA_WAIT_MS", "50"),
    ];
    let state = test_state(db.clone(), &overrides).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let users = seed_users(&db, 432, 1).await.unwrap();
    seed_flash_sale(&db, 32, 10, -60, 3600).await.unwrap();
    service::restore_sales(&state).await.unwrap();
    // Redis itself, not through the proxy, to see the sale while the proxy holds answers back.
    let direct = app::platform::redis_conn::Redis::connect(&app::platform::redis_conn::RedisTarget::parse(
        "redis://127.0.0.1:6379/0",
    ))
    .await
    .unwrap();

    // The wait for the replicas is the one request that says WAIT: its answer is held back.
    proxy.stall_on(b"WAIT");
    let gave_up = tokio::time::timeout(Duration::from_millis(500), service::grab(&state, users[0], 32, "10.0.0.32"));
    assert!(gave_up.await.is_err(), "the buyer hung up before the grab had an answer");
    assert_eq!(
        inventory::sale_state(&direct, &state.keys, 32).await.unwrap(),
        (Some(9), 1),
        "the script took the coupon before the buyer left"
    );

    proxy.set(ProxyMode::Up);
    let started = Instant::now();
    while inventory::sale_state(&direct, &state.keys, 32).await.unwrap() != (Some(10), 0) {
        assert!(started.elapsed() < Duration::from_secs(10), "the grab its buyer left was never settled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
