//! `/metrics` in the Prometheus text format.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use app::state::AppState;

/// Writes one metric family: HELP, TYPE and a sample per (labels, value).
fn family(out: &mut String, name: &str, kind: &str, help: &str, samples: &[(String, i64)]) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
    for (labels, value) in samples {
        let _ = writeln!(out, "{name}{labels} {value}");
    }
}

fn value(counter: &AtomicU64) -> Vec<(String, i64)> {
    vec![(String::new(), counter.load(Ordering::Relaxed) as i64)]
}

/// Renders every counter of this instance.
pub fn render(state: &AppState) -> String {
    let mut out = String::new();
    let cache: Vec<(String, i64)> = state
        .shops
        .metrics
        .snapshot()
        .into_iter()
        .map(|(e, v)| (format!("{{cache=\"shop\",event=\"{e}\"}}"), v as i64))
        .collect();
    family(&mut out, "haodian_cache_events_total", "counter", "Shop cache reads by outcome (per instance).", &cache);
    let m = &state.seckill_metrics;
    let outcomes: Vec<(String, i64)> =
        m.outcomes().into_iter().map(|(o, v)| (format!("{{outcome=\"{o}\"}}"), v as i64)).collect();
    family(
        &mut out,
        "haodian_seckill_grabs_total",
        "counter",
        "Flash-sale script answers by outcome (per instance).",
        &outcomes,
    );
    let o = &state.order_metrics;
    for (name, help, counter) in [
        (
            "haodian_seckill_sold_out_flag_hits_total",
            "Grabs answered by the local sold-out flag.",
            &m.sold_out_flag_hits,
        ),
        ("haodian_seckill_rate_limited_total", "Grabs refused by a rate limit.", &m.rate_limited),
        (
            "haodian_seckill_produce_failures_total",
            "Orders the broker certainly refused (grab given back).",
            &m.produce_failures,
        ),
        (
            "haodian_seckill_produce_unknown_total",
            "Orders with an unknown produce outcome (queued for resend).",
            &m.produce_unknown,
        ),
        ("haodian_seckill_compensated_total", "Queued orders re-sent successfully.", &m.compensated),
        ("haodian_orders_closed_total", "Unpaid orders closed (closer or sweeper).", &o.closed),
        ("haodian_orders_paid_total", "Orders paid.", &o.paid),
        (
            "haodian_redis_state_rebuilds_total",
            "Rebuilds of Redis' state from Postgres (start-up, and each time Redis lost its data).",
            &state.state_metrics.rebuilds,
        ),
        ("haodian_orders_refunds_total", "Payments refunded because the order had closed first.", &o.refunds),
        (
            "haodian_orders_sweeper_finds_total",
            "Overdue unpaid orders the sweeper found (non-zero: the closer missed them).",
            &o.sweeper_finds,
        ),
    ] {
        family(&mut out, name, "counter", help, &value(counter));
    }
    for (name, help, lag) in [
        ("haodian_order_writer_lag", "Messages on orders.created not yet consumed (-1 until known).", &m.writer_lag),
        (
            "haodian_order_closer_lag",
            "Close checks on orders.close-delay not yet consumed (-1 until known).",
            &o.closer_lag,
        ),
    ] {
        family(&mut out, name, "gauge", help, &[(String::new(), lag.load(Ordering::Relaxed))]);
    }
    out
}

/// Gauges that need a round trip: the compensation backlog and the order writer's lag.
async fn render_gauges(state: &AppState) -> String {
    let mut out = String::new();
    match app::seckill::service::compensation_backlog(state).await {
        Ok(n) => family(
            &mut out,
            "haodian_seckill_compensation_backlog",
            "gauge",
            "Order messages waiting for a resend.",
            &[(String::new(), n as i64)],
        ),
        Err(e) => tracing::warn!("metrics: compensation backlog unavailable: {e}"),
    }
    match app::seckill::service::audit(state, None).await {
        Ok(sales) => {
            let per_sale = |f: fn(&app::seckill::model::SaleAudit) -> i64| -> Vec<(String, i64)> {
                sales.iter().map(|s| (format!("{{voucher=\"{}\"}}", s.voucher_id), f(s))).collect()
            };
            let drift = per_sale(|s| s.drift());
            family(
                &mut out,
                "haodian_seckill_drift",
                "gauge",
                "(Redis stock + buyers) - (Postgres stock + live orders); 0 when healthy.",
                &drift,
            );
            let in_flight = per_sale(|s| s.in_flight());
            family(
                &mut out,
                "haodian_seckill_in_flight",
                "gauge",
                "Grabbed coupons not yet stored by the order writer.",
                &in_flight,
            );
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
