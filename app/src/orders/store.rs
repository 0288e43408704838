//! All SQL of orders: the writer's batches, closing, paying, buying, and the buyer's lists.

use sqlx::PgPool;

use super::model::{
    DayTrade, FailReason, OrderQuery, OrderStatus, OrderView, PayOutcome, Redemption, RefundCause, ShopOrder,
    SiteTrade, StatusCounts,
};
use crate::platform::kafka::OrderCreated;

/// What one batch did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// Orders written now.
    pub inserted: Vec<i64>,
    /// Orders already present (a redelivery): nothing written, nothing deducted.
    pub duplicates: Vec<i64>,
    /// Orders Postgres refused, with the reason: recorded in `order_failures` in the same transaction (so
    /// the buyer is told), then sent to the dead-letter topic and released in Redis by the writer.
    pub rejected: Vec<(OrderCreated, FailReason)>,
}

/// Writes a batch in one transaction. Each order is inserted with `ON CONFLICT DO NOTHING` (a redelivered
/// order is a no-op) and only new orders take stock, under a `stock >= n` guard. The common case is one
/// multi-row insert plus one guarded update per voucher; if a guard fails — Redis and Postgres disagree —
/// that attempt is rolled back and the batch is written order by order, so exactly the orders the stock
/// cannot cover are refused instead of overselling.
pub async fn write_batch(db: &PgPool, batch: &[OrderCreated]) -> Result<BatchOutcome, sqlx::Error> {
    let mut tx = db.begin().await?;
    let mut out = match write_bulk(&mut tx, batch).await? {
        Some(out) => out,
        None => write_one_by_one(&mut tx, batch).await?,
    };
    for (order, reason) in &mut out.rejected {
        if *reason == FailReason::AlreadyHolds {
            *reason = why_refused(&mut tx, order).await?;
        }
        sqlx::query!(
            "INSERT INTO order_failures (order_id, user_id, voucher_id, reason) VALUES ($1, $2, $3, $4)
             ON CONFLICT (order_id) DO NOTHING",
            order.order_id,
            order.user_id,
            order.voucher_id,
            reason.as_db(),
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(out)
}

/// Why an order the insert skipped is no order: its sale or its buyer is gone, or else the buyer already
/// holds a live order of the sale.
async fn why_refused(tx: &mut sqlx::PgConnection, order: &OrderCreated) -> Result<FailReason, sqlx::Error> {
    let found = sqlx::query!(
        r#"SELECT EXISTS (SELECT 1 FROM vouchers WHERE id = $1 AND kind = 'flash') AS "sale!",
                EXISTS (SELECT 1 FROM users WHERE id = $2) AS "user!""#,
        order.voucher_id,
        order.user_id,
    )
    .fetch_one(tx)
    .await?;
    Ok(match (found.sale, found.user) {
        (false, _) => FailReason::SaleGone,
        (_, false) => FailReason::NoSuchUser,
        _ => FailReason::AlreadyHolds,
    })
}

/// The fast path inside a savepoint; `None` (rolled back) when some voucher lacks the stock.
async fn write_bulk(tx: &mut sqlx::PgConnection, batch: &[OrderCreated]) -> Result<Option<BatchOutcome>, sqlx::Error> {
    let mut sp = sqlx::Acquire::begin(&mut *tx).await?;
    let ids: Vec<i64> = batch.iter().map(|m| m.order_id).collect();
    let users: Vec<i64> = batch.iter().map(|m| m.user_id).collect();
    let vouchers: Vec<i64> = batch.iter().map(|m| m.voucher_id).collect();
    let stamps: Vec<i64> = batch.iter().map(|m| m.ts).collect();
    let inserted = sqlx::query!(
        "INSERT INTO orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents, created_at)
         SELECT m.id, m.user_id, v.id, v.shop_id, 'flash', 'unpaid', v.pay_value_cents, to_timestamp(m.ts / 1000.0)
         FROM unnest($1::BIGINT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[]) WITH ORDINALITY AS m(id, user_id, voucher_id, ts, n)
         JOIN vouchers v ON v.id = m.voucher_id AND v.kind = 'flash'
         JOIN users u ON u.id = m.user_id
         ORDER BY m.n
         ON CONFLICT DO NOTHING RETURNING id, voucher_id",
        &ids,
        &users,
        &vouchers,
        &stamps,
    )
    .fetch_all(&mut *sp)
    .await?;
    let mut per_voucher: std::collections::BTreeMap<i64, i32> = std::collections::BTreeMap::new();
    for row in &inserted {
        *per_voucher.entry(row.voucher_id).or_default() += 1;
    }
    for (&voucher, &n) in &per_voucher {
        let ok = sqlx::query!(
            "UPDATE vouchers SET stock = stock - $2, updated_at = now() WHERE id = $1 AND stock >= $2",
            voucher,
            n,
        )
        .execute(&mut *sp)
        .await?
        .rows_affected();
        if ok != 1 {
            sp.rollback().await?;
            return Ok(None);
        }
    }
    let new: std::collections::HashSet<i64> = inserted.iter().map(|row| row.id).collect();
    let rest: Vec<i64> = ids.iter().copied().filter(|id| !new.contains(id)).collect();
    let existing: std::collections::HashSet<i64> = if rest.is_empty() {
        Default::default()
    } else {
        sqlx::query_scalar!("SELECT id FROM orders WHERE id = ANY($1)", &rest)
            .fetch_all(&mut *sp)
            .await?
            .into_iter()
            .collect()
    };
    sp.commit().await?;
    let mut out = BatchOutcome::default();
    // A message twice in one batch is inserted once; its second copy counts as a redelivery.
    let mut fresh = new.clone();
    for msg in batch {
        if fresh.remove(&msg.order_id) {
            out.inserted.push(msg.order_id);
        } else if new.contains(&msg.order_id) || existing.contains(&msg.order_id) {
            out.duplicates.push(msg.order_id);
        } else {
            out.rejected.push((msg.clone(), FailReason::AlreadyHolds));
        }
    }
    Ok(Some(out))
}

/// The careful path: a savepoint per order, so one refused order rolls back alone.
async fn write_one_by_one(tx: &mut sqlx::PgConnection, batch: &[OrderCreated]) -> Result<BatchOutcome, sqlx::Error> {
    let mut out = BatchOutcome::default();
    for msg in batch {
        let mut sp = sqlx::Acquire::begin(&mut *tx).await?;
        let inserted = sqlx::query_scalar!(
            "INSERT INTO orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents, created_at)
             SELECT $1, $2, v.id, v.shop_id, 'flash', 'unpaid', v.pay_value_cents, to_timestamp($4::BIGINT / 1000.0)
             FROM vouchers v JOIN users u ON u.id = $2 WHERE v.id = $3 AND v.kind = 'flash'
             ON CONFLICT DO NOTHING RETURNING id",
            msg.order_id,
            msg.user_id,
            msg.voucher_id,
            msg.ts,
        )
        .fetch_optional(&mut *sp)
        .await?;
        if inserted.is_none() {
            let exists =
                sqlx::query_scalar!(r#"SELECT EXISTS (SELECT 1 FROM orders WHERE id = $1) AS "exists!""#, msg.order_id)
                    .fetch_one(&mut *sp)
                    .await?;
            sp.rollback().await?;
            if exists {
                out.duplicates.push(msg.order_id);
            } else {
                // Not a redelivery: the user already holds a live order for this sale, or no such sale.
                out.rejected.push((msg.clone(), FailReason::AlreadyHolds));
            }
            continue;
        }
        let deducted = sqlx::query!(
            "UPDATE vouchers SET stock = stock - 1, updated_at = now() WHERE id = $1 AND stock >= 1",
            msg.voucher_id,
        )
        .execute(&mut *sp)
        .await?
        .rows_affected();
        if deducted == 1 {
            sp.commit().await?;
            out.inserted.push(msg.order_id);
        } else {
            sp.rollback().await?;
            out.rejected.push((msg.clone(), FailReason::SoldOut));
        }
    }
    Ok(out)
}

struct OrderRow {
    id: i64,
    voucher_id: i64,
    title: String,
    shop_id: i64,
    shop_name: String,
    shop_image: Option<String>,
    amount_cents: i64,
    kind: String,
    status: String,
    created_ms: i64,
    redeem_code: Option<String>,
    used_ms: Option<i64>,
    use_by_ms: Option<i64>,
    refund_cause: Option<String>,
    refund_reason: Option<String>,
}

impl From<OrderRow> for OrderView {
    fn from(r: OrderRow) -> Self {
        Self {
            id: r.id,
            voucher_id: r.voucher_id,
            title: r.title,
            shop_id: r.shop_id,
            shop_name: r.shop_name,
            shop_image: r.shop_image,
            amount_cents: r.amount_cents,
            kind: r.kind,
            status: OrderStatus::from_db(&r.status),
            created_ms: r.created_ms,
            redeem_code: r.redeem_code,
            used_ms: r.used_ms,
            use_by_ms: r.use_by_ms,
            refund: r.refund_cause.map(|cause| RefundCause::from_db(&cause, r.refund_reason.as_deref().unwrap_or(""))),
        }
    }
}

/// An [`OrderRow`] query: the shared columns and joins with `$rest` (from `WHERE` on) after them, pasted
/// together as literals because the query macros read the SQL at compile time.
macro_rules! order_views {
    ($rest:literal $(, $arg:expr)* $(,)?) => {
        sqlx::query_as!(
            OrderRow,
            "SELECT o.id, o.voucher_id, v.title, s.id AS shop_id, s.name AS shop_name, s.images[1] AS shop_image, o.amount_cents, o.kind, \
             o.status, (extract(epoch FROM o.created_at) * 1000)::BIGINT AS \"created_ms!\", o.redeem_code, \
             (extract(epoch FROM o.used_at) * 1000)::BIGINT AS used_ms, \
             (extract(epoch FROM o.use_by) * 1000)::BIGINT AS use_by_ms, \
             r.cause AS \"refund_cause?\", r.reason AS \"refund_reason?\" \
             FROM orders o JOIN vouchers v ON v.id = o.voucher_id JOIN shops s ON s.id = v.shop_id \
             LEFT JOIN refunds r ON r.order_id = o.id " + $rest,
            $($arg),*
        )
    };
}

/// Why the writer refused order `order_id` of `user_id`, if it did.
pub async fn failure_of_user(db: &PgPool, user_id: i64, order_id: i64) -> Result<Option<FailReason>, sqlx::Error> {
    let reason = sqlx::query_scalar!(
        "SELECT reason FROM order_failures WHERE order_id = $1 AND user_id = $2",
        order_id,
        user_id
    )
    .fetch_optional(db)
    .await?;
    Ok(reason.as_deref().map(FailReason::from_db))
}

/// One order of `user_id` (someone else's order is as absent as a missing one).
pub async fn order_of_user(db: &PgPool, user_id: i64, order_id: i64) -> Result<Option<OrderView>, sqlx::Error> {
    let row = order_views!("WHERE o.id = $1 AND o.user_id = $2", order_id, user_id).fetch_optional(db).await?;
    Ok(row.map(Into::into))
}

/// One page of the user's orders, newest first, after order `before` (from the newest without it).
pub async fn orders_of_user(
    db: &PgPool,
    user_id: i64,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<OrderView>, sqlx::Error> {
    // Keyset on (created_at, id), the list's order, from the order the last page ended on (the buyer's own:
    // someone else's id starts nothing), so a deep page costs what the first does.
    let rows = order_views!(
        "WHERE o.user_id = $1
           AND ($2::BIGINT IS NULL OR (o.created_at, o.id) < (SELECT b.created_at, b.id FROM orders b WHERE b.id = $2 AND b.user_id = $1))
         ORDER BY o.created_at DESC, o.id DESC LIMIT $3",
        user_id,
        before,
        limit
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

/// An order's kind, sale and buyer, as closing needs them.
#[derive(Debug, Clone)]
pub struct OrderKey {
    /// Order id.
    pub id: i64,
    /// Buyer.
    pub user_id: i64,
    /// Coupon.
    pub voucher_id: i64,
    /// `flash` or `normal`.
    pub kind: String,
    /// Current status.
    pub status: String,
}

/// How an unpaid order ends without payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unpaid {
    /// Its time to pay ran out (the closer or the sweeper).
    Closed,
    /// Its buyer, `user_id`, cancelled it.
    Cancelled {
        /// Only the buyer can cancel.
        user_id: i64,
    },
}

/// Ends an unpaid order (closed or cancelled) and, only if it changed now, returns its coupon to Postgres'
/// stock — one transaction, one guarded UPDATE, so the closer and a cancel race cleanly: one wins. Returns
/// whether it changed now and the order as it now stands (`None`: no such order, or not the buyer's).
pub async fn end_unpaid(db: &PgPool, order_id: i64, how: Unpaid) -> Result<(bool, Option<OrderKey>), sqlx::Error> {
    let (status, user) = match how {
        Unpaid::Closed => ("closed", None),
        Unpaid::Cancelled { user_id } => ("cancelled", Some(user_id)),
    };
    let mut tx = db.begin().await?;
    let ended = sqlx::query_as!(
        OrderKey,
        "UPDATE orders SET status = $2, closed_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'unpaid' AND ($3::BIGINT IS NULL OR user_id = $3)
         RETURNING id, user_id, voucher_id, kind, status",
        order_id,
        status,
        user,
    )
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(order) = ended {
        // Normal coupons have no stock (NULL); flash stock goes back up by one.
        sqlx::query!(
            "UPDATE vouchers SET stock = stock + 1, updated_at = now() WHERE id = $1 AND stock IS NOT NULL",
            order.voucher_id,
        )
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        return Ok((true, Some(order)));
    }
    tx.rollback().await?;
    let current = sqlx::query_as!(
        OrderKey,
        "SELECT id, user_id, voucher_id, kind, status FROM orders WHERE id = $1 AND ($2::BIGINT IS NULL OR user_id = $2)",
        order_id,
        user,
    )
    .fetch_optional(db)
    .await?;
    Ok((false, current))
}

/// What a refund attempt found.
#[derive(Debug, Clone)]
pub enum Refunded {
    /// Refunded now (`amount_cents` back); `restocked`: the coupon went back to its still-running sale.
    Now {
        /// The order.
        order: OrderKey,
        /// What went back, fen.
        amount_cents: i64,
        /// Whether Postgres' stock of the sale went up by one.
        restocked: bool,
    },
    /// Refunded before; `restocked` as that refund recorded it (Redis' give-back is repeated, once-only).
    Before {
        /// The order.
        order: OrderKey,
        /// Whether that refund returned the coupon to its sale.
        restocked: bool,
    },
    /// Not refundable in this state (unpaid, used, closed, cancelled).
    Refused(OrderKey),
    /// An expiry for a coupon that is still paid and valid (its check came early): valid until `validity`.
    NotYet {
        /// Its validity.
        validity: Validity,
    },
    /// No such order (of this buyer, when one is given).
    Unknown,
}

/// Refunds the paid, unused order `order_id` for `cause` — of buyer `user_id` when given; an expiry only
/// once its use-by has passed. One transaction: a guarded UPDATE (`status = 'paid'`, so a refund racing a
/// redemption at the counter or a second refund finds exactly one winner), the money movement, and the
/// coupon back to its sale if that sale is still running (a coupon refunded after its sale ended is not
/// sold again).
pub async fn refund(
    db: &PgPool,
    order_id: i64,
    user_id: Option<i64>,
    cause: RefundCause,
) -> Result<Refunded, sqlx::Error> {
    let mut tx = db.begin().await?;
    let refunded = sqlx::query!(
        "UPDATE orders SET status = 'refunded', refunded_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'paid' AND ($2::BIGINT IS NULL OR user_id = $2) AND (NOT $3 OR use_by <= now())
         RETURNING id, user_id, voucher_id, kind, status, amount_cents",
        order_id,
        user_id,
        matches!(cause, RefundCause::Expired),
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(r) = refunded else {
        tx.rollback().await?;
        let current = sqlx::query!(
            r#"SELECT o.id, o.user_id, o.voucher_id, o.kind, o.status, r.restocked AS "restocked?", v.valid_days,
                    ceil(extract(epoch FROM o.use_by) * 1000)::BIGINT AS use_by_ms
             FROM orders o JOIN vouchers v ON v.id = o.voucher_id LEFT JOIN refunds r ON r.order_id = o.id
             WHERE o.id = $1 AND ($2::BIGINT IS NULL OR o.user_id = $2)"#,
            order_id,
            user_id,
        )
        .fetch_optional(db)
        .await?;
        return Ok(match current {
            None => Refunded::Unknown,
            Some(c) => {
                let order =
                    OrderKey { id: c.id, user_id: c.user_id, voucher_id: c.voucher_id, kind: c.kind, status: c.status };
                match (c.restocked, c.use_by_ms) {
                    (Some(restocked), _) if order.status == "refunded" => Refunded::Before { order, restocked },
                    (_, Some(use_by_ms)) if order.status == "paid" => {
                        Refunded::NotYet { validity: Validity { days: c.valid_days, use_by_ms } }
                    }
                    _ => Refunded::Refused(order),
                }
            }
        });
    };
    let restocked = sqlx::query!(
        "UPDATE vouchers SET stock = stock + 1, updated_at = now()
         WHERE id = $1 AND stock IS NOT NULL AND end_at > now()",
        r.voucher_id,
    )
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    sqlx::query!(
        "INSERT INTO refunds (order_id, amount_cents, reason, cause, restocked, redis_pending)
         VALUES ($1, $2, $3, $4, $5, $6)",
        r.id,
        r.amount_cents,
        cause.reason_db(),
        cause.as_db(),
        restocked,
        r.kind == "flash",
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    let order = OrderKey { id: r.id, user_id: r.user_id, voucher_id: r.voucher_id, kind: r.kind, status: r.status };
    Ok(Refunded::Now { order, amount_cents: r.amount_cents, restocked })
}

/// Flash refunds Redis has not heard of for `older_than` (its step failed): each order with whether its
/// coupon went back on sale, oldest first.
pub async fn unsettled_refunds(
    db: &PgPool,
    older_than: std::time::Duration,
    limit: i64,
) -> Result<Vec<(OrderKey, bool)>, sqlx::Error> {
    let rows = sqlx::query!(
        "SELECT o.id, o.user_id, o.voucher_id, o.kind, o.status, r.restocked
         FROM refunds r JOIN orders o ON o.id = r.order_id
         WHERE r.redis_pending AND r.created_at < now() - make_interval(secs => $1)
         ORDER BY r.created_at LIMIT $2",
        older_than.as_secs_f64(),
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                OrderKey { id: r.id, user_id: r.user_id, voucher_id: r.voucher_id, kind: r.kind, status: r.status },
                r.restocked,
            )
        })
        .collect())
}

/// Records that Redis has heard of order `order_id`'s refund.
pub async fn refund_settled(db: &PgPool, order_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query!("UPDATE refunds SET redis_pending = false WHERE order_id = $1 AND redis_pending", order_id)
        .execute(db)
        .await
        .map(drop)
}

/// Paid orders whose use-by has passed (the expiry sweeper's backstop), soonest first.
pub async fn expired_paid(db: &PgPool, limit: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "SELECT id FROM orders WHERE status = 'paid' AND use_by <= now() ORDER BY use_by LIMIT $1",
        limit,
    )
    .fetch_all(db)
    .await
}

/// A fresh redemption code: 12 digits from a cryptographic generator, so codes are neither sequential nor
/// guessable from one another.
fn redeem_code() -> String {
    format!("{:012}", rand::Rng::gen_range(&mut rand::thread_rng(), 0..1_000_000_000_000u64))
}

/// How long a newly paid coupon stays valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    /// The coupon's validity length, days (one of the fixed lengths).
    pub days: i32,
    /// Its use-by, unix ms.
    pub use_by_ms: i64,
}

/// Marks the user's unpaid order paid, with a fresh redemption code, if its deadline (`timeout` after
/// creation, by Postgres' clock) has not passed; past it, nothing is charged (`Expired`). A payment within
/// the deadline that the closer beat by a moment was charged: it is refunded (a `charges` and a `refunds`
/// row) and the order marked refunded. A closed order past its deadline takes no payment, so there is
/// nothing to refund (`Expired` again). Paid now, the coupon's validity comes with the outcome. `None`: no
/// such order of this user.
pub async fn pay(
    db: &PgPool,
    user_id: i64,
    order_id: i64,
    timeout: std::time::Duration,
) -> Result<Option<(PayOutcome, Option<Validity>)>, sqlx::Error> {
    let mut attempt = 0;
    let paid = loop {
        // The charge is written with the status, in one statement: paid and charged are never apart.
        let result = sqlx::query!(
            r#"WITH paid AS (
                 UPDATE orders o SET status = 'paid', paid_at = now(), redeem_code = $4, updated_at = now(),
                        use_by = now() + make_interval(days => v.valid_days)
                 FROM vouchers v
                 WHERE o.id = $1 AND o.user_id = $2 AND o.status = 'unpaid'
                   AND o.created_at > now() - make_interval(secs => $3) AND v.id = o.voucher_id
                 RETURNING o.id, o.amount_cents, v.valid_days, ceil(extract(epoch FROM o.use_by) * 1000)::BIGINT AS use_by_ms)
             , charged AS (INSERT INTO charges (order_id, amount_cents) SELECT id, amount_cents FROM paid)
             SELECT valid_days AS "valid_days!", use_by_ms AS "use_by_ms!" FROM paid"#,
            order_id,
            user_id,
            timeout.as_secs_f64(),
            redeem_code(),
        )
        .fetch_optional(db)
        .await;
        match result {
            // One in a trillion per existing code: draw again rather than fail the payment.
            Err(sqlx::Error::Database(e)) if e.constraint() == Some("orders_redeem_code_key") && attempt < 5 => {
                attempt += 1;
            }
            other => break other?,
        }
    };
    if let Some(p) = paid {
        return Ok(Some((PayOutcome::Paid, Some(Validity { days: p.valid_days, use_by_ms: p.use_by_ms }))));
    }
    let status = sqlx::query_scalar!("SELECT status FROM orders WHERE id = $1 AND user_id = $2", order_id, user_id)
        .fetch_optional(db)
        .await?;
    let outcome = |o| Ok(Some((o, None)));
    match status.as_deref() {
        None => Ok(None),
        Some("paid" | "used") => outcome(PayOutcome::AlreadyPaid),
        // Still unpaid, so past its deadline: the closer has not got to it yet.
        Some("unpaid") => outcome(PayOutcome::Expired),
        // Refunded before: that refund stands for the one payment, and a repeated click charges nothing.
        Some("refunded") => {
            let cause = sqlx::query_scalar!("SELECT cause FROM refunds WHERE order_id = $1", order_id)
                .fetch_optional(db)
                .await?;
            outcome(match cause.as_deref() {
                Some("paid_late") | None => PayOutcome::Refunded,
                Some(_) => PayOutcome::RefundedBefore,
            })
        }
        Some("cancelled") => outcome(PayOutcome::Cancelled),
        Some(_) => {
            // Closed. Within its deadline the payment was taken (it lost the race to the closer): the money
            // goes back, with its record, and the order stays closed as refunded — all in one statement.
            // Past the deadline no payment was taken, so nothing is refunded.
            // The charge and its refund are two money movements, written with the status in one statement.
            // The coupon went back to its sale at the close (`restocked`); if the close's Redis give-back
            // failed, the closer's redelivered check no longer repeats it (the order is not closed any
            // more), so the refund carries it (`redis_pending`, once-only, for the sweeper) — found by the
            // order's model (`orders/lifecycle.rs`).
            let refunded = sqlx::query!(
                "WITH refunded AS (
                     UPDATE orders SET status = 'refunded', refunded_at = now(), updated_at = now()
                     WHERE id = $1 AND status = 'closed' AND created_at > now() - make_interval(secs => $2)
                     RETURNING id, amount_cents, kind),
                 charged AS (INSERT INTO charges (order_id, amount_cents) SELECT id, amount_cents FROM refunded
                             RETURNING order_id, amount_cents)
                 INSERT INTO refunds (order_id, amount_cents, reason, cause, restocked, redis_pending)
                 SELECT c.order_id, c.amount_cents, $3, $4, true, r.kind = 'flash'
                 FROM charged c JOIN refunded r ON r.id = c.order_id
                 ON CONFLICT (order_id) DO NOTHING",
                order_id,
                timeout.as_secs_f64(),
                RefundCause::PaidLate.reason_db(),
                RefundCause::PaidLate.as_db(),
            )
            .execute(db)
            .await?;
            outcome(if refunded.rows_affected() == 1 { PayOutcome::Refunded } else { PayOutcome::Expired })
        }
    }
}

