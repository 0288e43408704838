//! `/metrics`: this instance's prometheus-client registry in the OpenMetrics text format, and the layer
//! that times every route.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use app::platform::metrics::{RouteLabels, SaleLabels};
use app::web::state::AppState;

/// Sets the gauges read from this process (breakers, live stock views) at every scrape, and those that need
/// a round trip (compensation backlog, per-sale drift and in-flight orders) at most every few seconds
/// however often the scrapes come; one that cannot be read keeps its last value and the failure is logged.
async fn refresh_gauges(state: &AppState) {
    state.breakers.report(&state.metrics);
    state.metrics.live_stock_sales.set(state.live_stock.sales_held() as i64);
    let scrape = &state.metrics.scrape;
    if !scrape.due() {
        return;
    }
    match app::seckill::service::compensation_backlog(state).await {
        Ok(n) => {
            scrape.compensation_backlog.set(n as i64);
        }
        Err(e) => tracing::warn!("metrics: compensation backlog unavailable: {e}"),
    }
    match app::seckill::service::audit(state, None).await {
        Ok(sales) => {
            // Ended sales drop out of the audit: drop their series too.
            scrape.drift.clear();
            scrape.in_flight.clear();
            for s in &sales {
                let labels = SaleLabels { voucher: s.voucher_id };
                scrape.drift.get_or_create(&labels).set(s.drift());
                scrape.in_flight.get_or_create(&labels).set(s.in_flight());
            }
        }
        Err(e) => tracing::warn!("metrics: flash-sale audit unavailable: {e}"),
    }
}

/// The handler.
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    refresh_gauges(&state).await;
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], state.metrics.encode())
}

/// Times each request into `haodian_http_request_duration_seconds`, labelled with the route pattern axum
/// matched (`/shops/{id}`; each server function is a route of its own, `/api/seckill/grab`). Anything else
/// (static files, unknown paths) is one `unmatched` series, and a method outside the standard seven is
/// `other`, so a scanner cannot mint series.
pub async fn time_requests(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(req.method());
    let route = req.extensions().get::<MatchedPath>().map_or("unmatched", |m| m.as_str()).to_string();
    let resp = next.run(req).await;
    let labels = RouteLabels { route, method, status: resp.status().as_u16() };
    state.metrics.http_seconds.get_or_create(&labels).observe(started.elapsed().as_secs_f64());
    resp
}

/// A request method as a label: the standard ones by name, anything else `other` — HTTP lets a client
/// invent methods, and each would otherwise become a series of its own.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}
