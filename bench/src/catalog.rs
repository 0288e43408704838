//! Catalog benchmark against a running server (prints figures; not a test):
//! (a) throughput of the cached shop read (an L1 hit) vs (b) a trivial route of the same server at the
//! same concurrency, and their ratio; (c) Postgres loads when 1,000 readers hit a logically-expired key.
//!
//! (a), (a') and (b) are measured in `BENCH_ROUNDS` interleaved rounds and each ratio is the median of its
//! rounds: on two shared cores a single back-to-back run moved a ratio by ±0.2 (whatever ran first took the
//! start-up work's noise).
//!
//! `BENCH_URL` (default http://127.0.0.1:3000), `BENCH_ADMIN_URL` (http://127.0.0.1:3101, for `/metrics`),
//! `BENCH_CONCURRENCY` (64), `BENCH_SECONDS` (3 per measurement), `BENCH_ROUNDS` (5),
//! `REDIS_URL` / `REDIS_KEY_PREFIX` as the server uses them, `BENCH_SERVER_PID` (the server's CPU per
//! request: the client shares the cores, so this is what says where a ratio's gap is). `BENCH_PATH=/livez`
//! measures that one path alone for `BENCH_SECONDS`, to profile the server under it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use app::platform::cache::L2Entry;
use app::platform::keys::Keys;
use bench::env;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

type HttpClient = Client<HttpConnector, Empty<Bytes>>;

async fn get(client: &HttpClient, url: &str) -> Result<(u16, Bytes), String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let resp = client.get(uri).await.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, body))
}

/// One route's measurement: requests per second, errors, and the server's CPU per request.
struct Measured {
    /// Successful requests per second.
    rps: f64,
    /// Requests that failed or answered other than 200.
    errors: u64,
    /// Server CPU (user + system) per successful request, when `BENCH_SERVER_PID` names the server.
    cpu_us: Option<f64>,
}

/// [`throughput`], with the server's CPU time read from `/proc` around it.
async fn measure(
    client: &HttpClient,
    url: &str,
    concurrency: usize,
    seconds: u64,
    server: Option<(u32, f64)>,
) -> Measured {
    let before = server.and_then(|(pid, _)| bench::probe::cpu_ticks(pid).ok());
    let started = Instant::now();
    let (rps, errors) = throughput(client, url, concurrency, seconds).await;
    let served = rps * started.elapsed().as_secs_f64();
    let after = server.and_then(|(pid, _)| bench::probe::cpu_ticks(pid).ok());
    let cpu_us = match (before, after, server) {
        (Some(b), Some(a), Some((_, per_tick))) if served > 0.0 => Some((a - b) as f64 * per_tick / served),
        _ => None,
    };
    Measured { rps, errors, cpu_us }
}

