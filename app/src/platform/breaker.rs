//! Circuit breakers around Postgres, Redis and Kafka. After `threshold` failures in a row a breaker opens:
//! callers fail fast (503 + `Retry-After`) instead of each waiting out a timeout against a dead service.
//! After the cool-down it lets one probe through (half-open); the probe's success closes it, its failure
//! opens it again.

use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A service behind a breaker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Service {
    /// The database.
    Postgres = 0,
    /// The cache and the sale state.
    Redis = 1,
    /// The order queue.
    Kafka = 2,
}

impl Service {
    /// The label in logs and `/metrics`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Postgres => "postgres",
            Self::Redis => "redis",
            Self::Kafka => "kafka",
        }
    }
}

/// What a breaker is doing, as `/metrics` shows it (0, 1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    /// Calls go through.
    Closed = 0,
    /// One probe is through; the others fail fast until it reports.
    HalfOpen = 1,
    /// Calls fail fast.
    Open = 2,
}

/// A call refused because its service's breaker is open; nothing was attempted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} is failing; not trying again for {} s", service.name(), retry_after.as_secs())]
pub struct Open {
    /// The service.
    pub service: Service,
    /// When the breaker lets a probe through.
    pub retry_after: Duration,
}

/// When a breaker opens and for how long.
#[derive(Clone, Copy, Debug)]
pub struct BreakerSettings {
    /// Failures in a row that open it.
    pub threshold: u32,
    /// How long it stays open before a probe.
    pub cool_down: Duration,
}

#[derive(Debug)]
enum Phase {
    Closed {
        failures: u32,
    },
    Open {
        until: Instant,
    },
    /// A probe went out at `since`; one that never reports (its task was dropped) is replaced after a cool-down.
    HalfOpen {
        since: Instant,
    },
}

/// One service's breaker. Cheap to consult: a mutex held for a few instructions.
#[derive(Debug)]
pub struct Breaker {
    service: Service,
    settings: BreakerSettings,
    phase: Mutex<Phase>,
}

impl Breaker {
    /// A closed breaker for `service`.
    pub fn new(service: Service, settings: BreakerSettings) -> Self {
        Self { service, settings, phase: Mutex::new(Phase::Closed { failures: 0 }) }
    }

    /// The service it guards.
    pub fn service(&self) -> Service {
        self.service
    }

    fn phase(&self) -> std::sync::MutexGuard<'_, Phase> {
        // A panic while holding this lock cannot leave the phase half-written: recover it.
        self.phase.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// May a call go out now? `Err` says for how long not.
    pub fn admit(&self) -> Result<(), Open> {
        self.admit_at(Instant::now())
    }

    /// [`Breaker::admit`] at `now`.
    pub fn admit_at(&self, now: Instant) -> Result<(), Open> {
        let mut phase = self.phase();
        match *phase {
            Phase::Closed { .. } => Ok(()),
            Phase::Open { until } if now >= until => {
                *phase = Phase::HalfOpen { since: now };
                Ok(())
            }
            Phase::Open { until } => Err(self.open(until - now)),
            Phase::HalfOpen { since } if now.duration_since(since) >= self.settings.cool_down => {
                *phase = Phase::HalfOpen { since: now };
                Ok(())
            }
            Phase::HalfOpen { since } => Err(self.open(self.settings.cool_down - now.duration_since(since))),
        }
    }

    /// Refuses only while open, without ever letting a probe out (for callers that cannot report back).
    pub fn refuse_while_open(&self, now: Instant) -> Result<(), Open> {
        match *self.phase() {
            Phase::Open { until } if now < until => Err(self.open(until - now)),
            _ => Ok(()),
        }
    }

    fn open(&self, wait: Duration) -> Open {
        // Whole seconds, at least one: what `Retry-After` can say.
        Open { service: self.service, retry_after: Duration::from_secs(wait.as_secs_f64().ceil().max(1.0) as u64) }
    }

    /// A call answered: the service is up.
    pub fn success(&self) {
        *self.phase() = Phase::Closed { failures: 0 };
    }

