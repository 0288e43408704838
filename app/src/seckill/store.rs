//! The flash-sale capability's SQL, with the queue of orders whose send is unsettled (the sale's own Redis
//! state is the inventory's).

use sqlx::PgPool;

use super::model::{NewFlashSale, SaleAudit};
use crate::platform::kafka::OrderCreated;
use crate::sale::inventory::SaleSnapshot;

/// What Redis is rebuilt from, read in one snapshot: every flash sale Redis should hold (those that
/// ended less than `keep` ago), with the users holding a live order, and which of the `pending` order ids
/// the writer has already handled (written or refused).
pub async fn restorable_sales(
    db: &PgPool,
    keep: std::time::Duration,
    pending: &[i64],
) -> Result<(Vec<SaleSnapshot>, Vec<i64>), sqlx::Error> {
    let mut tx = db.begin().await?;
    // One snapshot for both reads: an order written between them would otherwise count twice or not at all.
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
    let sales = sqlx::query_as(
        "SELECT v.id AS voucher_id, v.stock,
                (extract(epoch FROM v.begin_at) * 1000)::BIGINT AS begin_ms,
                (extract(epoch FROM v.end_at) * 1000)::BIGINT AS end_ms,
                COALESCE(ARRAY(SELECT o.user_id FROM orders o
                               WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid', 'used')), '{}') AS buyers,
                v.human_check
         FROM vouchers v
         WHERE v.kind = 'flash' AND v.status = 'on' AND v.end_at > now() - make_interval(secs => $1)
         ORDER BY v.id",
    )
    .bind(keep.as_secs_f64())
    .fetch_all(&mut *tx)
    .await?;
    let handled = sqlx::query_scalar(
        "SELECT id FROM orders WHERE id = ANY($1) UNION SELECT order_id FROM order_failures WHERE order_id = ANY($1)",
    )
    .bind(pending)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((sales, handled))
}

/// Queues an order whose produce outcome is unknown; queueing the same order again changes nothing.
pub async fn push_compensation(db: &PgPool, order: &OrderCreated) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO order_resends (order_id, user_id, voucher_id, ts) VALUES ($1, $2, $3, $4)
         ON CONFLICT (order_id) DO NOTHING",
    )
    .bind(order.order_id)
    .bind(order.user_id)
    .bind(order.voucher_id)
    .bind(order.ts)
    .execute(db)
    .await
    .map(|_| ())
}

/// Up to `n` of the queued orders, oldest first; every one when `n` is `None` (for the stranded-grab
/// sweeper and the state rebuild: the queue is short).
pub async fn compensation_orders(db: &PgPool, n: Option<i64>) -> Result<Vec<OrderCreated>, sqlx::Error> {
    let rows: Vec<(i64, i64, i64, i64)> = sqlx::query_as(
        "SELECT order_id, user_id, voucher_id, ts FROM order_resends ORDER BY queued_at, order_id LIMIT $1",
    )
    .bind(n)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(order_id, user_id, voucher_id, ts)| OrderCreated { order_id, user_id, voucher_id, ts })
        .collect())
}

/// Drops one order from the queue once the broker has acknowledged its resend.
pub async fn remove_compensation(db: &PgPool, order_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM order_resends WHERE order_id = $1").bind(order_id).execute(db).await.map(|_| ())
}

/// Flash sales Redis may still hold (ended less than `keep` ago).
pub async fn recent_sale_ids(db: &PgPool, keep: std::time::Duration) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT id FROM vouchers WHERE kind = 'flash' AND end_at > now() - make_interval(secs => $1::float8)",
    )
    .bind(keep.as_secs_f64())
    .fetch_all(db)
    .await
}

/// How many orders wait for a resend.
pub async fn compensation_backlog(db: &PgPool) -> Result<u64, sqlx::Error> {
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM order_resends").fetch_one(db).await?;
    Ok(n.max(0) as u64)
}

/// Inserts a flash sale inside the caller's transaction and returns its id: a new id, or `Some(id)` for a
/// fixed one (the demo seed), which is left alone if it exists (`None` is returned then).
pub async fn insert_sale(
    tx: &mut sqlx::PgConnection,
    id: Option<i64>,
    shop_id: i64,
    sub_title: &str,
    sale: &NewFlashSale,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "INSERT INTO vouchers (id, shop_id, title, sub_title, rules, pay_value_cents, actual_value_cents, kind, stock,
                               begin_at, end_at, human_check)
         VALUES (COALESCE($1, nextval(pg_get_serial_sequence('vouchers', 'id'))), $2, $3, $4, $5, $6, $7, 'flash', $8,
                 to_timestamp($9 / 1000.0), to_timestamp($10 / 1000.0), $11)
         ON CONFLICT (id) DO NOTHING RETURNING id",
    )
    .bind(id)
    .bind(shop_id)
    .bind(&sale.title)
    .bind(sub_title)
    .bind(&sale.rules)
    .bind(sale.pay_cents)
    .bind(sale.actual_cents)
    .bind(sale.stock)
    .bind(sale.begin_ms)
    .bind(sale.end_ms)
    .bind(sale.human_check)
    .fetch_optional(tx)
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

