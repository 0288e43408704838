//! A Redis mutex: `SET NX PX` with an owner token, released only by its owner (`lua/unlock.lua`), so a
//! holder that outlived its lease cannot release someone else's.

use std::sync::LazyLock;
use std::time::Duration;

use crate::platform::redis_conn::Redis;
use redis::Script;

static UNLOCK: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/unlock.lua")));

/// A fresh owner token.
pub fn token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Takes the lock at `key` for `ttl` if nobody holds it; true if `token` now owns it.
pub async fn try_lock(redis: &Redis, key: &str, token: &str, ttl: Duration) -> Result<bool, redis::RedisError> {
    let reply: Option<String> = redis::cmd("SET")
        .arg(key)
        .arg(token)
        .arg("NX")
        .arg("PX")
        .arg(ttl.as_millis() as u64)
        .query_async(&mut redis.clone())
        .await?;
    Ok(reply.is_some())
}

/// Releases the lock if `token` still owns it; true if it did.
pub async fn unlock(redis: &Redis, key: &str, token: &str) -> Result<bool, redis::RedisError> {
    let released: i64 = UNLOCK.key(key).arg(token).invoke_async(&mut redis.clone()).await?;
    Ok(released == 1)
}
