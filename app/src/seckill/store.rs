//! The flash-sale capability's SQL, with the queue of orders whose send is unsettled (the sale's own Redis
//! state is the inventory's).

use sqlx::PgPool;

use super::model::{NewFlashSale, SaleAudit, SaleOutcome};
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
    sqlx::query!("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
    // Flash sales always have a stock and a window (a CHECK on `vouchers`), hence the `!`s.
    let sales = sqlx::query_as!(
        SaleSnapshot,
        r#"SELECT v.id AS voucher_id, v.stock AS "stock!",
                (extract(epoch FROM v.begin_at) * 1000)::BIGINT AS "begin_ms!",
                (extract(epoch FROM v.end_at) * 1000)::BIGINT AS "end_ms!",
                COALESCE(ARRAY(SELECT o.user_id FROM orders o
                               WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid', 'used')), '{}') AS "buyers!",
                v.human_check
         FROM vouchers v
         WHERE v.kind = 'flash' AND v.status = 'on' AND v.end_at > now() - make_interval(secs => $1)
         ORDER BY v.id"#,
        keep.as_secs_f64(),
    )
    .fetch_all(&mut *tx)
    .await?;
    let handled = sqlx::query_scalar!(
        r#"SELECT id AS "id!" FROM orders WHERE id = ANY($1) UNION SELECT order_id FROM order_failures WHERE order_id = ANY($1)"#,
        pending,
    )
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((sales, handled))
}

/// Queues an order whose produce outcome is unknown; queueing the same order again changes nothing.
pub async fn push_compensation(db: &PgPool, order: &OrderCreated) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "INSERT INTO order_resends (order_id, user_id, voucher_id, ts) VALUES ($1, $2, $3, $4)
         ON CONFLICT (order_id) DO NOTHING",
        order.order_id,
        order.user_id,
        order.voucher_id,
        order.ts,
    )
    .execute(db)
    .await
    .map(|_| ())
}

/// Up to `n` of the queued orders, oldest first; every one when `n` is `None` (for the stranded-grab
/// sweeper and the state rebuild: the queue is short).
pub async fn compensation_orders(db: &PgPool, n: Option<i64>) -> Result<Vec<OrderCreated>, sqlx::Error> {
    sqlx::query_as!(
        OrderCreated,
        "SELECT order_id, user_id, voucher_id, ts FROM order_resends ORDER BY queued_at, order_id LIMIT $1",
        n,
    )
    .fetch_all(db)
    .await
}

/// Drops one order from the queue once the broker has acknowledged its resend.
pub async fn remove_compensation(db: &PgPool, order_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query!("DELETE FROM order_resends WHERE order_id = $1", order_id).execute(db).await.map(|_| ())
}

/// Flash sales Redis may still hold (ended less than `keep` ago).
pub async fn recent_sale_ids(db: &PgPool, keep: std::time::Duration) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "SELECT id FROM vouchers WHERE kind = 'flash' AND end_at > now() - make_interval(secs => $1::float8)",
        keep.as_secs_f64(),
    )
    .fetch_all(db)
    .await
}

/// How many orders wait for a resend.
pub async fn compensation_backlog(db: &PgPool) -> Result<u64, sqlx::Error> {
    let n = sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM order_resends"#).fetch_one(db).await?;
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
    sqlx::query_scalar!(
        "INSERT INTO vouchers (id, shop_id, title, sub_title, rules, pay_value_cents, actual_value_cents, kind, stock,
                               begin_at, end_at, human_check)
         VALUES (COALESCE($1, nextval(pg_get_serial_sequence('vouchers', 'id'))), $2, $3, $4, $5, $6, $7, 'flash', $8,
                 to_timestamp($9::BIGINT / 1000.0), to_timestamp($10::BIGINT / 1000.0), $11)
         ON CONFLICT (id) DO NOTHING RETURNING id",
        id,
        shop_id,
        sale.title,
        sub_title,
        sale.rules,
        sale.pay_cents,
        sale.actual_cents,
        sale.stock,
        sale.begin_ms,
        sale.end_ms,
        sale.human_check,
    )
    .fetch_optional(tx)
    .await
}

