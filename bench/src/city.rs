//! The big city's benchmark (prints a table; not a test): how much a page's cost grows when the city grows
//! from the demo's 2,400 shops to a million (`server city`). `bench-city measure <label>` reads each page
//! through the running server — p50, p99 and the server's CPU per request from `/proc` — and keeps the
//! figures in `$BENCH_STATE_DIR/city-<label>.json`; `bench-city compare <small> <big>` prints each figure
//! of the big city beside the small one's and their ratio, against the goal of 2; `bench-city share
//! <alone> <with>` prints the primary Postgres' CPU per request in a run without a read replica beside the
//! primary's and the replica's in a run with one (the backends' CPU from `/proc`, by the database their
//! process title names).
//!
//! `BENCH_ROUNDS` (100), `BENCH_URL` (http://127.0.0.1:3100), `BENCH_SERVER_PID`, `BENCH_STATE_DIR`;
//! `DATABASE_URL`, `DATABASE_READ_URL` etc. as the server uses them (the bench logs the merchant and the
//! heaviest buyer in through the session store).

use std::time::Duration;

use app::platform::config::Config;
use app::web::state::AppState;
use bench::env_num;
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::{Deserialize, Serialize};

/// The ratio every figure must stay within.
const GOAL: f64 = 2.0;
/// The demo merchant's showcase shop: the city gives it a million orders and a hundred thousand reviews.
const HEAVY_SHOP: i64 = 1;
/// The demo merchant, who owns the heavy shop.
const MERCHANT_PHONE: &str = "13800000001";
/// The densest business area (湖滨, the first: a sixth of the city's shops are in it).
const DENSE: (&str, f64, f64) = app::geo::model::AREAS[0];

/// One figure of one city.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Figure {
    name: String,
    p50_us: f64,
    p99_us: f64,
    /// Server CPU per request, µs (none when the server's pid was not given).
    cpu_us: Option<f64>,
    /// The smallest CPU figure the clock's ticks can tell apart from zero over the run, µs.
    cpu_step_us: f64,
    /// The primary Postgres' CPU per request serving the city's database, µs (none when it could not be
    /// read: another machine's Postgres).
    #[serde(default)]
    primary_cpu_us: Option<f64>,
    /// The same of the read replica (`DATABASE_READ_URL`), when the server had one.
    #[serde(default)]
    replica_cpu_us: Option<f64>,
}

/// Everything one `measure` run keeps.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Run {
    label: String,
    shops: i64,
    reviews: i64,
    orders: i64,
    people: i64,
    /// Orders in the CSV export.
    exported: i64,
    figures: Vec<Figure>,
    /// The server's resident memory before the exports and at its highest during them, kB.
    rss_before_kb: u64,
    rss_peak_kb: u64,
}

fn state_path(label: &str) -> String {
    let dir = std::env::var("BENCH_STATE_DIR").unwrap_or_else(|_| ".".into());
    format!("{dir}/city-{label}.json")
}

/// What a timed request is.
enum Ask<'a> {
    /// A page's HTML, as the person with this session (or nobody) sees it.
    Page(&'a str, &'a str),
    /// A GET server function's JSON.
    Json(&'a str),
    /// A POST server function's JSON, as the person with this session.
    Post(&'a str, &'a str),
}

/// Sends `ask` once; answers the body's length.
async fn send(client: &bench::HttpClient, base: &str, ask: &Ask<'_>) -> Result<usize, String> {
    Ok(match ask {
        Ask::Page(path, cookie) => bench::page(client, base, path, cookie).await?.len(),
        Ask::Json(path) => bench::api_get(client, base, path).await?.len(),
        Ask::Post(path, cookie) => bench::api_post(client, base, path, cookie).await?.len(),
    })
}

/// The Postgres servers a run reads the CPU of: each one's postmaster and the city's database there.
#[derive(Debug, Clone, Default)]
struct Databases {
    primary: Option<(u32, String)>,
    replica: Option<(u32, String)>,
}

impl Databases {
    /// The primary's and the replica's backends' CPU ticks now.
    fn ticks(&self) -> [Option<u64>; 2] {
        [&self.primary, &self.replica].map(|db| {
            db.as_ref().and_then(|(postmaster, name)| bench::probe::backends_cpu_ticks(*postmaster, name).ok())
        })
    }
}

