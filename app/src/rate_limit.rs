//! Sliding-window rate limits in Redis (`lua/rate_limit.lua`), shared by every instance.

use std::sync::LazyLock;

use redis::Script;
use redis::aio::ConnectionManager;

static RATE_LIMIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../lua/rate_limit.lua")));

/// Records a request in the window at `key`; `Some(ms)` = refused, retry after that long.
pub async fn check(
    redis: &ConnectionManager,
    key: &str,
    window_ms: u64,
    limit: u32,
) -> Result<Option<u64>, redis::RedisError> {
    let request_id = format!("{:032x}", rand::random::<u128>());
    let wait: i64 =
        RATE_LIMIT.key(key).arg(window_ms).arg(limit).arg(request_id).invoke_async(&mut redis.clone()).await?;
    Ok((wait > 0).then_some(wait as u64))
}
