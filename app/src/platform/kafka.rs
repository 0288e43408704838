//! Kafka plumbing shared by the web tier and the workers: topic names, the messages on them, the
//! producers, consumers and topic creation.

use std::time::Duration;

use rdkafka::ClientContext;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::bindings::rd_kafka_msg_status_t as RDKafkaMsgStatus;
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::StreamConsumer;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::producer::{
    BaseRecord, DeliveryResult, FutureProducer, Producer, ProducerContext, PurgeConfig, ThreadedProducer,
};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::platform::config::Config;

/// New flash-sale orders, produced by `grab_coupon`, consumed by the order writer.
pub const ORDERS_CREATED: &str = "orders.created";
/// Fixed-delay close checks for unpaid orders.
pub const ORDERS_CLOSE_DELAY: &str = "orders.close-delay";
/// Messages a consumer could not process, with the reason in a header.
pub const ORDERS_DLQ: &str = "orders.dlq";
/// Fixed-delay expiry checks for paid coupons, one topic per validity length (`shared::money::VALIDITY_DAYS`):
/// within one length, coupons paid later expire later, so due times rise within each partition.
pub const ORDERS_EXPIRE_DELAY: [&str; 5] =
    ["orders.expire-7d", "orders.expire-30d", "orders.expire-90d", "orders.expire-180d", "orders.expire-365d"];
/// How long the expiry topics keep a message: past the longest validity (365 days) with a margin, where a
/// broker's default (Kafka's is 7 days) would drop checks before they fall due. 400 days, in ms.
const EXPIRY_RETENTION_MS: &str = "34560000000";
/// Every topic the project uses, created explicitly at start-up (clients never auto-create).
pub const TOPICS: [&str; 8] = [
    ORDERS_CREATED,
    ORDERS_CLOSE_DELAY,
    ORDERS_DLQ,
    ORDERS_EXPIRE_DELAY[0],
    ORDERS_EXPIRE_DELAY[1],
    ORDERS_EXPIRE_DELAY[2],
    ORDERS_EXPIRE_DELAY[3],
    ORDERS_EXPIRE_DELAY[4],
];

/// One grabbed coupon, as produced to Kafka after the Redis deduction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderCreated {
    /// The app-minted order id (idempotency key).
    pub order_id: i64,
    /// Buyer.
    pub user_id: i64,
    /// Flash-sale voucher.
    pub voucher_id: i64,
    /// When the grab succeeded, unix ms.
    pub ts: i64,
}

/// A check on a fixed-delay topic. On `orders.close-delay`: when `due_ms` passes, close whichever of
/// `order_ids` are still unpaid (one check covers a whole writer batch — their creation times lie within
/// the batch's linger — so the topic carries one message per batch, not one per order). On an
/// `orders.expire-*` topic: refund whichever are still paid and unused once their use-by has passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DueCheck {
    /// The orders.
    pub order_ids: Vec<i64>,
    /// When the latest of them is due (pay deadline, use-by), unix ms (so due times rise within a partition).
    pub due_ms: i64,
}

/// The full topic name under the configured prefix.
pub fn topic(config: &Config, name: &str) -> String {
    format!("{}{name}", config.kafka_topic_prefix)
}

/// Client settings common to producers, consumers and the admin client.
pub fn base_config(config: &Config) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", &config.kafka_brokers).set("client.id", "haodian").set("socket.timeout.ms", "10000");
    c
}

/// Producer settings shared by every producer: idempotent (a retried send never duplicates) and
/// `acks=all` (an ack means every in-sync replica has it).
fn idempotent_config(config: &Config) -> ClientConfig {
    let mut c = base_config(config);
    c.set("enable.idempotence", "true").set("acks", "all");
    c
}

/// An idempotent producer with `acks=all`: a retried send never duplicates and an ack means durable.
pub fn producer(config: &Config) -> Result<FutureProducer, KafkaError> {
    idempotent_config(config)
        .set("linger.ms", "1")
        // Bound how long a send may stay undecided; the caller treats a timeout as "outcome unknown".
        .set("message.timeout.ms", "5000")
        .set("request.timeout.ms", "4000")
        .create()
}

