//! 64-bit, time-ordered order ids, unique across server instances and restarts (snowflake layout):
//! 41 bits of milliseconds since 2025-01-01 UTC | 10 bits of instance number | 12 bits of sequence.
//! The instance number is leased from Postgres with a TTL and a heartbeat; an instance whose lease is not
//! confirmed stops minting before the number can pass to anyone else.

use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use sqlx::PgPool;

/// 2025-01-01T00:00:00Z in unix milliseconds.
const EPOCH_MS: u64 = 1_735_689_600_000;
const WORKER_BITS: u32 = 10;
const SEQ_BITS: u32 = 12;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;
/// How many instance numbers exist.
pub const WORKERS: u64 = 1 << WORKER_BITS;

/// An instance stops minting this long before its lease could expire in Postgres, so it has certainly
/// stopped before anyone else can take the number (clock rates differ by far less than this).
const SAFETY: Duration = Duration::from_secs(2);

/// Why no id could be minted.
#[derive(Debug, thiserror::Error)]
pub enum IdError {
    /// The lease on this instance's number was not confirmed in time (Postgres unreachable, or lost):
    /// minting would risk a collision, so nothing is minted until it is renewed.
    #[error("the lease on order-id worker {0} has lapsed")]
    LeaseLapsed(u64),
}

/// Why no worker number could be leased.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// All 1,024 numbers are held by live instances.
    #[error("all {WORKERS} order-id worker numbers are leased")]
    NoneFree,
    /// Postgres failed.
    #[error("leasing an order-id worker number: {0}")]
    Db(#[from] sqlx::Error),
}

/// Milliseconds on this process's monotonic clock (leases are judged on it, never on the wall clock).
fn mono_ms() -> u64 {
    static BASE: LazyLock<Instant> = LazyLock::new(Instant::now);
    BASE.elapsed().as_millis() as u64
}

/// A generator's changing parts, under one lock so an id is never minted from a half-renewed lease.
#[derive(Debug)]
struct Inner {
    /// The leased (or owned) number.
    worker: u64,
    /// The lease's holder token in Postgres (`None`: owned outright).
    token: Option<String>,
    /// Minting is allowed until this [`mono_ms`] instant.
    valid_until: u64,
    /// Last millisecond used.
    last_ms: u64,
    /// Sequence within it.
    seq: u64,
}

/// Mints ids for one instance; cheap to call from any thread (a short uncontended lock, no await).
#[derive(Debug)]
pub struct IdGenerator {
    inner: Mutex<Inner>,
    /// How long a lease runs without renewal.
    ttl: Duration,
}

