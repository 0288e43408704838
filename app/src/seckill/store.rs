//! All Redis commands of the flash-sale capability; every multi-step change is one Lua script.

use std::sync::LazyLock;

use redis::Script;
use redis::aio::ConnectionManager;
use sqlx::PgPool;

use super::model::{GrabCode, NewFlashSale, SaleAudit};
use crate::keys::Keys;

static SECKILL: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/seckill.lua")));
static RELEASE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/release.lua")));
static RESTORE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/restore_sale.lua")));
static RATE_LIMIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/rate_limit.lua")));

/// Writes a sale's state: stock and window replaced, buyers and release markers cleared (a new sale).
/// Redis forgets all of it at `forget_at_ms` (unix ms); the scripts carry that lifetime to the sets they
/// create later, so an old sale leaves nothing behind.
pub async fn load_sale(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_id: i64,
    stock: i64,
    window: (i64, i64),
    forget_at_ms: i64,
) -> Result<(), redis::RedisError> {
    let (begin_ms, end_ms) = window;
    redis::pipe()
        .atomic()
        .cmd("SET")
        .arg(keys.seckill_stock(voucher_id))
        .arg(stock)
        .arg("PXAT")
        .arg(forget_at_ms)
        .ignore()
        .cmd("DEL")
        .arg(keys.seckill_buyers(voucher_id))
        .arg(keys.seckill_released(voucher_id))
        .ignore()
        .cmd("HSET")
        .arg(keys.seckill_window(voucher_id))
        .arg("begin")
        .arg(begin_ms)
        .arg("end")
        .arg(end_ms)
        .ignore()
        .cmd("PEXPIREAT")
        .arg(keys.seckill_window(voucher_id))
        .arg(forget_at_ms)
        .ignore()
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
    let wait: i64 =
        RATE_LIMIT.key(key).arg(window_ms).arg(limit).arg(request_id).invoke_async(&mut redis.clone()).await?;
    Ok((wait > 0).then_some(wait as u64))
}

/// Remaining stock and buyer count of a sale (for reconciliation and tests).
pub async fn sale_state(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_id: i64,
) -> Result<(Option<i64>, u64), redis::RedisError> {
    redis::pipe()
        .cmd("GET")
        .arg(keys.seckill_stock(voucher_id))
        .cmd("SCARD")
        .arg(keys.seckill_buyers(voucher_id))
        .query_async(&mut redis.clone())
        .await
}

/// A flash sale as Postgres records it, with the users holding a live order.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SaleRecord {
    /// Voucher id.
    pub voucher_id: i64,
    /// Stock left in Postgres.
    pub stock: i32,
    /// Sale start, unix ms.
    pub begin_ms: i64,
    /// Sale end, unix ms.
    pub end_ms: i64,
    /// Users with an unpaid or paid order.
    pub buyers: Vec<i64>,
}

const SALE_COLUMNS: &str = "SELECT v.id AS voucher_id, v.stock, \
       (extract(epoch FROM v.begin_at) * 1000)::BIGINT AS begin_ms, \
       (extract(epoch FROM v.end_at) * 1000)::BIGINT AS end_ms, \
       COALESCE(ARRAY(SELECT o.user_id FROM orders o \
                      WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid')), '{}') AS buyers \
       FROM vouchers v WHERE v.kind = 'flash'";

/// Every flash sale that has not ended.
pub async fn current_sales(db: &PgPool) -> Result<Vec<SaleRecord>, sqlx::Error> {
    sqlx::query_as(&format!("{SALE_COLUMNS} AND v.end_at > now() AND v.status = 'on' ORDER BY v.id"))
        .fetch_all(db)
        .await
}

/// Writes `sale` into Redis unless Redis already has it (`lua/restore_sale.lua`), to be forgotten at
/// `forget_at_ms`; true if written now. A sale Redis has without a lifetime (loaded by an older version)
/// only gets the lifetime.
pub async fn restore_sale(
    redis: &ConnectionManager,
    keys: &Keys,
    sale: &SaleRecord,
    forget_at_ms: i64,
) -> Result<bool, redis::RedisError> {
    let mut inv = RESTORE.prepare_invoke();
    inv.key(keys.seckill_stock(sale.voucher_id))
        .key(keys.seckill_buyers(sale.voucher_id))
        .key(keys.seckill_window(sale.voucher_id))
        .key(keys.seckill_released(sale.voucher_id))
        .arg(sale.stock)
        .arg(sale.begin_ms)
        .arg(sale.end_ms)
        .arg(forget_at_ms);
    for b in &sale.buyers {
        inv.arg(*b);
    }
    let written: i64 = inv.invoke_async(&mut redis.clone()).await?;
    Ok(written == 1)
}

/// Queues an order message whose produce outcome is unknown (newest at the head).
pub async fn push_compensation(
    redis: &ConnectionManager,
    keys: &Keys,
    payload: &[u8],
) -> Result<(), redis::RedisError> {
    redis::cmd("LPUSH").arg(keys.seckill_compensation()).arg(payload).query_async(&mut redis.clone()).await
}

/// Up to `n` of the oldest queued messages, oldest first.
pub async fn oldest_compensation(
    redis: &ConnectionManager,
    keys: &Keys,
    n: isize,
) -> Result<Vec<Vec<u8>>, redis::RedisError> {
    let mut items: Vec<Vec<u8>> =
        redis::cmd("LRANGE").arg(keys.seckill_compensation()).arg(-n).arg(-1).query_async(&mut redis.clone()).await?;
    items.reverse();
    Ok(items)
}

