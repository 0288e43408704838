//! The audit: Postgres beside Redis for every sale (the reconciliation report and its periodic log), and
//! the grab tally — each instance's outcome counts added to Postgres every second for the merchant's funnel.

use std::time::Duration;

use super::admin::forget_at_ms;
use super::model::{SaleAudit, SaleOutcome};
use super::service::SeckillError;
use super::store;
use crate::sale::inventory;
use crate::shared::clock::now_ms;
use crate::web::state::AppState;

/// Postgres next to Redis for every flash sale (of one shop, or all): the reconciliation report.
/// It only reports; it never "fixes" Postgres from Redis.
pub async fn audit(state: &AppState, shop_id: Option<i64>) -> Result<Vec<SaleAudit>, SeckillError> {
    let mut sales = store::sale_ledgers(state.postgres()?, shop_id).await?;
    let now = now_ms();
    for s in &mut sales {
        let (stock, buyers) = inventory::sale_state(&state.redis, &state.keys, s.voucher_id).await?;
        s.redis_stock = stock;
        s.redis_buyers = buyers as i64;
        s.redis_expected = forget_at_ms(state, s.end_ms) > now;
    }
    Ok(sales)
}

/// Audits every sale now and then, logs drift loudly (the same figures are on `/metrics`) and lowers
/// Redis' stock where it is ahead of Postgres and the orders in flight (Postgres is the truth).
pub fn spawn_reconciliation(state: AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Err(e) = super::healing::cap_sales_ahead(&state).await {
                tracing::warn!("Redis stock not checked against Postgres this time: {e}");
            }
            match audit(&state, None).await {
                Ok(sales) => {
                    for s in sales.iter().filter(|s| s.drift() != 0) {
                        tracing::error!(
                            voucher = s.voucher_id,
                            drift = s.drift(),
                            ?s,
                            "flash sale drift between Redis and Postgres"
                        );
                    }
                }
                Err(e) => tracing::warn!("reconciliation skipped: {e}"),
            }
        }
    })
}

/// Adds this instance's grab outcomes counted since the last flush to Postgres (kept for the next flush
/// if the write fails); answers how many grabs it added.
pub async fn flush_grab_tally(state: &AppState) -> Result<i64, SeckillError> {
    let rows = state.grab_tally.take();
    if rows.is_empty() {
        return Ok(0);
    }
    let total = rows.iter().map(|r| r.2).sum();
    let written = match state.postgres() {
        Ok(db) => store::add_outcomes(db, &rows).await.map_err(SeckillError::from),
        Err(e) => Err(e.into()),
    };
    if let Err(e) = written {
        state.grab_tally.put_back(rows);
        return Err(e);
    }
    Ok(total)
}

/// Flushes the grab tally every second for the life of the process.
pub fn spawn_tally_flusher(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if let Err(e) = flush_grab_tally(&state).await {
                tracing::warn!("grab outcomes not stored yet, kept for the next try: {e}");
            }
        }
    })
}

/// How the grabs of sale `voucher_id` ended, by outcome label, as Postgres holds them (each instance's
/// last second is still on its way).
pub async fn grab_outcomes(state: &AppState, voucher_id: i64) -> Result<Vec<SaleOutcome>, SeckillError> {
    Ok(store::outcomes_of(state.postgres()?, voucher_id).await?)
}
