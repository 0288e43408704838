//! The order writer: consumes `orders.created` in batches, writes each batch in one transaction, sends
//! what Postgres refuses (and what cannot be decoded) to `orders.dlq` with the reason, gives refused grabs
//! back in Redis, and only then commits the offsets — so a crash redelivers, and redelivery writes nothing twice.

use std::time::Duration;

use rdkafka::Message;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::error::KafkaError;
use rdkafka::message::OwnedMessage;

use super::model::{FailReason, OrderStatus};
use super::service::OrderError;
use super::store;
pub use super::store::{BatchOutcome, write_batch};
use crate::platform::backend::BackendError;
use crate::platform::kafka::{self, ORDERS_CREATED, OrderCreated};
use crate::web::state::AppState;

/// Consumer group of the writer.
pub const GROUP: &str = "order-writer";
/// The writer's consumer group under the configured prefix.
pub fn group(config: &crate::platform::config::Config) -> String {
    format!("{}{GROUP}", config.kafka_topic_prefix)
}

/// Most messages written in one transaction.
pub const MAX_BATCH: usize = 500;
/// How long a batch waits for more messages once it has one.
const LINGER: Duration = Duration::from_millis(20);

/// The writer stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriterError {
    /// Kafka or Postgres failed (the batch was not committed; it will be redelivered).
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// A dead-letter send failed (offsets not committed; the batch will be redelivered).
    #[error("dead-letter queue: {0}")]
    Dlq(KafkaError),
    /// Close checks could not be queued (offsets not committed; the batch will be redelivered).
    #[error("close checks: {0}")]
    CloseChecks(#[from] OrderError),
}

crate::backend_errors!(WriterError, CloseChecks);

/// What one batch came to, for logs and tests.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BatchReport {
    /// New orders written.
    pub inserted: usize,
    /// Redeliveries skipped.
    pub duplicates: usize,
    /// Sent to the dead-letter topic.
    pub dead_lettered: usize,
}

/// Waits for one message, then gathers more until `MAX_BATCH` or `LINGER` passes without one.
async fn next_batch<C: rdkafka::consumer::ConsumerContext + 'static>(
    consumer: &StreamConsumer<C>,
) -> Result<Vec<OwnedMessage>, KafkaError> {
    let first = consumer.recv().await?.detach();
    let mut batch = vec![first];
    while batch.len() < MAX_BATCH {
        match tokio::time::timeout(LINGER, consumer.recv()).await {
            Ok(msg) => batch.push(msg?.detach()),
            Err(_) => break,
        }
    }
    Ok(batch)
}

async fn dead_letter(state: &AppState, payload: &[u8], reason: &str) -> Result<(), WriterError> {
    kafka::dead_letter(&state.kafka, &state.config, payload, reason).await.map_err(WriterError::Dlq)
}

/// Decodes, writes and dead-letters one batch. Idempotent: running it twice on the same messages
/// writes nothing twice (the give-back in Redis is once-only per order too).
pub async fn process_batch(state: &AppState, messages: &[OwnedMessage]) -> Result<BatchReport, WriterError> {
    let mut orders = Vec::with_capacity(messages.len());
    let mut report = BatchReport::default();
    for m in messages {
        let payload = m.payload().unwrap_or_default();
        match serde_json::from_slice::<OrderCreated>(payload) {
            Ok(order) => orders.push(order),
            Err(e) => {
                dead_letter(state, payload, &format!("undecodable order message: {e}")).await?;
                report.dead_lettered += 1;
            }
        }
    }
    let BatchOutcome { inserted, duplicates, rejected } = store::write_batch(&state.db, &orders).await?;
    for order in &inserted {
        tracing::info!(order, "order stored");
    }
    for (order, reason) in &rejected {
        tracing::warn!(order = order.order_id, reason = reason.as_db(), "order refused by Postgres; coupon given back");
        let payload = serde_json::to_vec(order).unwrap_or_default();
        dead_letter(state, &payload, &format!("refused by Postgres: {} ({})", reason.as_db(), reason.message()))
            .await?;
        // Redis counted this grab; Postgres refused it: give the coupon back so the sale stays honest —
        // unless Postgres had none left, when Redis learns that instead (it must not sell them again).
        let (redis, keys, o) = (&state.redis, &state.keys, order);
        let settled = match reason {
            FailReason::SoldOut => {
                crate::sale::inventory::settle_sold_out(redis, keys, o.voucher_id, o.user_id, o.order_id).await
            }
            _ => crate::sale::inventory::release(redis, keys, o.voucher_id, o.user_id, o.order_id).await.map(drop),
        };
        if let Err(e) = settled {
            tracing::error!(order = order.order_id, "could not release a refused grab in Redis: {e}");
        }
    }
    // Every stored order gets its close check — redeliveries too, in case the first attempt died before
    // sending them (the closer is idempotent, so a second check is harmless).
    let ids: std::collections::HashSet<i64> = inserted.iter().chain(&duplicates).copied().collect();
    let stored: Vec<&OrderCreated> = orders.iter().filter(|o| ids.contains(&o.order_id)).collect();
    super::service::close_checks_for(state, &stored).await?;
    report.inserted = inserted.len();
    report.duplicates = duplicates.len();
    report.dead_lettered += rejected.len();
    Ok(report)
}

