//! The closer: consumes the fixed-delay topics — `orders.close-delay` (close unpaid orders) and the
//! `orders.expire-*` topics (refund coupons unused at their use-by) — in each of which due times rise
//! within a partition. A message not yet due pauses its partition and rewinds to it; a timer resumes the
//! partition when it is due — the poll loop never sleeps, other partitions and topics keep flowing, and the
//! group sees a live member.

use std::time::Duration;

use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{BorrowedMessage, Message};
use rdkafka::{Offset, TopicPartitionList};
use tokio::sync::mpsc;

use super::service::{self, OrderError};
use crate::platform::backend::BackendError;
use crate::platform::kafka::{self, DueCheck, LagContext, ORDERS_CLOSE_DELAY, ORDERS_EXPIRE_DELAY};
use crate::web::state::AppState;

/// Consumer group of the closer.
pub const GROUP: &str = "order-closer";

/// The closer stopped.
#[derive(Debug, thiserror::Error)]
pub enum CloserError {
    /// Kafka failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// Closing failed (the message was not committed; it will be redelivered).
    #[error("closing: {0}")]
    Order(#[from] OrderError),
}

crate::backend_errors!(CloserError, Order);

fn partition_list(topic: &str, partition: i32) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition(topic, partition);
    tpl
}

/// Pauses `msg`'s partition, rewinds it to `msg` and schedules its resumption `wait` from now.
fn defer(
    consumer: &StreamConsumer<LagContext>,
    msg: &BorrowedMessage<'_>,
    wait: Duration,
    resume: &mpsc::UnboundedSender<(String, i32)>,
) -> Result<(), KafkaError> {
    let (topic, partition) = (msg.topic().to_string(), msg.partition());
    consumer.pause(&partition_list(&topic, partition))?;
    // Non-blocking seek: already-fetched later messages of this partition are discarded, and it restarts here.
    consumer.seek(&topic, partition, Offset::Offset(msg.offset()), Duration::ZERO)?;
    let resume = resume.clone();
    tokio::spawn(async move {
        tokio::time::sleep(wait).await;
        let _ = resume.send((topic, partition));
    });
    Ok(())
}

/// What falls due on a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Due {
    /// Close the order if it is still unpaid.
    Close,
    /// Refund the coupon if it is still paid and unused.
    Expire,
}

impl Due {
    /// Does it to one order; whether anything changed.
    async fn apply(self, state: &AppState, order_id: i64) -> Result<bool, OrderError> {
        match self {
            Self::Close => Ok(service::close(state, order_id).await? == service::CloseOutcome::Closed),
            Self::Expire => service::expire(state, order_id).await,
        }
    }
}

/// Settles one due order, retrying a transient failure (Postgres or Redis away) with a backoff in place —
/// the consumer stays, so the group does not rebalance. An order Postgres refuses for its data is left to
/// the sweeper and the reconciliation, loudly: retrying it could never succeed.
async fn settle_durably(state: &AppState, due: Due, order_id: i64) {
    let mut backoff = kafka::Backoff::default();
    loop {
        match due.apply(state, order_id).await {
            Ok(true) if due == Due::Close => {
                tracing::info!(order = order_id, "unpaid order closed; its coupon is back on sale");
                return;
            }
            Ok(true) => {
                tracing::info!(order = order_id, "coupon expired unused; its price was refunded");
                return;
            }
            Ok(false) => return,
            Err(OrderError::Backend(BackendError::Db(e))) if kafka::is_permanent_db_error(&e) => {
                tracing::error!(order = order_id, ?due, "order cannot be settled (refused for its data): {e}");
                return;
            }
            Err(e) => tracing::warn!(order = order_id, ?due, "settling failed, retrying: {e}"),
        }
        backoff.wait().await;
    }
}

/// Runs the closer until its consumer breaks; the caller restarts it (offsets are committed after each close).
pub async fn run(state: AppState) -> Result<(), CloserError> {
    let group = format!("{}{GROUP}", state.config.kafka_topic_prefix);
    let lag = LagContext { group: group.clone(), metrics: state.metrics.clone() };
    let consumer = kafka::consumer_with_lag(&state.config, &group, lag)?;
    let close_topic = kafka::topic(&state.config, ORDERS_CLOSE_DELAY);
    let mut topics = vec![close_topic.clone()];
    topics.extend(ORDERS_EXPIRE_DELAY.iter().map(|t| kafka::topic(&state.config, t)));
    consumer.subscribe(&topics.iter().map(String::as_str).collect::<Vec<_>>())?;
    let (resume_tx, mut resume_rx) = mpsc::unbounded_channel::<(String, i32)>();
    loop {
        tokio::select! {
            Some((topic, partition)) = resume_rx.recv() => {
                // After a rebalance the partition may be gone or already flowing: nothing to do then.
                if let Err(e) = consumer.resume(&partition_list(&topic, partition)) {
                    tracing::debug!(%topic, partition, "resume skipped: {e}");
                }
            }
            msg = consumer.recv() => {
                let msg = msg?;
                let payload = msg.payload().unwrap_or_default();
                let check = match serde_json::from_slice::<DueCheck>(payload) {
                    Ok(check) => check,
                    Err(e) => {
                        kafka::dead_letter(&state.kafka, &state.config, payload, &format!("undecodable close check: {e}")).await?;
                        consumer.commit_message(&msg, CommitMode::Async)?;
                        continue;
                    }
                };
                let now = crate::shared::clock::now_ms();
                if check.due_ms > now {
                    defer(&consumer, &msg, Duration::from_millis((check.due_ms - now) as u64), &resume_tx)?;
                    continue;
                }
                let due = if msg.topic() == close_topic { Due::Close } else { Due::Expire };
                for order_id in check.order_ids {
                    settle_durably(&state, due, order_id).await;
                }
                consumer.commit_message(&msg, CommitMode::Async)?;
            }
        }
    }
}

/// Keeps the closer running for the life of the process, restarting it after a failure.
pub fn spawn(state: AppState) -> tokio::task::JoinHandle<()> {
    kafka::keep_running("order closer", move || run(state.clone()))
}