/// Sets a sale's stock if it has not started (by Postgres' clock), answering the stock it had; none if it has
/// started, or is no flash sale.
pub async fn set_stock_before_start(
    tx: &mut sqlx::PgConnection,
    voucher_id: i64,
    stock: i32,
) -> Result<Option<i32>, sqlx::Error> {
    sqlx::query_scalar!(
        "UPDATE vouchers v SET stock = $2, updated_at = now()
           FROM (SELECT id, stock FROM vouchers WHERE id = $1 FOR UPDATE) before
          WHERE v.id = before.id AND v.kind = 'flash' AND v.begin_at > now() + interval '1 second'
         RETURNING before.stock AS \"stock!\"",
        voucher_id,
        stock,
    )
    .fetch_optional(tx)
    .await
}

/// Every flash sale of a shop.
pub async fn sales_of_shop(db: &PgPool, shop_id: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!("SELECT id FROM vouchers WHERE shop_id = $1 AND kind = 'flash' ORDER BY id", shop_id)
        .fetch_all(db)
        .await
}

/// The shop a flash sale belongs to.
pub async fn sale_shop(db: &PgPool, voucher_id: i64) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar!("SELECT shop_id FROM vouchers WHERE id = $1 AND kind = 'flash'", voucher_id)
        .fetch_optional(db)
        .await
}

/// Postgres' side of the audit: every flash sale (of one shop, or all), newest first.
pub async fn sale_ledgers(db: &PgPool, shop_id: Option<i64>) -> Result<Vec<SaleAudit>, sqlx::Error> {
    // Flash sales always have a stock and a window (a CHECK on `vouchers`), hence the `!`s.
    let rows = sqlx::query!(
        r#"SELECT v.id, v.title, (extract(epoch FROM v.begin_at) * 1000)::BIGINT AS "begin_ms!", (extract(epoch FROM v.end_at) * 1000)::BIGINT AS "end_ms!",
                v.stock::BIGINT AS "pg_stock!",
                (SELECT count(*) FROM orders o WHERE o.voucher_id = v.id AND o.status IN ('unpaid', 'paid', 'used')) AS "pg_orders!"
         FROM vouchers v WHERE v.kind = 'flash' AND ($1::BIGINT IS NULL OR v.shop_id = $1)
         ORDER BY v.begin_at DESC, v.id DESC"#,
        shop_id,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| SaleAudit {
            voucher_id: r.id,
            title: r.title,
            begin_ms: r.begin_ms,
            end_ms: r.end_ms,
            pg_stock: r.pg_stock,
            pg_orders: r.pg_orders,
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
    sqlx::query!(
        "INSERT INTO sale_outcomes (voucher_id, outcome, n)
         SELECT u.voucher_id, u.outcome, u.n FROM unnest($1::BIGINT[], $2::TEXT[], $3::BIGINT[]) AS u(voucher_id, outcome, n)
         JOIN vouchers v ON v.id = u.voucher_id
         ON CONFLICT (voucher_id, outcome) DO UPDATE SET n = sale_outcomes.n + EXCLUDED.n",
        &sales,
        &outcomes as &[&str],
        &counts,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// How the grabs of one sale ended, by outcome.
pub async fn outcomes_of(db: &PgPool, voucher_id: i64) -> Result<Vec<SaleOutcome>, sqlx::Error> {
    sqlx::query_as!(
        SaleOutcome,
        "SELECT outcome, n FROM sale_outcomes WHERE voucher_id = $1 ORDER BY outcome",
        voucher_id
    )
    .fetch_all(db)
    .await
}

/// A flash sale as Postgres holds it, for the console (which adds Redis' count and the sale's state).
#[derive(Debug, Clone)]
pub struct ConsoleSaleRow {
    /// Voucher id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Price, fen.
    pub pay_value_cents: i64,
    /// Start, unix ms.
    pub begin_ms: i64,
    /// End, unix ms.
    pub end_ms: i64,
    /// Stock left in Postgres.
    pub pg_stock: i64,
    /// Orders holding a coupon (unpaid, paid or used), or that used one up (refunded after the sale ended,
    /// so not sold again).
    pub holders: i64,
    /// On sale (not cancelled).
    pub active: bool,
}

/// A shop's flash sales for the console, newest first.
pub async fn console_sales(db: &PgPool, shop_id: i64) -> Result<Vec<ConsoleSaleRow>, sqlx::Error> {
    // Flash sales always have a stock and a window (a CHECK on `vouchers`), hence the `!`s.
    sqlx::query_as!(
        ConsoleSaleRow,
        r#"SELECT v.id, v.title, v.pay_value_cents, (extract(epoch FROM v.begin_at) * 1000)::BIGINT AS "begin_ms!",
                (extract(epoch FROM v.end_at) * 1000)::BIGINT AS "end_ms!", v.stock::BIGINT AS "pg_stock!",
                (SELECT count(*) FROM orders o LEFT JOIN refunds r ON r.order_id = o.id
                 WHERE o.voucher_id = v.id
                   AND (o.status IN ('unpaid', 'paid', 'used') OR (r.cause <> 'paid_late' AND NOT r.restocked))) AS "holders!",
                v.status = 'on' AS "active!"
         FROM vouchers v WHERE v.shop_id = $1 AND v.kind = 'flash' ORDER BY v.begin_at DESC, v.id DESC"#,
        shop_id,
    )
    .fetch_all(db)
    .await
}

/// The flash sales running or still to come on the whole site, soonest first, at most `limit`, each with
/// its shop (id, name).
pub async fn current_sales(db: &PgPool, limit: i64) -> Result<Vec<(i64, String, ConsoleSaleRow)>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT v.id, v.title, v.pay_value_cents, (extract(epoch FROM v.begin_at) * 1000)::BIGINT AS "begin_ms!",
                (extract(epoch FROM v.end_at) * 1000)::BIGINT AS "end_ms!", v.stock::BIGINT AS "pg_stock!",
                (SELECT count(*) FROM orders o LEFT JOIN refunds r ON r.order_id = o.id
                 WHERE o.voucher_id = v.id
                   AND (o.status IN ('unpaid', 'paid', 'used') OR (r.cause <> 'paid_late' AND NOT r.restocked))) AS "holders!",
                s.id AS shop_id, s.name AS shop_name
         FROM vouchers v JOIN shops s ON s.id = v.shop_id
         WHERE v.kind = 'flash' AND v.status = 'on' AND v.end_at > now()
         ORDER BY v.begin_at, v.id LIMIT $1"#,
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let sale = ConsoleSaleRow {
                id: r.id,
                title: r.title,
                pay_value_cents: r.pay_value_cents,
                begin_ms: r.begin_ms,
                end_ms: r.end_ms,
                pg_stock: r.pg_stock,
                holders: r.holders,
                active: true,
            };
            (r.shop_id, r.shop_name, sale)
        })
        .collect())
}

