//! Reviews benchmark (prints a table; not a test): one shop of its own gets 10,000 reviews written through
//! the reviews service by 16 writers at once (reviews written per second, every one moving the same shop
//! row's figures), then its first review page and its 200th (by keyset) are read through the running
//! server, beside the plain shop page read the same way — p50/p99 and the server's CPU per request.
//!
//! `BENCH_REVIEWS` (10000), `BENCH_ROUNDS` (200), `BENCH_URL` (http://127.0.0.1:3100), `BENCH_SERVER_PID`;
//! `DATABASE_URL` etc. as the server uses them.

use std::time::{Duration, Instant};

use app::auth::model::{CurrentUser, Role};
use app::platform::config::Config;
use app::reviews::model::{NewReview, ReviewForm, ReviewPage};
use bench::env_num;
use futures::StreamExt;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// A shop of its own (type 1) and `n` shoppers to review it.
async fn seed(db: &sqlx::PgPool, n: usize) -> Result<(i64, Vec<i64>), String> {
    let e = |e: sqlx::Error| e.to_string();
    let run = app::shared::clock::now_ms();
    let shop: i64 = sqlx::query_scalar(
        "INSERT INTO shops (name, type_id, area, address, longitude, latitude)
         VALUES ('bench reviews', (SELECT min(id) FROM shop_types), '湖滨', '杭州市某路1号', 120.1, 30.2) RETURNING id",
    )
    .fetch_one(db)
    .await
    .map_err(e)?;
    let users: Vec<i64> = sqlx::query_scalar(
        "INSERT INTO users (email, nickname, password_hash)
         SELECT 'reviewer-' || $1 || '-' || g || '@example.com', 'reviewer ' || g, 'x' FROM generate_series(1, $2) g
         RETURNING id",
    )
    .bind(run.to_string())
    .bind(n as i64)
    .fetch_all(db)
    .await
    .map_err(e)?;
    Ok((shop, users))
}

/// The review user `i` writes: stars and words vary, a few have a photo.
fn review(i: usize) -> Result<NewReview, String> {
    let stars = (i % 5 + 1).to_string();
    NewReview::try_from(ReviewForm {
        stars: stars.clone(),
        aspect1: stars.clone(),
        aspect2: "4".into(),
        aspect3: "3".into(),
        spend: format!("{}", 40 + i % 80),
        body: format!("第{i}次来，菜品新鲜，服务也很周到，环境干净整洁。"),
        images: if i.is_multiple_of(10) { "/images/shop.svg".into() } else { String::new() },
        tags: "环境好".into(),
    })
    .map_err(|e| e.to_string())
}

/// p50 and p99 of `rounds` sequential GETs of `path`, and the server's CPU per request (µs).
async fn latency(
    client: &bench::HttpClient,
    base: &str,
    path: &str,
    rounds: usize,
    server: Option<(u32, f64)>,
) -> Result<(Duration, Duration, Option<f64>), String> {
    bench::timed_runs(rounds, server, || bench::api_get(client, base, path)).await
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// The list's URL for `shop` after `cursor` (the server function is a GET).
fn list_path(shop: i64, after: &str) -> String {
    format!("/api/reviews/list?shop_id={shop}&sort=newest&photos=false&after={after}")
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let n = env_num("BENCH_REVIEWS", 10_000)?;
    let rounds = env_num("BENCH_ROUNDS", 200)?;
    let base = std::env::var("BENCH_URL").unwrap_or_else(|_| "http://127.0.0.1:3100".into());
    let server: Option<(u32, f64)> = std::env::var("BENCH_SERVER_PID")
        .ok()
        .and_then(|p| p.parse().ok())
        .map(|pid| (pid, bench::probe::micros_per_tick()));
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    let (shop, users) = seed(&state.db, n).await?;

    // Writes: every review goes through the service (the shop's cached copy, the "verified" look-up, one
    // transaction whose trigger moves the shop row, the cache invalidation and the ranking), 16 at once.
    let started = Instant::now();
    let written: Vec<Result<i64, String>> = futures::stream::iter(users.iter().enumerate())
        .map(|(i, id)| {
            let state = state.clone();
            let user =
                CurrentUser { id: *id, nickname: String::new(), role: Role::Shopper, masked_account: String::new() };
            async move {
                let r = review(i)?;
                app::reviews::service::write(&state, &user, shop, r).await.map_err(|e| e.to_string())
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let write_secs = started.elapsed().as_secs_f64();
    if let Some(Err(e)) = written.iter().find(|r| r.is_err()) {
        return Err(format!("a review was not written: {e}"));
    }
    let per_sec = n as f64 / write_secs;
    let (count, sum): (i32, i64) = sqlx::query_as("SELECT review_count, star_sum FROM shops WHERE id = $1")
        .bind(shop)
        .fetch_one(&state.db)
        .await
        .map_err(|e| e.to_string())?;
    let want_sum: i64 = (0..n).map(|i| (i % 5 + 1) as i64).sum();
    sqlx::query("ANALYZE reviews").execute(&state.db).await.map_err(|e| e.to_string())?;

    // The cursor of page 200, by walking there as a reader would.
    let client: bench::HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let mut after = String::new();
    for _ in 1..200 {
        let body = bench::api_get(&client, &base, &list_path(shop, &after)).await?;
        let page: ReviewPage = serde_json::from_str(&body).map_err(|e| format!("review page: {e}"))?;
        after = page.next.ok_or("fewer than 200 pages of reviews")?;
    }
    let plain = latency(&client, &base, &format!("/api/catalog/shop-cached?id={shop}"), rounds, server).await?;
    let first = latency(&client, &base, &list_path(shop, ""), rounds, server).await?;
    let deep = latency(&client, &base, &list_path(shop, &after), rounds, server).await?;

    const PAGE_CEILING: Duration = Duration::from_millis(20);
    const WRITES_FLOOR: f64 = 200.0;
    let cpu = |c: Option<f64>| c.map_or("—".to_string(), |us| format!("{us:.0} µs"));
    println!();
    println!("one shop, {n} reviews, {rounds} sequential reads each through the server");
    println!("| {:<40} | {:>10} | {:>10} | {:>12} | {:>14} |", "read", "p50", "p99", "server CPU", "goal (p99)");
    println!("|{:-<42}|{:-<12}|{:-<12}|{:-<14}|{:-<16}|", "", "", "", "", "");
    for (name, (p50, p99, c), goal) in [
        ("plain shop page data (cached)", plain, "—".to_string()),
        ("reviews, first page (10)", first, format!("≤ {}", ms(PAGE_CEILING))),
        ("reviews, page 200 by keyset", deep, format!("≤ {}", ms(PAGE_CEILING))),
    ] {
        println!("| {name:<40} | {:>10} | {:>10} | {:>12} | {:>14} |", ms(p50), ms(p99), cpu(c), goal);
    }
    println!(
        "| {:<40} | {:>10} | {:>10} | {:>12} | {:>14} |",
        "page 200 ÷ first page (p50)",
        format!("{:.2}", deep.0.as_secs_f64() / first.0.as_secs_f64()),
        "",
        "",
        "≤ 1.5"
    );
    println!(
        "| {:<40} | {:>10} | {:>10} | {:>12} | {:>14} |",
        "reviews written per second (16 writers)",
        format!("{per_sec:.0}/s"),
        "",
        "",
        format!("≥ {WRITES_FLOOR:.0}/s")
    );
    println!(
        "figures after the writes: {count} reviews (want {n}), star sum {sum} (want {want_sum}) — {}",
        if i64::from(count) == n as i64 && sum == want_sum { "exact" } else { "WRONG" }
    );
    Ok(())
}
