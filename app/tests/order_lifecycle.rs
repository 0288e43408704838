//! Unpaid orders close by themselves (delayed close checks through Kafka, and the sweeper as backstop) or
//! are cancelled by their buyers, paid coupons are refunded on request or when they expire unused;
//! payment races the closer, a cancel the closer, a refund the counter and a second refund, each cleanly,
//! and stock and money come back exactly once — on real Postgres, Redis and Nisshi.

use std::time::{Duration, Instant};

use app::orders::model::{
    CancelOutcome, OrderStatus, PayOutcome, RedeemCode, RefundCause, RefundOutcome, RefundReason,
};
use app::orders::service::{self, CloseOutcome, OrderError};
use app::orders::writer::write_batch;
use app::platform::kafka::OrderCreated;
use app::sale::inventory::{self, GrabCode};
use app::shared::clock::now_ms;
use app::testing::{seed_flash_sale, seed_users, test_state};
use app::web::state::AppState;
use sqlx::PgPool;

/// Grabs in Redis and stores the orders the way the writer does (no Kafka): one per user.
async fn stored_orders(state: &AppState, voucher_id: i64, users: &[i64], ts: i64) -> Vec<OrderCreated> {
    let mut orders = Vec::new();
    for &u in users {
        let order_id = state.ids.next_id().unwrap();
        let code = inventory::try_grab(&state.redis, &state.keys, voucher_id, u, order_id).await.unwrap();
        assert_eq!(code, GrabCode::Ok);
        orders.push(OrderCreated { order_id, user_id: u, voucher_id, ts });
    }
    let out = write_batch(&state.db, &orders).await.unwrap();
    assert_eq!(out.inserted.len(), users.len());
    orders
}

