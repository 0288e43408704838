//! Healing: Redis rebuilt from Postgres and the orders still in flight after it lost its data, and the
//! sweeper that gives back grabs whose order exists nowhere (their instance died before producing it).

use std::time::Duration;

use super::admin::forget_at_ms;
use super::service::SeckillError;
use super::store;
use crate::platform::backend::BackendError;
use crate::platform::kafka::{self, OrderCreated};
use crate::sale::inventory;
use crate::shared::clock::now_ms;
use crate::web::state::AppState;

/// Orders acknowledged to their buyers that the order writer has not handled: those waiting for a resend
/// (their produce's outcome was unknown; the queue is in Postgres, so it outlives Redis), then those in
/// Kafka past the writer's offsets — looked at in the order an order travels, so one that moves on between
/// the two looks is found at the later one (a resend leaves the queue only once Kafka has it).
async fn orders_in_flight(state: &AppState) -> Result<Vec<OrderCreated>, BackendError> {
    let mut in_flight = store::compensation_orders(state.postgres()?, None).await?;
    in_flight.extend(kafka::unconsumed_orders(&state.config, &crate::orders::writer::group(&state.config)).await?);
    Ok(in_flight)
}

/// Every sale Redis should hold, as the truth has it: Postgres, except for orders still in Kafka or
/// waiting for a resend, which count as sold — stock = Postgres stock − orders in flight, buyers = live
/// orders ∪ in flight — so nobody can grab a coupon twice or a coupon that is already someone's.
async fn sales_as_truth(state: &AppState) -> Result<Vec<inventory::SaleSnapshot>, BackendError> {
    // Left out, the orders in flight would have their coupons sold again and be refused later.
    let in_flight = orders_in_flight(state).await?;
    let ids: Vec<i64> = in_flight.iter().map(|o| o.order_id).collect();
    let keep = inventory::kept_after_end(state.config.pay_timeout);
    let (mut sales, handled) = store::restorable_sales(state.postgres()?, keep, &ids).await?;
    let handled: std::collections::HashSet<i64> = handled.into_iter().collect();
    for sale in &mut sales {
        for order in in_flight.iter().filter(|o| o.voucher_id == sale.voucher_id && !handled.contains(&o.order_id)) {
            if !sale.buyers.contains(&order.user_id) {
                sale.buyers.push(order.user_id);
                sale.stock -= 1;
            }
        }
    }
    Ok(sales)
}

/// Loads the Redis state of every sale Redis should hold but does not (first start, or Redis lost its
/// data), from [`sales_as_truth`]; sales Redis already knows are left alone.
pub async fn restore_sales(state: &AppState) -> Result<usize, BackendError> {
    let mut restored = 0;
    for sale in sales_as_truth(state).await? {
        if inventory::restore_sale(&state.redis, &state.keys, &sale, forget_at_ms(state, sale.end_ms)).await? {
            restored += 1;
        }
    }
    Ok(restored)
}

/// Teaches Redis where it is ahead of the truth: a sale whose Redis stock is above what Postgres and the
/// orders in flight leave (a failover that lost decrements, a stock lowered in Postgres) gets the lower
/// figure, so its next buyer hears "sold out" at once instead of a "yes" the order writer turns into "no".
/// Answers how many coupons Redis had too many, in all.
pub async fn cap_sales_ahead(state: &AppState) -> Result<i64, BackendError> {
    let mut excess = 0;
    for sale in sales_as_truth(state).await? {
        let over = inventory::cap_stock(&state.redis, &state.keys, sale.voucher_id, sale.stock).await?;
        if over > 0 {
            tracing::warn!(voucher = sale.voucher_id, over, "Redis was ahead of Postgres; its stock was lowered");
            excess += over;
        }
    }
    Ok(excess)
}

/// Gives back grabs whose order exists nowhere — not in Postgres (as an order or a recorded failure), not
/// in Kafka, not on the resend queue — and whose script ran longer ago than `older_than`
/// (`STRANDED_GRAB_SECS`, far past the produce timeout and the compensation push, so an order on its way is
/// never taken for one): the instance that ran
/// the script died before producing (`kill -9` between the script and the send). Without this its buyer
/// would hold the coupon ("you already have one") with no order until the sale ends. Returns how many.
pub async fn release_stranded(state: &AppState, older_than: Duration) -> Result<usize, SeckillError> {
    Ok(sweep(state, older_than, None).await?.0)
}

