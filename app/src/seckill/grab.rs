//! The grab: throttle → in-process sold-out view → the inventory's atomic script → Kafka (awaiting the
//! delivery report), with every outcome settled — given back, or queued for a resend that a worker drains.

use std::time::{Duration, Instant};

use super::model::GrabCode;
use super::service::SeckillError;
use super::store;
use crate::platform::breaker::Service;
use crate::platform::kafka::{self, Delivery, ORDERS_CREATED, OrderCreated};
use crate::sale::inventory::{self, Replication};
use crate::shared::clock::now_ms;
use crate::web::state::AppState;

/// The per-address limit, in this instance's memory (the per-user limit is inside the sale script).
fn throttle_address(state: &AppState, ip: &str) -> Result<(), SeckillError> {
    state.grab_gate.spend_address(ip).map_err(|wait| {
        state.metrics.seckill.rate_limited.inc();
        SeckillError::RateLimited(wait.as_millis().max(1) as u64)
    })
}

/// A new slider puzzle for `user_id` on sale `voucher_id` (nothing stored: the ticket carries it).
pub fn puzzle(state: &AppState, user_id: i64, voucher_id: i64) -> crate::shared::human_check::Puzzle {
    state.config.human_check.issue(user_id, voucher_id, now_ms())
}

/// Judges an answer to a puzzle of [`puzzle`] and, if the piece landed in the gap, answers the pass for one
/// grab. The puzzle is spent whatever the answer, so each one buys a single guess.
pub async fn solve(
    state: &AppState,
    user_id: i64,
    voucher_id: i64,
    ticket: &str,
    x: u16,
    drag_ms: u32,
) -> Result<String, SeckillError> {
    use crate::shared::human_check::{LIFETIME, Refusal};
    state.breakers.admit(Service::Redis)?;
    let judged = state.config.human_check.judge(ticket, user_id, voucher_id, x, drag_ms, now_ms());
    let outcome = match judged {
        Ok(judged) => {
            inventory::record_solution(
                &state.redis,
                &state.keys,
                voucher_id,
                user_id,
                &judged.nonce,
                judged.hit,
                LIFETIME,
            )
            .await?
        }
        Err(refusal) => {
            state.grab_tally.add(voucher_id, "puzzle_refused");
            return Err(refusal.into());
        }
    };
    match outcome {
        inventory::Solution::Passed(pass) => Ok(pass),
        inventory::Solution::Missed => {
            state.grab_tally.add(voucher_id, "puzzle_refused");
            Err(Refusal::Missed.into())
        }
        inventory::Solution::Reused => Err(Refusal::Reused.into()),
    }
}

/// One grab for a logged-in user, with no puzzle pass (tests of sales without the human check); see
/// [`grab_with_pass`].
#[cfg(feature = "testing")]
pub async fn grab(state: &AppState, user_id: i64, voucher_id: i64, ip: &str) -> Result<i64, SeckillError> {
    grab_with_pass(state, user_id, voucher_id, ip, None).await
}

/// One grab for a logged-in user, spending the puzzle `pass` of [`solve`] if the sale asks for one. On
/// `Ok` the order is in Kafka (or, if the broker's answer was lost, on the resend queue that re-sends
/// it), so it will be written; the id is what the page then follows. Its latency lands in `/metrics` by
/// outcome.
pub async fn grab_with_pass(
    state: &AppState,
    user_id: i64,
    voucher_id: i64,
    ip: &str,
    pass: Option<&str>,
) -> Result<i64, SeckillError> {
    let started = std::time::Instant::now();
    let result = grab_once(state, user_id, voucher_id, ip, pass).await;
    let outcome = match &result {
        Ok(order_id) => {
            // Debug, not info: a line per grab would be most of a busy sale's log (the order is in Kafka,
            // the outcome in the metrics and the sale's tally).
            tracing::debug!(order = order_id, user = user_id, voucher = voucher_id, "grab queued its order");
            "ok"
        }
        Err(e) => e.outcome_label(),
    };
    state.grab_tally.add(voucher_id, outcome);
    let labels = crate::platform::metrics::OutcomeLabels { outcome };
    state.metrics.seckill.grab_seconds.get_or_create(&labels).observe(started.elapsed().as_secs_f64());
    result
}