/// p50/p99 of `rounds` sequential runs of `f` and the server's and the databases' CPU per run, as the
/// figure `name`.
async fn timed<F, Fut, T>(
    name: &str,
    rounds: usize,
    server: Option<(u32, f64)>,
    databases: &Databases,
    mut f: F,
) -> Result<Figure, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    // Warm, so the databases' figures (read around `timed_runs`, which sends one more to warm up) are
    // warm requests' too.
    f().await.map_err(|e| format!("{name}: {e}"))?;
    let before = databases.ticks();
    let (p50, p99, cpu_us) = bench::timed_runs(rounds, server, f).await.map_err(|e| format!("{name}: {e}"))?;
    let (after, per_tick) = (databases.ticks(), bench::probe::micros_per_tick());
    let per_request =
        |b: Option<u64>, a: Option<u64>| Some(a?.saturating_sub(b?) as f64 * per_tick / (rounds + 1) as f64);
    let (primary_cpu_us, replica_cpu_us) = (per_request(before[0], after[0]), per_request(before[1], after[1]));
    let cpu_step_us = server.map_or(0.0, |(_, per_tick)| per_tick / rounds as f64);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let figure = Figure {
        name: name.into(),
        p50_us: us(p50),
        p99_us: us(p99),
        cpu_us,
        cpu_step_us,
        primary_cpu_us,
        replica_cpu_us,
    };
    eprintln!("{name}: p50 {:.2} ms, p99 {:.2} ms", figure.p50_us / 1e3, figure.p99_us / 1e3);
    Ok(figure)
}

/// Streams `path` (the CSV export) as `cookie`, counting its lines, while the server's resident memory is
/// sampled every 10 ms; answers (lines, highest RSS in kB).
async fn export(
    client: &bench::HttpClient,
    base: &str,
    path: &str,
    cookie: &str,
    pid: Option<u32>,
) -> Result<(usize, u64), String> {
    let req = hyper::Request::get(format!("{base}{path}"))
        .header("cookie", format!("haodian.sid={cookie}"))
        .body(http_body_util::Full::new(hyper::body::Bytes::new()))
        .map_err(|e| e.to_string())?;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = tokio::spawn({
        let done = done.clone();
        async move {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Some(kb) = pid.and_then(|p| bench::probe::status_kb(p, "VmRSS").ok()) {
                    peak = peak.max(kb);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            peak
        }
    });
    let resp = client.request(req).await.map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("{path}: {}", resp.status()));
    }
    let mut body = resp.into_body();
    let mut lines = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| e.to_string())?;
        if let Some(data) = frame.data_ref() {
            lines += data.iter().filter(|b| **b == b'\n').count();
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.await.map_err(|e| e.to_string())?;
    Ok((lines, peak))
}

async fn user_id(state: &AppState, phone: &str) -> Result<i64, String> {
    sqlx::query_scalar("SELECT id FROM users WHERE phone = $1")
        .bind(phone)
        .fetch_one(&state.db)
        .await
        .map_err(|e| format!("no demo account {phone}: {e}"))
}

/// A figure of the heavy shop: `sql` with the shop as `$1`.
async fn of_shop(state: &AppState, sql: &str) -> Result<i64, String> {
    sqlx::query_scalar(sql).bind(HEAVY_SHOP).fetch_one(&state.db).await.map_err(|e| format!("{sql}: {e}"))
}

/// How many rows `table` has.
async fn rows(state: &AppState, table: &str) -> Result<i64, String> {
    let sql = format!("SELECT count(*) FROM {table}");
    sqlx::query_scalar(&sql).fetch_one(&state.db).await.map_err(|e| format!("{sql}: {e}"))
}