    /// A call failed because the service did not answer.
    pub fn failure(&self) {
        self.failure_at(Instant::now())
    }

    /// [`Breaker::failure`] at `now`.
    pub fn failure_at(&self, now: Instant) {
        let mut phase = self.phase();
        let open = Phase::Open { until: now + self.settings.cool_down };
        match *phase {
            Phase::Closed { failures } if failures + 1 >= self.settings.threshold => {
                tracing::warn!(service = self.service.name(), "circuit breaker opened after {} failures", failures + 1);
                *phase = open;
            }
            Phase::Closed { failures } => *phase = Phase::Closed { failures: failures + 1 },
            Phase::HalfOpen { .. } => {
                tracing::warn!(service = self.service.name(), "circuit breaker probe failed; open again");
                *phase = open;
            }
            Phase::Open { .. } => {}
        }
    }

    /// The state now (an open breaker whose cool-down is over shows half-open: its next call is a probe).
    pub fn state(&self) -> BreakerState {
        match *self.phase() {
            Phase::Closed { .. } => BreakerState::Closed,
            Phase::Open { until } if Instant::now() < until => BreakerState::Open,
            Phase::Open { .. } | Phase::HalfOpen { .. } => BreakerState::HalfOpen,
        }
    }
}

/// The instance's three breakers.
#[derive(Clone, Debug)]
pub struct Breakers {
    /// Around Postgres (server functions).
    pub postgres: Arc<Breaker>,
    /// Around Redis (the grab, the shop cache).
    pub redis: Arc<Breaker>,
    /// Around the Kafka produce of orders.
    pub kafka: Arc<Breaker>,
}

impl Breakers {
    /// Three closed breakers with the same settings.
    pub fn new(settings: BreakerSettings) -> Self {
        Self {
            postgres: Arc::new(Breaker::new(Service::Postgres, settings)),
            redis: Arc::new(Breaker::new(Service::Redis, settings)),
            kafka: Arc::new(Breaker::new(Service::Kafka, settings)),
        }
    }

    /// Writes each breaker's state into `haodian_circuit_breaker_state`.
    pub fn report(&self, metrics: &crate::platform::metrics::Metrics) {
        for b in [&self.postgres, &self.redis, &self.kafka] {
            let labels = crate::platform::metrics::BreakerLabels { breaker: b.service().name() };
            metrics.breaker_state.get_or_create(&labels).set(b.state() as i64);
        }
    }

    /// Each service with its breaker's state now, as `/metrics` reports them.
    pub fn states(&self) -> [(Service, BreakerState); 3] {
        [&self.postgres, &self.redis, &self.kafka].map(|b| (b.service(), b.state()))
    }

    fn of(&self, service: Service) -> &Breaker {
        match service {
            Service::Postgres => &self.postgres,
            Service::Redis => &self.redis,
            Service::Kafka => &self.kafka,
        }
    }

    /// Feeds what one request saw into the breakers: a failure for each service that did not answer, a
    /// success for each it used that did.
    pub fn record(&self, seen: &Seen) {
        for service in [Service::Postgres, Service::Redis, Service::Kafka] {
            let i = service as usize;
            if seen.failed[i] {
                self.of(service).failure();
            } else if seen.used[i] {
                self.of(service).success();
            }
        }
    }

    /// May the current request call `service`? Fails fast while its breaker is open. A request that was
    /// let through (perhaps as the probe) keeps going through for its other calls. Background work (no
    /// request around it) is refused while the breaker is open but never takes the probe: nothing would
    /// report how the probe went.
    pub fn admit(&self, service: Service) -> Result<(), Open> {
        match SEEN.try_with(|s| s.get().used[service as usize]) {
            Ok(true) => Ok(()),
            Ok(false) => {
                // Noted here too, so a refusal that reaches the edge as another error (a session that
                // could not be read) still tells the client when to come back.
                self.of(service).admit().inspect_err(|open| note(|s| s.refused(open)))?;
                note(|s| s.used[service as usize] = true);
                Ok(())
            }
            Err(_) => self.of(service).refuse_while_open(Instant::now()),
        }
    }
}

