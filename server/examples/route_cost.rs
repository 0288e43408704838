//! In-process cost of one request through the whole public router (every layer, no sockets): µs per
//! request for `/livez`, the JSON shop route and the shop page's server function, on one thread.
//! `ROUTE_COST_DATABASE_URL` names its scratch database (created, migrated and seeded here; default
//! `haodian_route_cost` on the local Postgres); `ROUTE_COST_N` requests each (20,000) in three rounds;
//! `ROUTE_COST_ONLY=shop-cached` times only the paths containing that text (for `perf record`).
//! `cargo run --release -p server --example route_cost` with Redis and the broker up (`scripts/services.sh`).

use std::time::Instant;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use sqlx::migrate::MigrateDatabase;
use tower::ServiceExt;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let url = std::env::var("ROUTE_COST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/haodian_route_cost".into());
    if !sqlx::Postgres::database_exists(&url).await.expect("Postgres reachable") {
        sqlx::Postgres::create_database(&url).await.expect("database created");
    }
    let db = sqlx::PgPool::connect(&url).await.expect("database reachable");
    app::state::MIGRATOR.run(&db).await.expect("migrations apply");
    app::testing::seed_shop(&db).await.expect("seed");
    let state = app::testing::test_state(db, &[("IP_RATE_LIMIT", "1000000000")]).await;
    let router = server::router::build(state);
    let n: u32 = std::env::var("ROUTE_COST_N").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let only = std::env::var("ROUTE_COST_ONLY").ok();
    for round in 0..3 {
        for path in ["/livez", "/api/v1/shops/1", "/api/catalog/shop-cached?id=1"] {
            if only.as_deref().is_some_and(|o| !path.contains(o)) {
                continue;
            }
            let start = Instant::now();
            for _ in 0..n {
                let req = Request::get(path).header("accept", "application/json").body(Body::empty()).unwrap();
                let resp = router.clone().oneshot(req).await.unwrap();
                assert!(resp.status().is_success(), "{path}: {}", resp.status());
                let _ = resp.into_body().collect().await.unwrap();
            }
            println!("round {round} {path:36} {:6.2} µs", start.elapsed().as_secs_f64() * 1e6 / f64::from(n));
        }
    }
}