async fn open_sale(state: &AppState, voucher_id: i64, stock: i32) {
    seed_flash_sale(&state.db, voucher_id, stock, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(state).await.unwrap();
}

/// (Redis stock, Redis buyers, Postgres stock).
async fn stocks(state: &AppState, voucher_id: i64) -> (i64, u64, i64) {
    let (redis, buyers) = inventory::sale_state(&state.redis, &state.keys, voucher_id).await.unwrap();
    let pg: i32 = sqlx::query_scalar("SELECT stock FROM vouchers WHERE id = $1")
        .bind(voucher_id)
        .fetch_one(&state.db)
        .await
        .unwrap();
    (redis.unwrap(), buyers, i64::from(pg))
}

async fn status_of(db: &PgPool, order_id: i64) -> String {
    sqlx::query_scalar("SELECT status FROM orders WHERE id = $1").bind(order_id).fetch_one(db).await.unwrap()
}

async fn wait_for(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_unpaid_order_closes_after_the_timeout_and_the_coupon_can_be_grabbed_again(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "2"), ("IP_RATE_LIMIT", "1000000")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let workers = [app::orders::writer::spawn(state.clone()), app::orders::closer::spawn(state.clone())];
    let user = seed_users(&db, 420, 1).await.unwrap()[0];
    open_sale(&state, 11, 5).await;

    let first = app::seckill::service::grab(&state, user, 11, "10.0.0.1").await.unwrap();
    wait_for("the order written", async || {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM orders WHERE id = $1")
            .bind(first)
            .fetch_one(&db)
            .await
            .unwrap()
            == 1
    })
    .await;
    assert_eq!(stocks(&state, 11).await, (4, 1, 4));
    assert_eq!(status_of(&db, first).await, "unpaid");
    let started = Instant::now();
    wait_for("the order closed", async || status_of(&db, first).await == "closed").await;
    assert!(started.elapsed() < Duration::from_secs(15), "closed {:?} after being written", started.elapsed());
    assert_eq!(stocks(&state, 11).await, (5, 0, 5), "Redis and Postgres both got the coupon back");

    let second = app::seckill::service::grab(&state, user, 11, "10.0.0.1").await.expect("grabbable again");
    assert_ne!(first, second);
    wait_for("the second order written", async || {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM orders WHERE id = $1")
            .bind(second)
            .fetch_one(&db)
            .await
            .unwrap()
            == 1
    })
    .await;
    assert_eq!(service::pay(&state, user, second).await.unwrap(), PayOutcome::Paid);
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(status_of(&db, second).await, "paid", "a paid order is never closed");
    assert_eq!(stocks(&state, 11).await, (4, 1, 4));
    workers.iter().for_each(|w| w.abort());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn pay_and_close_race_on_two_hundred_orders_each_settles_exactly_once(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 421, 200).await.unwrap();
    open_sale(&state, 12, 200).await;
    let orders = stored_orders(&state, 12, &users, now_ms()).await;
    assert_eq!(stocks(&state, 12).await, (0, 200, 0));

    let tasks: Vec<_> = orders
        .iter()
        .map(|o| {
            let (s1, s2, o) = (state.clone(), state.clone(), o.clone());
            tokio::spawn(async move {
                let (paid, closed) =
                    tokio::join!(service::pay(&s1, o.user_id, o.order_id), service::close(&s2, o.order_id));
                (o.order_id, paid.unwrap(), closed.unwrap())
            })
        })
        .collect();
    let (mut paid, mut refunded) = (0, 0);
    for t in tasks {
        let (id, pay, close) = t.await.unwrap();
        let status = status_of(&db, id).await;
        match (pay, close) {
            (PayOutcome::Paid, CloseOutcome::Unchanged) => {
                assert_eq!(status, "paid");
                paid += 1;
            }
            (PayOutcome::Refunded, CloseOutcome::Closed) => {
                assert_eq!(status, "refunded", "closed first, then the payment was refunded");
                refunded += 1;
            }
            other => panic!("order {id}: impossible settlement {other:?}"),
        }
    }
    assert_eq!(paid + refunded, 200);
    let refunds: i64 = sqlx::query_scalar("SELECT count(*) FROM refunds").fetch_one(&db).await.unwrap();
    assert_eq!(refunds, refunded, "one refund per order paid after closing");
    let (redis, buyers, pg) = stocks(&state, 12).await;
    assert_eq!((redis, pg), (refunded, refunded), "stock returned exactly for the closed orders");
    assert_eq!(buyers as i64, paid);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn duplicate_close_checks_and_a_closer_restart_close_each_order_once(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "6")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let users = seed_users(&db, 422, 21).await.unwrap();
    open_sale(&state, 13, 21).await;
    let closed = || state.metrics.orders.closed.get();
    let now = now_ms();
    // One order already overdue, its check sent first (so it heads its partition), then 20 fresh orders
    // whose checks are due in 6 s, every one sent twice.
    let overdue = stored_orders(&state, 13, &users[..1], now - 60_000).await.remove(0);
    service::publish_close_checks(&state, &[(overdue.order_id, overdue.ts)]).await.unwrap();
    let orders = stored_orders(&state, 13, &users[1..], now).await;
    let checks: Vec<(i64, i64)> = orders.iter().map(|o| (o.order_id, o.ts)).collect();
    service::publish_close_checks(&state, &checks).await.unwrap();
    service::publish_close_checks(&state, &checks).await.unwrap();

    // The first closer is demonstrably consuming — it closes the overdue order — yet closes none of the
    // fresh ones (their partitions pause until due); then it is killed and a new one takes over.
    let first = app::orders::closer::spawn(state.clone());
    wait_for("the overdue order closed", async || status_of(&db, overdue.order_id).await == "closed").await;
    assert!(now_ms() < now + 5_000, "the check came too late to tell early from on time; rerun on a quieter machine");
    first.abort();
    let _ = first.await;
    for o in &orders {
        assert_eq!(status_of(&db, o.order_id).await, "unpaid", "a check that is not due yet closes nothing");
    }
    assert_eq!(closed(), 1);
    let second = app::orders::closer::spawn(state.clone());
    wait_for("all orders closed", async || {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM orders WHERE voucher_id = 13 AND status = 'closed'")
            .fetch_one(&db)
            .await
            .unwrap()
            == 21
    })
    .await;
    assert!(now_ms() >= now + 6_000, "no fresh order closed before its deadline");
    tokio::time::sleep(Duration::from_secs(1)).await; // the duplicates are consumed too
    assert_eq!(closed(), 21, "each order closed once");
    assert_eq!(stocks(&state, 13).await, (21, 0, 21), "stock released once per order");
    second.abort();
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_sweeper_alone_closes_overdue_orders_the_same_way(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "2")]).await;
    let users = seed_users(&db, 423, 6).await.unwrap();
    open_sale(&state, 14, 10).await;
    let now = now_ms();
    let overdue = stored_orders(&state, 14, &users[..4], now - 10_000).await;
    let fresh = stored_orders(&state, 14, &users[4..], now).await;
    assert_eq!(service::sweep(&state).await.unwrap(), 4);
    for o in &overdue {
        assert_eq!(status_of(&db, o.order_id).await, "closed");
    }
    for o in &fresh {
        assert_eq!(status_of(&db, o.order_id).await, "unpaid", "not overdue yet");
    }
    assert_eq!(stocks(&state, 14).await, (8, 2, 8));
    assert_eq!(service::sweep(&state).await.unwrap(), 0, "a second sweep finds nothing");
    assert_eq!(stocks(&state, 14).await, (8, 2, 8));
    // Closed past its deadline: a payment now is not taken, so there is nothing to refund.
    assert_eq!(service::pay(&state, users[0], overdue[0].order_id).await.unwrap(), PayOutcome::Expired);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn nobody_else_can_pay_or_see_my_order(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 424, 2).await.unwrap();
    open_sale(&state, 15, 3).await;
    let mine = stored_orders(&state, 15, &users[..1], now_ms()).await.remove(0);
    assert!(matches!(service::pay(&state, users[1], mine.order_id).await, Err(OrderError::NotFound)));
    let theirs = app::orders::writer::status(&state, users[1], mine.order_id).await.unwrap();
    assert_eq!(theirs, app::orders::model::OrderStatus::Queued, "someone else's order looks like one not stored yet");
    assert!(service::my_orders(&state, users[1], None).await.unwrap().orders.is_empty());
    assert_eq!(service::my_orders(&state, users[0], None).await.unwrap().orders.len(), 1);
    assert_eq!(status_of(&db, mine.order_id).await, "unpaid", "untouched");
    assert_eq!(service::pay(&state, users[0], mine.order_id).await.unwrap(), PayOutcome::Paid);
    assert_eq!(service::pay(&state, users[0], mine.order_id).await.unwrap(), PayOutcome::AlreadyPaid);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_normal_coupon_is_bought_at_once_and_follows_the_same_lifecycle(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "1")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    app::testing::seed_shop(&db).await.unwrap();
    sqlx::query(
        "INSERT INTO vouchers (id, shop_id, title, pay_value_cents, actual_value_cents, kind) VALUES (16, 1, 'N', 8800, 10000, 'normal')",
    )
    .execute(&db)
    .await
    .unwrap();
    let user = seed_users(&db, 425, 1).await.unwrap()[0];
    assert!(matches!(service::buy(&state, user, 999).await, Err(OrderError::VoucherNotFound)));
    let id = service::buy(&state, user, 16).await.unwrap();
    assert_eq!(status_of(&db, id).await, "unpaid");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(service::sweep(&state).await.unwrap(), 1);
    assert_eq!(status_of(&db, id).await, "closed");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn my_orders_pages_through_every_order_newest_first_without_a_skip_or_a_repeat(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "600")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    app::testing::seed_shop(&db).await.unwrap();
    sqlx::query(
        "INSERT INTO vouchers (id, shop_id, title, pay_value_cents, actual_value_cents, kind) VALUES (18, 1, 'N', 8800, 10000, 'normal')",
    )
    .execute(&db)
    .await
    .unwrap();
    let users = seed_users(&db, 427, 2).await.unwrap();
    let mut bought = Vec::new();
    for _ in 0..45 {
        bought.push(service::buy(&state, users[0], 18).await.unwrap());
    }
    let theirs = service::buy(&state, users[1], 18).await.unwrap();
    // Two orders made in the same instant: the list breaks the tie by id, and so must the pages.
    sqlx::query("UPDATE orders SET created_at = (SELECT created_at FROM orders WHERE id = $1) WHERE id = $2")
        .bind(bought[10])
        .bind(bought[11])
        .execute(&db)
        .await
        .unwrap();
    let expected: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM orders WHERE user_id = $1 ORDER BY created_at DESC, id DESC")
            .bind(users[0])
            .fetch_all(&db)
            .await
            .unwrap();

    let (mut seen, mut sizes, mut before) = (Vec::new(), Vec::new(), None);
    loop {
        let page = service::my_orders(&state, users[0], before).await.unwrap();
        sizes.push(page.orders.len());
        seen.extend(page.orders.iter().map(|o| o.id));
        match page.next_before {
            Some(next) => before = Some(next),
            None => break,
        }
    }
    assert_eq!(sizes, [20, 20, 5]);
    assert_eq!(seen, expected, "every order once, newest first");
    assert!(!seen.contains(&theirs));
    // Someone else's order starts no page of mine.
    assert!(service::my_orders(&state, users[0], Some(theirs)).await.unwrap().orders.is_empty());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn paying_after_the_deadline_charges_nothing_and_closes_the_order(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "2")]).await;
    let users = seed_users(&db, 426, 2).await.unwrap();
    open_sale(&state, 17, 5).await;
    // The closer is not running: only the deadline stands between the late buyer and a payment.
    let late = stored_orders(&state, 17, &users[..1], now_ms() - 10_000).await.remove(0);
    let on_time = stored_orders(&state, 17, &users[1..], now_ms()).await.remove(0);
    assert_eq!(service::pay(&state, users[0], late.order_id).await.unwrap(), PayOutcome::Expired);
    assert_eq!(status_of(&db, late.order_id).await, "closed");
    let refunds: i64 = sqlx::query_scalar("SELECT count(*) FROM refunds").fetch_one(&db).await.unwrap();
    assert_eq!(refunds, 0, "nothing was charged, so nothing is refunded");
    assert_eq!(stocks(&state, 17).await, (4, 1, 4), "its coupon went back at once");
    assert_eq!(service::pay(&state, users[1], on_time.order_id).await.unwrap(), PayOutcome::Paid);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn paying_a_closed_order_twice_charges_and_refunds_nothing(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "2")]).await;
    let users = seed_users(&db, 427, 1).await.unwrap();
    open_sale(&state, 18, 5).await;
    let late = stored_orders(&state, 18, &users, now_ms() - 10_000).await.remove(0);
    // The first try finds it unpaid past its deadline and closes it; the second finds it closed.
    for attempt in ["first", "second"] {
        let outcome = service::pay(&state, users[0], late.order_id).await.unwrap();
        assert_eq!(outcome, PayOutcome::Expired, "{attempt} try");
        assert!(outcome.message().contains("nothing was charged"), "{attempt} try");
        assert_eq!(status_of(&db, late.order_id).await, "closed", "{attempt} try");
    }
    let refunds: i64 = sqlx::query_scalar("SELECT count(*) FROM refunds").fetch_one(&db).await.unwrap();
    assert_eq!(refunds, 0, "nothing was charged, so there is nothing to refund");
    assert_eq!(stocks(&state, 18).await, (5, 0, 5), "its coupon went back once");
}