/// Requests per second of `url` with `concurrency` workers for `seconds`; errors are counted apart.
async fn throughput(client: &HttpClient, url: &str, concurrency: usize, seconds: u64) -> (f64, u64) {
    let ok = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, url, ok, failed) = (client.clone(), url.to_string(), ok.clone(), failed.clone());
            tokio::spawn(async move {
                while Instant::now() < deadline {
                    match get(&client, &url).await {
                        Ok((200, _)) => ok.fetch_add(1, Ordering::Relaxed),
                        _ => failed.fetch_add(1, Ordering::Relaxed),
                    };
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.await;
    }
    (ok.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64(), failed.load(Ordering::Relaxed))
}

/// The shop cache's Postgres loads so far, from `/metrics` on the operators' port (`BENCH_ADMIN_URL`).
async fn db_loads(client: &HttpClient, admin: &str) -> Result<u64, String> {
    let (_, body) = get(client, &format!("{admin}/metrics")).await?;
    let text = String::from_utf8_lossy(&body);
    text.lines()
        .find(|l| l.starts_with("haodian_cache_events_total{cache=\"shop\",event=\"db_loads\"}"))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
        .ok_or_else(|| "no db_loads counter in /metrics".to_string())
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let base = env("BENCH_URL", "http://127.0.0.1:3000");
    let concurrency: usize = env("BENCH_CONCURRENCY", "64").parse().map_err(|e| format!("BENCH_CONCURRENCY: {e}"))?;
    let seconds: u64 = env("BENCH_SECONDS", "3").parse().map_err(|e| format!("BENCH_SECONDS: {e}"))?;
    let rounds: usize = env("BENCH_ROUNDS", "5").parse().map_err(|e| format!("BENCH_ROUNDS: {e}"))?;
    let client: HttpClient = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(concurrency).build_http();
    let server: Option<(u32, f64)> = std::env::var("BENCH_SERVER_PID")
        .ok()
        .and_then(|p| p.parse().ok())
        .map(|pid| (pid, bench::probe::micros_per_tick()));

    // One path alone, for a profiler attached to the server (`perf record -p`), then nothing else.
    if let Ok(path) = std::env::var("BENCH_PATH") {
        let m = measure(&client, &format!("{base}{path}"), concurrency, seconds, server).await;
        let cpu = m.cpu_us.map_or(String::new(), |us| format!(", server CPU {us:.1} µs per request"));
        println!("{path}: {:.0} req/s, {} errors{cpu}", m.rps, m.errors);
        return Ok(());
    }
    let shop_url = format!("{base}/api/catalog/shop-cached?id=1");
    let (status, _) = get(&client, &shop_url).await?;
    if status != 200 {
        return Err(format!("{shop_url} answered {status}: is the server running with demo data?"));
    }
    // Warm both paths, then measure them back to back at the same concurrency.
    throughput(&client, &shop_url, concurrency, 1).await;
    throughput(&client, &format!("{base}/livez"), concurrency, 1).await;
    let rest_url = format!("{base}/api/v1/shops/1");
    throughput(&client, &rest_url, concurrency, 1).await;
    let livez = format!("{base}/livez");
    println!("concurrency {concurrency}, {seconds} s per measurement, {rounds} rounds (req/s; errors apart)");
    println!("round  (a) JSON route  (a') server fn  (b) /livez   a/b   a'/b");
    let (mut ratio_rest, mut ratio_fn, mut errors) = (Vec::new(), Vec::new(), 0);
    let mut cpu: [Vec<f64>; 3] = Default::default();
    for round in 1..=rounds {
        let rest = measure(&client, &rest_url, concurrency, seconds, server).await;
        let cached = measure(&client, &shop_url, concurrency, seconds, server).await;
        let trivial = measure(&client, &livez, concurrency, seconds, server).await;
        errors += rest.errors + cached.errors + trivial.errors;
        println!(
            "{round:>5}  {:>13.0}  {:>14.0}  {:>11.0}  {:>4.2}  {:>5.2}",
            rest.rps,
            cached.rps,
            trivial.rps,
            rest.rps / trivial.rps,
            cached.rps / trivial.rps
        );
        ratio_rest.push(rest.rps / trivial.rps);
        ratio_fn.push(cached.rps / trivial.rps);
        for (i, m) in [&rest, &cached, &trivial].into_iter().enumerate() {
            cpu[i].extend(m.cpu_us);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "(a)  cached shop read, JSON route /api/v1/shops/1 ÷ /livez   median {:.2}  (target >= 0.80)",
        median(&mut ratio_rest)
    );
    println!(
        "(a') cached shop read, server fn (GET) ÷ /livez           median {:.2}  (target >= 0.80)",
        median(&mut ratio_fn)
    );
    if server.is_some() {
        let [rest, cached, trivial] = cpu.each_mut().map(median);
        println!(
            "     server CPU per request (median): JSON route {rest:.1} µs, server fn {cached:.1} µs, /livez {trivial:.1} µs"
        );
    }
    println!("     errors {errors}");

    // (c) Make one shop's L2 entry logically expired (and absent from L1: an id not read before), then
    // fire 1,000 concurrent readers and count Postgres loads through the server's own counter.
    let redis = redis::Client::open(env("REDIS_URL", "redis://127.0.0.1:6379/0")).map_err(|e| e.to_string())?;
    let mut con = redis.get_multiplexed_async_connection().await.map_err(|e| e.to_string())?;
    let keys = Keys::new(env("REDIS_KEY_PREFIX", ""));
    let id = 1_000 + (std::process::id() as i64 % 1_000);
    let url = format!("{base}/api/catalog/shop-cached?id={id}");
    let (_, body) = get(&client, &shop_url).await?;
    let donor: app::catalog::model::Shop = serde_json::from_slice(&body).map_err(|e| format!("shop json: {e}"))?;
    let stale = app::catalog::model::Shop { id, name: format!("{} (stale)", donor.name), ..donor };
    let entry = serde_json::to_string(&L2Entry { data: Some(stale), expires_at: 0 }).map_err(|e| e.to_string())?;
    let _: () =
        redis::cmd("SET").arg(keys.shop(id)).arg(entry).query_async(&mut con).await.map_err(|e| e.to_string())?;
    let admin = env("BENCH_ADMIN_URL", "http://127.0.0.1:3101");
    let before = db_loads(&client, &admin).await?;
    let started = Instant::now();
    let readers: Vec<_> = (0..1_000)
        .map(|_| {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move { get(&client, &url).await.map(|(s, _)| s == 200).unwrap_or(false) })
        })
        .collect();
    let mut served = 0;
    for r in readers {
        served += usize::from(r.await.unwrap_or(false));
    }
    let elapsed = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await; // let the background rebuild finish
    let after = db_loads(&client, &admin).await?;
    println!(
        "(c) 1,000 readers of expired shop {id}: {served} served in {:.0} ms, Postgres loads = {} (target exactly 1)",
        elapsed.as_secs_f64() * 1000.0,
        after - before
    );
    Ok(())
}
