//! All Redis commands of check-ins: SETBIT for a day, BITFIELD to read a month's prefix in one call.

use crate::platform::redis_conn::Redis;

/// Sets `day`'s bit (1-based); returns whether it was already set.
pub async fn check_in(redis: &Redis, key: &str, day: u8) -> Result<bool, redis::RedisError> {
    let previous: u8 =
        redis::cmd("SETBIT").arg(key).arg(u32::from(day) - 1).arg(1).query_async(&mut redis.clone()).await?;
    Ok(previous == 1)
}

/// The first `days` bits of a month as one unsigned number (day 1 highest), 0 if the key is missing.
pub async fn month_bits(redis: &Redis, key: &str, days: u8) -> Result<u64, redis::RedisError> {
    let values: Vec<Option<u64>> = redis::cmd("BITFIELD")
        .arg(key)
        .arg("GET")
        .arg(format!("u{days}"))
        .arg(0)
        .query_async(&mut redis.clone())
        .await?;
    Ok(values.into_iter().next().flatten().unwrap_or(0))
}
