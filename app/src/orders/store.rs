//! All SQL of the order writer.

use sqlx::PgPool;

use super::model::OrderCreated;

/// What one batch did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// Orders written now.
    pub inserted: Vec<i64>,
    /// Orders already present (a redelivery): nothing written, nothing deducted.
    pub duplicates: Vec<i64>,
    /// Orders Postgres refused, with the reason (sent to the dead-letter topic and released in Redis).
    pub rejected: Vec<(OrderCreated, String)>,
}

/// Writes a batch in one transaction: each order is inserted (`ON CONFLICT DO NOTHING`: a redelivered
/// order is a no-op) and, only if it was new, the voucher's stock is decremented under a `stock >= 1`
/// guard. An order the stock cannot cover — Redis and Postgres disagree — is rolled back to its savepoint
/// and reported as rejected instead of overselling.
pub async fn write_batch(db: &PgPool, batch: &[OrderCreated]) -> Result<BatchOutcome, sqlx::Error> {
    let mut out = BatchOutcome::default();
    let mut tx = db.begin().await?;
    for msg in batch {
        // A savepoint per order: one refused order rolls back alone, the batch commits.
        let mut sp = sqlx::Acquire::begin(&mut *tx).await?;
        let inserted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO orders (id, user_id, voucher_id, kind, status, amount_cents, created_at)
             SELECT $1, $2, v.id, 'flash', 'unpaid', v.pay_value_cents, to_timestamp($4 / 1000.0)
             FROM vouchers v WHERE v.id = $3 AND v.kind = 'flash'
             ON CONFLICT DO NOTHING RETURNING id",
        )
        .bind(msg.order_id)
        .bind(msg.user_id)
        .bind(msg.voucher_id)
        .bind(msg.ts)
        .fetch_optional(&mut *sp)
        .await?;
        if inserted.is_none() {
            let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM orders WHERE id = $1)")
                .bind(msg.order_id)
                .fetch_one(&mut *sp)
                .await?;
            sp.rollback().await?;
            if exists {
                out.duplicates.push(msg.order_id);
            } else {
                // Not a redelivery: the user already holds a live order for this sale, or no such sale.
                out.rejected.push((msg.clone(), "user already holds this coupon, or no such flash sale".into()));
            }
            continue;
        }
        let deducted = sqlx::query("UPDATE vouchers SET stock = stock - 1, updated_at = now() WHERE id = $1 AND stock >= 1")
            .bind(msg.voucher_id)
            .execute(&mut *sp)
            .await?
            .rows_affected();
        if deducted == 1 {
            sp.commit().await?;
            out.inserted.push(msg.order_id);
        } else {
            sp.rollback().await?;
            out.rejected.push((msg.clone(), "no stock left in Postgres".into()));
        }
    }
    tx.commit().await?;
    Ok(out)
}