async fn grab_once(
    state: &AppState,
    user_id: i64,
    voucher_id: i64,
    ip: &str,
    pass: Option<&str>,
) -> Result<i64, SeckillError> {
    // Both breakers before anything is taken: with Redis or the broker failing, "try again in n s" at once.
    state.breakers.admit(Service::Redis)?;
    state.breakers.kafka.admit()?;
    throttle_address(state, ip)?;
    if state.sold_out.is_sold_out(voucher_id) || state.live_stock.is_sold_out(voucher_id) {
        state.metrics.seckill.sold_out_flag_hits.inc();
        return Err(SeckillError::Refused(GrabCode::SoldOut));
    }
    // The id first: if none can be minted, nothing has been taken yet.
    let order_id = state.ids.next_id()?;
    // Before the script runs, so the grab's own clock is never behind the age the sweeper reads.
    let lines = Lines::from_start(state, Instant::now());
    let deadline = lines.send;
    let rules = inventory::GrabRules {
        attempts: inventory::AttemptLimit {
            limit: state.config.seckill_rate_limit,
            window_ms: state.config.seckill_rate_window.as_millis() as u64,
        },
        quiet: state.config.live_stock_quiet,
    };
    let grabbed =
        inventory::try_grab_limited(&state.grab_redis, &state.keys, voucher_id, user_id, order_id, pass, rules).await;
    let code = match grabbed {
        Ok(inventory::Grabbed { code: GrabCode::RateLimited, wait_ms, .. }) => {
            state.metrics.seckill.outcome(GrabCode::RateLimited.label());
            state.metrics.seckill.rate_limited.inc();
            return Err(SeckillError::RateLimited(wait_ms));
        }
        Ok(grabbed) => {
            if grabbed.owes_announcement {
                announce_later(state, voucher_id);
            }
            grabbed.code
        }
        // The script may or may not have run: check in the background, never guess.
        Err(e) => return Err(unsure(state, OrderCreated { order_id, user_id, voucher_id, ts: now_ms() }, deadline, e)),
    };
    state.metrics.seckill.outcome(code.label());
    if code != GrabCode::NoSuchSale {
        // A real sale: hear its stock from now on, so a sold-out one is refused here without Redis.
        state.live_stock.follow(voucher_id);
    }
    match code {
        GrabCode::Ok => {}
        GrabCode::SoldOut => {
            state.sold_out.mark_sold_out(voucher_id).await;
            return Err(SeckillError::Refused(code));
        }
        // Unknown to Redis: either no such sale, or Redis lost its data and the state is being rebuilt.
        GrabCode::NoSuchSale if !crate::platform::marker::state_present(&state.redis, &state.keys).await? => {
            return Err(SeckillError::Restoring);
        }
        other => return Err(SeckillError::Refused(other)),
    }
    let order = OrderCreated { order_id, user_id, voucher_id, ts: now_ms() };
    // Finished even if the buyer's request is dropped mid-way: the outcome is still settled (given back,
    // or queued for a resend) instead of leaving a deduction nobody follows up.
    let settle = crate::platform::finish::finish({
        let state = state.clone();
        async move {
            hold_on_replicas(&state, &order, deadline).await?;
            if Instant::now() > deadline {
                return Err(give_back_late(&state, &order).await);
            }
            publish(&state, &order, Some(lines.promise)).await
        }
    });
    settle.await.map_err(SeckillError::PublishTask)??;
    Ok(order_id)
}

/// Announces the sale's stock a quiet spell from now, for a grab whose own announcement was skipped (one
/// came less than a spell before it): the figure a burst leaves reaches the shop pages even when no grab
/// follows it. One owed announcement per sale at a time on this instance, however many grabs skipped
/// theirs meanwhile; it reads the stock after them all.
fn announce_later(state: &AppState, voucher_id: i64) {
    if !state.live_stock.owe(voucher_id) {
        return;
    }
    let state = state.clone();
    tokio::spawn(async move {
        let quiet = state.config.live_stock_quiet;
        tokio::time::sleep(quiet).await;
        // Settled before the read: a grab that skips its announcement after this owes a new one.
        state.live_stock.settle(voucher_id);
        if let Err(e) = inventory::announce(&state.redis, &state.keys, voucher_id, quiet).await {
            tracing::warn!(voucher = voucher_id, "stock left after a burst not announced: {e}");
        }
    });
}