/// Grabs read from Redis and looked up in Postgres at a time: what a sweep holds at once, however big the
/// sale.
const SWEEP_STEP: usize = 2000;

/// [`release_stranded`] for the grabs that ran at or after `since_ms` (Redis' clock; all when `None`):
/// answers how many were given back and the age line of this sweep, which the next one can start from —
/// a grab older than it was examined here, and one found accounted for then stays accounted for.
///
/// The sale's grabs are walked a step at a time, and each step's old grabs found in Postgres are dropped
/// there: only those left — usually none, as the writer is seconds behind and a suspect is
/// `STRANDED_GRAB_SECS` old — are looked for where an order travels. So a sweep's memory and work do not grow
/// with the sale's size, and the Kafka backlog is read only when some grab is unaccounted for.
async fn sweep(state: &AppState, older_than: Duration, since_ms: Option<i64>) -> Result<(usize, i64), SeckillError> {
    let keep = inventory::kept_after_end(state.config.pay_timeout);
    let cutoff = now_ms() - older_than.as_millis() as i64;
    let mut suspects = Vec::new();
    for voucher_id in store::recent_sale_ids(state.postgres()?, keep).await? {
        let mut cursor = 0;
        loop {
            let (next, grabs) =
                inventory::recorded_grabs_step(&state.redis, &state.keys, voucher_id, cursor, SWEEP_STEP).await?;
            // Aged from when the script ran (Redis' clock; the instances' clocks agree with it far more
            // closely than `STRANDED_GRAB_SECS`), not from the order id's minting: a grab whose call waited
            // out a failover may still be on its way to Kafka.
            let old: Vec<OrderCreated> = grabs
                .into_iter()
                .filter(|g| g.at_ms < cutoff && since_ms.is_none_or(|since| g.at_ms >= since))
                .map(|g| OrderCreated { order_id: g.order_id, user_id: g.user_id, voucher_id, ts: 0 })
                .collect();
            if !old.is_empty() {
                // An order in Postgres is there for good: its grab is no suspect, whatever happens next.
                let ids: Vec<i64> = old.iter().map(|o| o.order_id).collect();
                let stored = crate::orders::service::known_order_ids(state, &ids).await?;
                suspects.extend(old.into_iter().filter(|o| !stored.contains(&o.order_id)));
            }
            if next == 0 {
                break;
            }
            cursor = next;
        }
    }
    if suspects.is_empty() {
        return Ok((0, cutoff));
    }
    suspects.sort_unstable_by_key(|o| o.order_id);
    suspects.dedup_by_key(|o| o.order_id);
    let ids: Vec<i64> = suspects.iter().map(|o| o.order_id).collect();
    // Looked for in the order an order travels — the resend queue, then Kafka past the writer's offsets,
    // then Postgres — so one that moves on between two looks is found at the later one (a resend leaves
    // the queue only once Kafka has it; the writer commits its offsets only after Postgres).
    // Postgres first would miss an order the writer stored and committed past in between, and give back
    // a coupon that was sold (the look above only ever drops what Postgres has).
    let mut accounted: std::collections::HashSet<i64> =
        orders_in_flight(state).await?.into_iter().map(|o| o.order_id).collect();
    accounted.extend(crate::orders::service::known_order_ids(state, &ids).await?);
    let mut released = 0;
    for o in suspects.iter().filter(|o| !accounted.contains(&o.order_id)) {
        if inventory::release(&state.redis, &state.keys, o.voucher_id, o.user_id, o.order_id).await? {
            tracing::warn!(order = o.order_id, user = o.user_id, voucher = o.voucher_id, "stranded grab given back");
            state.metrics.seckill.stranded_released.inc();
            released += 1;
        }
    }
    Ok((released, cutoff))
}

/// Runs [`release_stranded`] for the life of the process, three times per `STRANDED_GRAB_SECS`.
pub fn spawn_stranded_sweeper(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let older_than = state.config.stranded_grab_after;
        // Each sweep looks at the grabs that aged past the line since the last one that finished; the first
        // (and one after a failed sweep) at every grab.
        let mut since = None;
        loop {
            tokio::time::sleep(older_than / 3).await;
            match sweep(&state, older_than, since).await {
                Ok((_, cutoff)) => since = Some(cutoff),
                Err(e) => tracing::warn!("stranded-grab sweep skipped: {e}"),
            }
        }
    })
}