/// Where a produced message ended up, as far as the client can tell.
#[derive(Debug)]
pub enum Delivery {
    /// Written to the log and acknowledged by all in-sync replicas.
    Persisted,
    /// Certainly not written (never sent, or refused): the caller may undo its side effects.
    NotPersisted(SendError),
    /// Sent but not acknowledged in time: it may be in the log; only a resend (idempotent consumer) settles it.
    Unknown(SendError),
}

/// Why a send did not certainly land.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The message could not be encoded, so it was never sent.
    #[error("cannot encode the message: {0}")]
    Encode(#[from] serde_json::Error),
    /// librdkafka refused it or reported it failed.
    #[error("{0}")]
    Kafka(KafkaError),
    /// librdkafka reported a failure after sending it to `partition`, where it may be.
    #[error("{error} (partition {partition}, possibly persisted)")]
    Unacknowledged {
        /// What librdkafka reported.
        error: KafkaError,
        /// Where it was sent.
        partition: i32,
    },
    /// The delivery report never reached the waiting task.
    #[error("delivery report dropped")]
    ReportDropped,
    /// No delivery report came within the deadline.
    #[error("no delivery report in time")]
    NoReport,
}

/// Hands each delivery report, with librdkafka's persistence status, to the task awaiting it.
pub struct DeliveryContext;

impl ClientContext for DeliveryContext {}

impl ProducerContext for DeliveryContext {
    type DeliveryOpaque = Box<oneshot::Sender<Delivery>>;

    fn delivery(&self, result: &DeliveryResult<'_>, reply: Self::DeliveryOpaque) {
        let outcome = match result {
            Ok(_) => Delivery::Persisted,
            Err((err, msg)) => {
                // SAFETY: `msg` is the live message librdkafka hands to this callback; the call only reads it.
                let status = unsafe { rdkafka::bindings::rd_kafka_message_status(msg.ptr()) };
                match status {
                    RDKafkaMsgStatus::RD_KAFKA_MSG_STATUS_NOT_PERSISTED => {
                        Delivery::NotPersisted(SendError::Kafka(err.clone()))
                    }
                    RDKafkaMsgStatus::RD_KAFKA_MSG_STATUS_PERSISTED => Delivery::Persisted,
                    _ => {
                        Delivery::Unknown(SendError::Unacknowledged { error: err.clone(), partition: msg.partition() })
                    }
                }
            }
        };
        // The waiter may have given up (its own deadline); the report is then only logged by the caller's fallback.
        let _ = reply.send(outcome);
    }
}

/// The producer of `orders.created`: idempotent, acks=all, and able to tell "certainly lost" from "maybe
/// written", which decides between giving the stock back and queueing a resend.
#[derive(Clone)]
pub struct Publisher {
    producer: ThreadedProducer<DeliveryContext>,
    deadline: Duration,
    settle_time: Duration,
}

impl Publisher {
    /// Connects with the same guarantees as [`producer`]; `message_timeout` bounds every send.
    pub fn new(config: &Config) -> Result<Self, KafkaError> {
        let linger_ms = config.kafka_linger.as_millis();
        let producer = idempotent_config(config)
            .set("linger.ms", linger_ms.to_string())
            // Messages carry no key (see `send`), so each linger's messages go to one partition together:
            // the broker stores one batch, in one transaction, instead of one per partition.
            .set("sticky.partitioning.linger.ms", (linger_ms * 2).max(10).to_string())
            .set("message.timeout.ms", config.kafka_produce_timeout.as_millis().to_string())
            .set("request.timeout.ms", (config.kafka_produce_timeout.as_millis() * 4 / 5).max(1).to_string())
            .create_with_context(DeliveryContext)?;
        Ok(Self {
            producer,
            deadline: config.kafka_produce_timeout + Duration::from_secs(1),
            settle_time: config.send_settle_time(),
        })
    }

    /// The longest a [`send`](Self::send) takes to settle — reported, purged or given up as unknown — with
    /// a margin for queueing its resend: after this, no send started before is still undecided.
    pub fn settle_time(&self) -> Duration {
        self.settle_time
    }