/// Cancels a sale that has not started (by Postgres' clock) inside the caller's transaction; false if it
/// has started, was cancelled already, or is no flash sale.
pub async fn cancel_before_start(tx: &mut sqlx::PgConnection, voucher_id: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE vouchers SET status = 'off', updated_at = now()
         WHERE id = $1 AND kind = 'flash' AND status = 'on' AND begin_at > now() + interval '1 second'",
        voucher_id,
    )
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
    // Flash sales always have a stock and a window (a CHECK on `vouchers`), hence the `!`s.
    let row = sqlx::query!(
        r#"SELECT v.title, v.rules, v.pay_value_cents, v.actual_value_cents,
                v.stock::BIGINT + (SELECT count(*) FROM orders o LEFT JOIN refunds r ON r.order_id = o.id
                                   WHERE o.voucher_id = v.id
                                     AND (o.status IN ('unpaid', 'paid', 'used')
                                          OR (r.cause <> 'paid_late' AND NOT r.restocked))) AS "stock!",
                (extract(epoch FROM v.end_at - v.begin_at) * 1000)::BIGINT AS "length_ms!", v.human_check
         FROM vouchers v WHERE v.id = $1 AND v.kind = 'flash'"#,
        voucher_id,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| NewFlashSale {
        title: r.title,
        rules: r.rules,
        pay_cents: r.pay_value_cents,
        actual_cents: r.actual_value_cents,
        stock: i32::try_from(r.stock).unwrap_or(i32::MAX).max(1),
        begin_ms,
        end_ms: begin_ms + r.length_ms,
        human_check: r.human_check,
    }))
}