/// Unpaid orders older than `age` but not yet `timeout` old (those closing soon), as (order, buyer).
pub async fn unpaid_older_than(
    db: &PgPool,
    age: std::time::Duration,
    timeout: std::time::Duration,
    limit: i64,
) -> Result<Vec<(i64, i64)>, sqlx::Error> {
    let rows = sqlx::query!(
        "SELECT id, user_id FROM orders
         WHERE status = 'unpaid' AND created_at < now() - make_interval(secs => $1)
           AND created_at > now() - make_interval(secs => $2)
         ORDER BY created_at LIMIT $3",
        age.as_secs_f64(),
        timeout.as_secs_f64(),
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r.user_id)).collect())
}

/// Unpaid orders older than `timeout` (the sweeper's backstop), oldest first.
pub async fn overdue_unpaid(db: &PgPool, timeout: std::time::Duration, limit: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "SELECT id FROM orders WHERE status = 'unpaid' AND created_at < now() - make_interval(secs => $1)
         ORDER BY created_at LIMIT $2",
        timeout.as_secs_f64(),
        limit,
    )
    .fetch_all(db)
    .await
}

/// Creates an unpaid order for a normal coupon on sale; `None` if there is no such coupon.
pub async fn insert_normal_order(
    db: &PgPool,
    order_id: i64,
    user_id: i64,
    voucher_id: i64,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        r#"INSERT INTO orders (id, user_id, voucher_id, shop_id, kind, status, amount_cents)
         SELECT $1, $2, v.id, v.shop_id, 'normal', 'unpaid', v.pay_value_cents FROM vouchers v
         WHERE v.id = $3 AND v.kind = 'normal' AND v.status = 'on' AND (v.end_at IS NULL OR v.end_at > now())
         RETURNING (extract(epoch FROM created_at) * 1000)::BIGINT AS "created_ms!""#,
        order_id,
        user_id,
        voucher_id,
    )
    .fetch_optional(db)
    .await
}

