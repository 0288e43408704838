//! This instance's metrics in one prometheus-client registry, which the server's `/metrics` encodes:
//! counters of the flash sale, the order lifecycle and the Redis state, latency histograms, consumer lag
//! per partition, circuit-breaker states and the gauges read at scrape time.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Latency buckets from 1 ms to ~16 s (doubling): a grab answers in milliseconds, a page in tens of them,
/// and anything past the Redis response timeout (5 s) is an outage.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 15))
}

/// A family of latency histograms.
pub type LatencyFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn latency_family<L: Clone + std::hash::Hash + Eq>() -> LatencyFamily<L> {
    Family::new_with_constructor(latency_histogram as fn() -> Histogram)
}

/// `outcome="…"`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// What the grab ended in (`ok`, `sold_out`, `rate_limited`, `unavailable`, …).
    pub outcome: &'static str,
}

/// One HTTP route: the matched path (or the server function's endpoint), method and status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    /// `/shops/{id}`, `/api/seckill/grab`, or `unmatched`.
    pub route: String,
    /// `GET`, `POST`, … of the standard seven, or `other` (a client may invent methods; each would be
    /// a series of its own).
    pub method: &'static str,
    /// The answer's status code.
    pub status: u16,
}

/// One partition a consumer reads.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PartitionLabels {
    /// The consumer group.
    pub group: String,
    /// The topic.
    pub topic: String,
    /// The partition number.
    pub partition: i32,
}

/// One flash sale.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SaleLabels {
    /// The sale's voucher id.
    pub voucher: i64,
}

/// One circuit breaker.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BreakerLabels {
    /// `postgres`, `redis` or `kafka`.
    pub breaker: &'static str,
}

/// Flash-sale counters and the grab's latency.
#[derive(Debug)]
pub struct SeckillMetrics {
    /// Script answers by outcome.
    pub script_outcomes: Family<OutcomeLabels, Counter>,
    /// Answered from the local sold-out flag without Redis.
    pub sold_out_flag_hits: Counter,
    /// Requests refused by a rate limit.
    pub rate_limited: Counter,
    /// Sends the broker certainly refused (grab given back).
    pub produce_failures: Counter,
    /// Sends with an unknown outcome (queued for compensation).
    pub produce_unknown: Counter,
    /// Compensation messages re-sent successfully.
    pub compensated: Counter,
    /// Grabs given back because their order existed nowhere (the instance died before producing it).
    pub stranded_released: Counter,
    /// Grabs refused because no Redis replica confirmed them in time, or a failover lost them.
    pub unreplicated: Counter,
    /// Grabs answered as unsure because their order reached Kafka or the resend queue after their promise
    /// line (the sweeper may have looked first): each means the settle time was too short for the machine.
    pub settled_late: Counter,
    /// Grabs the grab's own route handed on to the server function behind the session layer, because their
    /// session had to be read, renewed or ended there (or the request was not the page's plain call).
    pub handed_on: Counter,
    /// Grabs whose session the grab's own route read from the store, holding no copy of it (the page was
    /// served by another instance, or the copy aged out).
    pub sessions_read: Counter,
    /// How long a grab took, by how it ended.
    pub grab_seconds: LatencyFamily<OutcomeLabels>,
}

impl Default for SeckillMetrics {
    fn default() -> Self {
        Self {
            script_outcomes: Family::default(),
            sold_out_flag_hits: Counter::default(),
            rate_limited: Counter::default(),
            produce_failures: Counter::default(),
            produce_unknown: Counter::default(),
            compensated: Counter::default(),
            stranded_released: Counter::default(),
            unreplicated: Counter::default(),
            settled_late: Counter::default(),
            handed_on: Counter::default(),
            sessions_read: Counter::default(),
            grab_seconds: latency_family(),
        }
    }
}

