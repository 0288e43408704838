//! `/healthz`: reports whether Postgres, Redis and Kafka answer, with latencies.

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use rdkafka::producer::Producer;
use serde::Serialize;

use app::web::state::AppState;

/// One dependency's state.
#[derive(Debug, Serialize)]
pub struct Check {
    /// Answered correctly.
    pub ok: bool,
    /// Round trip in milliseconds.
    pub latency_ms: u64,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole report.
#[derive(Debug, Serialize)]
pub struct Health {
    /// `ok` if every check passed, else `degraded`.
    pub status: &'static str,
    /// Postgres `SELECT 1`.
    pub postgres: Check,
    /// Redis `PING`.
    pub redis: Check,
    /// Kafka metadata request.
    pub kafka: Check,
}

async fn timed<F, E>(fut: F) -> Check
where
    F: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let start = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(3), fut).await;
    let latency_ms = start.elapsed().as_millis() as u64;
    match result {
        Ok(Ok(())) => Check { ok: true, latency_ms, error: None },
        Ok(Err(e)) => Check { ok: false, latency_ms, error: Some(e.to_string()) },
        Err(_) => Check { ok: false, latency_ms, error: Some("timed out after 3 s".into()) },
    }
}

/// Runs all three checks concurrently; 200 when all pass, 503 otherwise.
pub async fn check(state: &AppState) -> Health {
    let pg = timed(async { sqlx::query_scalar!("SELECT 1").fetch_one(&state.db).await.map(|_| ()) });
    let redis = timed(async { redis::cmd("PING").query_async::<String>(&mut state.redis.clone()).await.map(|_| ()) });
    let producer = state.kafka.clone();
    let kafka = timed(async move {
        // librdkafka's metadata call blocks its thread: keep it off the async workers.
        tokio::task::spawn_blocking(move || {
            producer.client().fetch_metadata(None, Duration::from_secs(2)).map(|_| ()).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r)
    });
    let (postgres, redis, kafka) = tokio::join!(pg, redis, kafka);
    let status = if postgres.ok && redis.ok && kafka.ok { "ok" } else { "degraded" };
    Health { status, postgres, redis, kafka }
}

/// The handler.
pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    let health = check(&state).await;
    let code = if health.status == "ok" { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (code, Json(health))
}