/// Whether retrying this batch as it is can never succeed (a message's data is refused by Postgres).
fn is_permanent(e: &WriterError) -> bool {
    matches!(e, WriterError::Backend(BackendError::Db(db)) if kafka::is_permanent_db_error(db))
}

/// Processes a batch until it is done. A transient failure (Postgres or the broker away) retries the same
/// batch with a backoff — the consumer stays, so the group does not rebalance; a batch Postgres refuses
/// for its data is split, and the one message it refuses on its own goes to the dead-letter topic.
async fn write_durably(state: &AppState, batch: &[OwnedMessage]) -> BatchReport {
    let mut backoff = kafka::Backoff::default();
    loop {
        match process_batch(state, batch).await {
            Ok(report) => return report,
            Err(e) if is_permanent(&e) && batch.len() > 1 => {
                tracing::warn!(
                    size = batch.len(),
                    "order batch refused for its data; writing it message by message: {e}"
                );
                let mut total = BatchReport::default();
                for message in batch {
                    let one = Box::pin(write_durably(state, std::slice::from_ref(message))).await;
                    total.inserted += one.inserted;
                    total.duplicates += one.duplicates;
                    total.dead_lettered += one.dead_lettered;
                }
                return total;
            }
            Err(e) if is_permanent(&e) => {
                let payload = batch[0].payload().unwrap_or_default();
                match dead_letter(state, payload, &format!("refused by Postgres for its data: {e}")).await {
                    Ok(()) => return BatchReport { dead_lettered: 1, ..BatchReport::default() },
                    Err(dlq) => tracing::warn!("dead-letter send failed, retrying: {dlq}"),
                }
            }
            Err(e) => tracing::warn!(size = batch.len(), "order batch not written, retrying: {e}"),
        }
        backoff.wait().await;
    }
}

/// Batches committed to Postgres by this process, for [`abort_if_fault_injected`].
static COMMITTED_BATCHES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Fault injection (`FAULT_WRITER_ABORTS`, set only by `scripts/chaos.sh`): dies like a `kill -9` in the
/// worst place — the batch is in Postgres, its offsets are not committed — so the suite can show that the
/// redelivery writes nothing twice.
fn abort_if_fault_injected(state: &AppState) {
    let limit = state.config.fault_writer_aborts;
    if limit > 0 && COMMITTED_BATCHES.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 >= limit {
        tracing::error!("FAULT_WRITER_ABORTS: aborting between the DB commit and the offset commit");
        std::process::abort();
    }
}

/// Runs the writer: receive a batch, write it durably (transient failures retried in place, so the consumer
/// keeps its place in the group), then commit the offsets (after the DB commit and the close checks). A
/// receive error ends the run: the caller builds a fresh consumer after a growing backoff, since a client
/// that lost its broker may not rejoin its group by itself.
pub async fn run(state: AppState) -> Result<(), WriterError> {
    let lag = kafka::LagContext { group: group(&state.config), metrics: state.metrics.clone() };
    let consumer = kafka::consumer_with_lag(&state.config, &lag.group.clone(), lag)?;
    consumer.subscribe(&[&kafka::topic(&state.config, ORDERS_CREATED)])?;
    loop {
        let batch = next_batch(&consumer).await?;
        let report = write_durably(&state, &batch).await;
        abort_if_fault_injected(&state);
        // Asynchronous: a synchronous commit waits for the broker without a deadline, on a runtime thread —
        // with the broker down it held that thread (and, on a one-thread runtime, everything) until the
        // broker came back. How it went is logged by the consumer's context; one that fails only means the
        // batch may be delivered again, and rewriting it writes nothing. The batch's own offsets, not the
        // consumer's: see `kafka::commit_processed`.
        if let Err(e) = kafka::commit_processed(&consumer, &batch) {
            tracing::warn!("order writer: offset commit not started (a redelivery is harmless): {e}");
        }
        tracing::debug!(?report, "order batch written");
    }
}

/// Where one of the user's orders stands as the writer sees it: written (with its status), refused (and
/// why), or still queued — an id the writer has not handled, or someone else's order, which must look the
/// same.
pub async fn status(state: &AppState, user_id: i64, order_id: i64) -> Result<OrderStatus, OrderError> {
    if let Some(order) = store::order_of_user(state.postgres()?, user_id, order_id).await? {
        return Ok(order.status);
    }
    let failed = store::failure_of_user(state.postgres()?, user_id, order_id).await?;
    Ok(failed.map_or(OrderStatus::Queued, OrderStatus::Failed))
}

/// Keeps the writer running for the life of the process, restarting it after a failure.
pub fn spawn(state: AppState) -> tokio::task::JoinHandle<()> {
    kafka::keep_running("order writer", move || run(state.clone()))
}