/// How far the sweeper's clock may be ahead of this instance's (it ages grabs by Redis' clock): the
/// margin kept between the last moment a grab may promise its order and the sweeper's first look.
const CLOCK_MARGIN: Duration = Duration::from_secs(1);

/// The two moments a grab whose script starts at `started` must keep, so the stranded-grab sweeper —
/// which looks for the order `STRANDED_GRAB_SECS` after the script, and gives the coupon back if it is
/// nowhere — never gives back a coupon whose buyer was told "yours".
#[derive(Clone, Copy)]
struct Lines {
    /// The last moment the grab may begin to send its order: a send settles (acknowledged, or queued
    /// for a resend) within the publisher's settle time, so one begun by now settles before `promise`.
    send: Instant,
    /// The last moment the grab may answer "yours": by then its order must be where the sweeper looks
    /// (in Kafka or on the resend queue). A send that settles later — a machine so loaded that the
    /// settle time was not enough — is answered as unsure instead: the sweeper may already have looked.
    promise: Instant,
}

impl Lines {
    fn from_start(state: &AppState, started: Instant) -> Self {
        let promise = started + state.config.stranded_grab_after.saturating_sub(CLOCK_MARGIN);
        Self { send: promise.checked_sub(state.publisher.settle_time()).unwrap_or(started), promise }
    }
}

/// A grab that reached its send too late to be sure of beating the sweeper (a failover held its `WAIT`
/// up): given back now instead of sent, and its buyer asked to try again. Should the give-back fail too,
/// the sweeper gives it back, as no order of it exists anywhere.
async fn give_back_late(state: &AppState, order: &OrderCreated) -> SeckillError {
    state.metrics.seckill.unreplicated.inc();
    tracing::warn!(order = order.order_id, "grab too late to send before the sweeper's age; giving it back");
    let (voucher, user, id) = (order.voucher_id, order.user_id, order.order_id);
    // On the pages' connection: on the grabs' own, the release would queue behind other grabs' `WAIT`s.
    match inventory::release(&state.redis, &state.keys, voucher, user, id).await {
        Ok(_) => SeckillError::NotReplicated,
        Err(e) => e.into(),
    }
}

/// A failed call of the sale's Redis: if Redis did not answer, the grab may or may not have happened,
/// so it is checked in the background (never guessed) and the buyer told so; any other error is plain.
fn unsure(state: &AppState, order: OrderCreated, deadline: Instant, e: redis::RedisError) -> SeckillError {
    if !(e.is_timeout() || e.is_connection_dropped() || e.is_io_error()) {
        return e.into();
    }
    crate::platform::breaker::note_failure(Service::Redis);
    check_later(state, order, deadline, e)
}

/// A grab whose outcome `e` left unknown: settled in the background (never guessed), its buyer told so.
fn check_later(state: &AppState, order: OrderCreated, deadline: Instant, e: redis::RedisError) -> SeckillError {
    tokio::spawn(settle_unknown_grab(state.clone(), order, deadline));
    SeckillError::Unsure(e)
}

