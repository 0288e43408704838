//! All SQL and Redis of check-ins: a row per day checked (the record), SETBIT for the day in the month's
//! bitmap (the fast copy), BITFIELD to read a month's prefix in one call.

use sqlx::PgPool;
use time::Date;

use crate::platform::redis_conn::Redis;

/// Records `user_id`'s check-in on `day`; false if there was one already.
pub async fn record(db: &PgPool, user_id: i64, day: Date) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!("INSERT INTO checkins (user_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING", user_id, day)
        .execute(db)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Every check-in since `from`, for rebuilding the bitmaps: `(user, day)`.
pub async fn since(db: &PgPool, from: Date) -> Result<Vec<(i64, Date)>, sqlx::Error> {
    let rows = sqlx::query!("SELECT user_id, day FROM checkins WHERE day >= $1", from).fetch_all(db).await?;
    Ok(rows.into_iter().map(|r| (r.user_id, r.day)).collect())
}

/// Sets each `(key, day)`'s bit, a few thousand commands to a pipeline.
pub async fn set_days(redis: &Redis, days: &[(String, u8)]) -> Result<(), redis::RedisError> {
    for batch in days.chunks(5_000) {
        let cmds =
            batch.iter().map(|(key, day)| redis::cmd("SETBIT").arg(key).arg(u32::from(*day) - 1).arg(1).to_owned());
        crate::platform::redis_conn::per_slot(redis, cmds.collect(), false).await?;
    }
    Ok(())
}

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
