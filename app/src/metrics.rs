//! Per-instance counters of the flash sale, the order lifecycle and the Redis state, rendered by the
//! server's `/metrics`.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crate::inventory::GrabCode;

/// Adds one to a counter.
pub fn inc(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Flash-sale counters.
#[derive(Debug)]
pub struct SeckillMetrics {
    /// Script answers, indexed like [`GrabCode::ALL`].
    pub outcomes: [AtomicU64; 6],
    /// Answered from the local sold-out flag without Redis.
    pub sold_out_flag_hits: AtomicU64,
    /// Requests refused by a rate limit.
    pub rate_limited: AtomicU64,
    /// Sends the broker certainly refused (grab given back).
    pub produce_failures: AtomicU64,
    /// Sends with an unknown outcome (queued for compensation).
    pub produce_unknown: AtomicU64,
    /// Compensation messages re-sent successfully.
    pub compensated: AtomicU64,
    /// The order writer's consumer lag on `orders.created` (from librdkafka statistics; -1 = not yet known).
    pub writer_lag: Arc<AtomicI64>,
}

impl Default for SeckillMetrics {
    fn default() -> Self {
        Self {
            outcomes: Default::default(),
            sold_out_flag_hits: AtomicU64::new(0),
            rate_limited: AtomicU64::new(0),
            produce_failures: AtomicU64::new(0),
            produce_unknown: AtomicU64::new(0),
            compensated: AtomicU64::new(0),
            writer_lag: Arc::new(AtomicI64::new(-1)),
        }
    }
}

impl SeckillMetrics {
    /// Counts one script answer.
    pub fn outcome(&self, code: GrabCode) {
        inc(&self.outcomes[code.index()]);
    }

    /// (outcome label, count) in script-code order.
    pub fn outcomes(&self) -> Vec<(&'static str, u64)> {
        GrabCode::ALL.iter().map(|c| (c.label(), self.outcomes[c.index()].load(Ordering::Relaxed))).collect()
    }
}

/// Order-lifecycle counters.
#[derive(Debug)]
pub struct OrderMetrics {
    /// Orders closed unpaid (by the closer or the sweeper).
    pub closed: AtomicU64,
    /// Orders paid.
    pub paid: AtomicU64,
    /// Payments refunded because the order had closed first.
    pub refunds: AtomicU64,
    /// Orders the sweeper found overdue (non-zero means the closer missed them).
    pub sweeper_finds: AtomicU64,
    /// The closer's consumer lag on `orders.close-delay` (-1 until known).
    pub closer_lag: Arc<AtomicI64>,
}

impl Default for OrderMetrics {
    fn default() -> Self {
        Self {
            closed: AtomicU64::new(0),
            paid: AtomicU64::new(0),
            refunds: AtomicU64::new(0),
            sweeper_finds: AtomicU64::new(0),
            closer_lag: Arc::new(AtomicI64::new(-1)),
        }
    }
}

/// Counters of the Redis state's health.
#[derive(Debug, Default)]
pub struct StateMetrics {
    /// Rebuilds of Redis' state from Postgres (at start-up, and each time Redis lost its data).
    pub rebuilds: AtomicU64,
}