/// Which of `ids` Postgres knows, as an order (any status) or as a recorded failure.
pub async fn known_order_ids(db: &PgPool, ids: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        r#"SELECT id AS "id!" FROM orders WHERE id = ANY($1)
         UNION SELECT order_id FROM order_failures WHERE order_id = ANY($1)"#,
        ids,
    )
    .fetch_all(db)
    .await
}

/// How a redemption code of one of `owner_id`'s shops stands after the attempt.
#[derive(Debug)]
pub enum Redeemed {
    /// Marked used now, or found used before (`Redemption::earlier`); with the buyer's id.
    Done(Redemption, i64),
    /// The order exists but is not paid (unpaid, closed or refunded), so there is nothing to honour.
    NotPaid(OrderStatus),
    /// Paid, but its validity ended at `use_by_ms` (it is being refunded): not honoured.
    Expired {
        /// When it stopped being valid, unix ms.
        use_by_ms: i64,
    },
    /// No order of the owner's shops has this code (another shop's code looks the same).
    Unknown,
}

/// Marks the paid order with `code` used, if it belongs to one of `owner_id`'s shops and is still valid:
/// one compare-and-set, so two counters scanning the same code at once redeem it once, and a refund racing
/// the scan either wins or finds it used.
pub async fn redeem(db: &PgPool, owner_id: i64, code: &str) -> Result<Redeemed, sqlx::Error> {
    let now = sqlx::query!(
        r#"UPDATE orders o SET status = 'used', used_at = now(), updated_at = now()
         FROM vouchers v, shops s
         WHERE o.redeem_code = $1 AND o.status = 'paid' AND o.use_by > now()
           AND v.id = o.voucher_id AND s.id = o.shop_id AND s.owner_id = $2
         RETURNING o.id, o.user_id, v.title, s.name, o.amount_cents,
                   (extract(epoch FROM o.used_at) * 1000)::BIGINT AS "used_ms!""#,
        code,
        owner_id,
    )
    .fetch_optional(db)
    .await?;
    if let Some(r) = now {
        let redemption = Redemption {
            order_id: r.id,
            title: r.title,
            shop_name: r.name,
            amount_cents: r.amount_cents,
            used_ms: r.used_ms,
            earlier: false,
        };
        return Ok(Redeemed::Done(redemption, r.user_id));
    }
    let found = sqlx::query!(
        r#"SELECT o.id, o.user_id, v.title, s.name, o.amount_cents,
                (extract(epoch FROM o.used_at) * 1000)::BIGINT AS used_ms, o.status,
                (extract(epoch FROM o.use_by) * 1000)::BIGINT AS use_by_ms
         FROM orders o JOIN vouchers v ON v.id = o.voucher_id JOIN shops s ON s.id = o.shop_id
         WHERE o.redeem_code = $1 AND s.owner_id = $2"#,
        code,
        owner_id,
    )
    .fetch_optional(db)
    .await?;
    Ok(match found {
        None => Redeemed::Unknown,
        Some(r) => match r.used_ms {
            Some(used_ms) if r.status == "used" => Redeemed::Done(
                Redemption {
                    order_id: r.id,
                    title: r.title,
                    shop_name: r.name,
                    amount_cents: r.amount_cents,
                    used_ms,
                    earlier: true,
                },
                r.user_id,
            ),
            _ => match r.use_by_ms {
                Some(use_by_ms) if r.status == "paid" => Redeemed::Expired { use_by_ms },
                _ => Redeemed::NotPaid(OrderStatus::from_db(&r.status)),
            },
        },
    })
}