impl SeckillMetrics {
    /// Counts one script answer, by its label (`GrabCode::label`).
    pub fn outcome(&self, outcome: &'static str) {
        self.script_outcomes.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    fn register(&self, r: &mut Registry) {
        r.register("seckill_grabs", "Flash-sale script answers by outcome.", self.script_outcomes.clone());
        r.register(
            "seckill_sold_out_flag_hits",
            "Grabs answered by the local sold-out flag.",
            self.sold_out_flag_hits.clone(),
        );
        r.register("seckill_rate_limited", "Grabs refused by a rate limit.", self.rate_limited.clone());
        r.register(
            "seckill_produce_failures",
            "Orders the broker certainly refused (grab given back).",
            self.produce_failures.clone(),
        );
        r.register(
            "seckill_produce_unknown",
            "Orders with an unknown produce outcome (queued for resend).",
            self.produce_unknown.clone(),
        );
        r.register("seckill_compensated", "Queued orders re-sent successfully.", self.compensated.clone());
        r.register(
            "seckill_stranded_released",
            "Grabs given back because their order existed nowhere (instance died before producing it).",
            self.stranded_released.clone(),
        );
        r.register(
            "seckill_unreplicated",
            "Grabs given back because no Redis replica confirmed them in time (or a failover lost them).",
            self.unreplicated.clone(),
        );
        r.register(
            "seckill_settled_late",
            "Grabs answered as unsure because their order settled after the moment the sweeper may look for it.",
            self.settled_late.clone(),
        );
        r.register(
            "seckill_grabs_handed_on",
            "Grabs the grab's own route handed on to the server function behind the session layer.",
            self.handed_on.clone(),
        );
        r.register(
            "seckill_grab_sessions_read",
            "Grabs whose session the grab's own route read from the store, holding no copy of it.",
            self.sessions_read.clone(),
        );
        r.register("seckill_grab_duration_seconds", "Time to answer a grab, by outcome.", self.grab_seconds.clone());
    }
}

/// Order-lifecycle counters.
#[derive(Debug, Default)]
pub struct OrderMetrics {
    /// Orders closed unpaid (by the closer or the sweeper).
    pub closed: Counter,
    /// Orders paid.
    pub paid: Counter,
    /// Payments refunded because the order had closed first.
    pub refunds: Counter,
    /// Unpaid orders their buyers cancelled.
    pub cancelled: Counter,
    /// Paid, unused coupons refunded at their buyers' request.
    pub refunds_requested: Counter,
    /// Paid coupons refunded because their validity ended unused.
    pub refunds_expired: Counter,
    /// Orders the sweeper found overdue: unpaid past the deadline, or paid past the use-by (non-zero means
    /// the delayed checks missed them).
    pub sweeper_finds: Counter,
    /// Coupons redeemed at a shop's counter.
    pub used: Counter,
}

impl OrderMetrics {
    fn register(&self, r: &mut Registry) {
        r.register("orders_closed", "Unpaid orders closed (closer or sweeper).", self.closed.clone());
        r.register("orders_paid", "Orders paid.", self.paid.clone());
        r.register("orders_used", "Coupons redeemed at a shop's counter.", self.used.clone());
        r.register("orders_refunds", "Payments refunded because the order had closed first.", self.refunds.clone());
        r.register("orders_cancelled", "Unpaid orders their buyers cancelled.", self.cancelled.clone());
        r.register(
            "orders_refunds_requested",
            "Paid, unused coupons refunded at their buyers' request.",
            self.refunds_requested.clone(),
        );
        r.register(
            "orders_refunds_expired",
            "Paid coupons refunded because their validity ended unused.",
            self.refunds_expired.clone(),
        );
        r.register(
            "orders_sweeper_finds",
            "Overdue orders the sweeper found, unpaid or expired (non-zero: the delayed checks missed them).",
            self.sweeper_finds.clone(),
        );
    }
}

/// Counters of the Redis state's health.
#[derive(Debug, Default)]
pub struct StateMetrics {
    /// Rebuilds of Redis' state from Postgres (at start-up, and each time Redis lost its data).
    pub rebuilds: Counter,
}

/// Gauges whose values need a round trip, set by `/metrics` just before it encodes — at most once per
/// [`ScrapeGauges::EVERY`], since the audit behind them reads every sale.
#[derive(Debug, Default)]
pub struct ScrapeGauges {
    /// When they were last read.
    refreshed: std::sync::Mutex<Option<std::time::Instant>>,
    /// Order messages waiting for a resend.
    pub compensation_backlog: Gauge,
    /// (Redis stock + buyers) − (Postgres stock + live orders) per live sale; 0 when healthy.
    pub drift: Family<SaleLabels, Gauge>,
    /// Grabbed coupons not yet stored by the order writer, per live sale.
    pub in_flight: Family<SaleLabels, Gauge>,
}

impl ScrapeGauges {
    /// How long the values are reused between scrapes.
    pub const EVERY: std::time::Duration = std::time::Duration::from_secs(5);

