//! A grab whose instance died between the sale script and the send (`kill -9`) leaves a buyer in Redis
//! with no order anywhere. The sweeper gives such grabs back once they are old enough — and never a grab
//! whose order is in Kafka, waiting for a resend, or in Postgres.

use std::time::Duration;

use app::platform::kafka::OrderCreated;
use app::sale::inventory::{self, GrabCode};
use app::seckill::service;
use app::shared::clock::now_ms;
use app::testing::{seed_flash_sale, seed_users, test_state};
use sqlx::PgPool;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_grab_whose_order_exists_nowhere_is_given_back_and_no_other(db: PgPool) {
    let state = test_state(db.clone(), &[("IP_RATE_LIMIT", "1000000")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let users = seed_users(&db, 432, 4).await.unwrap();
    seed_flash_sale(&db, 33, 10, -60, 3600).await.unwrap();
    service::restore_sales(&state).await.unwrap();
    let ip = "10.0.0.33";

    // In Kafka, not written yet (no writer runs here).
    service::grab(&state, users[0], 33, ip).await.unwrap();
    // Written to Postgres.
    let written = service::grab(&state, users[1], 33, ip).await.unwrap();
    let order = OrderCreated { order_id: written, user_id: users[1], voucher_id: 33, ts: now_ms() };
    app::orders::writer::write_batch(&state.db, &[order]).await.unwrap();
    // The script ran, then the instance died before producing.
    let stranded = state.ids.next_id().unwrap();
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 33, users[2], stranded).await.unwrap(), GrabCode::Ok);
    // The send's outcome was unknown: queued for a resend.
    let unsure = state.ids.next_id().unwrap();
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 33, users[3], unsure).await.unwrap(), GrabCode::Ok);
    let queued = OrderCreated { order_id: unsure, user_id: users[3], voucher_id: 33, ts: now_ms() };
    service::queue_for_resend(&state, &queued).await.unwrap();
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 33).await.unwrap(), (Some(6), 4));

    assert_eq!(
        service::release_stranded(&state, state.config.stranded_grab_after).await.unwrap(),
        0,
        "young grabs are left alone"
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(service::release_stranded(&state, Duration::from_millis(10)).await.unwrap(), 1, "only the stranded one");
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 33).await.unwrap(), (Some(7), 3));
    assert!(
        !inventory::grab_recorded(&state.redis, &state.keys, 33, users[2], stranded).await.unwrap(),
        "a late check of the given-back grab finds nothing to produce"
    );

    // Its buyer may grab again, and that grab is in Kafka, so a second sweep leaves it.
    service::grab(&state, users[2], 33, ip).await.expect("the coupon is theirs to grab again");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(service::release_stranded(&state, Duration::from_millis(10)).await.unwrap(), 0);
    assert_eq!(service::release_stranded(&state, Duration::from_millis(10)).await.unwrap(), 0, "idempotent");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_grab_is_aged_from_when_its_script_ran_not_from_its_order_id(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let users = seed_users(&db, 433, 1).await.unwrap();
    seed_flash_sale(&db, 34, 10, -60, 3600).await.unwrap();
    service::restore_sales(&state).await.unwrap();

    // The id is minted, then the script call waits (a Redis failover) before the grab happens; its
    // order is still on its way to Kafka, so it is no stranded grab yet, however old its id.
    let order = state.ids.next_id().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(inventory::try_grab(&state.redis, &state.keys, 34, users[0], order).await.unwrap(), GrabCode::Ok);
    assert_eq!(
        service::release_stranded(&state, Duration::from_millis(200)).await.unwrap(),
        0,
        "a grab that ran just now is left alone"
    );
    assert!(inventory::grab_recorded(&state.redis, &state.keys, 34, users[0], order).await.unwrap());

    // Once the grab itself is that old with its order nowhere, it is given back.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(service::release_stranded(&state, Duration::from_millis(200)).await.unwrap(), 1);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, 34).await.unwrap(), (Some(10), 0));
}
