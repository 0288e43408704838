//! Rebuilds Redis' state from Postgres (and the orders still in Kafka) and watches for the need to: sale
//! stock, the nearby index, follows, likes, feeds' inboxes, check-ins and visitor counts.

use std::time::Duration;

use crate::platform::backend::BackendError;
use crate::platform::{lock, marker};
use crate::shared::clock;
use crate::web::state::AppState;

/// How long one instance may hold the rebuild before another may take over (a rebuild takes seconds).
const REBUILD_LOCK: Duration = Duration::from_secs(60);

/// What a rebuild put back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rebuilt {
    /// Flash sales written into Redis (those it already held are left alone).
    pub sales: usize,
    /// Shops placed in the nearby index.
    pub shops: usize,
    /// Follow relations loaded.
    pub follows: usize,
    /// Likes put back on their notes.
    pub likes: usize,
    /// Follow-feed inbox entries put back.
    pub inbox: usize,
    /// Check-in days put back on the calendars.
    pub checkins: usize,
    /// Day-and-scope visitor counts merged back from their snapshots.
    pub visitor_days: usize,
}

/// Rebuilds everything Redis holds for Postgres' sake, then marks it present. Safe to run while traffic
/// flows: sales Redis still has are never overwritten.
pub async fn rebuild(state: &AppState) -> Result<Rebuilt, BackendError> {
    let sales = crate::seckill::service::restore_sales(state).await?;
    let shops = crate::geo::service::load_all(state).await?;
    let follows = crate::social::service::load_follows(state).await?;
    let likes = crate::social::service::load_likes(state).await?;
    let inbox = crate::social::service::load_inboxes(state).await?;
    let checkins = crate::checkin::service::load_checkins(state).await?;
    let visitor_days = crate::catalog::visitors::restore(state).await?;
    marker::mark_present(&state.redis, &state.keys, clock::now_ms()).await?;
    state.metrics.state.rebuilds.inc();
    Ok(Rebuilt { sales, shops, follows, likes, inbox, checkins, visitor_days })
}

/// One check: if Redis has lost its state and no other instance is rebuilding it, rebuild it now.
/// Answers what was rebuilt, or `None` when nothing was needed (or another instance is at it).
pub async fn heal_once(state: &AppState) -> Result<Option<Rebuilt>, BackendError> {
    if marker::state_present(&state.redis, &state.keys).await? {
        return Ok(None);
    }
    let key = state.keys.state_rebuild_lock();
    let token = lock::token();
    if !lock::try_lock(&state.redis, &key, &token, REBUILD_LOCK).await? {
        return Ok(None);
    }
    // Grabs that ran on the lost Redis may still be sending their orders: one not yet in Kafka (nor queued
    // for a resend) would be left out of the count and its coupon sold again. Until every such send has
    // settled, grabs keep answering "being restored".
    tokio::time::sleep(state.publisher.settle_time()).await;
    let rebuilt = rebuild(state).await;
    if let Err(e) = lock::unlock(&state.redis, &key, &token).await {
        tracing::warn!("rebuild lock not released (it expires by itself): {e}");
    }
    rebuilt.map(Some)
}

/// Checks every `every` for the life of the process.
pub fn spawn_healer(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match heal_once(&state).await {
                Ok(None) => {}
                Ok(Some(r)) => tracing::warn!(?r, "Redis had lost its state; rebuilt it from Postgres and Kafka"),
                Err(e) => tracing::error!("Redis state rebuild failed, retrying: {e}"),
            }
        }
    })
}