/// With `GRAB_REPLICAS` set, a grab is acknowledged only once that many replicas of the sale's Redis
/// primary hold it, so a failover to one of them cannot sell the coupon again. One the replicas did not
/// confirm in time is given back (if that fails too, the stranded-grab sweeper gives it back, as no order
/// exists); one the serving node no longer has was lost in a failover and took nothing. Either way the
/// buyer is asked to try again. A call still unanswered at `deadline` (a client waiting out a failover)
/// is settled as an unsure one.
async fn hold_on_replicas(state: &AppState, order: &OrderCreated, deadline: Instant) -> Result<(), SeckillError> {
    let replicas = state.config.grab_replicas;
    if replicas == 0 {
        return Ok(());
    }
    let grab = (order.user_id, order.order_id);
    let wait = state.config.grab_replica_wait;
    let asked = inventory::await_replicas(&state.grab_redis, &state.keys, order.voucher_id, grab, replicas, wait);
    let replication = match tokio::time::timeout_at(deadline.into(), asked).await {
        Ok(answer) => answer.map_err(|e| unsure(state, order.clone(), deadline, e))?,
        // The wait is the replicas', not Redis' failure: a promoted primary without a replica yet holds
        // each `WAIT` for its whole timeout, and the grabs' `WAIT`s queue behind one another on their
        // connection. Not fed to the Redis breaker, which would refuse every session read and page of
        // the instance while Redis answers them.
        Err(_) => {
            let e = std::io::Error::from(std::io::ErrorKind::TimedOut).into();
            return Err(check_later(state, order.clone(), deadline, e));
        }
    };
    match replication {
        Replication::Held => Ok(()),
        Replication::Unconfirmed(acked) => {
            state.metrics.seckill.unreplicated.inc();
            tracing::warn!(order = order.order_id, acked, replicas, "grab not confirmed by Redis replicas in time");
            // On the pages' connection, not behind the other grabs' `WAIT`s on the grabs' own (with no replica
            // each holds that connection for the whole wait).
            inventory::release(&state.redis, &state.keys, order.voucher_id, order.user_id, order.order_id).await?;
            Err(SeckillError::NotReplicated)
        }
        Replication::Lost => {
            state.metrics.seckill.unreplicated.inc();
            tracing::warn!(order = order.order_id, "grab lost in a Redis failover before a replica held it");
            Err(SeckillError::NotReplicated)
        }
    }
}

/// How long an unsure grab is checked on before it is given up (Redis that does not answer this long has
/// lost the grab's record with everything else, and the rebuild counts only orders that exist).
const UNSURE_GRAB_PATIENCE: Duration = Duration::from_secs(120);

/// Settles a grab whose script call failed mid-way: asks Redis (with a backoff) whether the grab was
/// recorded under its order id; if it was, the order is produced like any other, so no buyer is left
/// recorded without an order; if not, nothing was taken and nothing is done. Where grabs must be held by
/// replicas (`GRAB_REPLICAS`), a recorded one is given back instead: whether a replica holds it cannot be
/// known after the connection that wrote it is gone, and its buyer was not told "yours". So is one found
/// after the grab's send `deadline`, which the sweeper may be giving back at the same moment.
async fn settle_unknown_grab(state: AppState, order: OrderCreated, deadline: Instant) {
    let started = std::time::Instant::now();
    let mut backoff = kafka::Backoff::default();
    while started.elapsed() < UNSURE_GRAB_PATIENCE {
        match inventory::grab_recorded(&state.redis, &state.keys, order.voucher_id, order.user_id, order.order_id).await
        {
            Ok(false) => return,
            Ok(true) if state.config.grab_replicas > 0 || Instant::now() > deadline => {
                tracing::warn!(order = order.order_id, "an unsure grab had happened; giving it back");
                let (voucher, user, id) = (order.voucher_id, order.user_id, order.order_id);
                match inventory::release(&state.redis, &state.keys, voucher, user, id).await {
                    Ok(_) => return,
                    Err(e) => tracing::warn!(order = order.order_id, "cannot give an unsure grab back yet: {e}"),
                }
            }
            Ok(true) => {
                tracing::warn!(order = order.order_id, "an unsure grab had happened; producing its order");
                if let Err(e) = publish(&state, &order, None).await {
                    tracing::error!(order = order.order_id, "unsure grab's order not produced: {e}");
                }
                return;
            }
            Err(e) => tracing::warn!(order = order.order_id, "cannot check an unsure grab yet: {e}"),
        }
        backoff.wait().await;
    }
    tracing::error!(order = order.order_id, "unsure grab not settled: Redis did not answer");
}