    /// Sends one message and waits for its delivery report. A message still undecided a second past its
    /// timeout means the broker is unreachable: whatever was never transmitted is purged so it fails now
    /// as certainly not persisted (librdkafka alone can take several timeouts to report it while it
    /// reconnects); a message already in flight keeps its unknown fate.
    /// No key: an order is one message, nothing reads messages by key, and the writer stores them in any
    /// order (idempotently by order id), so the producer is free to put a whole linger in one partition.
    pub async fn send(&self, topic: &str, payload: &[u8]) -> Delivery {
        let (tx, mut rx) = oneshot::channel();
        let record = BaseRecord::<(), [u8], _>::with_opaque_to(topic, Box::new(tx)).payload(payload);
        if let Err((e, _)) = self.producer.send(record) {
            // Refused before entering the queue (queue full, unknown topic): nothing was sent.
            return Delivery::NotPersisted(SendError::Kafka(e));
        }
        if let Ok(report) = tokio::time::timeout(self.deadline, &mut rx).await {
            return report.unwrap_or(Delivery::Unknown(SendError::ReportDropped));
        }
        self.producer.purge(PurgeConfig::default().queue().non_blocking());
        match tokio::time::timeout(Duration::from_secs(1), rx).await {
            Ok(Ok(report)) => report,
            _ => Delivery::Unknown(SendError::NoReport),
        }
    }

    /// Looks `topic` up ahead of the first send (blocking: run it off the runtime), so that send does not
    /// also wait for the topic's metadata: a new instance's first shoppers are answered as fast as the
    /// rest.
    pub fn prepare(&self, topic: &str, timeout: Duration) -> Result<(), KafkaError> {
        self.producer.client().fetch_metadata(Some(topic), timeout).map(drop)
    }

    /// Waits for queued messages to be delivered (shutdown).
    pub fn flush(&self, timeout: Duration) {
        if let Err(e) = self.producer.flush(timeout) {
            tracing::warn!("producer flush: {e}");
        }
    }
}

/// A consumer in `group` that commits offsets only when told to (after its work is durable).
pub fn consumer(config: &Config, group: &str) -> Result<StreamConsumer, KafkaError> {
    consumer_config(config, group).create()
}

/// Reports a consumer's lag per partition (messages behind the partition's end) from librdkafka's
/// statistics into `/metrics`.
#[derive(Clone)]
pub struct LagContext {
    /// The consumer group the figures are labelled with.
    pub group: String,
    /// Where they go.
    pub metrics: std::sync::Arc<crate::platform::metrics::Metrics>,
}

impl ClientContext for LagContext {
    fn stats(&self, statistics: rdkafka::Statistics) {
        for (topic, t) in &statistics.topics {
            for p in t.partitions.values().filter(|p| p.partition >= 0 && p.consumer_lag >= 0) {
                let labels = crate::platform::metrics::PartitionLabels {
                    group: self.group.clone(),
                    topic: topic.clone(),
                    partition: p.partition,
                };
                self.metrics.consumer_lag.get_or_create(&labels).set(p.consumer_lag);
            }
        }
    }
}

impl rdkafka::consumer::ConsumerContext for LagContext {
    /// Notes which partitions this instance now reads (`haodian_consumer_assigned`), so operators — and
    /// the scale-out test — see how a group spreads over the instances.
    fn post_rebalance(&self, _: &rdkafka::consumer::BaseConsumer<Self>, rebalance: &rdkafka::consumer::Rebalance<'_>) {
        let (list, assigned) = match rebalance {
            rdkafka::consumer::Rebalance::Assign(list) => (list, true),
            rdkafka::consumer::Rebalance::Revoke(list) => (list, false),
            rdkafka::consumer::Rebalance::Error(_) => return,
        };
        for e in list.elements() {
            self.metrics.note_assignment(&self.group, e.topic(), e.partition(), assigned);
        }
    }

    /// Hears how an asynchronous offset commit went: a failed one only means its messages may be delivered
    /// again (the writers are idempotent), and the next commit carries later offsets anyway.
    fn commit_callback(&self, result: rdkafka::error::KafkaResult<()>, _: &rdkafka::TopicPartitionList) {
        if let Err(e) = result {
            tracing::warn!(group = %self.group, "offset commit failed (a redelivery is harmless): {e}");
        }
    }
}

