//! All Redis commands of the flash-sale capability; every multi-step change is one Lua script.

use std::sync::LazyLock;

use redis::Script;
use redis::aio::ConnectionManager;

use super::model::GrabCode;
use crate::keys::Keys;

static SECKILL: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/seckill.lua")));
static RELEASE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/release.lua")));
static RATE_LIMIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/rate_limit.lua")));

/// Writes a sale's state: stock and window replaced, buyers and release markers cleared (a new sale).
pub async fn load_sale(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_id: i64,
    stock: i64,
    begin_ms: i64,
    end_ms: i64,
) -> Result<(), redis::RedisError> {
    redis::pipe()
        .atomic()
        .cmd("SET").arg(keys.seckill_stock(voucher_id)).arg(stock).ignore()
        .cmd("DEL").arg(keys.seckill_buyers(voucher_id)).arg(keys.seckill_released(voucher_id)).ignore()
        .cmd("HSET").arg(keys.seckill_window(voucher_id)).arg("begin").arg(begin_ms).arg("end").arg(end_ms).ignore()
        .query_async(&mut redis.clone())
        .await
}

/// Runs `lua/seckill.lua` for one user (EVALSHA, re-loading the script if Redis lost it).
pub async fn try_grab(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_id: i64,
    user_id: i64,
) -> Result<GrabCode, redis::RedisError> {
    let code: i64 = SECKILL
        .key(keys.seckill_stock(voucher_id))
        .key(keys.seckill_buyers(voucher_id))
        .key(keys.seckill_window(voucher_id))
        .arg(user_id)
        .invoke_async(&mut redis.clone())
        .await?;
    Ok(GrabCode::from_script(code))
}

/// Gives a grab back once per order (`lua/release.lua`); true if stock was returned now.
pub async fn release(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_id: i64,
    user_id: i64,
    order_id: i64,
) -> Result<bool, redis::RedisError> {
    let released: i64 = RELEASE
        .key(keys.seckill_stock(voucher_id))
        .key(keys.seckill_buyers(voucher_id))
        .key(keys.seckill_released(voucher_id))
        .arg(user_id)
        .arg(order_id)
        .invoke_async(&mut redis.clone())
        .await?;
    Ok(released == 1)
}

/// Records a request in a sliding window; `Some(ms)` = refused, retry after that long.
pub async fn rate_limit(
    redis: &ConnectionManager,
    key: &str,
    window_ms: u64,
    limit: u32,
) -> Result<Option<u64>, redis::RedisError> {
    let request_id = format!("{:032x}", rand::random::<u128>());
    let wait: i64 = RATE_LIMIT.key(key).arg(window_ms).arg(limit).arg(request_id).invoke_async(&mut redis.clone()).await?;
    Ok((wait > 0).then_some(wait as u64))
}

/// Remaining stock and buyer count of a sale (for reconciliation and tests).
pub async fn sale_state(redis: &ConnectionManager, keys: &Keys, voucher_id: i64) -> Result<(Option<i64>, u64), redis::RedisError> {
    redis::pipe()
        .cmd("GET").arg(keys.seckill_stock(voucher_id))
        .cmd("SCARD").arg(keys.seckill_buyers(voucher_id))
        .query_async(&mut redis.clone())
        .await
}
