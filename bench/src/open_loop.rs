//! Open-loop load: grabs arrive at a fixed rate whatever the answers do (closed-loop users wait for their
//! answer before the next request, so a slow server slows its own load down and hides its queue). Each
//! shopper grabs once; a request's latency counts from when it was due, not from when it was sent, so a
//! load generator falling behind shows up in the figures instead of hiding them. The shoppers share a
//! bounded number of connections, as they would behind a front proxy or a mobile gateway: an arrival waits
//! for one (its wait counts in its latency) and gives up past a patience, so an overload shows as long waits
//! and shoppers who left — not as a generator out of file descriptors or busy with the arrivals it holds.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::{HttpClient, grab, outcome};

/// What one open-loop run saw.
#[derive(Debug, Default)]
pub struct OpenLoop {
    /// The arrival rate asked for, per second.
    pub rate: f64,
    /// Arrivals: every shopper due, those who left without a connection among them.
    pub sent: usize,
    /// Seconds from the first arrival to the last answer.
    pub secs: f64,
    /// Latencies of the grabs the server took on (every answer but a shedding one), sorted.
    pub admitted: Vec<Duration>,
    /// The second of the run each admitted grab was due in, beside its latency, in the order they were
    /// answered: whether a tail belongs to the run's start (connections and the instance warming up) or to
    /// all of it.
    pub admitted_at: Vec<(usize, Duration)>,
    /// Latencies of the shedding answers, sorted: 429 from the grab's token bucket, 503 from the
    /// instance's in-flight cap (`HTTP_MAX_IN_FLIGHT`), which sheds whatever the bucket let through beyond it.
    pub rejected: Vec<Duration>,
    /// Grabs answered 200: an order taken.
    pub ok: usize,
    /// Count per answer (`outcome` labels; transport errors apart).
    pub outcomes: BTreeMap<String, usize>,
    /// How late the generator sent its requests at worst (its own lag; large means the figures are the
    /// generator's, not the server's).
    pub worst_send_lag: Duration,
}

/// The outcome of an arrival that found no free connection within the patience and left without sending.
pub const GAVE_UP: &str = "gave up: no free connection in time";

/// How many connections the shoppers share and how long one waits for a free one before leaving.
#[derive(Debug, Clone, Copy)]
pub struct Connections {
    /// Requests in flight at most (one connection each).
    pub max: usize,
    /// Longest wait for a free connection, counted from when the arrival was due.
    pub patience: Duration,
}

/// `n` grabs, one arrival every `1 / rate` s over `connections`; arrival `i` is `arrival(i)`'s shopper
/// (cookie) grabbing on its sale. One worker a connection takes the oldest arrival not yet taken: it waits
/// for it if it is not due yet, counts it as gone if it has waited past the patience, and sends it otherwise
/// — so an arrival costs the generator nothing until a connection takes it up, and an overload's excess
/// costs it a clock read each.
pub async fn run(
    client: &HttpClient,
    url: &str,
    n: usize,
    rate: f64,
    connections: Connections,
    arrival: impl Fn(usize) -> (String, i64),
) -> OpenLoop {
    use futures::StreamExt;
    let started = Instant::now();
    let due = |i: usize| started + Duration::from_secs_f64(i as f64 / rate);
    let next = std::cell::Cell::new(0);
    let out = std::cell::RefCell::new(OpenLoop { rate, sent: n, ..OpenLoop::default() });
    let worker = || async {
        loop {
            let i = next.get();
            if i >= n {
                break;
            }
            next.set(i + 1);
            let scheduled = due(i);
            let now = Instant::now();
            if scheduled > now {
                tokio::time::sleep_until(scheduled.into()).await;
                let mut out = out.borrow_mut();
                out.worst_send_lag = out.worst_send_lag.max(scheduled.elapsed());
            } else if now - scheduled > connections.patience {
                *out.borrow_mut().outcomes.entry(GAVE_UP.to_string()).or_default() += 1;
                continue;
            }
            let (cookie, voucher) = arrival(i);
            let answer = grab(client, url, &cookie, voucher).await;
            let latency = scheduled.elapsed();
            let mut out = out.borrow_mut();
            match answer {
                Ok((status, body, _)) => {
                    let shed = status == 429 || status == 503;
                    if shed {
                        out.rejected.push(latency);
                    } else {
                        out.admitted.push(latency);
                        out.admitted_at.push(((scheduled - started).as_secs() as usize, latency));
                    }
                    out.ok += usize::from(status == 200);
                    *out.outcomes.entry(outcome(status, &body)).or_default() += 1;
                }
                Err(e) => *out.outcomes.entry(format!("transport error: {e}")).or_default() += 1,
            }
        }
    };
    // The workers share this task (and so the counters above without locks); the connections' own I/O runs
    // in the client's tasks.
    let mut workers: futures::stream::FuturesUnordered<_> = (0..connections.max.max(1)).map(|_| worker()).collect();
    while workers.next().await.is_some() {}
    drop(workers);
    let mut out = out.into_inner();
    out.secs = started.elapsed().as_secs_f64();
    out.admitted.sort_unstable();
    out.rejected.sort_unstable();
    out
}

/// The `p` quantile of sorted latencies (zero for none).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The `p` quantile of the admitted grabs due in each second of `run`, in order (zero for a second with none).
pub fn percentile_by_second(run: &OpenLoop, p: f64) -> Vec<Duration> {
    let seconds = run.admitted_at.iter().map(|&(second, _)| second + 1).max().unwrap_or(0);
    let mut by_second = vec![Vec::new(); seconds];
    for &(second, latency) in &run.admitted_at {
        by_second[second].push(latency);
    }
    by_second
        .into_iter()
        .map(|mut latencies| {
            latencies.sort_unstable();
            percentile(&latencies, p)
        })
        .collect()
}

/// Milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
