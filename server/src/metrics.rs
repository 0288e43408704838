//! `/metrics` in the Prometheus text format.

use std::fmt::Write;

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
    out
}

/// The handler.
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], render(&state))
}
