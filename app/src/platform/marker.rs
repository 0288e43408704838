//! Whether Redis still holds the state rebuilt from Postgres (sale stock, nearby index, follow sets).
//! Redis here keeps nothing on disk and a failover loses the last second, so its data can vanish while the
//! app runs; the marker vanishes with it, which is how every instance notices.

use crate::platform::redis_conn::Redis;

use crate::platform::keys::Keys;

/// True while the marker written after the last rebuild is present.
pub async fn state_present(redis: &Redis, keys: &Keys) -> Result<bool, redis::RedisError> {
    redis::cmd("EXISTS").arg(keys.state_marker()).query_async(&mut redis.clone()).await
}

/// Records that the state has been rebuilt from Postgres (at `at_ms`, unix ms).
pub async fn mark_present(redis: &Redis, keys: &Keys, at_ms: i64) -> Result<(), redis::RedisError> {
    redis::cmd("SET").arg(keys.state_marker()).arg(at_ms).query_async(&mut redis.clone()).await
}