async fn measure(label: &str) -> Result<(), String> {
    let rounds = env_num("BENCH_ROUNDS", 100)?;
    let base = std::env::var("BENCH_URL").unwrap_or_else(|_| "http://127.0.0.1:3100".into());
    let pid: Option<u32> = std::env::var("BENCH_SERVER_PID").ok().and_then(|p| p.parse().ok());
    let server = pid.map(|pid| (pid, bench::probe::micros_per_tick()));
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let read_url = config.database_read_url.clone();
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    let client: bench::HttpClient = Client::builder(TokioExecutor::new()).build_http();
    // The databases' CPU is read from /proc, so only a Postgres on this machine is measured.
    let replica = match &read_url {
        Some(url) => {
            let pool = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(url).await;
            let pool = pool.map_err(|e| format!("the read replica {url}: {e}"))?;
            bench::probe::postmaster_of(&pool).await.ok()
        }
        None => None,
    };
    let databases = Databases { primary: bench::probe::postmaster_of(&state.db).await.ok(), replica };

    let (shops, reviews, orders, people) = (
        rows(&state, "shops").await?,
        rows(&state, "reviews").await?,
        rows(&state, "orders").await?,
        rows(&state, "users").await?,
    );
    let merchant = bench::session_for(&state, user_id(&state, MERCHANT_PHONE).await?).await?;
    // Whoever bought the most: the demo shopper 13800000002 in the big city, one of the reviewers in the demo.
    let heaviest: i64 =
        sqlx::query_scalar("SELECT user_id FROM orders GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 1")
            .fetch_one(&state.db)
            .await
            .map_err(|e| format!("the heaviest buyer: {e}"))?;
    let buyer = bench::session_for(&state, heaviest).await?;
    // Half-way down the heavy shop's reviews and orders: the deep pages, by keyset.
    let shop_reviews =
        of_shop(&state, "SELECT count(*) FROM reviews WHERE shop_id = $1 AND status = 'visible'").await?;
    let (helpful, review): (i32, i64) = sqlx::query_as(
        "SELECT helpful, id FROM reviews WHERE shop_id = $1 AND status = 'visible' ORDER BY id DESC OFFSET $2 LIMIT 1",
    )
    .bind(HEAVY_SHOP)
    .bind(shop_reviews / 2)
    .fetch_one(&state.db)
    .await
    .map_err(|e| format!("the deep review: {e}"))?;
    let shop_orders = of_shop(&state, "SELECT count(*) FROM orders WHERE shop_id = $1").await?;
    let half_order: i64 =
        sqlx::query_scalar("SELECT id FROM orders WHERE shop_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1")
            .bind(HEAVY_SHOP)
            .bind(shop_orders / 2)
            .fetch_one(&state.db)
            .await
            .map_err(|e| format!("the deep order: {e}"))?;
    let reviews_path =
        |after: &str| format!("/api/reviews/list?shop_id={HEAVY_SHOP}&sort=newest&photos=false&after={after}");
    let deep_cursor = format!("{helpful}.{review}");
    let orders_path = format!("/merchant/shops/{HEAVY_SHOP}/orders");
    let deep_orders_path = format!("{orders_path}?before={half_order}");
    let nearby = format!("/api/geo/nearby?type_id=1&lon={}&lat={}&radius_km=5&page=1", DENSE.1, DENSE.2);
    let shop_page = format!("/shops/{HEAVY_SHOP}");
    let (first_reviews, deep_reviews) = (reviews_path(""), reviews_path(&deep_cursor));
    let asks: Vec<(&str, Ask)> = vec![
        ("the home page", Ask::Page("/", "")),
        ("category by rating, page 1", Ask::Page("/types/1?sort=score", "")),
        ("category by rating, page 50", Ask::Page("/types/1?sort=score&page=50", "")),
        ("search, a common word (火锅)", Ask::Page("/search?q=%E7%81%AB%E9%94%85", "")),
        ("search, a rare word (鹿鸣)", Ask::Page("/search?q=%E9%B9%BF%E9%B8%A3", "")),
        ("nearby, 5 km in the densest area", Ask::Json(&nearby)),
        ("the busiest shop's page", Ask::Page(&shop_page, "")),
        ("its reviews, first page", Ask::Json(&first_reviews)),
        ("its reviews, half-way down (keyset)", Ask::Json(&deep_reviews)),
        ("its orders (merchant), first page", Ask::Page(&orders_path, &merchant)),
        ("its orders (merchant), half-way down", Ask::Page(&deep_orders_path, &merchant)),
        ("My orders of the heaviest buyer", Ask::Post("/api/orders/mine", &buyer)),
        ("the hotpot ranking, city-wide", Ask::Json("/api/reviews/ranking?type_id=1")),
        ("the hotpot ranking in the densest area", Ask::Json("/api/reviews/ranking?type_id=1&area=%E6%B9%96%E6%BB%A8")),
    ];
    let mut figures = Vec::new();
    for (name, ask) in &asks {
        figures.push(timed(name, rounds, server, &databases, || send(&client, &base, ask)).await?);
    }
    // The export streams; the server's memory must not hold the million rows.
    let rss_before_kb = pid.and_then(|p| bench::probe::status_kb(p, "VmRSS").ok()).unwrap_or(0);
    let csv = format!("/merchant/shops/{HEAVY_SHOP}/orders.csv");
    let (peak, lines) = (std::cell::Cell::new(0_u64), std::cell::Cell::new(0_usize));
    let (peak_at, lines_at, client_at, base_at, csv_at, merchant_at) = (&peak, &lines, &client, &base, &csv, &merchant);
    let mut whole = timed("CSV export", 3, server, &databases, || async move {
        let (n, kb) = export(client_at, base_at, csv_at, merchant_at, pid).await?;
        peak_at.set(peak_at.get().max(kb));
        lines_at.set(n);
        Ok(n)
    })
    .await?;
    // The header is the first line. Exporting more orders takes longer: what must not grow is the cost of
    // each thousand, and the memory.
    let (rss_peak_kb, exported) = (peak.get(), lines.get() as i64 - 1);
    let per = 1000.0 / exported.max(1) as f64;
    whole.name = "CSV export of its orders, per 1,000".into();
    (whole.p50_us, whole.p99_us, whole.cpu_step_us) = (whole.p50_us * per, whole.p99_us * per, whole.cpu_step_us * per);
    for cpu in [&mut whole.cpu_us, &mut whole.primary_cpu_us, &mut whole.replica_cpu_us] {
        *cpu = cpu.map(|c| c * per);
    }
    figures.push(whole);
    let run =
        Run { label: label.into(), shops, reviews, orders, people, exported, figures, rss_before_kb, rss_peak_kb };
    let json = serde_json::to_string_pretty(&run).map_err(|e| e.to_string())?;
    std::fs::write(state_path(label), json).map_err(|e| format!("{}: {e}", state_path(label)))?;
    Ok(())
}