    /// True (and the clock restarted) when the values are older than [`ScrapeGauges::EVERY`].
    pub fn due(&self) -> bool {
        let mut last = self.refreshed.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::Instant::now();
        if last.is_some_and(|t| now.duration_since(t) < Self::EVERY) {
            return false;
        }
        *last = Some(now);
        true
    }
}

/// Everything this instance measures, and the registry `/metrics` encodes.
#[derive(Debug)]
pub struct Metrics {
    /// The flash sale.
    pub seckill: SeckillMetrics,
    /// The order lifecycle.
    pub orders: OrderMetrics,
    /// The Redis state.
    pub state: StateMetrics,
    /// Time to answer each HTTP route.
    pub http_seconds: LatencyFamily<RouteLabels>,
    /// Messages behind the partition's end, per consumer group and partition (from librdkafka statistics).
    pub consumer_lag: Family<PartitionLabels, Gauge>,
    /// 1 for each partition this instance's consumer of the group reads now, 0 once taken away.
    pub consumer_assigned: Family<PartitionLabels, Gauge>,
    /// The same, readable: group → (topic, partition) this instance reads.
    assignments: std::sync::Mutex<std::collections::BTreeMap<String, std::collections::BTreeSet<(String, i32)>>>,
    /// Circuit-breaker states: 0 closed, 1 half-open, 2 open.
    pub breaker_state: Family<BreakerLabels, Gauge>,
    /// Flash sales this instance keeps a live stock view of.
    pub live_stock_sales: Gauge,
    /// Round-trip gauges.
    pub scrape: ScrapeGauges,
    registry: Registry,
}

impl Metrics {
    /// A rebalance gave this instance's consumer of `group` the partition (`assigned`) or took it away.
    pub fn note_assignment(&self, group: &str, topic: &str, partition: i32, assigned: bool) {
        let labels = PartitionLabels { group: group.to_string(), topic: topic.to_string(), partition };
        self.consumer_assigned.get_or_create(&labels).set(i64::from(assigned));
        if let Ok(mut all) = self.assignments.lock() {
            let mine = all.entry(group.to_string()).or_default();
            if assigned {
                mine.insert((topic.to_string(), partition));
            } else {
                mine.remove(&(topic.to_string(), partition));
            }
        }
    }

    /// The partitions (topic, number) this instance's consumer of `group` reads now.
    pub fn assigned_partitions(&self, group: &str) -> Vec<(String, i32)> {
        self.assignments
            .lock()
            .map(|all| all.get(group).map(|s| s.iter().cloned().collect()).unwrap_or_default())
            .unwrap_or_default()
    }

    /// Messages this instance's consumer of `group` is behind, summed over the partitions it reads now, as
    /// `haodian_consumer_lag` shows them; `None` while it reads none (another instance has them all).
    pub fn lag_of(&self, group: &str) -> Option<i64> {
        let partitions = self.assigned_partitions(group);
        (!partitions.is_empty()).then(|| {
            partitions
                .into_iter()
                .map(|(topic, partition)| {
                    let labels = PartitionLabels { group: group.to_string(), topic, partition };
                    self.consumer_lag.get_or_create(&labels).get()
                })
                .sum()
        })
    }

    /// Every metric registered under `haodian_`; `more` registers what lives elsewhere (the caches).
    pub fn new(more: impl FnOnce(&mut Registry)) -> Self {
        let mut registry = Registry::with_prefix("haodian");
        let m = Self {
            seckill: SeckillMetrics::default(),
            orders: OrderMetrics::default(),
            state: StateMetrics::default(),
            http_seconds: latency_family(),
            consumer_lag: Family::default(),
            consumer_assigned: Family::default(),
            assignments: Default::default(),
            breaker_state: Family::default(),
            live_stock_sales: Gauge::default(),
            scrape: ScrapeGauges::default(),
            registry: Registry::default(),
        };
        m.seckill.register(&mut registry);
        m.orders.register(&mut registry);
        registry.register(
            "redis_state_rebuilds",
            "Rebuilds of Redis' state from Postgres (start-up, and each time Redis lost its data).",
            m.state.rebuilds.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer, per route, method and status.",
            m.http_seconds.clone(),
        );
        registry.register(
            "consumer_lag",
            "Messages not yet consumed, per consumer group, topic and partition.",
            m.consumer_lag.clone(),
        );
        registry.register(
            "consumer_assigned",
            "1 for each partition this instance reads, per consumer group and topic (0 once taken away).",
            m.consumer_assigned.clone(),
        );
        registry.register(
            "circuit_breaker_state",
            "Circuit breaker state: 0 closed, 1 half-open (probing), 2 open (failing fast).",
            m.breaker_state.clone(),
        );
        registry.register(
            "live_stock_sales",
            "Flash sales this instance keeps a live stock view of (real sales only, whatever ids are asked for).",
            m.live_stock_sales.clone(),
        );
        registry.register(
            "seckill_compensation_backlog",
            "Order messages waiting for a resend.",
            m.scrape.compensation_backlog.clone(),
        );
        registry.register(
            "seckill_drift",
            "(Redis stock + buyers) - (Postgres stock + live orders); 0 when healthy.",
            m.scrape.drift.clone(),
        );
        registry.register(
            "seckill_in_flight",
            "Grabbed coupons not yet stored by the order writer.",
            m.scrape.in_flight.clone(),
        );
        more(&mut registry);
        Self { registry, ..m }
    }

    /// The registry in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}