/// Commits exactly what `processed` covers — per partition, the offset after its last message — without
/// waiting. Not `commit_consumer_state`: that commits whatever the consumer has handed out by the time
/// librdkafka's own thread gets to the commit, so messages received after the call and never processed
/// (a receive that failed half-way through the next batch, a crash) were committed past, and lost: the
/// chaos suite's broker `kill -9` lost two acknowledged orders that way.
pub fn commit_processed<C: rdkafka::consumer::ConsumerContext>(
    consumer: &StreamConsumer<C>,
    processed: &[rdkafka::message::OwnedMessage],
) -> Result<(), KafkaError> {
    use rdkafka::consumer::{CommitMode, Consumer};
    let mut next = std::collections::BTreeMap::<(&str, i32), i64>::new();
    for m in processed {
        let slot = next.entry((m.topic(), m.partition())).or_insert(m.offset() + 1);
        *slot = (*slot).max(m.offset() + 1);
    }
    if next.is_empty() {
        return Ok(());
    }
    let mut offsets = rdkafka::TopicPartitionList::new();
    for ((topic, partition), offset) in next {
        offsets.add_partition_offset(topic, partition, rdkafka::Offset::Offset(offset))?;
    }
    consumer.commit(&offsets, CommitMode::Async)
}

/// Like [`consumer`], reporting its lag into `context` every few seconds (for `/metrics`).
pub fn consumer_with_lag(
    config: &Config,
    group: &str,
    context: LagContext,
) -> Result<StreamConsumer<LagContext>, KafkaError> {
    consumer_config(config, group).set("statistics.interval.ms", "5000").create_with_context(context)
}

fn consumer_config(config: &Config, group: &str) -> ClientConfig {
    let mut c = base_config(config);
    c.set("group.id", group)
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "10000")
        .set("enable.partition.eof", "false")
        // librdkafka fetches ahead up to 100,000 messages or 64 MB by default, so a writer behind a backlog
        // could hold that much of it in memory. A few batches ahead keep it busy.
        .set("queued.min.messages", PREFETCH_MESSAGES.to_string())
        .set("queued.max.messages.kbytes", PREFETCH_KBYTES.to_string());
    c
}

/// Messages a consumer keeps fetched ahead per partition: a few of the order writer's largest batches.
const PREFETCH_MESSAGES: usize = 2_000;
/// The most a consumer holds fetched ahead per partition, in KB.
const PREFETCH_KBYTES: usize = 1_024;

/// The order messages on `orders.created` past `group`'s committed offsets: acknowledged to their buyers but
/// perhaps not written yet. Rebuilding Redis counts them as sold (their rows may still be missing). Reads
/// with the group's id but never joins or commits, so the running writer is not disturbed.
pub async fn unconsumed_orders(config: &Config, group: &str) -> Result<Vec<OrderCreated>, KafkaError> {
    let (config, group) = (config.clone(), group.to_string());
    tokio::task::spawn_blocking(move || read_unconsumed_orders(&config, &group))
        .await
        .map_err(|_| KafkaError::Canceled)?
}