/// Drops one delivered message from the list.
pub async fn remove_compensation(
    redis: &ConnectionManager,
    keys: &Keys,
    payload: &[u8],
) -> Result<(), redis::RedisError> {
    redis::cmd("LREM").arg(keys.seckill_compensation()).arg(-1).arg(payload).query_async(&mut redis.clone()).await
}

/// How many messages wait for a resend.
pub async fn compensation_backlog(redis: &ConnectionManager, keys: &Keys) -> Result<u64, redis::RedisError> {
    redis::cmd("LLEN").arg(keys.seckill_compensation()).query_async(&mut redis.clone()).await
}

/// Redis' clock (unix ms) and the remaining stock of each sale in `voucher_ids`, in one round trip.
pub async fn live_stocks(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_ids: &[i64],
) -> Result<(i64, Vec<(i64, Option<i64>)>), redis::RedisError> {
    let mut pipe = redis::pipe();
    pipe.cmd("TIME");
    for id in voucher_ids {
        pipe.cmd("GET").arg(keys.seckill_stock(*id));
    }
    let mut values: Vec<redis::Value> = pipe.query_async(&mut redis.clone()).await?;
    let stocks =
        values.split_off(1).into_iter().map(redis::from_redis_value).collect::<Result<Vec<Option<i64>>, _>>()?;
    let time: (i64, i64) = redis::from_redis_value(values.pop().unwrap_or(redis::Value::Nil))?;
    Ok((time.0 * 1000 + time.1 / 1000, voucher_ids.iter().copied().zip(stocks).collect()))
}

/// Inserts a flash sale inside the caller's transaction; returns the voucher id.
pub async fn insert_sale(tx: &mut sqlx::PgConnection, shop_id: i64, sale: &NewFlashSale) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "INSERT INTO vouchers (shop_id, title, sub_title, rules, pay_value_cents, actual_value_cents, kind, stock, begin_at, end_at)
         VALUES ($1, $2, 'Flash sale', $3, $4, $5, 'flash', $6, to_timestamp($7 / 1000.0), to_timestamp($8 / 1000.0))
         RETURNING id",
    )
    .bind(shop_id)
    .bind(&sale.title)
    .bind(&sale.rules)
    .bind(sale.pay_cents)
    .bind(sale.actual_cents)
    .bind(sale.stock)
    .bind(sale.begin_ms)
    .bind(sale.end_ms)
    .fetch_one(tx)
    .await
}

/// Sets a sale's stock if it has not started (by Postgres' clock); false if it has, or is no flash sale.
pub async fn set_stock_before_start(
    tx: &mut sqlx::PgConnection,
    voucher_id: i64,
    stock: i32,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE vouchers SET stock = $2, updated_at = now() WHERE id = $1 AND kind = 'flash' AND begin_at > now() + interval '1 second'",
    )
    .bind(voucher_id)
    .bind(stock)
    .execute(tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The shop a flash sale belongs to.
pub async fn sale_shop(db: &PgPool, voucher_id: i64) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT shop_id FROM vouchers WHERE id = $1 AND kind = 'flash'")
        .bind(voucher_id)
        .fetch_optional(db)
        .await
}

/// Postgres' side of the audit: every flash sale (of one shop, or all), newest first.
pub async fn sale_ledgers(db: &PgPool, shop_id: Option<i64>) -> Result<Vec<SaleAudit>, sqlx::Error> {
    let rows: Vec<(i64, String, i64, i64, i64, i64)> = sqlx::query_as(
        "SELECT v.id, v.title, (extract(epoch FROM v.begin_at) * 1000)::BIGINT, (extract(epoch FROM v.end_at) * 1000)::BIGINT,
                v.stock::BIGINT,
                (SELECT count(*) FROM orders o WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid'))
         FROM vouchers v WHERE v.kind = 'flash' AND ($1::BIGINT IS NULL OR v.shop_id = $1)
         ORDER BY v.begin_at DESC, v.id DESC",
    )
    .bind(shop_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(voucher_id, title, begin_ms, end_ms, pg_stock, pg_orders)| SaleAudit {
            voucher_id,
            title,
            begin_ms,
            end_ms,
            pg_stock,
            pg_orders,
            redis_stock: None,
            redis_buyers: 0,
        })
        .collect())
}

/// Sets the Redis stock of a sale that has not started (no buyers can exist yet), keeping its lifetime.
pub async fn set_stock(
    redis: &ConnectionManager,
    keys: &Keys,
    voucher_id: i64,
    stock: i32,
) -> Result<(), redis::RedisError> {
    redis::cmd("SET")
        .arg(keys.seckill_stock(voucher_id))
        .arg(stock)
        .arg("KEEPTTL")
        .query_async(&mut redis.clone())
        .await
}

/// Removes a sale's Redis state (undoing a creation whose database commit failed).
pub async fn forget_sale(redis: &ConnectionManager, keys: &Keys, voucher_id: i64) -> Result<(), redis::RedisError> {
    redis::cmd("DEL")
        .arg(keys.seckill_stock(voucher_id))
        .arg(keys.seckill_buyers(voucher_id))
        .arg(keys.seckill_window(voucher_id))
        .arg(keys.seckill_released(voucher_id))
        .query_async(&mut redis.clone())
        .await
}