/// Pays each order (all must succeed).
async fn pay_all(state: &AppState, orders: &[OrderCreated]) {
    for o in orders {
        assert_eq!(service::pay(state, o.user_id, o.order_id).await.unwrap(), PayOutcome::Paid);
    }
}

/// Per order, what was charged minus what was refunded, and what it should come to: its price while paid
/// or used, nothing otherwise — money is conserved order by order.
async fn assert_money_conserved(db: &PgPool) {
    let wrong: Vec<(i64, String, i64, i64)> = sqlx::query_as(
        "SELECT o.id, o.status, COALESCE(c.amount_cents, 0) - COALESCE(r.amount_cents, 0) AS net,
                CASE WHEN o.status IN ('paid', 'used') THEN o.amount_cents ELSE 0 END AS expected
         FROM orders o LEFT JOIN charges c ON c.order_id = o.id LEFT JOIN refunds r ON r.order_id = o.id
         WHERE COALESCE(c.amount_cents, 0) - COALESCE(r.amount_cents, 0)
               <> CASE WHEN o.status IN ('paid', 'used') THEN o.amount_cents ELSE 0 END",
    )
    .fetch_all(db)
    .await
    .unwrap();
    assert!(wrong.is_empty(), "charged − refunded differs from the price of paid orders: {wrong:?}");
}