struct ShopOrderRow {
    id: i64,
    title: String,
    buyer: String,
    amount_cents: i64,
    status: String,
    created_ms: i64,
    paid_ms: Option<i64>,
    used_ms: Option<i64>,
}

impl From<ShopOrderRow> for ShopOrder {
    fn from(r: ShopOrderRow) -> Self {
        Self {
            id: r.id,
            title: r.title,
            buyer: r.buyer,
            amount_cents: r.amount_cents,
            status: OrderStatus::from_db(&r.status),
            created_ms: r.created_ms,
            paid_ms: r.paid_ms,
            used_ms: r.used_ms,
        }
    }
}

/// One page of a shop's orders matching `q` (`limit` of them, plus whether more follow), newest first,
/// below id `before`: a keyset walk down the `(shop_id, id)` index (ids carry their creation time, so the
/// date bounds are id bounds too), as cheap on page 1,000 as on page 1.
pub async fn shop_orders(
    db: &PgPool,
    shop_id: i64,
    q: &OrderQuery,
    before: Option<i64>,
    limit: i64,
) -> Result<(Vec<ShopOrder>, bool), sqlx::Error> {
    let mut rows = sqlx::query_as!(
        ShopOrderRow,
        r#"SELECT o.id, v.title, u.nickname AS buyer, o.amount_cents, o.status,
                (extract(epoch FROM o.created_at) * 1000)::BIGINT AS "created_ms!",
                (extract(epoch FROM o.paid_at) * 1000)::BIGINT AS paid_ms,
                (extract(epoch FROM o.used_at) * 1000)::BIGINT AS used_ms
         FROM orders o JOIN vouchers v ON v.id = o.voucher_id JOIN users u ON u.id = o.user_id
         WHERE o.shop_id = $1
           AND ($2::TEXT IS NULL OR o.status = $2)
           AND ($3::BIGINT IS NULL OR o.voucher_id = $3)
           AND ($4::BIGINT IS NULL OR o.id >= $4)
           AND ($5::BIGINT IS NULL OR o.id < $5)
           AND ($6::BIGINT IS NULL OR o.id < $6)
         ORDER BY o.id DESC
         LIMIT $7"#,
        shop_id,
        q.status,
        q.voucher_id,
        q.from_ms.map(crate::platform::ids::IdGenerator::first_id_at),
        q.until_ms.map(crate::platform::ids::IdGenerator::first_id_at),
        before,
        limit + 1,
    )
    .fetch_all(db)
    .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    Ok((rows.into_iter().map(Into::into).collect(), more))
}

