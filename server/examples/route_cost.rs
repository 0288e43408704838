//! In-process cost of one request through the whole public router (every layer, no sockets): µs and heap
//! allocations per request for `/livez`, the JSON shop route and the shop page's server function, on one
//! thread.
//! `ROUTE_COST_DATABASE_URL` names its scratch database (created, migrated and seeded here; default
//! `haodian_route_cost` on the local Postgres); `ROUTE_COST_N` requests each (20,000) in three rounds;
//! `ROUTE_COST_ONLY=shop-cached` times only the paths containing that text (for `perf record`).
//! `cargo run --release -p server --example route_cost` with Redis and the broker up (`scripts/services.sh`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use sqlx::migrate::MigrateDatabase;
use tower::ServiceExt;

/// The system allocator, counting its allocations.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call goes straight to `System`; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let url = std::env::var("ROUTE_COST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/haodian_route_cost".into());
    if !sqlx::Postgres::database_exists(&url).await.expect("Postgres reachable") {
        sqlx::Postgres::create_database(&url).await.expect("database created");
    }
    let db = sqlx::PgPool::connect(&url).await.expect("database reachable");
    app::start::MIGRATOR.run(&db).await.expect("migrations apply");
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
            let allocations = ALLOCATIONS.load(Ordering::Relaxed);
            let start = Instant::now();
            for _ in 0..n {
                let req = Request::get(path).header("accept", "application/json").body(Body::empty()).unwrap();
                let resp = router.clone().oneshot(req).await.unwrap();
                assert!(resp.status().is_success(), "{path}: {}", resp.status());
                let _ = resp.into_body().collect().await.unwrap();
            }
            let elapsed = start.elapsed();
            let allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations;
            println!(
                "round {round} {path:36} {:6.2} µs {:6.1} allocations",
                elapsed.as_secs_f64() * 1e6 / f64::from(n),
                allocations as f64 / f64::from(n)
            );
        }
    }
}
