//! The order writer end to end through the real broker: produced orders land in Postgres once, garbage
//! and refused orders go to the dead-letter topic with a reason.

use std::time::Duration;

use app::orders::model::{FailReason, OrderStatus};
use app::platform::kafka::{self, ORDERS_CREATED, ORDERS_DLQ, OrderCreated};
use app::testing::test_state;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use rdkafka::message::Headers;
use rdkafka::producer::FutureRecord;
use sqlx::PgPool;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn produced_orders_are_written_once_and_refusals_dead_lettered(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    kafka::ensure_topics(&state.config).await.unwrap();
    app::testing::seed_flash_sale(&db, 42, 5, -3600, 3600).await.unwrap();
    let users = app::testing::seed_users(&db, 391, 6).await.unwrap();

    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let send = |payload: Vec<u8>| {
        let (producer, topic) = (state.kafka.clone(), topic.clone());
        async move {
            producer
                .send(FutureRecord::<(), _>::to(&topic).payload(&payload), Duration::from_secs(10))
                .await
                .expect("acked");
        }
    };
    // Six distinct buyers on a stock of five, one of them delivered twice, plus garbage.
    for (i, user) in users.iter().enumerate() {
        let order = OrderCreated { order_id: 10 + i as i64, user_id: *user, voucher_id: 42, ts: 1_764_400_000_000 };
        send(serde_json::to_vec(&order).unwrap()).await;
        if i == 0 {
            send(serde_json::to_vec(&order).unwrap()).await;
        }
    }
    send(b"not json".to_vec()).await;

    let writer = app::orders::writer::spawn(state.clone());
    let mut written = 0_i64;
    for _ in 0..150 {
        written = sqlx::query_scalar("SELECT count(*) FROM orders").fetch_one(&db).await.unwrap();
        if written == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(written, 5, "stock 5: five orders, the redelivery written once");
    let stock: i32 = sqlx::query_scalar("SELECT stock FROM vouchers WHERE id = 42").fetch_one(&db).await.unwrap();
    assert_eq!(stock, 0);

    let dlq = kafka::consumer(&state.config, "dlq-reader").unwrap();
    dlq.subscribe(&[&kafka::topic(&state.config, ORDERS_DLQ)]).unwrap();
    let mut reasons = Vec::new();
    while reasons.len() < 2 {
        let msg = tokio::time::timeout(Duration::from_secs(30), dlq.recv()).await.expect("dead letters").unwrap();
        let headers = msg.headers().expect("reason header");
        let reason = headers.iter().find(|h| h.key == "reason").and_then(|h| h.value).unwrap();
        reasons.push(String::from_utf8_lossy(reason).to_string());
    }
    reasons.sort();
    assert!(reasons[0].contains("sold_out"), "{reasons:?}");
    assert!(reasons[1].contains("undecodable"), "{reasons:?}");
    // The buyer who lost out is told so, and why, instead of "queued" for ever.
    let mut told = Vec::new();
    for (i, user) in users.iter().enumerate() {
        told.push(app::orders::writer::status(&state, *user, 10 + i as i64).await.unwrap());
    }
    let failed: Vec<_> = told.iter().filter(|s| **s == OrderStatus::Failed(FailReason::SoldOut)).collect();
    assert_eq!(failed.len(), 1, "{told:?}");
    assert_eq!(told.iter().filter(|s| **s == OrderStatus::Unpaid).count(), 5, "{told:?}");
    writer.abort();
}