/// What one request did with each service, gathered while it runs (see [`observe`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    used: [bool; 3],
    failed: [bool; 3],
    retry_after: Option<Duration>,
}

impl Seen {
    /// How long the client should wait, when a breaker refused it.
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// The request found `service` not answering.
    pub fn failed(&mut self, service: Service) {
        self.failed[service as usize] = true;
    }

    /// The request was refused by an open breaker: the client hears when to come back.
    pub fn refused(&mut self, open: &Open) {
        self.retry_after = Some(self.retry_after.map_or(open.retry_after, |r| r.max(open.retry_after)));
    }
}

tokio::task_local! {
    static SEEN: Cell<Seen>;
}

/// Runs one request's work, noting which services it used and which did not answer.
pub async fn observe<F: Future>(work: F) -> (F::Output, Seen) {
    SEEN.scope(Cell::new(Seen::default()), async move {
        let out = work.await;
        (out, SEEN.with(Cell::get))
    })
    .await
}

fn note(change: impl FnOnce(&mut Seen)) {
    let _ = SEEN.try_with(|s| {
        let mut seen = s.get();
        change(&mut seen);
        s.set(seen);
    });
}

/// The current request found `service` not answering where no error says so (a grab whose answer was
/// lost); outside a request there is nothing to note.
pub fn note_failure(service: Service) {
    note(|s| s.failed(service));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker() -> Breaker {
        Breaker::new(Service::Redis, BreakerSettings { threshold: 3, cool_down: Duration::from_secs(5) })
    }

    #[test]
    fn opens_after_threshold_failures_in_a_row_only() {
        let b = breaker();
        let t0 = Instant::now();
        b.failure_at(t0);
        b.failure_at(t0);
        b.success();
        b.failure_at(t0);
        b.failure_at(t0);
        assert_eq!(b.admit_at(t0), Ok(()), "a success in between resets the count");
        b.failure_at(t0);
        let refused = b.admit_at(t0 + Duration::from_millis(1500)).unwrap_err();
        assert_eq!(refused, Open { service: Service::Redis, retry_after: Duration::from_secs(4) });
    }

    #[test]
    fn lets_one_probe_through_after_the_cool_down_and_closes_on_its_success() {
        let b = breaker();
        let t0 = Instant::now();
        (0..3).for_each(|_| b.failure_at(t0));
        assert!(b.admit_at(t0 + Duration::from_secs(4)).is_err());
        let t1 = t0 + Duration::from_secs(5);
        assert_eq!(b.admit_at(t1), Ok(()), "the probe");
        assert!(b.admit_at(t1).is_err(), "only one probe at a time");
        b.success();
        assert_eq!(b.state(), BreakerState::Closed);
        assert_eq!(b.admit_at(t1), Ok(()));
    }

    #[test]
    fn a_failed_probe_opens_it_for_another_cool_down() {
        let b = breaker();
        let t0 = Instant::now();
        (0..3).for_each(|_| b.failure_at(t0));
        let t1 = t0 + Duration::from_secs(5);
        b.admit_at(t1).unwrap();
        b.failure_at(t1);
        assert!(b.admit_at(t1 + Duration::from_secs(4)).is_err());
        assert_eq!(b.admit_at(t1 + Duration::from_secs(5)), Ok(()));
    }

    #[test]
    fn a_probe_that_never_reports_is_replaced_after_a_cool_down() {
        let b = breaker();
        let t0 = Instant::now();
        (0..3).for_each(|_| b.failure_at(t0));
        let t1 = t0 + Duration::from_secs(5);
        b.admit_at(t1).unwrap();
        assert!(b.admit_at(t1 + Duration::from_secs(1)).is_err());
        assert_eq!(b.admit_at(t1 + Duration::from_secs(5)), Ok(()));
    }
}
