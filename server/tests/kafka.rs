//! A real round trip through the Kafka-protocol broker: idempotent producer with acks=all, a consumer
//! group with manual commits, and a restarted consumer resuming after the committed offset.

use std::time::Duration;

use app::platform::kafka::{self, ORDERS_CREATED};
use app::testing::{test_config, unique_token};
use rdkafka::Message;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::producer::FutureRecord;

async fn next_payload(consumer: &StreamConsumer) -> (String, i64) {
    let msg = tokio::time::timeout(Duration::from_secs(30), consumer.recv())
        .await
        .expect("a message within 30 s")
        .expect("consumer error");
    let payload = String::from_utf8(msg.payload().expect("payload").to_vec()).unwrap();
    (payload, msg.offset())
}

#[tokio::test]
async fn produce_consume_commit_and_resume() {
    let config = test_config(&[]);
    kafka::ensure_topics(&config).await.expect("topics created");
    kafka::ensure_topics(&config).await.expect("creating them again is fine");
    let topic = kafka::topic(&config, ORDERS_CREATED);

    let producer = kafka::producer(&config).expect("producer");
    let mut offsets = Vec::new();
    for i in 0..10 {
        let payload = format!("order-{i}");
        let record = FutureRecord::to(&topic).key("user-1").payload(&payload).partition(0);
        let delivery = producer.send(record, Duration::from_secs(10)).await.expect("acknowledged");
        offsets.push(delivery.offset);
    }
    let expected: Vec<i64> = (offsets[0]..offsets[0] + 10).collect();
    assert_eq!(offsets, expected, "each message written exactly once, in order");

    let group = format!("test-group-{}", unique_token());
    {
        let consumer = kafka::consumer(&config, &group).expect("consumer");
        consumer.subscribe(&[&topic]).expect("subscribe");
        for i in 0..4 {
            let (payload, _) = next_payload(&consumer).await;
            assert_eq!(payload, format!("order-{i}"));
        }
        // Commit after the 4th message (offset semantics: the next one to read); nothing auto-commits.
        let msg = tokio::time::timeout(Duration::from_secs(30), consumer.recv()).await.unwrap().unwrap();
        assert_eq!(msg.payload(), Some(&b"order-4"[..]));
        consumer.commit_message(&msg, CommitMode::Sync).expect("commit");
        // Read one more without committing: it must be delivered again after the restart.
        let (payload, _) = next_payload(&consumer).await;
        assert_eq!(payload, "order-5");
    }

    let restarted = kafka::consumer(&config, &group).expect("consumer");
    restarted.subscribe(&[&topic]).expect("subscribe");
    let (payload, _) = next_payload(&restarted).await;
    assert_eq!(payload, "order-5", "resumes right after the committed offset");
}
