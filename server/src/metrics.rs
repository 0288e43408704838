//! `/metrics` in the Prometheus text format.

use std::fmt::Write;
use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use app::state::AppState;

/// Renders every counter of this instance.
pub fn render(state: &AppState) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# HELP haodian_cache_events_total Shop cache reads by outcome (per instance).");
    let _ = writeln!(out, "# TYPE haodian_cache_events_total counter");
    for (event, value) in state.shops.metrics.snapshot() {
        let _ = writeln!(out, "haodian_cache_events_total{{cache=\"shop\",event=\"{event}\"}} {value}");
    }
    let m = &state.seckill.metrics;
    let _ = writeln!(out, "# HELP haodian_seckill_grabs_total Flash-sale script answers by outcome (per instance).");
    let _ = writeln!(out, "# TYPE haodian_seckill_grabs_total counter");
    for (outcome, value) in m.outcomes() {
        let _ = writeln!(out, "haodian_seckill_grabs_total{{outcome=\"{outcome}\"}} {value}");
    }
    for (name, help, counter) in [
        ("haodian_seckill_sold_out_flag_hits_total", "Grabs answered by the local sold-out flag.", &m.sold_out_flag_hits),
        ("haodian_seckill_rate_limited_total", "Grabs refused by a rate limit.", &m.rate_limited),
        ("haodian_seckill_produce_failures_total", "Orders the broker certainly refused (grab given back).", &m.produce_failures),
        ("haodian_seckill_produce_unknown_total", "Orders with an unknown produce outcome (queued for resend).", &m.produce_unknown),
        ("haodian_seckill_compensated_total", "Queued orders re-sent successfully.", &m.compensated),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} counter");
        let _ = writeln!(out, "{name} {}", counter.load(Ordering::Relaxed));
    }
    let o = &state.order_metrics;
    for (name, help, counter) in [
        ("haodian_orders_closed_total", "Unpaid orders closed (closer or sweeper).", &o.closed),
        ("haodian_orders_paid_total", "Orders paid.", &o.paid),
        ("haodian_orders_refunds_total", "Payments refunded because the order had closed first.", &o.refunds),
        ("haodian_orders_sweeper_finds_total", "Overdue unpaid orders the sweeper found (non-zero: the closer missed them).", &o.sweeper_finds),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} counter");
        let _ = writeln!(out, "{name} {}", counter.load(Ordering::Relaxed));
    }
    let _ = writeln!(out, "# HELP haodian_order_closer_lag Close checks on orders.close-delay not yet consumed (-1 until known).");
    let _ = writeln!(out, "# TYPE haodian_order_closer_lag gauge");
    let _ = writeln!(out, "haodian_order_closer_lag {}", o.closer_lag.load(Ordering::Relaxed));
    let _ = writeln!(out, "# HELP haodian_order_writer_lag Messages on orders.created not yet consumed (-1 until known).");
    let _ = writeln!(out, "# TYPE haodian_order_writer_lag gauge");
    let _ = writeln!(out, "haodian_order_writer_lag {}", m.writer_lag.load(Ordering::Relaxed));
    out
}

/// Gauges that need a round trip: the compensation backlog and the order writer's lag.
async fn render_gauges(state: &AppState) -> String {
    let mut out = String::new();
    match app::seckill::store::compensation_backlog(&state.redis, &state.keys).await {
        Ok(n) => {
            let _ = writeln!(out, "# HELP haodian_seckill_compensation_backlog Order messages waiting for a resend.");
            let _ = writeln!(out, "# TYPE haodian_seckill_compensation_backlog gauge");
            let _ = writeln!(out, "haodian_seckill_compensation_backlog {n}");
        }
        Err(e) => tracing::warn!("metrics: compensation backlog unavailable: {e}"),
    }
    match app::seckill::service::audit(state, None).await {
        Ok(sales) => {
            let _ = writeln!(out, "# HELP haodian_seckill_drift (Redis stock + buyers) - (Postgres stock + live orders); 0 when healthy.");
            let _ = writeln!(out, "# TYPE haodian_seckill_drift gauge");
            for s in &sales {
                let _ = writeln!(out, "haodian_seckill_drift{{voucher=\"{}\"}} {}", s.voucher_id, s.drift());
            }
            let _ = writeln!(out, "# HELP haodian_seckill_in_flight Grabbed coupons not yet stored by the order writer.");
            let _ = writeln!(out, "# TYPE haodian_seckill_in_flight gauge");
            for s in &sales {
                let _ = writeln!(out, "haodian_seckill_in_flight{{voucher=\"{}\"}} {}", s.voucher_id, s.in_flight());
            }
        }
        Err(e) => tracing::warn!("metrics: flash-sale audit unavailable: {e}"),
    }
    out
}

/// The handler.
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let mut body = render(&state);
    body.push_str(&render_gauges(&state).await);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body)
}
