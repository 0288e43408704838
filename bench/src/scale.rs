//! Scale-out benchmark on a Redis Cluster (prints a table; not a test). One sale's keys share one hash
//! slot, so one shard serves the whole sale: this measures what one shard does with the grab script
//! (`redis-benchmark` EVALSHA on its own keys, ample stock: every call takes a coupon), what all the
//! primaries do at once, and the grabs/s the app instances serve for one sale and for 8 sales at once,
//! with each primary's share of the grab scripts (8 sales spread over the slots, one sale cannot).
//!
//! `BENCH_URLS` (comma-separated instances; http://127.0.0.1:3100), `BENCH_USERS` (12000 per round),
//! `BENCH_CONCURRENCY` (500), `BENCH_SALES` (1,8); `DATABASE_URL`, `REDIS_URL` (the cluster's seed
//! nodes), `REDIS_KEY_PREFIX`, `KAFKA_TOPIC_PREFIX` as the servers use them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::platform::config::Config;
use app::platform::redis_conn::slot;
use app::web::state::AppState;
use bench::open_loop::{ms, percentile};
use bench::probe::RedisCounters;
use bench::{HttpClient, env, env_num, evalsha_sale, grab, look_in, new_sale, outcome, script_keys, users};
use futures::StreamExt;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use redis::Value;
use tokio::sync::Mutex;

/// One primary of the cluster: its address, its slot ranges, and a hash tag that lands on it.
struct Primary {
    addr: String,
    ranges: Vec<(u16, u16)>,
    tag: String,
}

impl Primary {
    fn holds(&self, s: u16) -> bool {
        self.ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&s))
    }

    async fn conn(&self) -> Result<redis::aio::MultiplexedConnection, String> {
        let client = redis::Client::open(format!("redis://{}", self.addr)).map_err(|e| e.to_string())?;
        client.get_multiplexed_async_connection().await.map_err(|e| format!("{}: {e}", self.addr))
    }
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(n) => Some(*n),
        _ => None,
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

/// The primaries, from `CLUSTER SLOTS` asked of the first seed node.
async fn primaries(redis_url: &str) -> Result<Vec<Primary>, String> {
    let seed = redis_url.split(',').next().unwrap_or(redis_url).trim();
    let client = redis::Client::open(seed).map_err(|e| e.to_string())?;
    let mut conn = client.get_multiplexed_async_connection().await.map_err(|e| e.to_string())?;
    let slots: Value = redis::cmd("CLUSTER").arg("SLOTS").query_async(&mut conn).await.map_err(|e| e.to_string())?;
    let Value::Array(entries) = slots else { return Err(format!("CLUSTER SLOTS: {slots:?}")) };
    let mut by_addr: BTreeMap<String, Vec<(u16, u16)>> = BTreeMap::new();
    for entry in entries {
        let Value::Array(fields) = entry else { continue };
        let (Some(lo), Some(hi), Some(Value::Array(node))) =
            (fields.first().and_then(int), fields.get(1).and_then(int), fields.get(2))
        else {
            continue;
        };
        let (Some(host), Some(port)) = (node.first().and_then(text), node.get(1).and_then(int)) else { continue };
        by_addr.entry(format!("{host}:{port}")).or_default().push((lo as u16, hi as u16));
    }
    if by_addr.is_empty() {
        return Err("CLUSTER SLOTS named no primaries: is REDIS_URL a cluster?".into());
    }
    Ok(by_addr
        .into_iter()
        .map(|(addr, ranges)| {
            let mut p = Primary { addr, ranges, tag: String::new() };
            p.tag = (0u32..).map(|i| format!("scale{i}")).find(|t| p.holds(slot(t.as_bytes()))).unwrap_or_default();
            p
        })
        .collect())
}

/// Readies `p` for `redis-benchmark`: the script loaded, a live sale with ample stock under its tag.
async fn ready_shard(p: &Primary, prefix: &str) -> Result<String, String> {
    Ok(evalsha_sale(&mut p.conn().await?, prefix, &p.tag).await?.0)
}

