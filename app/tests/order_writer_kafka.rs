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

/// What the writer commits after a batch is that batch, and not the messages the consumer handed out
/// since: the next batch may die half-way (a receive that fails, a crash), and its messages must come
/// again. Committing the consumer's state instead sent whatever had been received by the time the commit
/// left — two acknowledged orders were skipped that way when the broker was killed.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_commit_covers_the_batch_written_and_nothing_received_after_it(db: PgPool) {
    let state = test_state(db, &[]).await;
    kafka::ensure_topics(&state.config).await.unwrap();
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    // One key: one partition, offsets 0 to 5 in a fresh topic.
    for i in 0..6 {
        state
            .kafka
            .send(FutureRecord::to(&topic).key("same").payload(&format!("m{i}")), Duration::from_secs(10))
            .await
            .expect("acked");
    }
    let group = format!("{}commit-test", state.config.kafka_topic_prefix);
    let consumer = kafka::consumer(&state.config, &group).unwrap();
    consumer.subscribe(&[&topic]).unwrap();
    let mut received = Vec::new();
    while received.len() < 6 {
        let msg = tokio::time::timeout(Duration::from_secs(30), consumer.recv()).await.expect("delivered").unwrap();
        received.push(msg.detach());
    }
    let partition = received[0].partition();
    assert!(received.iter().all(|m| m.partition() == partition));

    // The first three were written; the other three were received since and not.
    kafka::commit_processed(&consumer, &received[..3]).unwrap();
    let committed = || {
        let mut at = None;
        for _ in 0..100 {
            let list = consumer.committed(Duration::from_secs(10)).unwrap();
            at = list.find_partition(&topic, partition).and_then(|p| p.offset().to_raw());
            if at.is_some_and(|o| o >= 0) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        at
    };
    assert_eq!(committed(), Some(3), "the batch's offsets were committed");
    // A consumer that takes over starts at the first unwritten message.
    drop(consumer);
    let next = kafka::consumer(&state.config, &group).unwrap();
    next.subscribe(&[&topic]).unwrap();
    let first = tokio::time::timeout(Duration::from_secs(30), next.recv()).await.expect("delivered again").unwrap();
    assert_eq!((first.partition(), first.offset()), (partition, 3), "the unwritten messages come again");
}
