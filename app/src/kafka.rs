//! Kafka plumbing shared by the web tier and the workers: topic names, the producer, topic creation.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::StreamConsumer;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::FutureProducer;

use crate::config::Config;

/// New flash-sale orders, produced by `grab_coupon`, consumed by the order writer.
pub const ORDERS_CREATED: &str = "orders.created";
/// Fixed-delay close checks for unpaid orders.
pub const ORDERS_CLOSE_DELAY: &str = "orders.close-delay";
/// Messages a consumer could not process, with the reason in a header.
pub const ORDERS_DLQ: &str = "orders.dlq";
/// Every topic the project uses, created explicitly at start-up (clients never auto-create).
pub const TOPICS: [&str; 3] = [ORDERS_CREATED, ORDERS_CLOSE_DELAY, ORDERS_DLQ];

/// The full topic name under the configured prefix.
pub fn topic(config: &Config, name: &str) -> String {
    format!("{}{name}", config.kafka_topic_prefix)
}

/// Client settings common to producers, consumers and the admin client.
pub fn base_config(config: &Config) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", &config.kafka_brokers)
        .set("client.id", "haodian")
        .set("socket.timeout.ms", "10000");
    c
}

/// An idempotent producer with `acks=all`: a retried send never duplicates and an ack means durable.
pub fn producer(config: &Config) -> Result<FutureProducer, KafkaError> {
    base_config(config)
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", "1")
        // Bound how long a send may stay undecided; the caller treats a timeout as "outcome unknown".
        .set("message.timeout.ms", "5000")
        .set("request.timeout.ms", "4000")
        .create()
}

/// A consumer in `group` that commits offsets only when told to (after its work is durable).
pub fn consumer(config: &Config, group: &str) -> Result<StreamConsumer, KafkaError> {
    base_config(config)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "10000")
        .set("enable.partition.eof", "false")
        .create()
}

/// Creates every project topic that does not exist yet; existing ones are left alone.
pub async fn ensure_topics(config: &Config) -> Result<(), KafkaError> {
    let admin: AdminClient<DefaultClientContext> = base_config(config).create()?;
    let names: Vec<String> = TOPICS.iter().map(|t| topic(config, t)).collect();
    let new: Vec<NewTopic<'_>> = names
        .iter()
        .map(|n| NewTopic::new(n, config.kafka_partitions, TopicReplication::Fixed(config.kafka_replication)))
        .collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(10)));
    for result in admin.create_topics(&new, &opts).await? {
        match result {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((name, code)) => {
                tracing::error!(topic = %name, ?code, "topic creation failed");
                return Err(KafkaError::AdminOp(code));
            }
        }
    }
    Ok(())
}
