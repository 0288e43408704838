//! The grab end to end on real Redis, Postgres and Kafka (Nisshi): no oversell, one order per user, each
//! refusal its own clear answer with nothing written, and every success persisted by the order writer.

use std::time::Duration;

use app::sale::inventory::{self, GrabCode};
use app::seckill::service::{self, SeckillError};
use app::shared::clock::now_ms;
use app::shared::error::{AppError, Thing};
use app::shared::i18n::{Locale, td_string};
use app::testing::{expires_at, sale_end_ms, seed_flash_sale, seed_users, test_state};
use app::web::state::AppState;
use sqlx::PgPool;

/// The sale in Postgres and its Redis state, loaded the way start-up loads it.
async fn open_sale(state: &AppState, voucher_id: i64, stock: i32, begin_secs: i64, end_secs: i64) {
    seed_flash_sale(&state.db, voucher_id, stock, begin_secs, end_secs).await.unwrap();
    service::restore_sales(state).await.unwrap();
    assert_eq!(
        inventory::sale_state(&state.redis, &state.keys, voucher_id).await.unwrap(),
        (Some(i64::from(stock)), 0)
    );
}

/// Waits until `n` orders of `voucher_id` are in Postgres (or fails after 60 s).
async fn drained(db: &PgPool, voucher_id: i64, n: i64) -> Duration {
    let started = std::time::Instant::now();
    loop {
        let written: i64 = sqlx::query_scalar("SELECT count(*) FROM orders WHERE voucher_id = $1")
            .bind(voucher_id)
            .fetch_one(db)
            .await
            .unwrap();
        if written >= n {
            return started.elapsed();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "only {written} of {n} orders written after 60 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Fires one grab per user, all at once; returns the order ids of the successes and the refusals.
async fn grab_all(state: &AppState, voucher_id: i64, users: &[i64]) -> (Vec<i64>, Vec<SeckillError>) {
    let tasks: Vec<_> = users
        .iter()
        .map(|&u| {
            let state = state.clone();
            tokio::spawn(async move { service::grab(&state, u, voucher_id, "10.0.0.1").await })
        })
        .collect();
    let mut ok = Vec::new();
    let mut refused = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(id) => ok.push(id),
            Err(e) => refused.push(e),
        }
    }
    (ok, refused)
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_thousand_buyers_on_a_hundred_coupons_three_times_no_oversell(db: PgPool) {
    let state = test_state(db.clone(), &[("IP_RATE_LIMIT", "1000000")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let writer = app::orders::writer::spawn(state.clone());
    let users = seed_users(&db, 400, 1000).await.unwrap();
    for round in 0..3 {
        let vid = 100 + round;
        open_sale(&state, vid, 100, -60, 3600).await;
        let (ok, refused) = grab_all(&state, vid, &users).await;
        assert_eq!(ok.len(), 100, "round {round}: exactly the stock is sold");
        assert!(
            refused.iter().all(|e| matches!(e, SeckillError::Refused(GrabCode::SoldOut))),
            "round {round}: {refused:?}"
        );
        drained(&db, vid, 100).await;
        tokio::time::sleep(Duration::from_millis(300)).await; // a late duplicate would show up now
        let (rows, distinct_users, pg_stock): (i64, i64, i32) = sqlx::query_as(
            "SELECT count(*), count(DISTINCT user_id), (SELECT stock FROM vouchers WHERE id = $1) FROM orders WHERE voucher_id = $1",
        )
        .bind(vid)
        .fetch_one(&db)
        .await
        .unwrap();
        assert_eq!((rows, distinct_users, pg_stock), (100, 100, 0), "round {round}");
        let (redis_stock, buyers) = inventory::sale_state(&state.redis, &state.keys, vid).await.unwrap();
        assert_eq!((redis_stock, buyers), (Some(0), 100), "round {round}");
        let mut ids: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM orders WHERE voucher_id = $1").bind(vid).fetch_all(&db).await.unwrap();
        let mut acked = ok.clone();
        ids.sort_unstable();
        acked.sort_unstable();
        assert_eq!(ids, acked, "round {round}: every acknowledged order id is the one written");
    }
    writer.abort();
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn fifty_concurrent_grabs_of_one_user_make_one_order(db: PgPool) {
    let state = test_state(db.clone(), &[("IP_RATE_LIMIT", "1000000")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let writer = app::orders::writer::spawn(state.clone());
    let user = seed_users(&db, 401, 1).await.unwrap()[0];
    open_sale(&state, 7, 10, -60, 3600).await;
    let (ok, refused) = grab_all(&state, 7, &[user; 50]).await;
    assert_eq!(ok.len(), 1, "one order per user");
    // The per-user limit (5 per window) stops most; those that reach Redis are told they already have one.
    assert!(
        refused
            .iter()
            .all(|e| matches!(e, SeckillError::RateLimited(_) | SeckillError::Refused(GrabCode::AlreadyBought)))
    );
    assert!(refused.iter().any(|e| matches!(e, SeckillError::Refused(GrabCode::AlreadyBought))));
    drained(&db, 7, 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rows: i64 =
        sqlx::query_scalar("SELECT count(*) FROM orders WHERE user_id = $1").bind(user).fetch_one(&db).await.unwrap();
    assert_eq!(rows, 1);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 7).await.unwrap(), (Some(9), 1));
    writer.abort();
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn before_start_after_end_and_unknown_sale_each_answer_clearly_and_write_nothing(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let user = seed_users(&db, 402, 1).await.unwrap()[0];
    open_sale(&state, 1, 5, 600, 3600).await;
    // An ended sale is not restored at start-up; load it the way the merchant's creation would.
    seed_flash_sale(&db, 2, 5, -7200, -3600).await.unwrap();
    let now = now_ms();
    inventory::load_sale(&state.redis, &state.keys, 2, 5, (now - 7_200_000, now - 3_600_000), false, now + 3_600_000)
        .await
        .unwrap();

    let answers = [
        (1, GrabCode::NotStarted, AppError::invalid("grab", td_string!(Locale::zh_CN, seckill.err_not_started))),
        (2, GrabCode::Ended, AppError::invalid("grab", td_string!(Locale::zh_CN, seckill.err_ended))),
        (999, GrabCode::NoSuchSale, AppError::NotFound(Thing::FlashSale)),
    ];
    for (vid, code, answer) in answers {
        let err = service::grab(&state, user, vid, "10.0.0.2").await.expect_err("refused");
        assert!(matches!(err, SeckillError::Refused(c) if c == code), "voucher {vid}: {err:?}");
        assert_eq!(AppError::from(err), answer);
    }
    assert_eq!(AppError::from(SeckillError::Refused(GrabCode::NoSuchSale)).status_code(), 404);
    assert_eq!(AppError::from(SeckillError::Refused(GrabCode::NotStarted)).status_code(), 400);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 1).await.unwrap(), (Some(5), 0));
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 2).await.unwrap(), (Some(5), 0));
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 999).await.unwrap(), (None, 0), "no keys made up");
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM orders").fetch_one(&db).await.unwrap();
    assert_eq!(rows, 0);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_rate_limit_answers_with_the_wait(db: PgPool) {
    let state = test_state(db.clone(), &[("SECKILL_RATE_LIMIT", "2"), ("SECKILL_RATE_WINDOW_SECS", "30")]).await;
    let user = seed_users(&db, 403, 1).await.unwrap()[0];
    open_sale(&state, 3, 5, 600, 3600).await;
    for _ in 0..2 {
        assert!(matches!(
            service::grab(&state, user, 3, "10.0.0.3").await,
            Err(SeckillError::Refused(GrabCode::NotStarted))
        ));
    }
    let err = service::grab(&state, user, 3, "10.0.0.3").await.expect_err("throttled");
    let SeckillError::RateLimited(wait) = err else { panic!("expected a rate limit, got {err:?}") };
    assert!(wait > 25_000 && wait <= 30_000, "wait {wait} ms");
    match AppError::from(SeckillError::RateLimited(wait)) {
        AppError::TooManyRequests { message, retry_after_secs } => {
            assert_eq!(retry_after_secs, wait.div_ceil(1000));
            assert_eq!(message, td_string!(Locale::zh_CN, seckill.err_too_many_tries, secs = retry_after_secs));
        }
        other => panic!("{other:?}"),
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn start_up_restores_sales_redis_lost_but_never_overwrites_a_live_one(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 404, 2).await.unwrap();
    seed_flash_sale(&db, 5, 10, -60, 3600).await.unwrap();
    sqlx::query("INSERT INTO orders (id, user_id, voucher_id, kind, status, amount_cents) VALUES (1, $1, 5, 'flash', 'unpaid', 990)")
        .bind(users[0])
        .execute(&db)
        .await
        .unwrap();
    sqlx::query("UPDATE vouchers SET stock = 9 WHERE id = 5").execute(&db).await.unwrap();
    assert_eq!(service::restore_sales(&state).await.unwrap(), 1);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 5).await.unwrap(), (Some(9), 1));
    let forget_at = service::forget_at_ms(&state, sale_end_ms(&db, 5).await.unwrap());
    for key in [state.keys.seckill_stock(5), state.keys.seckill_buyers(5), state.keys.seckill_window(5)] {
        assert_eq!(
            expires_at(&state.redis, &key).await.unwrap(),
            forget_at,
            "{key} is restored with the sale's lifetime"
        );
    }
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 5, users[0], 0).await.unwrap(), GrabCode::AlreadyBought);
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 5, users[1], 0).await.unwrap(), GrabCode::Ok);
    // Redis is now ahead of Postgres (an order in flight): a restart must not reset it.
    assert_eq!(service::restore_sales(&state).await.unwrap(), 0);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 5).await.unwrap(), (Some(8), 2));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn start_up_gives_a_lifetime_to_a_sale_loaded_without_one_and_keeps_its_figures(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_flash_sale(&db, 6, 10, -60, 3600).await.unwrap();
    // The state an older version wrote: no expiry anywhere, and Redis ahead of Postgres.
    let mut redis = state.redis.clone();
    let _: () = redis::pipe()
        .cmd("SET")
        .arg(state.keys.seckill_stock(6))
        .arg(7)
        .ignore()
        .cmd("SADD")
        .arg(state.keys.seckill_buyers(6))
        .arg(1)
        .arg(2)
        .arg(3)
        .ignore()
        .cmd("HSET")
        .arg(state.keys.seckill_window(6))
        .arg("begin")
        .arg(0)
        .arg("end")
        .arg(i64::MAX)
        .ignore()
        .cmd("SADD")
        .arg(state.keys.seckill_released(6))
        .arg(99)
        .ignore()
        .query_async(&mut redis)
        .await
        .unwrap();
    assert_eq!(service::restore_sales(&state).await.unwrap(), 0, "a sale Redis knows is not rewritten");
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 6).await.unwrap(), (Some(7), 3));
    let forget_at = service::forget_at_ms(&state, sale_end_ms(&db, 6).await.unwrap());
    let keys = [
        state.keys.seckill_stock(6),
        state.keys.seckill_buyers(6),
        state.keys.seckill_window(6),
        state.keys.seckill_released(6),
    ];
    for key in keys {
        assert_eq!(expires_at(&state.redis, &key).await.unwrap(), forget_at, "{key}");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn when_postgres_has_fewer_coupons_than_redis_the_first_refusal_teaches_redis(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    open_sale(&state, 77, 3, -60, 3600).await;
    let users = seed_users(&db, 480, 3).await.unwrap();
    // Postgres, the truth, has none left (a merchant's correction, a drift): Redis still thinks 3.
    sqlx::query("UPDATE vouchers SET stock = 0 WHERE id = 77").execute(&db).await.unwrap();

    let first = service::grab(&state, users[0], 77, "10.0.0.1").await.expect("Redis still says yes");
    let writer = app::orders::writer::spawn(state.clone());
    let started = std::time::Instant::now();
    while !matches!(
        app::orders::writer::status(&state, users[0], first).await.unwrap(),
        app::orders::model::OrderStatus::Failed(_)
    ) {
        assert!(started.elapsed() < Duration::from_secs(60), "the refusal never came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Redis learns it right after the refusal is recorded: no coupon comes back, the buyer is let go.
    while inventory::sale_state(&state.redis, &state.keys, 77).await.unwrap() != (Some(0), 0) {
        assert!(started.elapsed() < Duration::from_secs(60), "Redis never learnt that Postgres has none left");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    writer.abort();
    // The next buyers hear "sold out" at once.
    for u in &users[1..] {
        let refused = service::grab(&state, *u, 77, "10.0.0.1").await.unwrap_err();
        assert!(matches!(refused, SeckillError::Refused(GrabCode::SoldOut)), "{refused:?}");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_audit_lowers_redis_where_it_is_ahead_of_postgres_and_the_orders_in_flight(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    open_sale(&state, 78, 5, -60, 3600).await;
    let users = seed_users(&db, 490, 4).await.unwrap();
    // Two grabs acknowledged: their orders are in Kafka, not yet in Postgres (no writer runs).
    service::grab(&state, users[0], 78, "10.0.0.1").await.unwrap();
    service::grab(&state, users[1], 78, "10.0.0.1").await.unwrap();
    assert_eq!(service::cap_sales_ahead(&state).await.unwrap(), 0, "3 left is the truth: 5 − 2 in flight");
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 78).await.unwrap(), (Some(3), 2));

    // Postgres' stock falls to 3 (a correction): with 2 in flight, 1 is left, and Redis says 3.
    sqlx::query("UPDATE vouchers SET stock = 3 WHERE id = 78").execute(&db).await.unwrap();
    assert_eq!(service::cap_sales_ahead(&state).await.unwrap(), 2);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 78).await.unwrap(), (Some(1), 2));
    assert_eq!(service::cap_sales_ahead(&state).await.unwrap(), 0, "once taught, nothing more to lower");
    service::grab(&state, users[2], 78, "10.0.0.1").await.expect("the one coupon left");
    let refused = service::grab(&state, users[3], 78, "10.0.0.1").await.unwrap_err();
    assert!(matches!(refused, SeckillError::Refused(GrabCode::SoldOut)), "{refused:?}");

    // The writer then stores all three: Postgres and Redis agree at 0, and the audit leaves them so.
    let writer = app::orders::writer::spawn(state.clone());
    drained(&db, 78, 3).await;
    writer.abort();
    assert_eq!(service::cap_sales_ahead(&state).await.unwrap(), 0);
    let stock: i32 = sqlx::query_scalar("SELECT stock FROM vouchers WHERE id = 78").fetch_one(&db).await.unwrap();
    assert_eq!(stock, 0);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_grab_no_replica_confirms_is_given_back_and_the_buyer_asked_to_retry(db: PgPool) {
    // One Redis node with no replica, whatever REDIS_URL says (on a cluster, replicas would confirm).
    let overrides = [("REDIS_URL", "redis://127.0.0.1:6379/0"), ("GRAB_REPLICAS", "1"), ("GRAB_REPLICA_WAIT_MS", "50")];
    let state = test_state(db.clone(), &overrides).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    open_sale(&state, 79, 2, -60, 3600).await;
    let users = seed_users(&db, 500, 1).await.unwrap();

    let refused = service::grab(&state, users[0], 79, "10.0.0.1").await.unwrap_err();
    assert!(matches!(refused, SeckillError::NotReplicated), "{refused:?}");
    assert!(matches!(AppError::from(refused), AppError::Unavailable(_)), "a 503: try again");
    assert_eq!(
        inventory::sale_state(&state.redis, &state.keys, 79).await.unwrap(),
        (Some(2), 0),
        "nothing taken: the coupon is back and the buyer free to try again"
    );
    let orders: i64 =
        sqlx::query_scalar("SELECT count(*) FROM order_resends WHERE voucher_id = 79").fetch_one(&db).await.unwrap();
    assert_eq!(orders, 0, "no order queued for it");
}

/// The home page's row of sales: those on now with stock left first (what is left as Redis counts it, so
/// a sale grabbed empty drops out before Postgres has caught up), then those to come, soonest first; over
/// and sold-out ones left out; no more than asked for.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_home_page_shows_sales_on_now_then_the_soonest_to_come(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    open_sale(&state, 101, 5, -600, 3_600).await; // on since 10 minutes
    open_sale(&state, 102, 1, -900, 3_600).await; // on, and grabbed empty below
    open_sale(&state, 103, 5, 3_600, 7_200).await; // in an hour
    open_sale(&state, 104, 5, 600, 7_200).await; // in 10 minutes
    open_sale(&state, 106, 5, -300, 3_600).await; // on since 5 minutes
    seed_flash_sale(&db, 105, 5, -7_200, -600).await.unwrap(); // over
    let user = seed_users(&db, 77, 1).await.unwrap()[0];
    service::grab(&state, user, 101, "10.0.0.7").await.unwrap();
    service::grab(&state, user, 102, "10.0.0.7").await.unwrap();

    let before = now_ms();
    let now = service::sales_now(&state, 10).await.unwrap();
    assert!((before..=now_ms()).contains(&now.server_now_ms), "the clock the countdowns start from");
    let shown: Vec<(i64, i64)> = now.sales.iter().map(|s| (s.voucher_id, s.left)).collect();
    assert_eq!(shown, [(101, 4), (106, 5), (104, 5), (103, 5)]);
    assert!(now.sales.iter().all(|s| s.shop_id == 1 && s.shop_name == "S" && s.pay_value_cents == 990));
    let first = service::sales_now(&state, 3).await.unwrap().sales;
    assert_eq!(first.iter().map(|s| s.voucher_id).collect::<Vec<_>>(), [101, 106, 104]);
}

/// A sale's primary without a replica (a failover's promoted node before the old one rejoins) holds every
/// grab's `WAIT` for its whole timeout, and the grabs' `WAIT`s queue on their connection, so most grabs reach
/// their send line still waiting. That is the replicas' lag, not Redis failing: the Redis breaker stays
/// closed (an open one would refuse every session read and page of the instance), and every grab is given
/// back, nothing taken.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn grabs_waiting_on_a_missing_replica_do_not_open_the_redis_breaker(db: PgPool) {
    // One Redis node with no replica, whatever REDIS_URL says; the send line 2 s after the script
    // (STRANDED_GRAB_SECS 8 less a second's margin less the send's settle time of 1 + 4 s).
    let overrides = [
        ("REDIS_URL", "redis://127.0.0.1:6379/0"),
        ("GRAB_REPLICAS", "1"),
        ("GRAB_REPLICA_WAIT_MS", "1000"),
        ("KAFKA_PRODUCE_TIMEOUT_MS", "1000"),
        ("STRANDED_GRAB_SECS", "8"),
        ("BREAKER_FAILURES", "3"),
    ];
    let state = test_state(db.clone(), &overrides).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    open_sale(&state, 80, 8, -60, 3600).await;
    let users = seed_users(&db, 600, 8).await.unwrap();

    let grabs = users.iter().map(|&user| {
        app::web::edge::run_outside(state.clone(), move |cx| async move {
            let outcome = service::grab(&cx.state, user, 80, "10.0.0.1").await;
            Ok::<_, app::web::edge::Failure>(outcome.map_or_else(|e| e.outcome_label(), |_| "ok"))
        })
    });
    let outcomes: Vec<&str> = futures::future::join_all(grabs).await.into_iter().map(Result::unwrap).collect();
    let unsure = outcomes.iter().filter(|o| **o == "unsure").count();
    assert!(unsure >= 3, "most grabs queue past their send line: {outcomes:?}");
    assert!(outcomes.iter().all(|o| matches!(*o, "unsure" | "not_replicated")), "{outcomes:?}");
    assert_eq!(
        state.breakers.redis.state(),
        app::platform::breaker::BreakerState::Closed,
        "Redis answered every call: its breaker stays closed"
    );

    // The unsure ones are checked in the background and given back, as the unconfirmed ones were.
    let started = std::time::Instant::now();
    loop {
        let sale = inventory::sale_state(&state.redis, &state.keys, 80).await.unwrap();
        if sale == (Some(8), 0) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "not every grab given back: {sale:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
