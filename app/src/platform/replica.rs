//! Where reads that may lag go: the hot standby while it answers, the primary while it does not. A
//! standby that stops answering then slows reads down (onto the primary) instead of failing them — and its
//! errors do not count against the Postgres breaker that every write goes through.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::PgPool;

/// How often the standby is asked whether it answers, and how long it may take.
const WATCH_EVERY: Duration = Duration::from_secs(1);
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Whether the read pool is on the standby now (cheap to ask on every read).
#[derive(Debug, Default)]
pub struct ReadRoute {
    on_replica: AtomicBool,
}

impl ReadRoute {
    /// A route that never leaves the primary (no standby configured).
    pub fn primary_only() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// A route to `replica`, on the primary until the standby first answers, then following a probe of it
    /// every second for the life of the process.
    pub fn watching(replica: PgPool) -> Arc<Self> {
        let route = Arc::new(Self::default());
        tokio::spawn({
            let route = Arc::downgrade(&route);
            async move {
                loop {
                    let answered = matches!(
                        tokio::time::timeout(PROBE_TIMEOUT, sqlx::query("SELECT 1").execute(&replica)).await,
                        Ok(Ok(_))
                    );
                    // The instance is gone (a test's state dropped): stop probing.
                    let Some(route) = route.upgrade() else { break };
                    let was = route.on_replica.swap(answered, Ordering::Relaxed);
                    match (was, answered) {
                        (false, true) => tracing::info!("reads go to the read replica"),
                        (true, false) => tracing::warn!("the read replica does not answer: reads go to the primary"),
                        _ => {}
                    }
                    drop(route);
                    tokio::time::sleep(WATCH_EVERY).await;
                }
            }
        });
        route
    }

    /// Are reads on the standby now?
    pub fn on_replica(&self) -> bool {
        self.on_replica.load(Ordering::Relaxed)
    }
}