/// Every flash sale of a shop.
pub async fn sales_of_shop(db: &PgPool, shop_id: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar("SELECT id FROM vouchers WHERE shop_id = $1 AND kind = 'flash' ORDER BY id")
        .bind(shop_id)
        .fetch_all(db)
        .await
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
                (SELECT count(*) FROM orders o WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid', 'used'))
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
            redis_expected: false,
        })
        .collect())
}

/// Adds grab outcome counts `(sale, outcome, n)`; counts of a sale that does not exist are dropped.
pub async fn add_outcomes(db: &PgPool, rows: &[(i64, &'static str, i64)]) -> Result<(), sqlx::Error> {
    let sales: Vec<i64> = rows.iter().map(|r| r.0).collect();
    let outcomes: Vec<&str> = rows.iter().map(|r| r.1).collect();
    let counts: Vec<i64> = rows.iter().map(|r| r.2).collect();
    sqlx::query(
        "INSERT INTO sale_outcomes (voucher_id, outcome, n)
         SELECT u.voucher_id, u.outcome, u.n FROM unnest($1::BIGINT[], $2::TEXT[], $3::BIGINT[]) AS u(voucher_id, outcome, n)
         JOIN vouchers v ON v.id = u.voucher_id
         ON CONFLICT (voucher_id, outcome) DO UPDATE SET n = sale_outcomes.n + EXCLUDED.n",
    )
    .bind(&sales)
    .bind(&outcomes)
    .bind(&counts)
    .execute(db)
    .await?;
    Ok(())
}

/// How the grabs of one sale ended, by outcome.
pub async fn outcomes_of(db: &PgPool, voucher_id: i64) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sqlx::query_as("SELECT outcome, n FROM sale_outcomes WHERE voucher_id = $1 ORDER BY outcome")
        .bind(voucher_id)
        .fetch_all(db)
        .await
}

/// A shop's flash sales for the console, newest first: `(id, title, price, begin, end, Postgres stock,
/// live orders, active)`.
pub async fn console_sales(
    db: &PgPool,
    shop_id: i64,
) -> Result<Vec<(i64, String, i64, i64, i64, i64, i64, bool)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT v.id, v.title, v.pay_value_cents, (extract(epoch FROM v.begin_at) * 1000)::BIGINT,
                (extract(epoch FROM v.end_at) * 1000)::BIGINT, v.stock::BIGINT,
                (SELECT count(*) FROM orders o WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid', 'used')),
                v.status = 'on'
         FROM vouchers v WHERE v.shop_id = $1 AND v.kind = 'flash' ORDER BY v.begin_at DESC, v.id DESC",
    )
    .bind(shop_id)
    .fetch_all(db)
    .await
}

/// Cancels a sale that has not started (by Postgres' clock) inside the caller's transaction; false if it
/// has started, was cancelled already, or is no flash sale.
pub async fn cancel_before_start(tx: &mut sqlx::PgConnection, voucher_id: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE vouchers SET status = 'off', updated_at = now()
         WHERE id = $1 AND kind = 'flash' AND status = 'on' AND begin_at > now() + interval '1 second'",
    )
    .bind(voucher_id)
    .execute(tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A sale as a template for a new one: the same title, rules, prices, opening stock, length and human check,
/// starting at `begin_ms`. `None` if there is no such flash sale.
pub async fn sale_as_template(
    db: &PgPool,
    voucher_id: i64,
    begin_ms: i64,
) -> Result<Option<NewFlashSale>, sqlx::Error> {
    let row: Option<(String, String, i64, i64, i64, i64, bool)> = sqlx::query_as(
        "SELECT v.title, v.rules, v.pay_value_cents, v.actual_value_cents,
                v.stock::BIGINT + (SELECT count(*) FROM orders o
                                   WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid', 'used')),
                (extract(epoch FROM v.end_at - v.begin_at) * 1000)::BIGINT, v.human_check
         FROM vouchers v WHERE v.id = $1 AND v.kind = 'flash'",
    )
    .bind(voucher_id)
    .fetch_optional(db)
    .await?;
    Ok(row.map(|(title, rules, pay_cents, actual_cents, stock, length_ms, human_check)| NewFlashSale {
        title,
        rules,
        pay_cents,
        actual_cents,
        stock: i32::try_from(stock).unwrap_or(i32::MAX).max(1),
        begin_ms,
        end_ms: begin_ms + length_ms,
        human_check,
    }))
}
