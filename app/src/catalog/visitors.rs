//! Visitor counts' record: each day's HyperLogLogs are copied to Postgres every few minutes and just after
//! midnight, and merged back when Redis lost them, so a total Redis loss costs at most one interval of
//! visits.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use time::Duration as TimeDuration;

use super::store::{self, VISITORS_KEPT_DAYS, VisitorDay};
use crate::platform::backend::BackendError;
use crate::shared::clock;
use crate::web::state::AppState;

/// Scopes copied per round trip.
const BATCH: usize = 500;

/// Copies every scope visited since its last snapshot (today's and yesterday's, so the day's last visits
/// are kept after midnight) to Postgres; answers how many were copied. Scopes are taken out of the
/// to-snapshot set as they are copied, so instances running it together share the work; a failed store
/// puts them back.
pub async fn snapshot(state: &AppState) -> Result<usize, BackendError> {
    let today = clock::today();
    let mut copied = 0;
    for day in [today - TimeDuration::days(1), today] {
        let day_key = clock::day_key(day);
        let touched = state.keys.uv_touched(&day_key);
        loop {
            let scopes = store::take_touched(&state.redis, &touched, BATCH).await?;
            if scopes.is_empty() {
                break;
            }
            if let Err(e) = copy(state, day, &day_key, &scopes).await {
                store::put_back_touched(&state.redis, &touched, &scopes).await?;
                return Err(e);
            }
            copied += scopes.len();
        }
    }
    Ok(copied)
}

async fn copy(state: &AppState, day: time::Date, day_key: &str, scopes: &[String]) -> Result<(), BackendError> {
    let keys: Vec<String> = scopes.iter().map(|s| state.keys.uv(s, day_key)).collect();
    let values = store::raw_values(&state.redis, &keys).await?;
    let days: Vec<VisitorDay> = scopes
        .iter()
        .zip(values)
        .filter_map(|(scope, hll)| Some(VisitorDay { scope: scope.clone(), day, hll: hll? }))
        .collect();
    store::save_visitor_days(state.postgres()?, &days).await?;
    Ok(())
}

/// Merges every kept day's snapshot back into Redis (visits counted meanwhile stay); answers how many.
pub async fn restore(state: &AppState) -> Result<usize, BackendError> {
    let from = clock::today() - TimeDuration::days(VISITORS_KEPT_DAYS - 1);
    let days = store::visitor_days_since(state.postgres()?, from).await?;
    let keep_secs = VISITORS_KEPT_DAYS * 24 * 3600;
    // Sixteen at a time: one script call per day and scope, each a round trip. (The calls are built
    // first: a lazily mapped stream of borrowing futures is not `Send` for the spawned healer.)
    let calls: Vec<_> = days
        .iter()
        .map(|d| {
            let keys = state.keys.uv_restore_script(&d.scope, &clock::day_key(d.day));
            let redis = state.redis.clone();
            let hll = d.hll.clone();
            async move { store::restore_visitors(&redis, &keys, &hll, keep_secs).await }
        })
        .collect();
    futures::stream::iter(calls).buffer_unordered(16).try_collect::<Vec<u64>>().await?;
    Ok(days.len())
}

/// Snapshots every `every` and a few seconds after each midnight (business time) for the life of the
/// process, and forgets snapshots older than the days kept.
pub fn spawn_snapshots(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every.min(until_after_midnight())).await;
            match snapshot(&state).await {
                Ok(n) => tracing::debug!(scopes = n, "visitor counts copied to Postgres"),
                Err(e) => tracing::warn!("visitor counts not copied, retrying at the next interval: {e}"),
            }
            let expired = clock::today() - TimeDuration::days(VISITORS_KEPT_DAYS);
            if let Ok(db) = state.postgres()
                && let Err(e) = store::forget_visitor_days(db, expired).await
            {
                tracing::warn!("old visitor snapshots not removed: {e}");
            }
        }
    })
}

/// Time until 5 s past the next business-day midnight.
fn until_after_midnight() -> Duration {
    let tomorrow = clock::today() + TimeDuration::days(1);
    let ms = clock::day_start_ms(tomorrow) + 5_000 - clock::now_ms();
    Duration::from_millis(ms.max(0) as u64)
}