fn ms(us: f64) -> String {
    if us >= 100_000.0 { format!("{:.2} s", us / 1e6) } else { format!("{:.2} ms", us / 1e3) }
}

/// The figures `measure <label>` kept.
fn read_run(label: &str) -> Result<Run, String> {
    let text = std::fs::read_to_string(state_path(label)).map_err(|e| format!("{}: {e}", state_path(label)))?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

fn compare(small: &str, big: &str) -> Result<(), String> {
    let (a, b) = (read_run(small)?, read_run(big)?);
    println!();
    println!(
        "{} ({} shops, {} reviews, {} orders, {} people) against {} ({} shops, {} reviews, {} orders, {} people)",
        b.label, b.shops, b.reviews, b.orders, b.people, a.label, a.shops, a.reviews, a.orders, a.people
    );
    println!(
        "| {:<40} | {:>10} | {:>10} | {:>10} | {:>10} | {:>9} | {:>9} | {:>9} | {:<9} |",
        "figure", "small p50", "big p50", "big p99", "big CPU", "p50 ×", "p99 ×", "CPU ×", "≤ 2"
    );
    println!(
        "|{:-<42}|{:-<12}|{:-<12}|{:-<12}|{:-<12}|{:-<11}|{:-<11}|{:-<11}|{:-<11}|",
        "", "", "", "", "", "", "", "", ""
    );
    let mut over = 0;
    for f in &b.figures {
        let Some(s) = a.figures.iter().find(|s| s.name == f.name) else { continue };
        let p50 = f.p50_us / s.p50_us;
        let p99 = f.p99_us / s.p99_us;
        // A figure below the ticks' resolution counts as that resolution: a ratio to nothing says nothing.
        let cpu = f.cpu_us.zip(s.cpu_us).map(|(x, y)| x.max(f.cpu_step_us) / y.max(s.cpu_step_us));
        let met = p50 <= GOAL && cpu.is_none_or(|c| c <= GOAL);
        over += usize::from(!met);
        println!(
            "| {:<40} | {:>10} | {:>10} | {:>10} | {:>10} | {:>9.2} | {:>9.2} | {:>9} | {:<9} |",
            f.name,
            ms(s.p50_us),
            ms(f.p50_us),
            ms(f.p99_us),
            f.cpu_us.map_or("—".into(), |c| format!("{c:.0} µs")),
            p50,
            p99,
            cpu.map_or("—".into(), |c| format!("{c:.2}")),
            if met { "met" } else { "NOT MET" }
        );
    }
    // The export streams: the server's memory while it sends a million orders stays what it is for a few.
    let memory = b.rss_peak_kb as f64 / a.rss_peak_kb.max(1) as f64;
    over += usize::from(memory > GOAL);
    println!(
        "CSV export of {} orders (the {} city: {}): the server's resident memory {} MB before, at most {} MB during \
         ({} MB on the {} city): × {memory:.2} — {}",
        b.exported,
        a.label,
        a.exported,
        b.rss_before_kb / 1024,
        b.rss_peak_kb / 1024,
        a.rss_peak_kb / 1024,
        a.label,
        if memory <= GOAL { "met" } else { "NOT MET" }
    );
    println!(
        "{}",
        if over == 0 {
            "every ratio within its goal (p50, server CPU and the export's memory ≤ 2)".to_string()
        } else {
            format!("{over} FIGURE(S) GREW MORE THAN 2×")
        }
    );
    Ok(())
}

/// Each figure's database CPU on the primary alone (`alone`, a run without `DATABASE_READ_URL`) beside the
/// primary's and the replica's in a run with one (`with`), and the primary's share of the two.
fn share(alone: &str, with: &str) -> Result<(), String> {
    let (a, b) = (read_run(alone)?, read_run(with)?);
    println!();
    println!(
        "The databases' CPU per request ({} shops): the primary alone ({alone}), then beside a read replica ({with})",
        b.shops
    );
    println!(
        "| {:<40} | {:>13} | {:>13} | {:>13} | {:>15} |",
        "figure", "primary alone", "primary", "replica", "primary's share"
    );
    println!("|{:-<42}|{:-<15}|{:-<15}|{:-<15}|{:-<17}|", "", "", "", "", "");
    // Nothing counted is less than one clock tick over the run, not nothing (the run's ticks, per request,
    // are about the server's `cpu_step_us`).
    let us = |c: Option<f64>, step: f64| match c {
        None => "—".into(),
        Some(c) if c == 0.0 && step > 0.0 => format!("< {step:.0} µs"),
        Some(c) => format!("{c:.0} µs"),
    };
    let (mut total_alone, mut total_primary, mut total_replica) = (0.0, 0.0, 0.0);
    for f in &b.figures {
        let Some(s) = a.figures.iter().find(|s| s.name == f.name) else { continue };
        // No share of nothing measured.
        let share = f.primary_cpu_us.zip(f.replica_cpu_us).filter(|(p, r)| p + r > 0.0).map(|(p, r)| p / (p + r));
        total_alone += s.primary_cpu_us.unwrap_or(0.0);
        total_primary += f.primary_cpu_us.unwrap_or(0.0);
        total_replica += f.replica_cpu_us.unwrap_or(0.0);
        println!(
            "| {:<40} | {:>13} | {:>13} | {:>13} | {:>15} |",
            f.name,
            us(s.primary_cpu_us, s.cpu_step_us),
            us(f.primary_cpu_us, f.cpu_step_us),
            us(f.replica_cpu_us, f.cpu_step_us),
            share.map_or("—".into(), |s| format!("{:.0} %", s * 100.0))
        );
    }
    println!(
        "the pages together: the primary {:.1} ms alone, {:.1} ms beside the replica ({:.0} % of the databases' {:.1} ms)",
        total_alone / 1e3,
        total_primary / 1e3,
        100.0 * total_primary / (total_primary + total_replica).max(f64::MIN_POSITIVE),
        (total_primary + total_replica) / 1e3
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["measure", label] => measure(label).await,
        ["compare", small, big] => compare(small, big),
        ["share", alone, with] => share(alone, with),
        _ => Err("usage: bench-city measure <label> | compare <small> <big> | share <alone> <with-replica>".into()),
    }
}