impl IdGenerator {
    /// A generator for number `worker` (modulo [`WORKERS`]) that owns its number outright: for unit tests
    /// and offline tools that are alone in the id space. Servers lease theirs with [`acquire`].
    pub fn without_lease(worker: u64) -> Self {
        let inner = Inner { worker: worker % WORKERS, token: None, valid_until: u64::MAX, last_ms: 0, seq: 0 };
        Self { inner: Mutex::new(inner), ttl: Duration::MAX }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// This instance's number.
    pub fn worker(&self) -> u64 {
        self.lock().worker
    }

    /// The next id: strictly increasing for this generator, even if the wall clock steps back (it then
    /// keeps counting on the last millisecond it used) or 4,096 ids are asked in one millisecond (it moves
    /// on to the next). Refused while the lease is not confirmed.
    pub fn next_id(&self) -> Result<i64, IdError> {
        let now = (crate::shared::clock::now_ms().max(0) as u64).saturating_sub(EPOCH_MS);
        let mut inner = self.lock();
        if mono_ms() >= inner.valid_until {
            return Err(IdError::LeaseLapsed(inner.worker));
        }
        let (ms, seq) = if now > inner.last_ms {
            (now, 0)
        } else if inner.seq < SEQ_MASK {
            (inner.last_ms, inner.seq + 1)
        } else {
            (inner.last_ms + 1, 0)
        };
        (inner.last_ms, inner.seq) = (ms, seq);
        Ok(((ms << (WORKER_BITS + SEQ_BITS)) | (inner.worker << SEQ_BITS) | seq) as i64)
    }

    /// The creation time (unix ms) encoded in an id.
    pub fn timestamp_ms(id: i64) -> u64 {
        ((id as u64) >> (WORKER_BITS + SEQ_BITS)) + EPOCH_MS
    }

    /// The smallest id minted at or after unix ms `ms`: a time range of orders is an id range, which the
    /// `(shop_id, id)` index answers without reading the rows outside it.
    pub fn first_id_at(ms: i64) -> i64 {
        ((ms.max(EPOCH_MS as i64) as u64 - EPOCH_MS) << (WORKER_BITS + SEQ_BITS)) as i64
    }

    /// Confirms the lease for another TTL. If it was lost (expired and perhaps taken over), minting stops
    /// and a fresh number is leased instead. Answers whether ids can be minted now.
    pub async fn renew(&self, db: &PgPool) -> Result<bool, LeaseError> {
        let (worker, token) = {
            let inner = self.lock();
            match &inner.token {
                Some(token) => (inner.worker, token.clone()),
                None => return Ok(true),
            }
        };
        let asked_at = mono_ms();
        let renewed = sqlx::query!(
            "UPDATE id_leases SET expires_at = now() + make_interval(secs => $3)
             WHERE worker = $1 AND holder = $2 AND expires_at > now()",
            worker as i32,
            token,
            self.ttl.as_secs_f64(),
        )
        .execute(db)
        .await?
        .rows_affected()
            == 1;
        if renewed {
            let mut inner = self.lock();
            if inner.token.as_deref() == Some(token.as_str()) {
                // Postgres set the expiry after we asked, so it lies at least a TTL after `asked_at`.
                inner.valid_until = inner.valid_until.max(asked_at + (self.ttl - SAFETY).as_millis() as u64);
            }
            return Ok(true);
        }
        tracing::error!(worker, "order-id lease lost; minting stops until a new number is leased");
        self.lock().valid_until = 0;
        let leased = lease(db, self.ttl).await?;
        let mut inner = self.lock();
        (inner.worker, inner.token, inner.valid_until) = (leased.worker, Some(leased.token), leased.valid_until);
        inner.last_ms = inner.last_ms.max(leased.floor_ms);
        tracing::info!(worker = leased.worker, "order-id worker number leased anew");
        Ok(true)
    }

    /// Gives the number back at shutdown; after [`SAFETY`] (clocks differ by less) the next instance may
    /// take it.
    pub async fn release(&self, db: &PgPool) -> Result<(), sqlx::Error> {
        let (worker, token) = {
            let mut inner = self.lock();
            inner.valid_until = 0;
            match &inner.token {
                Some(token) => (inner.worker, token.clone()),
                None => return Ok(()),
            }
        };
        sqlx::query!(
            "UPDATE id_leases SET holder = NULL, expires_at = now() + make_interval(secs => $3)
             WHERE worker = $1 AND holder = $2",
            worker as i32,
            token,
            SAFETY.as_secs_f64(),
        )
        .execute(db)
        .await?;
        Ok(())
    }
}

/// A fresh lease: the number, its holder token, until when it may mint ([`mono_ms`]), and Postgres' clock
/// at the lease in id milliseconds (the floor of its ids, should this machine's clock lag behind).
struct Leased {
    worker: u64,
    token: String,
    valid_until: u64,
    floor_ms: u64,
}

/// Takes the number whose lease ran out longest ago (so a crashed instance's number is reused last).
async fn lease(db: &PgPool, ttl: Duration) -> Result<Leased, LeaseError> {
    let token = format!("{:032x}", rand::random::<u128>());
    let asked_at = mono_ms();
    let row = sqlx::query!(
        r#"UPDATE id_leases SET holder = $1, expires_at = now() + make_interval(secs => $2)
         WHERE worker = (SELECT worker FROM id_leases WHERE expires_at < now()
                         ORDER BY expires_at, worker LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING worker, (extract(epoch FROM now()) * 1000)::BIGINT AS "db_now_ms!""#,
        token,
        ttl.as_secs_f64(),
    )
    .fetch_optional(db)
    .await?
    .ok_or(LeaseError::NoneFree)?;
    Ok(Leased {
        worker: row.worker as u64,
        token,
        valid_until: asked_at + (ttl - SAFETY).as_millis() as u64,
        floor_ms: (row.db_now_ms as u64).saturating_sub(EPOCH_MS),
    })
}

/// Leases a worker number from Postgres for `ttl` (renewed by [`spawn_heartbeat`]). Unique by
/// construction: a number is handed out only once its previous lease has expired in Postgres, and a holder
/// stops minting [`SAFETY`] before its lease can expire.
pub async fn acquire(db: &PgPool, ttl: Duration) -> Result<IdGenerator, LeaseError> {
    let ttl = ttl.max(SAFETY * 2);
    let leased = lease(db, ttl).await?;
    let inner = Inner {
        worker: leased.worker,
        token: Some(leased.token),
        valid_until: leased.valid_until,
        last_ms: leased.floor_ms,
        seq: 0,
    };
    Ok(IdGenerator { inner: Mutex::new(inner), ttl })
}

/// Renews the lease four times per TTL for as long as the process runs.
pub fn spawn_heartbeat(ids: std::sync::Arc<IdGenerator>, db: PgPool) -> tokio::task::JoinHandle<()> {
    let every = if ids.ttl == Duration::MAX { Duration::from_secs(3600) } else { (ids.ttl - SAFETY) / 4 };
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Err(e) = ids.renew(&db).await {
                tracing::warn!(worker = ids.worker(), "order-id lease not renewed (retrying): {e}");
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn ids_are_unique_across_instances_and_increasing_per_instance() {
        let generators: Vec<Arc<IdGenerator>> = (0..2).map(|w| Arc::new(IdGenerator::without_lease(w))).collect();
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let g = generators[t % 2].clone();
                std::thread::spawn(move || (0..50_000).map(|_| g.next_id().unwrap()).collect::<Vec<i64>>())
            })
            .collect();
        let mut all = HashSet::new();
        for h in handles {
            let ids = h.join().unwrap();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "increasing within a thread");
            for id in ids {
                assert!(id > 0);
                assert!(all.insert(id), "duplicate id {id}");
            }
        }
        assert_eq!(all.len(), 200_000);
    }

    #[test]
    fn the_timestamp_is_recoverable() {
        let g = IdGenerator::without_lease(5);
        let before = (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as u64;
        let ts = IdGenerator::timestamp_ms(g.next_id().unwrap());
        assert!(ts >= before && ts <= before + 1_000);
        assert_eq!(g.worker(), 5);
        assert_eq!(IdGenerator::without_lease(WORKERS + 3).worker(), 3);
    }
}