fn read_unconsumed_orders(config: &Config, group: &str) -> Result<Vec<OrderCreated>, KafkaError> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{Offset, TopicPartitionList};
    const TIMEOUT: Duration = Duration::from_secs(10);
    let topic = topic(config, ORDERS_CREATED);
    let consumer: BaseConsumer = consumer_config(config, group).create()?;
    let metadata = consumer.fetch_metadata(Some(&topic), TIMEOUT)?;
    // A broker that is not ready may answer the topic with an error and no partitions: read as "nothing
    // in flight", that would let the sweeper give back grabs whose orders wait in Kafka. Only a topic the
    // broker says does not exist (nothing was ever produced to it) holds nothing.
    let answer = metadata.topics().iter().find(|t| t.name() == topic);
    let code = answer.and_then(|t| t.error()).map(RDKafkaErrorCode::from);
    let partitions: Vec<i32> = match (answer, code) {
        (Some(_), Some(RDKafkaErrorCode::UnknownTopicOrPartition)) => return Ok(Vec::new()),
        (Some(t), None) if !t.partitions().is_empty() => t.partitions().iter().map(|p| p.id()).collect(),
        (_, code) => return Err(KafkaError::MetadataFetch(code.unwrap_or(RDKafkaErrorCode::UnknownPartition))),
    };
    let mut all = TopicPartitionList::new();
    for p in &partitions {
        all.add_partition(&topic, *p);
    }
    let committed = consumer.committed_offsets(all, TIMEOUT)?;
    let mut from = TopicPartitionList::new();
    let mut ends = std::collections::HashMap::new();
    // (partition, first unconsumed offset, high watermark): logged, so a give-back can be checked later
    // against where its order landed.
    let mut ranges = Vec::with_capacity(partitions.len());
    for p in partitions {
        let (low, high) = consumer.fetch_watermarks(&topic, p, TIMEOUT)?;
        let start = match committed.find_partition(&topic, p).map(|e| e.offset()) {
            Some(Offset::Offset(o)) => o.max(low),
            _ => low,
        };
        if start < high {
            from.add_partition_offset(&topic, p, Offset::Offset(start))?;
            ends.insert(p, high);
        }
        ranges.push((p, start, high));
    }
    if ends.is_empty() {
        tracing::info!(?ranges, found = 0, "orders past the writer's offsets read");
        return Ok(Vec::new());
    }
    consumer.assign(&from)?;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut orders = Vec::new();
    while !ends.is_empty() {
        if std::time::Instant::now() > deadline {
            return Err(KafkaError::MessageConsumption(RDKafkaErrorCode::OperationTimedOut));
        }
        let Some(msg) = consumer.poll(Duration::from_millis(500)) else { continue };
        let msg = msg?;
        // Garbage is the writer's to dead-letter; it sold nothing.
        if let Ok(order) = serde_json::from_slice::<OrderCreated>(msg.payload().unwrap_or_default()) {
            orders.push(order);
        }
        if ends.get(&msg.partition()).is_some_and(|end| msg.offset() + 1 >= *end) {
            ends.remove(&msg.partition());
        }
    }
    tracing::info!(?ranges, found = orders.len(), "orders past the writer's offsets read");
    Ok(orders)
}

/// Creates every project topic that does not exist yet; existing ones are left alone.
pub async fn ensure_topics(config: &Config) -> Result<(), KafkaError> {
    let names: Vec<String> = TOPICS.iter().map(|t| topic(config, t)).collect();
    create_topics(config, &names).await
}

/// Creates the named topics (full names, prefix included) with the configured partitions and
/// replication; topics that already exist are left alone.
pub async fn create_topics(config: &Config, names: &[String]) -> Result<(), KafkaError> {
    let admin: AdminClient<DefaultClientContext> = base_config(config).create()?;
    let new: Vec<NewTopic<'_>> = names
        .iter()
        .map(|n| {
            let t = NewTopic::new(n, config.kafka_partitions, TopicReplication::Fixed(config.kafka_replication));
            if ORDERS_EXPIRE_DELAY.iter().any(|e| n.ends_with(e)) {
                t.set("retention.ms", EXPIRY_RETENTION_MS)
            } else {
                t
            }
        })
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

/// Waits that double from 100 ms to 10 s between retries of a failing step, so a dead dependency is
/// retried steadily rather than hammered; `reset` after a success.
#[derive(Debug)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self { next: Self::FIRST }
    }
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(100);
    const MAX: Duration = Duration::from_secs(10);

    /// Sleeps the current wait, then doubles it (up to the cap).
    pub async fn wait(&mut self) {
        tokio::time::sleep(self.next).await;
        self.next = (self.next * 2).min(Self::MAX);
    }

    /// Back to the shortest wait.
    pub fn reset(&mut self) {
        self.next = Self::FIRST;
    }
}

/// Whether a Postgres error is about the data itself (SQLSTATE classes 22 data exception, 23 integrity,
/// 42 syntax or access), so retrying the same message can never succeed; anything else (a lost
/// connection, a failover, a pool timeout) may pass.
pub fn is_permanent_db_error(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(db) => {
            db.code().is_some_and(|c| ["22", "23", "42"].iter().any(|class| c.starts_with(class)))
        }
        sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) | sqlx::Error::TypeNotFound { .. } => true,
        _ => false,
    }
}

