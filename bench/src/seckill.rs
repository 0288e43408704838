//! Flash-sale benchmark against a running server (prints figures; not a test).
//!
//! N distinct logged-in users each POST `grab_coupon` once over HTTP, C at a time, on one sale. Prints
//! throughput, p50/p99 latency and counts per outcome, then checks the invariants once the order writer has
//! drained (no oversell, one per user, every acknowledged order persisted) and the drain time. In the same
//! run it measures (a) `redis-benchmark` EVALSHA of the same `lua/seckill.lua` at the same concurrency —
//! the ceiling — and (b) a DB-only baseline (optimistic `UPDATE … WHERE stock > 0` + insert in one
//! transaction, C tasks over a pool) — the naive peer — and prints the ratios; and (c) the acks=all
//! produce alone at the same concurrency, which shows how much of a grab's time is the broker's.
//!
//! `BENCH_URL` (http://127.0.0.1:3000), `BENCH_USERS` (10000), `BENCH_CONCURRENCY` (1000),
//! `BENCH_STOCK` (= users); `DATABASE_URL`, `REDIS_URL`, `REDIS_KEY_PREFIX`, `KAFKA_TOPIC_PREFIX` as the
//! server uses them.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::config::Config;
use app::kafka::OrderCreated;
use app::kafka::{self, Delivery};
use app::state::AppState;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::sync::Mutex;

use bench::{HttpClient, grab, new_sale, outcome, users};

fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn env_num(name: &str, default: usize) -> Result<usize, String> {
    env(name, &default.to_string()).parse().map_err(|e| format!("{name}: {e}"))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// (a) The ceiling: `redis-benchmark` running the same script via EVALSHA on its own sale keys.
fn evalsha_ceiling(state: &AppState, sha: &str, requests: usize, concurrency: usize) -> Result<f64, String> {
    let url = &state.config.redis_url;
    let (host, port) = url
        .trim_start_matches("redis://")
        .split('/')
        .next()
        .and_then(|hp| hp.rsplit_once(':'))
        .map(|(h, p)| (h.to_string(), p.to_string()))
        .unwrap_or(("127.0.0.1".into(), "6379".into()));
    let k = |s: &str| format!("{}bench:{{evalsha}}:{s}", state.config.redis_key_prefix);
    let out = std::process::Command::new("redis-benchmark")
        .args(["-h", &host, "-p", &port, "-q", "-n", &requests.to_string(), "-c", &concurrency.to_string()])
        .args(["-r", "100000000", "EVALSHA", sha, "3", &k("stock"), &k("buyers"), &k("window"), "__rand_int__"])
        .output()
        .map_err(|e| format!("redis-benchmark: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // `-q` prints "...: 12345.67 requests per second, p50=..." (the last of possibly several \r-updates).
    text.rsplit('\r')
        .chain(text.lines())
        .find_map(|l| l.split(": ").nth(1)?.split(' ').next()?.parse::<f64>().ok())
        .ok_or_else(|| format!("cannot read redis-benchmark output: {text}"))
}

/// (b) The naive peer: each buyer one transaction of a guarded UPDATE and an INSERT, `concurrency` at a
/// time over a pool as large as the server's.
async fn db_only(
    state: &AppState,
    users: &[(i64, String)],
    voucher_id: i64,
    concurrency: usize,
) -> Result<(f64, usize), String> {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(state.config.database_max_connections)
        .connect(&state.config.database_url)
        .await
        .map_err(|e| e.to_string())?;
    let queue = Arc::new(Mutex::new(users.iter().map(|(id, _)| *id).collect::<Vec<_>>()));
    let ids = state.ids.clone();
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (pool, queue, ids) = (pool.clone(), queue.clone(), ids.clone());
            tokio::spawn(async move {
                let mut sold = 0usize;
                loop {
                    let Some(user) = queue.lock().await.pop() else { return sold };
                    let (Ok(order_id), Ok(mut tx)) = (ids.next_id(), pool.begin().await) else { continue };
                    let took = sqlx::query("UPDATE vouchers SET stock = stock - 1 WHERE id = $1 AND stock > 0")
                        .bind(voucher_id)
                        .execute(&mut *tx)
                        .await
                        .map(|r| r.rows_affected() == 1)
                        .unwrap_or(false);
                    if took
                        && sqlx::query(
                            "INSERT INTO orders (id, user_id, voucher_id, kind, status, amount_cents) VALUES ($1, $2, $3, 'flash', 'unpaid', 990)",
                        )
                        .bind(order_id)
                        .bind(user)
                        .bind(voucher_id)
                        .execute(&mut *tx)
                        .await
                        .is_ok()
                        && tx.commit().await.is_ok()
                    {
                        sold += 1;
                    }
                }
            })
        })
        .collect();
    let mut sold = 0;
    for w in workers {
        sold += w.await.unwrap_or(0);
    }
    Ok((users.len() as f64 / started.elapsed().as_secs_f64(), sold))
}

/// (c) The broker alone: `n` order-sized messages through the server's kind of producer (idempotent,
/// acks=all, same linger and timeout), `concurrency` awaiting their delivery report at a time, to a topic
/// of its own. Returns (messages/s, p50, p99, not persisted).
async fn produce_only(
    state: &AppState,
    n: usize,
    concurrency: usize,
) -> Result<(f64, Duration, Duration, usize), String> {
    let topic = kafka::topic(&state.config, "bench.produce");
    kafka::create_topics(&state.config, std::slice::from_ref(&topic)).await.map_err(|e| e.to_string())?;
    let publisher = kafka::Publisher::new(&state.config).map_err(|e| e.to_string())?;
    // Metadata and producer id first, so the figure is the steady state, not the connection set-up.
    if let Delivery::NotPersisted(e) | Delivery::Unknown(e) = publisher.send(&topic, "warm-up", b"{}").await {
        return Err(format!("produce warm-up: {e}"));
    }
    let queue = Arc::new(Mutex::new((0..n).collect::<Vec<_>>()));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (publisher, queue, topic, ids) = (publisher.clone(), queue.clone(), topic.clone(), state.ids.clone());
            tokio::spawn(async move {
                let mut results = Vec::new();
                loop {
                    let Some(i) = queue.lock().await.pop() else { return results };
                    let Ok(order_id) = ids.next_id() else { continue };
                    let order = OrderCreated { order_id, user_id: i as i64, voucher_id: 1, ts: app::clock::now_ms() };
                    let payload = serde_json::to_vec(&order).unwrap_or_default();
                    let sent = Instant::now();
                    let ok = matches!(
                        publisher.send(&topic, &order.order_id.to_string(), &payload).await,
                        Delivery::Persisted
                    );
                    results.push((sent.elapsed(), ok));
                }
            })
        })
        .collect();
    let (mut latencies, mut failed) = (Vec::with_capacity(n), 0);
    for w in workers {
        for (latency, ok) in w.await.map_err(|e| e.to_string())? {
            latencies.push(latency);
            failed += usize::from(!ok);
        }
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    Ok((rate, percentile(&latencies, 0.50), percentile(&latencies, 0.99), failed))
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let base = env("BENCH_URL", "http://127.0.0.1:3000");
    let n = env_num("BENCH_USERS", 10_000)?;
    let concurrency = env_num("BENCH_CONCURRENCY", 1000)?;
    let stock = env_num("BENCH_STOCK", n)? as i32;
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = AppState::connect(config, options).await.map_err(|e| e.to_string())?;

    println!("setting up {n} users with sessions and a sale of {stock}…");
    let buyers = users(&state, n).await?;
    let voucher = new_sale(&state, stock, "bench flash sale").await?;
    let client: HttpClient = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(concurrency).build_http();
    let url = format!("{base}/api/seckill/grab");

    // Load: every user grabs once; `concurrency` requests in flight.
    let queue = Arc::new(Mutex::new(buyers.clone()));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, url, queue) = (client.clone(), url.clone(), queue.clone());
            tokio::spawn(async move {
                let mut results = Vec::new();
                loop {
                    let Some((user, cookie)) = queue.lock().await.pop() else { return results };
                    results.push((user, grab(&client, &url, &cookie, voucher).await));
                }
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(n);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut acked: Vec<(i64, i64)> = Vec::new();
    for w in workers {
        for (user, r) in w.await.map_err(|e| e.to_string())? {
            match r {
                Ok((status, body, latency)) => {
                    latencies.push(latency);
                    if status == 200 {
                        acked.push((user, body.trim().parse().map_err(|e| format!("order id {body:?}: {e}"))?));
                    }
                    *outcomes.entry(outcome(status, &body)).or_default() += 1;
                }
                Err(e) => *outcomes.entry(format!("transport error: {e}")).or_default() += 1,
            }
        }
    }
    let load_secs = started.elapsed().as_secs_f64();
    let load_done = Instant::now();
    latencies.sort_unstable();
    let rps = n as f64 / load_secs;
    println!("\n== grab_coupon over HTTP: {n} users, concurrency {concurrency}, stock {stock}");
    println!("throughput     {rps:>10.0} req/s  ({load_secs:.2} s)");
    println!("latency p50    {:>10.1} ms", percentile(&latencies, 0.50).as_secs_f64() * 1000.0);
    println!("latency p99    {:>10.1} ms", percentile(&latencies, 0.99).as_secs_f64() * 1000.0);
    for (k, v) in &outcomes {
        println!("outcome {k:<40} {v}");
    }

    // Drain: every acknowledged order written by the consumer.
    let drain = loop {
        let written: i64 = sqlx::query_scalar("SELECT count(*) FROM orders WHERE voucher_id = $1")
            .bind(voucher)
            .fetch_one(&state.db)
            .await
            .map_err(|e| e.to_string())?;
        if written as usize >= acked.len() {
            break load_done.elapsed();
        }
        if load_done.elapsed() > Duration::from_secs(120) {
            return Err(format!("only {written} of {} acknowledged orders written after 120 s", acked.len()));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tokio::time::sleep(Duration::from_millis(500)).await; // let any late duplicate show itself
    let (rows, distinct_users, pg_stock): (i64, i64, i32) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT user_id), (SELECT stock FROM vouchers WHERE id = $1) FROM orders WHERE voucher_id = $1",
    )
    .bind(voucher)
    .fetch_one(&state.db)
    .await
    .map_err(|e| e.to_string())?;
    let written: HashSet<i64> = sqlx::query_scalar("SELECT id FROM orders WHERE voucher_id = $1")
        .bind(voucher)
        .fetch_all(&state.db)
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .collect();
    let (redis_stock, redis_buyers) =
        app::inventory::sale_state(&state.redis, &state.keys, voucher).await.map_err(|e| e.to_string())?;
    let all_persisted = acked.iter().all(|(_, id)| written.contains(id));
    println!("\n== after the writer drained");
    println!(
        "drain time     {:>10.0} ms  ({} orders, from the last answer to the last row)",
        drain.as_secs_f64() * 1000.0,
        acked.len()
    );
    println!(
        "no oversell    {:>10}  (rows {rows} ≤ stock {stock}; Postgres stock {pg_stock}; Redis stock {redis_stock:?})",
        rows <= i64::from(stock) && pg_stock >= 0 && redis_stock.unwrap_or(0) >= 0
    );
    println!("one per user   {:>10}  ({distinct_users} distinct users in {rows} rows)", distinct_users == rows);
    println!(
        "all persisted  {:>10}  ({} acknowledged, {} written, Redis buyers {redis_buyers})",
        all_persisted,
        acked.len(),
        written.len()
    );
    println!("stores agree   {:>10}", i64::from(pg_stock) == redis_stock.unwrap_or(-1) && redis_buyers as i64 == rows);

    // (a) The ceiling: the same script via EVALSHA, same concurrency, its own keys with ample stock.
    let prefix = &state.config.redis_key_prefix;
    let k = |s: &str| format!("{prefix}bench:{{evalsha}}:{s}");
    let mut conn = state.redis.clone();
    let sha: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(include_str!("../../lua/seckill.lua"))
        .query_async(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
    let now = app::clock::now_ms();
    redis::pipe()
        .cmd("SET")
        .arg(k("stock"))
        .arg(1_000_000_000)
        .ignore()
        .cmd("DEL")
        .arg(k("buyers"))
        .ignore()
        .cmd("HSET")
        .arg(k("window"))
        .arg("begin")
        .arg(now - 1000)
        .arg("end")
        .arg(now + 3_600_000)
        .ignore()
        .query_async::<()>(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
    let evalsha_requests = (n * 10).max(100_000);
    let ceiling = evalsha_ceiling(&state, &sha, evalsha_requests, concurrency)?;
    redis::cmd("DEL")
        .arg(k("stock"))
        .arg(k("buyers"))
        .arg(k("window"))
        .query_async::<()>(&mut conn)
        .await
        .map_err(|e| e.to_string())?;

    // (b) The naive peer on a sale of its own, same users, same concurrency.
    let db_voucher = new_sale(&state, stock, "bench DB-only baseline").await?;
    let (db_rps, db_sold) = db_only(&state, &buyers, db_voucher, concurrency).await?;

    // (c) Where a grab's time goes: the acks=all produce on its own.
    let (produce_rate, produce_p50, produce_p99, produce_failed) = produce_only(&state, n, concurrency).await?;

    println!("\n== comparison at concurrency {concurrency}");
    println!("redis-benchmark EVALSHA seckill.lua  {ceiling:>10.0} req/s  (ceiling, {evalsha_requests} requests)");
    println!("DB-only UPDATE…WHERE stock>0+INSERT  {db_rps:>10.0} req/s  (naive peer, {db_sold} sold)");
    println!("grab_coupon over HTTP               {rps:>10.0} req/s");
    println!(
        "produce only (acks=all, awaited)     {produce_rate:>10.0} msg/s  (p50 {:.1} ms, p99 {:.1} ms, {produce_failed} not persisted)",
        produce_p50.as_secs_f64() * 1000.0,
        produce_p99.as_secs_f64() * 1000.0
    );
    println!("ratio to ceiling                     {:>10.2}  (target ≥ 0.5)", rps / ceiling);
    println!("ratio to DB-only                     {:>10.1}× (target ≥ 10×)", rps / db_rps);
    println!(
        "p99 latency                          {:>10.1} ms (target ≤ 25 ms at C = 1,000)",
        percentile(&latencies, 0.99).as_secs_f64() * 1000.0
    );
    println!(
        "drain of {} orders                {:>10.0} ms (target ≤ 5 s for 10,000)",
        acked.len(),
        drain.as_secs_f64() * 1000.0
    );
    Ok(())
}
