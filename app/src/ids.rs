//! 64-bit, time-ordered order ids, unique across server instances (snowflake layout):
//! 41 bits of milliseconds since 2025-01-01 UTC | 10 bits of instance number | 12 bits of sequence.

use std::sync::Mutex;

/// 2025-01-01T00:00:00Z in unix milliseconds.
const EPOCH_MS: u64 = 1_735_689_600_000;
const WORKER_BITS: u32 = 10;
const SEQ_BITS: u32 = 12;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;
/// How many instance numbers exist.
pub const WORKERS: u64 = 1 << WORKER_BITS;

/// Mints ids for one instance; cheap to call from any thread (a short uncontended lock, no await).
#[derive(Debug)]
pub struct IdGenerator {
    worker: u64,
    /// (last millisecond used, sequence within it)
    state: Mutex<(u64, u64)>,
}

impl IdGenerator {
    /// A generator for instance number `worker` (taken modulo [`WORKERS`]).
    pub fn new(worker: u64) -> Self {
        Self { worker: worker % WORKERS, state: Mutex::new((0, 0)) }
    }

    /// This instance's number.
    pub fn worker(&self) -> u64 {
        self.worker
    }

    /// The next id: strictly increasing for this generator, even if the wall clock steps back
    /// (it then keeps counting on the last millisecond it used) or 4,096 ids are asked in one millisecond
    /// (it moves on to the next).
    pub fn next_id(&self) -> i64 {
        let now = (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as u64;
        let now = now.saturating_sub(EPOCH_MS);
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (last, seq) = *state;
        let (ms, seq) = if now > last {
            (now, 0)
        } else if seq < SEQ_MASK {
            (last, seq + 1)
        } else {
            (last + 1, 0)
        };
        *state = (ms, seq);
        ((ms << (WORKER_BITS + SEQ_BITS)) | (self.worker << SEQ_BITS) | seq) as i64
    }

    /// The creation time (unix ms) encoded in an id.
    pub fn timestamp_ms(id: i64) -> u64 {
        ((id as u64) >> (WORKER_BITS + SEQ_BITS)) + EPOCH_MS
    }
}

/// Leases an instance number from Redis: each start-up takes the next of 1,024 in turn.
pub async fn lease_worker(redis: &redis::aio::ConnectionManager, key: &str) -> Result<u64, redis::RedisError> {
    let n: u64 = redis::cmd("INCR").arg(key).query_async(&mut redis.clone()).await?;
    Ok(n % WORKERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn ids_are_unique_across_instances_and_increasing_per_instance() {
        let generators: Vec<Arc<IdGenerator>> = (0..2).map(|w| Arc::new(IdGenerator::new(w))).collect();
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let g = generators[t % 2].clone();
                std::thread::spawn(move || (0..50_000).map(|_| g.next_id()).collect::<Vec<i64>>())
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
        let g = IdGenerator::new(5);
        let before = (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as u64;
        let ts = IdGenerator::timestamp_ms(g.next_id());
        assert!(ts >= before && ts <= before + 1_000);
        assert_eq!(g.worker(), 5);
        assert_eq!(IdGenerator::new(WORKERS + 3).worker(), 3);
    }
}