/// Every order of a shop matching `q`, as a stream that pages by keyset in batches of 1,000: the export
/// never holds them all in memory, nor a connection open while the client reads slowly.
pub fn stream_shop_orders(
    db: PgPool,
    shop_id: i64,
    q: OrderQuery,
) -> impl futures::Stream<Item = Result<ShopOrder, sqlx::Error>> + Send + 'static {
    use futures::StreamExt;
    const BATCH: i64 = 1000;
    futures::stream::unfold(Some(None::<i64>), move |cursor| {
        let (db, q) = (db.clone(), q.clone());
        async move {
            let before = cursor?;
            match shop_orders(&db, shop_id, &q, before, BATCH).await {
                Ok((orders, more)) => {
                    let next = (more && !orders.is_empty()).then(|| orders.last().map(|o| o.id));
                    Some((futures::stream::iter(orders.into_iter().map(Ok)).left_stream(), next))
                }
                Err(e) => Some((futures::stream::iter(vec![Err(e)]).right_stream(), None)),
            }
        }
    })
    .flatten()
}

/// A shop's orders and revenue per business day from `since_ms` on (days without any are absent).
pub async fn daily_trade(db: &PgPool, shop_id: i64, since_ms: i64) -> Result<Vec<DayTrade>, sqlx::Error> {
    sqlx::query_as!(
        DayTrade,
        r#"WITH created AS (
             SELECT to_char(created_at AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM-DD') AS day, count(*) AS n
             FROM orders WHERE shop_id = $1 AND created_at >= to_timestamp($2::BIGINT / 1000.0) GROUP BY 1),
         paid AS (
             SELECT to_char(paid_at AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM-DD') AS day, sum(amount_cents) AS cents
             FROM orders WHERE shop_id = $1 AND status IN ('paid', 'used') AND paid_at >= to_timestamp($2::BIGINT / 1000.0)
             GROUP BY 1)
         SELECT COALESCE(c.day, p.day) AS "day!", COALESCE(c.n, 0)::BIGINT AS "orders!",
                COALESCE(p.cents, 0)::BIGINT AS "revenue_cents!"
         FROM created c FULL JOIN paid p ON p.day = c.day ORDER BY 1"#,
        shop_id,
        since_ms,
    )
    .fetch_all(db)
    .await
}

/// The whole site's orders, charges and refunds per business day from `since_ms` on, each from its own
/// money movement's time (days without any are absent).
pub async fn site_trade(db: &PgPool, since_ms: i64) -> Result<Vec<SiteTrade>, sqlx::Error> {
    sqlx::query_as!(
        SiteTrade,
        r#"WITH since AS (SELECT to_timestamp($1::BIGINT / 1000.0) AS t),
         created AS (
             SELECT to_char(created_at AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM-DD') AS day, count(*) AS n
             FROM orders, since WHERE created_at >= since.t GROUP BY 1),
         charged AS (
             SELECT to_char(created_at AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM-DD') AS day, sum(amount_cents) AS cents
             FROM charges, since WHERE created_at >= since.t GROUP BY 1),
         refunded AS (
             SELECT to_char(created_at AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM-DD') AS day, count(*) AS n,
                    sum(amount_cents) AS cents
             FROM refunds, since WHERE created_at >= since.t GROUP BY 1),
         days AS (SELECT day FROM created UNION SELECT day FROM charged UNION SELECT day FROM refunded)
         SELECT d.day AS "day!", COALESCE(c.n, 0)::BIGINT AS "orders!", COALESCE(g.cents, 0)::BIGINT AS "charged_cents!",
                COALESCE(r.n, 0)::BIGINT AS "refunds!", COALESCE(r.cents, 0)::BIGINT AS "refunded_cents!"
         FROM days d LEFT JOIN created c ON c.day = d.day LEFT JOIN charged g ON g.day = d.day
              LEFT JOIN refunded r ON r.day = d.day
         ORDER BY 1"#,
        since_ms,
    )
    .fetch_all(db)
    .await
}

/// How many orders of each sale of `voucher_ids` stand in each status.
pub async fn status_counts(
    db: &PgPool,
    voucher_ids: &[i64],
) -> Result<std::collections::HashMap<i64, StatusCounts>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT voucher_id, status, count(*) AS "n!" FROM orders WHERE voucher_id = ANY($1) GROUP BY voucher_id, status"#,
        voucher_ids,
    )
    .fetch_all(db)
    .await?;
    let mut out: std::collections::HashMap<i64, StatusCounts> = Default::default();
    for row in rows {
        if let Some(count) = out.entry(row.voucher_id).or_default().of_mut(OrderStatus::from_db(&row.status)) {
            *count = row.n;
        }
    }
    Ok(out)
}

/// Whether `user_id` has redeemed a coupon of `shop_id` at its counter.
pub async fn redeemed_at_shop(db: &PgPool, user_id: i64, shop_id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM orders WHERE user_id = $1 AND shop_id = $2 AND status = 'used') AS "used!""#,
        user_id,
        shop_id,
    )
    .fetch_one(db)
    .await
}