/// Runs a consumer loop for the life of the process. Each run is its own task, so a panic is caught like
/// an error; either restarts it after a backoff (its offsets were committed only after durable work, so a
/// restart redelivers and never skips), and a run that lasted a minute resets the backoff. Aborting the
/// returned handle also cancels the run in progress, so its consumer closes while the broker is still
/// there, not whenever the runtime ends (a consumer closing against a broker already gone can hang).
pub fn keep_running<F, Fut, E>(name: &'static str, mut run: F) -> tokio::task::JoinHandle<()>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    tokio::spawn(async move {
        let mut backoff = Backoff::default();
        loop {
            let started = std::time::Instant::now();
            let mut current = CancelOnDrop(tokio::spawn(run()));
            match (&mut current.0).await {
                Ok(Ok(())) => tracing::warn!("{name} returned; restarting"),
                Ok(Err(e)) => tracing::error!("{name} stopped, restarting: {e}"),
                Err(e) if e.is_panic() => tracing::error!("{name} panicked, restarting: {e}"),
                Err(e) => {
                    tracing::info!("{name} cancelled: {e}");
                    return;
                }
            }
            if started.elapsed() > Duration::from_secs(60) {
                backoff.reset();
            }
            backoff.wait().await;
        }
    })
}

/// Aborts the task it holds when dropped: a cancelled supervisor takes its current run with it.
struct CancelOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for CancelOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends a message no consumer can process to `orders.dlq`, with the reason in a `reason` header.
pub async fn dead_letter(
    producer: &FutureProducer,
    config: &Config,
    payload: &[u8],
    reason: &str,
) -> Result<(), KafkaError> {
    let topic = topic(config, ORDERS_DLQ);
    let headers =
        rdkafka::message::OwnedHeaders::new().insert(rdkafka::message::Header { key: "reason", value: Some(reason) });
    let record: rdkafka::producer::FutureRecord<'_, (), [u8]> =
        rdkafka::producer::FutureRecord::to(&topic).payload(payload).headers(headers);
    producer.send(record, Duration::from_secs(10)).await.map(|_| ()).map_err(|(e, _)| e)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_worker_that_panics_is_restarted_and_cancelling_it_ends_its_run() {
        // The expected panic is not reported: printing it with a symbolised backtrace took seconds on a
        // loaded machine (8.2 s once, in the cluster pass), which this test then counted as the restart's.
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&"the first run dies") {
                report(info);
            }
        }));
        let runs = Arc::new(AtomicU32::new(0));
        let counter = runs.clone();
        // Set when a run is dropped: cancelling the worker must end the run it is in.
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = ended.clone();
        let worker = keep_running("test worker", move || {
            let counter = counter.clone();
            let on_drop = SetOnDrop(flag.clone());
            async move {
                let _on_drop = on_drop;
                if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                    panic!("the first run dies");
                }
                std::future::pending::<Result<(), String>>().await
            }
        });
        let started = std::time::Instant::now();
        while runs.load(Ordering::SeqCst) < 2 {
            assert!(started.elapsed() < Duration::from_secs(5), "the worker was not restarted after its panic");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        ended.store(false, Ordering::SeqCst); // the first run's end set it
        worker.abort();
        let _ = worker.await;
        let cancelled = std::time::Instant::now();
        while !ended.load(Ordering::SeqCst) {
            assert!(cancelled.elapsed() < Duration::from_secs(5), "the run outlived its cancelled worker");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sets its flag when dropped.
    struct SetOnDrop(Arc<std::sync::atomic::AtomicBool>);

    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn only_data_errors_are_permanent() {
        assert!(!is_permanent_db_error(&sqlx::Error::PoolTimedOut));
        assert!(!is_permanent_db_error(&sqlx::Error::Io(std::io::Error::other("connection reset"))));
        assert!(is_permanent_db_error(&sqlx::Error::Decode("bad".into())));
    }
}