/// Gives shop 1 an owner, so its codes can be redeemed at the counter; returns the owner.
async fn shop_owner(db: &PgPool, tag: u32) -> i64 {
    let owner = seed_users(db, tag, 1).await.unwrap()[0];
    sqlx::query("UPDATE shops SET owner_id = $1 WHERE id = 1").bind(owner).execute(db).await.unwrap();
    owner
}

async fn redeem_code_of(db: &PgPool, order_id: i64) -> RedeemCode {
    let code: String =
        sqlx::query_scalar("SELECT redeem_code FROM orders WHERE id = $1").bind(order_id).fetch_one(db).await.unwrap();
    RedeemCode::parse(&code).unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_buyer_cancels_an_unpaid_order_and_the_coupon_is_back_at_once(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 428, 2).await.unwrap();
    open_sale(&state, 19, 5).await;
    let order = stored_orders(&state, 19, &users[..1], now_ms()).await.remove(0);
    assert_eq!(stocks(&state, 19).await, (4, 1, 4));
    assert!(
        matches!(service::cancel(&state, users[1], order.order_id).await, Err(OrderError::NotFound)),
        "nobody else can cancel it"
    );
    assert_eq!(service::cancel(&state, users[0], order.order_id).await.unwrap(), CancelOutcome::Cancelled);
    assert_eq!(status_of(&db, order.order_id).await, "cancelled");
    assert_eq!(stocks(&state, 19).await, (5, 0, 5), "Redis and Postgres both got the coupon back");
    assert_eq!(service::cancel(&state, users[0], order.order_id).await.unwrap(), CancelOutcome::AlreadyEnded);
    assert_eq!(service::pay(&state, users[0], order.order_id).await.unwrap(), PayOutcome::Cancelled);
    assert_eq!(stocks(&state, 19).await, (5, 0, 5), "given back once");
    // The closer's check, arriving later, finds nothing to do.
    assert_eq!(service::close(&state, order.order_id).await.unwrap(), CloseOutcome::Unchanged);

    let again = stored_orders(&state, 19, &users[..1], now_ms()).await.remove(0);
    pay_all(&state, std::slice::from_ref(&again)).await;
    assert!(
        matches!(
            service::cancel(&state, users[0], again.order_id).await,
            Err(OrderError::NotCancellable(OrderStatus::Paid))
        ),
        "a paid order is refunded, not cancelled"
    );
    assert_money_conserved(&db).await;
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn cancel_and_close_race_on_two_hundred_orders_and_each_coupon_comes_back_once(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 429, 200).await.unwrap();
    open_sale(&state, 20, 200).await;
    let orders = stored_orders(&state, 20, &users, now_ms()).await;
    let tasks: Vec<_> = orders
        .iter()
        .map(|o| {
            let (s1, s2, o) = (state.clone(), state.clone(), o.clone());
            tokio::spawn(async move {
                let (cancelled, closed) =
                    tokio::join!(service::cancel(&s1, o.user_id, o.order_id), service::close(&s2, o.order_id));
                (o.order_id, cancelled.unwrap(), closed.unwrap())
            })
        })
        .collect();
    let (mut by_buyer, mut by_closer) = (0, 0);
    for t in tasks {
        let (id, cancelled, closed) = t.await.unwrap();
        let status = status_of(&db, id).await;
        match (cancelled, closed) {
            (CancelOutcome::Cancelled, CloseOutcome::Unchanged) if status == "cancelled" => by_buyer += 1,
            (CancelOutcome::AlreadyEnded, CloseOutcome::Closed) if status == "closed" => by_closer += 1,
            other => panic!("order {id}: impossible ending {other:?} with status {status}"),
        }
    }
    assert_eq!(by_buyer + by_closer, 200);
    assert_eq!(stocks(&state, 20).await, (200, 0, 200), "every coupon back exactly once, whoever won");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_refund_races_the_counter_and_a_second_refund_on_two_hundred_orders_each_and_one_wins(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 430, 400).await.unwrap();
    open_sale(&state, 21, 400).await;
    let owner = shop_owner(&db, 431).await;
    let orders = stored_orders(&state, 21, &users, now_ms()).await;
    pay_all(&state, &orders).await;
    let (against_counter, against_refund) = orders.split_at(200);

    // A refund and a redemption at the counter, at once: the coupon is either used or refunded, never both.
    let mut codes = Vec::new();
    for o in against_counter {
        codes.push(redeem_code_of(&db, o.order_id).await);
    }
    let tasks: Vec<_> = against_counter
        .iter()
        .zip(codes)
        .map(|(o, code)| {
            let (s1, s2, o) = (state.clone(), state.clone(), o.clone());
            tokio::spawn(async move {
                let (refunded, redeemed) = tokio::join!(
                    service::request_refund(&s1, o.user_id, o.order_id, RefundReason::PlansChanged),
                    service::redeem(&s2, owner, &code)
                );
                (o.order_id, refunded, redeemed)
            })
        })
        .collect();
    let (mut refunded, mut used) = (0, 0);
    for t in tasks {
        let (id, refund, redeem) = t.await.unwrap();
        let status = status_of(&db, id).await;
        match (refund, redeem) {
            (Ok(RefundOutcome::Refunded { .. }), Err(OrderError::NotPaid(OrderStatus::Refunded)))
                if status == "refunded" =>
            {
                refunded += 1
            }
            (Err(OrderError::NotRefundable(OrderStatus::Used)), Ok(r)) if status == "used" && !r.earlier => used += 1,
            other => panic!("order {id}: impossible outcome {other:?} with status {status}"),
        }
    }
    assert_eq!(refunded + used, 200);

    // Two refunds of one coupon at once (two taps, two devices): one refunds, the other finds it done.
    let tasks: Vec<_> = against_refund
        .iter()
        .map(|o| {
            let (s1, s2, o) = (state.clone(), state.clone(), o.clone());
            tokio::spawn(async move {
                let (a, b) = tokio::join!(
                    service::request_refund(&s1, o.user_id, o.order_id, RefundReason::Mistake),
                    service::request_refund(&s2, o.user_id, o.order_id, RefundReason::Other)
                );
                (o.order_id, a.unwrap(), b.unwrap())
            })
        })
        .collect();
    for t in tasks {
        let (id, a, b) = t.await.unwrap();
        let wins = [a, b].iter().filter(|r| matches!(r, RefundOutcome::Refunded { .. })).count();
        assert_eq!(wins, 1, "order {id}: {a:?} and {b:?}");
        assert!([a, b].contains(&RefundOutcome::AlreadyRefunded), "order {id}: {a:?} and {b:?}");
    }
    let refunds: i64 = sqlx::query_scalar("SELECT count(*) FROM refunds").fetch_one(&db).await.unwrap();
    assert_eq!(refunds, refunded + 200, "one refund per refunded order");
    // The sale still runs: every refunded coupon went back to it, in Postgres and in Redis, once.
    let (redis, buyers, pg) = stocks(&state, 21).await;
    assert_eq!((redis, pg), (refunded + 200, refunded + 200));
    assert_eq!(buyers as i64, used, "a buyer whose coupon was refunded may grab again");
    assert_money_conserved(&db).await;
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_coupon_refunded_after_its_sale_ended_is_not_sold_again(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let users = seed_users(&db, 432, 3).await.unwrap();
    open_sale(&state, 22, 5).await;
    let orders = stored_orders(&state, 22, &users, now_ms()).await;
    pay_all(&state, &orders).await;
    for o in &orders[..2] {
        assert_eq!(status_of(&db, o.order_id).await, "paid");
    }
    // Refused: another buyer's order, and a reason outside the list (at the edge, against its field).
    assert!(matches!(
        service::request_refund(&state, users[1], orders[0].order_id, RefundReason::Other).await,
        Err(OrderError::NotFound)
    ));
    assert!(RefundReason::parse("because").unwrap_err().field_message("reason").is_some());

    let refund = service::request_refund(&state, users[0], orders[0].order_id, RefundReason::BetterDeal).await.unwrap();
    assert_eq!(refund, RefundOutcome::Refunded { amount_cents: 990 });
    assert_eq!(stocks(&state, 22).await, (3, 2, 3), "while the sale runs, the coupon goes back on sale");

    sqlx::query(
        "UPDATE vouchers SET begin_at = now() - interval '2 hours', end_at = now() - interval '1 hour' WHERE id = 22",
    )
    .execute(&db)
    .await
    .unwrap();
    let refund = service::request_refund(&state, users[1], orders[1].order_id, RefundReason::NoBooking).await.unwrap();
    assert!(matches!(refund, RefundOutcome::Refunded { .. }));
    assert_eq!(
        stocks(&state, 22).await,
        (3, 1, 3),
        "after the sale ended, a refunded coupon is not sold again; its buyer is let go"
    );
    let audit = app::seckill::service::audit(&state, Some(1)).await.unwrap();
    let sale = audit.iter().find(|a| a.voucher_id == 22).expect("the sale is audited");
    assert_eq!((sale.drift(), sale.in_flight()), (0, 0), "Redis and Postgres agree after both refunds");
    let restocked: Vec<bool> =
        sqlx::query_scalar("SELECT restocked FROM refunds ORDER BY created_at").fetch_all(&db).await.unwrap();
    assert_eq!(restocked, [true, false]);
    let mine = service::my_orders(&state, users[0], None).await.unwrap().orders.remove(0);
    assert_eq!(mine.status, OrderStatus::Refunded);
    assert_eq!(mine.refund, Some(RefundCause::Requested(RefundReason::BetterDeal)), "the buyer sees why");
    assert_money_conserved(&db).await;
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_unused_coupon_is_refunded_when_its_validity_ends_by_its_delayed_check_or_the_sweeper(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let users = seed_users(&db, 433, 4).await.unwrap();
    open_sale(&state, 23, 10).await;
    let owner = shop_owner(&db, 434).await;
    // Valid 7 days: paying sends each coupon's real check, due in a week, to `orders.expire-7d`; the checks
    // this test sends below, due now, go to the 30-day topic, where nothing due later is ahead of them.
    sqlx::query("UPDATE vouchers SET valid_days = 7 WHERE id = 23").execute(&db).await.unwrap();
    let orders = stored_orders(&state, 23, &users, now_ms()).await;
    pay_all(&state, &orders).await;
    let mine = service::my_orders(&state, users[0], None).await.unwrap().orders.remove(0);
    let use_by = mine.use_by_ms.expect("a paid coupon shows its use-by");
    let days = (use_by - now_ms()) as f64 / 86_400_000.0;
    assert!((6.9..7.1).contains(&days), "valid 7 days from payment: {days}");
    // Order 3 is used at the counter. Then order 0's validity ends (moved into the past, as time would):
    // the counter no longer honours it.
    service::redeem(&state, owner, &redeem_code_of(&db, orders[3].order_id).await).await.unwrap();
    let code_0 = redeem_code_of(&db, orders[0].order_id).await;
    let expire_now = async |ids: &[i64]| {
        sqlx::query("UPDATE orders SET use_by = now() - interval '1 second' WHERE id = ANY($1)")
            .bind(ids)
            .execute(&db)
            .await
            .unwrap();
    };
    expire_now(&[orders[0].order_id]).await;
    assert!(matches!(service::redeem(&state, owner, &code_0).await, Err(OrderError::CouponExpired(_))));
    // Its delayed check, due now, refunds it through the closer; an early check of a still-valid coupon
    // (order 1) refunds nothing.
    let closer = app::orders::closer::spawn(state.clone());
    service::publish_expiry_check(&state, orders[1].order_id, 30, now_ms()).await.unwrap();
    service::publish_expiry_check(&state, orders[0].order_id, 30, now_ms()).await.unwrap();
    // Refunded, and its coupon given back to the sale (Redis, after the refund's commit): only then may the
    // closer stop, or the give-back it is about to make would be cut off.
    wait_for("the expired coupon refunded and given back", async || {
        status_of(&db, orders[0].order_id).await == "refunded" && stocks(&state, 23).await.0 == 7
    })
    .await;
    closer.abort();
    assert_eq!(status_of(&db, orders[1].order_id).await, "paid", "still valid: not refunded");
    expire_now(&orders.iter().map(|o| o.order_id).collect::<Vec<_>>()).await;
    // The sweeper finds the rest that expired unused; the used one stays used.
    assert_eq!(service::sweep(&state).await.unwrap(), 2);
    assert_eq!(service::sweep(&state).await.unwrap(), 0, "a second sweep finds nothing");
    for (o, status) in orders.iter().zip(["refunded", "refunded", "refunded", "used"]) {
        assert_eq!(status_of(&db, o.order_id).await, status);
    }
    let causes: Vec<String> = sqlx::query_scalar("SELECT cause FROM refunds").fetch_all(&db).await.unwrap();
    assert_eq!(causes, ["expired"; 3]);
    assert_eq!(state.metrics.orders.refunds_expired.get(), 3);
    assert_eq!(stocks(&state, 23).await, (9, 1, 9), "the sale still runs, so the expired coupons went back");
    assert_money_conserved(&db).await;
}
