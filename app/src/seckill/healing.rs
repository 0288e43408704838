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
    let keep = inventory::kept_after_end(state.config.pay_timeout);
    let cutoff = now_ms() - older_than.as_millis() as i64;
    let mut suspects = Vec::new();
    for voucher_id in store::recent_sale_ids(state.postgres()?, keep).await? {
        for grab in inventory::recorded_grabs(&state.redis, &state.keys, voucher_id).await? {
            // Aged from when the script ran (Redis' clock; the instances' clocks agree with it far more
            // closely than `STRANDED_GRAB_SECS`), not from the order id's minting: a grab whose call waited
            // out a failover may still be on its way to Kafka.
            if grab.at_ms < cutoff {
                suspects.push(OrderCreated { order_id: grab.order_id, user_id: grab.user_id, voucher_id, ts: 0 });
            }
        }
    }
    if suspects.is_empty() {
        return Ok(0);
    }
    let ids: Vec<i64> = suspects.iter().map(|o| o.order_id).collect();
    // Looked for in the order an order travels — the resend queue, then Kafka past the writer's offsets,
    // then Postgres — so one that moves on between two looks is found at the later one (a resend leaves
    // the queue only once Kafka has it; the writer commits its offsets only after Postgres).
    // Postgres first would miss an order the writer stored and committed past in between, and give back
    // a coupon that was sold.
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
    Ok(released)
}

/// Runs [`release_stranded`] for the life of the process, three times per `STRANDED_GRAB_SECS`.
pub fn spawn_stranded_sweeper(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let older_than = state.config.stranded_grab_after;
        loop {
            tokio::time::sleep(older_than / 3).await;
            if let Err(e) = release_stranded(&state, older_than).await {
                tracing::warn!("stranded-grab sweep skipped: {e}");
            }
        }
    })
}