/// Produces the order and settles every outcome: acknowledged → done; certainly lost → grab given back
/// and an error; unknown → onto the resend queue in Postgres (the writer is idempotent, so a resend is
/// safe). With a `promise` line (a buyer waits for the answer), an order that reached Kafka or the queue
/// only after it is answered [`SeckillError::SettledLate`], not "yours"; the queueing itself is given up
/// at the line, its fate then unknown like the send's.
async fn publish(state: &AppState, order: &OrderCreated, promise: Option<Instant>) -> Result<(), SeckillError> {
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let delivery = match serde_json::to_vec(order) {
        Ok(payload) => state.publisher.send(&topic, &payload).await,
        Err(e) => Delivery::NotPersisted(e.into()),
    };
    // Recorded here, not by the request: this may outlive the request (see `finish`).
    match &delivery {
        Delivery::Persisted => state.breakers.kafka.success(),
        Delivery::NotPersisted(_) | Delivery::Unknown(_) => state.breakers.kafka.failure(),
    }
    match delivery {
        Delivery::Persisted => {}
        Delivery::NotPersisted(cause) => {
            state.metrics.seckill.produce_failures.inc();
            inventory::release(&state.redis, &state.keys, order.voucher_id, order.user_id, order.order_id).await?;
            return Err(SeckillError::BrokerUnavailable(cause));
        }
        Delivery::Unknown(cause) => {
            state.metrics.seckill.produce_unknown.inc();
            tracing::warn!(order = order.order_id, %cause, "produce outcome unknown; queued for compensation");
            let queued = store::push_compensation(state.postgres()?, order);
            match promise {
                None => queued.await?,
                Some(line) => match tokio::time::timeout_at(line.into(), queued).await {
                    Ok(queued) => queued?,
                    Err(_) => return Err(settled_late(state, order)),
                },
            }
        }
    }
    match promise {
        Some(line) if Instant::now() > line => Err(settled_late(state, order)),
        _ => Ok(()),
    }
}

/// A grab whose order reached Kafka or the resend queue after its promise line: the sweeper may have
/// looked for it first and given the coupon back, so its buyer is not told "yours" — the order appears
/// in "My orders" if the writer takes it, and nothing is held if not.
fn settled_late(state: &AppState, order: &OrderCreated) -> SeckillError {
    state.metrics.seckill.settled_late.inc();
    tracing::warn!(order = order.order_id, "order settled after the grab's promise line; answered as unsure");
    SeckillError::SettledLate
}

/// Re-sends the resend queue until it is empty or the broker stops taking messages; returns how many were
/// delivered. Oldest first; an order leaves the queue only after the broker acknowledged it.
pub async fn drain_compensation(state: &AppState) -> Result<usize, SeckillError> {
    let topic = kafka::topic(&state.config, ORDERS_CREATED);
    let mut delivered = 0;
    loop {
        let batch = store::compensation_orders(state.postgres()?, Some(100)).await?;
        if batch.is_empty() {
            return Ok(delivered);
        }
        for order in batch {
            let payload = serde_json::to_vec(&order).map_err(|e| SeckillError::BrokerUnavailable(e.into()))?;
            match state.publisher.send(&topic, &payload).await {
                Delivery::Persisted => {
                    state.breakers.kafka.success();
                    store::remove_compensation(state.postgres()?, order.order_id).await?;
                    state.metrics.seckill.compensated.inc();
                    delivered += 1;
                }
                Delivery::NotPersisted(cause) | Delivery::Unknown(cause) => {
                    state.breakers.kafka.failure();
                    tracing::info!(%cause, "compensation resend failed; will retry");
                    return Ok(delivered);
                }
            }
        }
    }
}

/// Queues an order whose produce outcome is unknown, for the compensation worker to re-send.
pub async fn queue_for_resend(state: &AppState, order: &OrderCreated) -> Result<(), SeckillError> {
    Ok(store::push_compensation(state.postgres()?, order).await?)
}

/// How many orders wait for a resend.
pub async fn compensation_backlog(state: &AppState) -> Result<u64, SeckillError> {
    Ok(store::compensation_backlog(state.postgres()?).await?)
}

/// Keeps the resend queue draining for the life of the process.
pub fn spawn_compensation(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match drain_compensation(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(delivered = n, "compensation backlog re-sent"),
                Err(e) => tracing::error!("compensation worker: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    })
}