/// `redis-benchmark` of the grab script against each of `shards` at once; answers each one's calls/s.
fn evalsha_at_once(
    shards: &[(&Primary, String)],
    prefix: &str,
    requests: usize,
    concurrency: usize,
) -> Result<Vec<f64>, String> {
    let children: Vec<_> = shards
        .iter()
        .map(|(p, sha)| {
            let (host, port) = p.addr.rsplit_once(':').unwrap_or((&p.addr, "6379"));
            let k = script_keys(prefix, &p.tag);
            std::process::Command::new("redis-benchmark")
                .args(["-h", host, "-p", port, "-q", "-n", &requests.to_string(), "-c", &concurrency.to_string()])
                .args(["-r", "100000000", "EVALSHA", sha, "6"])
                .args(&k)
                // ARGV: user, order id, no attempt limit, an attempt id, announced as a cluster does.
                .args(["__rand_int__", "__rand_int__", "0", "0", "-", "SPUBLISH"])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| format!("redis-benchmark: {e}"))
        })
        .collect::<Result<_, _>>()?;
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().map_err(|e| e.to_string())?;
            let text = String::from_utf8_lossy(&out.stdout);
            // `-q` prints "...: 12345.67 requests per second, p50=..." (the last of several \r-updates).
            text.rsplit('\r')
                .chain(text.lines())
                .find_map(|l| l.split(": ").nth(1)?.split(' ').next()?.parse::<f64>().ok())
                .ok_or_else(|| format!("cannot read redis-benchmark output: {text}"))
        })
        .collect()
}

/// EVALSHA calls so far on each primary.
async fn evalsha_calls(primaries: &[Primary]) -> Result<Vec<u64>, String> {
    let mut calls = Vec::new();
    for p in primaries {
        let text: String = redis::cmd("INFO")
            .arg("commandstats")
            .query_async(&mut p.conn().await?)
            .await
            .map_err(|e| e.to_string())?;
        calls.push(RedisCounters::parse(&text).of("evalsha"));
    }
    Ok(calls)
}

/// One round of the closed loop: `n` shoppers over `sales` sales (shopper i grabs sale i mod `sales`, on
/// instance i mod the number of instances), `concurrency` grabs in flight.
struct Round {
    sales: usize,
    /// Stock per sale.
    stock: usize,
    grabs_per_sec: f64,
    p99_ms: f64,
    outcomes: BTreeMap<String, usize>,
    /// Each primary's share of the grab scripts run in this round.
    shares: Vec<f64>,
    /// How many of the sales each primary holds.
    sales_on: Vec<usize>,
    /// Grab scripts the primaries ran during the round.
    scripts: u64,
}

/// What every round runs against.
struct Bench {
    state: AppState,
    client: HttpClient,
    urls: Vec<String>,
    primaries: Vec<Primary>,
    /// Shoppers per round.
    n: usize,
    concurrency: usize,
}

