//! Redis losing its data mid-sale (this machine's Redis keeps nothing on disk): every instance notices, one
//! rebuilds the state from Postgres and the orders still in Kafka, and nothing is sold twice.

use std::time::{Duration, Instant};

use app::recovery::service::heal_once;
use app::sale::inventory::{self, GrabCode};
use app::seckill::service::{self, SeckillError};
use app::shared::error::AppError;
use app::testing::{seed_flash_sale, seed_users, test_instances};
use app::web::state::AppState;
use sqlx::PgPool;

const SALE: i64 = 50;

async fn orders_written(db: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM orders WHERE voucher_id = $1").bind(SALE).fetch_one(db).await.unwrap()
}

async fn wait_for_orders(db: &PgPool, n: i64) {
    let started = Instant::now();
    while orders_written(db).await < n {
        assert!(started.elapsed() < Duration::from_secs(60), "only {} of {n} orders written", orders_written(db).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn grab(state: &AppState, user: i64) -> Result<i64, SeckillError> {
    service::grab(state, user, SALE, "10.0.0.1").await
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_wiped_redis_is_rebuilt_without_a_restart_counting_the_orders_still_in_kafka(db: PgPool) {
    let states = test_instances(db.clone(), 2, &[]).await;
    let (a, b) = (&states[0], &states[1]);
    app::platform::kafka::ensure_topics(&a.config).await.unwrap();
    seed_flash_sale(&db, SALE, 10, -60, 3600).await.unwrap();
    let users = seed_users(&db, 450, 6).await.unwrap();
    app::recovery::service::rebuild(a).await.unwrap(); // what `server serve` does at start

    // Three orders reach Postgres; then the writer stops and two more stay in Kafka.
    let writer = app::orders::writer::spawn(a.clone());
    for u in &users[..3] {
        grab(a, *u).await.unwrap();
    }
    wait_for_orders(&db, 3).await;
    writer.abort();
    let _ = writer.await;
    for u in &users[3..5] {
        grab(b, *u).await.unwrap();
    }
    assert_eq!(inventory::sale_state(&a.redis, &a.keys, SALE).await.unwrap(), (Some(5), 5));

    // Redis loses everything.
    app::platform::keys::unlink_matching(&a.redis, &format!("{}*", a.config.redis_key_prefix)).await.unwrap();

    // Until it is rebuilt, the reconciliation reports the loss, and a grab is "try again", not "no such sale".
    let audit = service::audit(a, None).await.unwrap();
    assert_eq!(audit[0].drift(), -10, "missing state is drift, never 0: {audit:?}");
    let refused = grab(b, users[5]).await.unwrap_err();
    assert!(matches!(refused, SeckillError::Restoring), "{refused:?}");
    assert_eq!(AppError::from(refused).status_code(), 503);

    // Both instances check at once; exactly one rebuilds.
    let (ra, rb) = tokio::join!(heal_once(a), heal_once(b));
    let rebuilt: Vec<_> = [ra.unwrap(), rb.unwrap()].into_iter().flatten().collect();
    assert_eq!(rebuilt.len(), 1, "{rebuilt:?}");
    assert_eq!(rebuilt[0].sales, 1);
    assert!(heal_once(a).await.unwrap().is_none(), "nothing to do once rebuilt");

    // Stock = Postgres' 7 − the 2 orders still in Kafka; buyers = 3 stored + 2 in flight.
    assert_eq!(inventory::sale_state(&a.redis, &a.keys, SALE).await.unwrap(), (Some(5), 5));
    assert!(matches!(grab(a, users[3]).await, Err(SeckillError::Refused(GrabCode::AlreadyBought))));
    assert!(matches!(grab(a, users[0]).await, Err(SeckillError::Refused(GrabCode::AlreadyBought))));
    grab(b, users[5]).await.expect("a new buyer gets one of the five left");

    // The writer drains what was in flight: every acknowledged order stored, the two stores agree again.
    let writer = app::orders::writer::spawn(b.clone());
    wait_for_orders(&db, 6).await;
    writer.abort();
    let audit = service::audit(a, None).await.unwrap();
    assert_eq!((audit[0].pg_stock, audit[0].pg_orders, audit[0].redis_stock), (4, 6, Some(4)), "{audit:?}");
    assert_eq!(audit[0].drift(), 0);
    assert!(app::platform::marker::state_present(&a.redis, &a.keys).await.unwrap());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_order_waiting_for_a_resend_counts_as_sold_when_the_state_is_rebuilt(db: PgPool) {
    let states = test_instances(db.clone(), 1, &[]).await;
    let a = &states[0];
    app::platform::kafka::ensure_topics(&a.config).await.unwrap();
    seed_flash_sale(&db, SALE, 10, -60, 3600).await.unwrap();
    let users = seed_users(&db, 460, 2).await.unwrap();
    app::recovery::service::rebuild(a).await.unwrap();

    // A grab hears nothing from the broker in time: its buyer is told yes, and its order waits for a
    // resend. Then Redis loses everything — the queue is in Postgres, so the order is still counted.
    let waiting = app::platform::kafka::OrderCreated {
        order_id: a.ids.next_id().unwrap(),
        user_id: users[0],
        voucher_id: SALE,
        ts: app::shared::clock::now_ms(),
    };
    service::queue_for_resend(a, &waiting).await.unwrap();
    app::platform::keys::unlink_matching(&a.redis, &format!("{}*", a.config.redis_key_prefix)).await.unwrap();
    assert_eq!(service::compensation_backlog(a).await.unwrap(), 1, "the resend outlives Redis");

    assert_eq!(heal_once(a).await.unwrap().map(|r| r.sales), Some(1));
    assert_eq!(
        inventory::sale_state(&a.redis, &a.keys, SALE).await.unwrap(),
        (Some(9), 1),
        "the waiting order holds its coupon"
    );
    assert!(matches!(grab(a, users[0]).await, Err(SeckillError::Refused(GrabCode::AlreadyBought))));
    grab(a, users[1]).await.expect("another buyer gets one of the nine left");

    // The resend goes out and both orders are written: nothing acknowledged was lost with Redis.
    assert_eq!(service::drain_compensation(a).await.unwrap(), 1);
    assert_eq!(service::compensation_backlog(a).await.unwrap(), 0);
    let writer = app::orders::writer::spawn(a.clone());
    wait_for_orders(&db, 2).await;
    writer.abort();
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_order_still_on_its_way_to_kafka_when_redis_is_lost_counts_as_sold(db: PgPool) {
    let states = test_instances(db.clone(), 1, &[("KAFKA_PRODUCE_TIMEOUT_MS", "1000")]).await;
    let a = &states[0];
    app::platform::kafka::ensure_topics(&a.config).await.unwrap();
    seed_flash_sale(&db, SALE, 10, -60, 3600).await.unwrap();
    let users = seed_users(&db, 470, 1).await.unwrap();
    app::recovery::service::rebuild(a).await.unwrap();

    // Redis loses everything while a grab that ran on it is still sending its order; the send lands
    // once the loss has been noticed.
    app::platform::keys::unlink_matching(&a.redis, &format!("{}*", a.config.redis_key_prefix)).await.unwrap();
    let heal = tokio::spawn({
        let a = a.clone();
        async move { heal_once(&a).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let late = app::platform::kafka::OrderCreated {
        order_id: a.ids.next_id().unwrap(),
        user_id: users[0],
        voucher_id: SALE,
        ts: app::shared::clock::now_ms(),
    };
    let topic = app::platform::kafka::topic(&a.config, app::platform::kafka::ORDERS_CREATED);
    let sent = a.publisher.send(&topic, &serde_json::to_vec(&late).unwrap()).await;
    assert!(matches!(sent, app::platform::kafka::Delivery::Persisted), "{sent:?}");

    assert_eq!(heal.await.unwrap().unwrap().map(|r| r.sales), Some(1));
    assert_eq!(
        inventory::sale_state(&a.redis, &a.keys, SALE).await.unwrap(),
        (Some(9), 1),
        "the order sent during the rebuild holds its coupon"
    );
    assert!(matches!(grab(a, users[0]).await, Err(SeckillError::Refused(GrabCode::AlreadyBought))));
}