async fn round(bench: &Bench, sales: usize, stock: usize) -> Result<Round, String> {
    let Bench { state, client, urls, primaries, n, concurrency } = bench;
    let (n, concurrency) = (*n, *concurrency);
    println!("round with {sales} sale(s) of {stock}: {n} shoppers with sessions…");
    let buyers = users(state, n).await?;
    let mut vouchers = Vec::new();
    for i in 0..sales {
        vouchers.push(new_sale(state, stock as i32, &format!("scale sale {i}")).await?);
    }
    let sales_on: Vec<usize> =
        primaries.iter().map(|p| vouchers.iter().filter(|v| p.holds(slot(v.to_string().as_bytes()))).count()).collect();
    let plan: Vec<(String, String, i64)> = buyers
        .iter()
        .enumerate()
        .map(|(i, (_, cookie))| (urls[i % urls.len()].clone(), cookie.clone(), vouchers[i % sales]))
        .collect();
    // Each shopper has the shop page open before the sale (their session read once, as a page load does).
    let unwelcome = futures::stream::iter(&plan)
        .map(|(base, cookie, _)| look_in(client, base, cookie))
        .buffered(concurrency)
        .filter(|r| futures::future::ready(!matches!(r, Ok(200))))
        .count()
        .await;
    if unwelcome > 0 {
        return Err(format!("{unwelcome} of {n} sessions not recognised"));
    }
    let before = evalsha_calls(primaries).await?;
    let queue = Arc::new(Mutex::new(plan));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, queue) = (client.clone(), queue.clone());
            tokio::spawn(async move {
                let mut results = Vec::new();
                loop {
                    let Some((base, cookie, voucher)) = queue.lock().await.pop() else { return results };
                    results.push(grab(&client, &format!("{base}/api/seckill/grab"), &cookie, voucher).await);
                }
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = Vec::with_capacity(n);
    let mut outcomes = BTreeMap::new();
    for w in workers {
        for r in w.await.map_err(|e| e.to_string())? {
            match r {
                Ok((status, body, latency)) => {
                    latencies.push(latency);
                    *outcomes.entry(outcome(status, &body)).or_default() += 1;
                }
                Err(e) => *outcomes.entry(format!("transport error: {e}")).or_default() += 1,
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let after = evalsha_calls(primaries).await?;
    let deltas: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a.saturating_sub(*b)).collect();
    let scripts = deltas.iter().sum::<u64>();
    let total = scripts.max(1) as f64;
    latencies.sort_unstable();
    Ok(Round {
        sales,
        stock,
        grabs_per_sec: n as f64 / secs,
        p99_ms: ms(percentile(&latencies, 0.99)),
        outcomes,
        shares: deltas.iter().map(|d| *d as f64 / total).collect(),
        sales_on,
        scripts,
    })
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let prefix = config.redis_key_prefix.clone();
    let redis_url = config.redis_url.clone();
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    let urls: Vec<String> = env("BENCH_URLS", "http://127.0.0.1:3100").split(',').map(str::to_string).collect();
    let n = env_num("BENCH_USERS", 12_000)?;
    let concurrency = env_num("BENCH_CONCURRENCY", 500)?;
    let rounds: Vec<usize> = env("BENCH_SALES", "1,8")
        .split(',')
        .map(|s| s.trim().parse().map_err(|e| format!("BENCH_SALES: {e}")))
        .collect::<Result<_, _>>()?;

    let primaries = primaries(&redis_url).await?;
    println!(
        "{} primaries: {}",
        primaries.len(),
        primaries.iter().map(|p| p.addr.as_str()).collect::<Vec<_>>().join(", ")
    );
    let mut shards = Vec::new();
    for p in &primaries {
        shards.push((p, ready_shard(p, &prefix).await?));
    }
    // The shard ceiling: the grab script alone on one primary, then on every primary at once.
    let (requests, per_conn) = (200_000, 50);
    let one = evalsha_at_once(&shards[..1], &prefix, requests, per_conn)?[0];
    let all = evalsha_at_once(&shards, &prefix, requests, per_conn)?;
    let all_sum: f64 = all.iter().sum();
    let shard_count = shards.len();
    drop(shards);

    let client: HttpClient = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(concurrency).build_http();
    let bench = Bench { state, client, urls, primaries, n, concurrency };
    let mut results = Vec::new();
    for sales in rounds {
        // Stock for everyone: every grab runs the whole script and takes a coupon.
        results.push(round(&bench, sales, n.div_ceil(sales)).await?);
    }
    // Then what most of a real burst meets: a sale sold out after its first coupon, which each instance
    // answers from its own view of the stock without asking Redis.
    let sold_out = round(&bench, 1, 1).await?;
    let Bench { primaries, urls, .. } = &bench;

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "\n== Scale-out on a Redis Cluster ({} primaries, {} instance(s), {cores} cores shared by everything)",
        primaries.len(),
        urls.len()
    );
    println!("| figure | measured | ceiling | note |");
    println!("|---|---|---|---|");
    println!(
        "| grab script on one shard (redis-benchmark EVALSHA, c={per_conn}) | {one:.0}/s | — | every call takes a coupon |"
    );
    println!(
        "| grab script on {} shards at once | {all_sum:.0}/s ({}) | {:.0}/s ({} × one shard) | {:.2} of linear |",
        shard_count,
        all.iter().map(|r| format!("{r:.0}")).collect::<Vec<_>>().join(" + "),
        one * shard_count as f64,
        shard_count,
        all_sum / (one * shard_count as f64)
    );
    for r in &results {
        let ceiling = if r.sales == 1 { one } else { all_sum };
        let spread: Vec<String> = primaries
            .iter()
            .zip(&r.shares)
            .zip(&r.sales_on)
            .map(|((p, s), k)| format!("{} {:.0} % ({k} sale{})", p.addr, s * 100.0, if *k == 1 { "" } else { "s" }))
            .collect();
        println!(
            "| {} sale{} at once, through the app | {:.0} grabs/s (p99 {:.0} ms) | {ceiling:.0}/s | {:.2} of the shard ceiling; scripts per primary: {} |",
            r.sales,
            if r.sales == 1 { "" } else { "s" },
            r.grabs_per_sec,
            r.p99_ms,
            r.grabs_per_sec / ceiling,
            spread.join(", ")
        );
    }
    println!(
        "| 1 sale sold out after its first coupon, through the app | {:.0} answers/s (p99 {:.0} ms) | — | {:.0} % of the answers without a grab script ({} scripts run) |",
        sold_out.grabs_per_sec,
        sold_out.p99_ms,
        100.0 * (1.0 - sold_out.scripts as f64 / n as f64),
        sold_out.scripts
    );
    results.push(sold_out);
    for r in &results {
        let outcomes: Vec<String> = r.outcomes.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
        println!("\n{} sale(s) of {}: {}", r.sales, r.stock, outcomes.join(", "));
    }
    Ok(())
}
