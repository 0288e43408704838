//! Flash-sale benchmark against a running server (prints figures; not a test). Every goal is a cost or a
//! ratio taken in one run, as the load generator, Redis, Postgres and the broker share the server's 2 cores.
//!
//! Three phases, each against the server `scripts/bench.sh seckill` (re)starts for it; each keeps its
//! figures in `BENCH_STATE` (a JSON file) and the last prints the one table:
//! * `closed`: N distinct logged-in users each POST `grab_coupon` once over HTTP, C at a time, on one
//!   sale (the capacity); the invariants once the order writer has drained (no oversell, one per user,
//!   every acknowledged order persisted); the server's CPU per grab (its order's writing included unless
//!   a worker apart writes it, whose CPU per order is then counted apart) and per `GET /livez` (the
//!   yardstick), Redis commands per grab, peak RSS, the bundle's weight.
//! * `open` (the bucket at the capacity): grabs arriving at half the capacity, beside the acks=all produce
//!   alone at the same rate (the broker's latency: the floor a grab that waits for its produce cannot
//!   beat); then `BENCH_OVERLOAD_SECS` (60) at three times the capacity: what gets in per second, and
//!   whether memory stays flat.
//! * `shed` (the bucket at one grab a second): grabs that are all shed, and what each costs the server
//!   beside `/livez`.
//!
//! `BENCH_URL` (http://127.0.0.1:3000), `BENCH_USERS` (10000), `BENCH_CONCURRENCY` (1000),
//! `BENCH_STOCK` (= users), `BENCH_OPEN_SECS` (10), `BENCH_OVERLOAD_SECS` (60), `BENCH_OVERLOAD_USERS`
//! (20000), `BENCH_SERVER_PID`, `BENCH_WORKER_PID` (when the orders are written by a `server work` of their
//! own, beside a `server web`: its CPU per order is counted apart, its memory with the server's); `DATABASE_URL`, `REDIS_URL`, `REDIS_KEY_PREFIX`, `KAFKA_TOPIC_PREFIX` as
//! the server uses them.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::platform::config::Config;
use app::platform::kafka::OrderCreated;
use app::platform::kafka::{self, Delivery};
use app::web::state::AppState;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::sync::Mutex;

use bench::open_loop::{self, OpenLoop, ms};
use bench::probe::{self, RedisCounters};
use bench::{HttpClient, env, env_num, grab, look_in_all, new_sale, outcome, users};
use serde::{Deserialize, Serialize};

use open_loop::percentile;

/// The broker alone at a fixed arrival rate: `rate × secs` order-sized messages through the server's kind
/// of producer (idempotent, acks=all, same linger and timeout) to a topic of its own, each awaited as a
/// grab awaits its order's; a latency counts from when the message was due. Answers (p50, p99, not
/// persisted).
async fn produce_at_rate(state: &AppState, rate: f64, secs: f64) -> Result<(Duration, Duration, usize), String> {
    let topic = kafka::topic(&state.config, "bench.produce");
    kafka::create_topics(&state.config, std::slice::from_ref(&topic)).await.map_err(|e| e.to_string())?;
    // Metadata and producer id first, so the figure is the steady state, not the connection set-up.
    let (publisher, cold) = first_send(state, &topic, false).await?;
    // The same with the topic looked up first, as a serving instance does when it starts.
    let (_, warm) = first_send(state, &topic, true).await?;
    println!("(a new producer's first send: {:.1} ms; with the topic looked up first: {:.1} ms)", ms(cold), ms(warm));
    let n = (rate * secs).round() as usize;
    let started = Instant::now();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for i in 0..n {
        let scheduled = started + Duration::from_secs_f64(i as f64 / rate);
        tokio::time::sleep_until(scheduled.into()).await;
        let Ok(order_id) = state.ids.next_id() else { continue };
        let (publisher, topic, tx) = (publisher.clone(), topic.clone(), tx.clone());
        tokio::spawn(async move {
            let order = OrderCreated { order_id, user_id: i as i64, voucher_id: 1, ts: app::shared::clock::now_ms() };
            let payload = serde_json::to_vec(&order).unwrap_or_default();
            let ok = matches!(publisher.send(&topic, &payload).await, Delivery::Persisted);
            let _ = tx.send((scheduled.elapsed(), ok));
        });
    }
    drop(tx);
    let (mut latencies, mut failed) = (Vec::with_capacity(n), 0);
    while let Some((latency, ok)) = rx.recv().await {
        latencies.push(latency);
        failed += usize::from(!ok);
    }
    latencies.sort_unstable();
    Ok((percentile(&latencies, 0.50), percentile(&latencies, 0.99), failed))
}

/// A new producer and how long its first send to `topic` took, with the topic looked up beforehand
/// (`Publisher::prepare`) or not.
async fn first_send(state: &AppState, topic: &str, prepared: bool) -> Result<(kafka::Publisher, Duration), String> {
    let publisher = kafka::Publisher::new(&state.config).map_err(|e| e.to_string())?;
    if prepared {
        let (publisher, topic) = (publisher.clone(), topic.to_string());
        let looked_up = tokio::task::spawn_blocking(move || publisher.prepare(&topic, Duration::from_secs(10)));
        looked_up.await.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
    }
    let started = Instant::now();
    if let Delivery::NotPersisted(e) | Delivery::Unknown(e) = publisher.send(topic, b"{}").await {
        return Err(format!("produce warm-up: {e}"));
    }
    Ok((publisher, started.elapsed()))
}

/// Share of the measured capacity the token bucket admits in the `open` phase (`GRAB_ADMIT_PER_SEC` of the
/// restarted server): all of it — under three times that load the instance should still take its
/// capacity in, shedding only the rest.
const ADMIT_SHARE: f64 = 1.0;

/// What the closed-loop phase measured, handed to the later phases (which run against a server
/// restarted with the token bucket set from it) through `BENCH_STATE`.
#[derive(Debug, Serialize, Deserialize)]
struct Closed {
    users: usize,
    concurrency: usize,
    grabs_per_sec: f64,
    p50_ms: f64,
    p99_ms: f64,
    invariants_hold: bool,
    drain_ms: f64,
    evalsha_per_grab: f64,
    client_commands_per_grab: f64,
    session_reads_per_grab: f64,
    all_commands_per_grab: f64,
    /// From the first grab to the last order written (the order's writing included unless a worker apart
    /// writes it).
    cpu_us_per_grab: f64,
    /// The worker apart (`server work`) over the same span, per order written; `None` when the server
    /// writes its orders itself.
    #[serde(default)]
    worker_cpu_us_per_order: Option<f64>,
    /// `GET /livez` on the same server right after.
    cpu_us_per_livez: f64,
    peak_rss_mb: f64,
    bundle: Option<probe::Bundle>,
    /// The islands of the sale's shop page as a logged-in shopper gets it (what its first load hydrates).
    shop_islands: Vec<String>,
    admit_per_sec: u32,
    /// Where the machine's CPU went while the grabs ran (not the drain after them).
    #[serde(default)]
    cpu: Option<CpuSplit>,
}

/// Where the machine's CPU went over a phase, in cores busy on average: the server (`server web`), the
/// worker apart, and every process together (the load generator, Redis, Postgres and the broker too).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CpuSplit {
    web: f64,
    worker: Option<f64>,
    busy: f64,
    cores: usize,
    /// Cores by program (`probe::program_of`), the busiest first.
    #[serde(default)]
    programs: Vec<(String, f64)>,
}

impl std::fmt::Display for CpuSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "web {:.2}", self.web)?;
        if let Some(worker) = self.worker {
            write!(f, ", work {worker:.2}")?;
        }
        write!(f, ", all {:.2} of {}", self.busy, self.cores)
    }
}

impl CpuSplit {
    /// The programs that took at least a hundredth of a core, as "name 0.42".
    fn by_program(&self) -> String {
        let busy = self.programs.iter().filter(|(_, cores)| *cores >= 0.01);
        busy.map(|(name, cores)| format!("{name} {cores:.2}")).collect::<Vec<_>>().join(", ")
    }
}

/// The counters a [`CpuSplit`] is taken from, at a phase's start.
struct CpuMark {
    /// `server web`'s CPU ticks.
    web: u64,
    /// The worker's, when apart.
    worker: Option<u64>,
    machine: probe::MachineCpu,
    programs: BTreeMap<String, u64>,
    at: Instant,
}

impl CpuMark {
    /// Reads them now.
    fn read(setup: &Setup) -> Result<Self, String> {
        Ok(Self {
            web: probe::cpu_ticks(setup.server_pid)?,
            worker: setup.worker_pid.map(probe::cpu_ticks).transpose()?,
            machine: probe::MachineCpu::read()?,
            programs: probe::cpu_by_program()?,
            at: Instant::now(),
        })
    }

    /// From the mark until now.
    fn split(&self, setup: &Setup) -> Result<CpuSplit, String> {
        let secs = self.at.elapsed().as_secs_f64().max(1e-3);
        let cores = |ticks: u64| ticks as f64 * probe::micros_per_tick() / 1e6 / secs;
        let machine = probe::MachineCpu::read()?.since(&self.machine);
        let mut programs: Vec<(String, f64)> = probe::cpu_by_program()?
            .into_iter()
            .map(|(name, ticks)| {
                let before = self.programs.get(&name).copied().unwrap_or(0);
                (name, cores(ticks.saturating_sub(before)))
            })
            .collect();
        programs.sort_by(|a, b| b.1.total_cmp(&a.1));
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        let worker = match (setup.worker_pid, self.worker) {
            (Some(pid), Some(before)) => Some(cores(probe::cpu_ticks(pid)?.saturating_sub(before))),
            _ => None,
        };
        Ok(CpuSplit {
            web: cores(probe::cpu_ticks(setup.server_pid)?.saturating_sub(self.web)),
            worker,
            busy: machine.busy as f64 / machine.total.max(1) as f64 * n as f64,
            cores: n,
            programs,
        })
    }
}

/// What the `open` phase measured.
#[derive(Debug, Serialize, Deserialize)]
struct Open {
    /// Half the capacity: the rate, the grabs' p99 and the produce alone's p50 and p99 at that rate.
    half_rate: f64,
    half_p99_ms: f64,
    half_worst_lag_ms: f64,
    half_outcomes: BTreeMap<String, usize>,
    produce_p50_ms: f64,
    produce_p99_ms: f64,
    produce_failed: usize,
    /// Where the machine's CPU went through the grabs at half the capacity, and through the produce alone.
    #[serde(default)]
    half_cpu: Option<CpuSplit>,
    #[serde(default)]
    produce_cpu: Option<CpuSplit>,
    /// Three times the capacity for `overload_secs`: orders taken per second, and answers by kind.
    overload_rate: f64,
    overload_secs: f64,
    overload_ok_per_sec: f64,
    overload_worst_lag_ms: f64,
    overload_outcomes: BTreeMap<String, usize>,
    /// The server's resident memory (VmRSS, MB) once a second through the overload.
    overload_rss_mb: Vec<f64>,
    /// Seconds from the overload's end until every order it took was written.
    overload_drain_secs: f64,
    /// Where the machine's CPU went through the overload.
    #[serde(default)]
    overload_cpu: Option<CpuSplit>,
    /// The server's CPU per answer (admitted or shed) through the overload, µs.
    #[serde(default)]
    overload_cpu_us_per_answer: f64,
    /// Sessions read from Redis (`GET`) per grab answered through the overload: the instance's copies age out
    /// (`SESSION_CACHE_SECS`) while the same shoppers keep grabbing.
    #[serde(default)]
    overload_session_reads_per_answer: f64,
}

/// What the `shed` phase measured: the server's CPU per shed grab and per `/livez`, and how the grabs
/// were answered.
#[derive(Debug, Serialize, Deserialize)]
struct Shed {
    cpu_us_per_shed: f64,
    cpu_us_per_livez: f64,
    answers: BTreeMap<u16, usize>,
}

/// Everything the phases kept, in `BENCH_STATE`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Figures {
    closed: Option<Closed>,
    open: Option<Open>,
    shed: Option<Shed>,
}

struct Setup {
    state: AppState,
    client: HttpClient,
    base: String,
    url: String,
    concurrency: usize,
    server_pid: u32,
    /// The `server work` process writing the orders, when it is not the server itself.
    worker_pid: Option<u32>,
}

impl Setup {
    /// The processes serving the sale: the server, and the worker when apart.
    fn pids(&self) -> Vec<u32> {
        std::iter::once(self.server_pid).chain(self.worker_pid).collect()
    }
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let base = env("BENCH_URL", "http://127.0.0.1:3000");
    let concurrency = env_num("BENCH_CONCURRENCY", 1000)?;
    let server_pid =
        env("BENCH_SERVER_PID", "").parse().map_err(|_| "BENCH_SERVER_PID: the server's pid".to_string())?;
    let worker_pid = match env("BENCH_WORKER_PID", "").as_str() {
        "" => None,
        pid => Some(pid.parse().map_err(|_| format!("BENCH_WORKER_PID {pid:?}: not a pid"))?),
    };
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    let client: HttpClient = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(4 * concurrency).build_http();
    let url = format!("{base}/api/seckill/grab");
    let state_file = env("BENCH_STATE", ".run/bench-seckill.json");
    let setup = Setup { state, client, base, url, concurrency, server_pid, worker_pid };
    let phase = std::env::args().nth(1).unwrap_or_else(|| "closed".into());
    // A closed phase starts the figures afresh; the others add to what it kept.
    let mut figures: Figures = match phase.as_str() {
        "closed" => Figures::default(),
        _ => {
            let text = std::fs::read_to_string(&state_file).map_err(|e| format!("{state_file}: {e}"))?;
            serde_json::from_str(&text).map_err(|e| e.to_string())?
        }
    };
    match (phase.as_str(), &figures.closed) {
        ("closed", _) => figures.closed = Some(closed_loop(&setup).await?),
        ("open", Some(closed)) => figures.open = Some(open_loops(&setup, closed).await?),
        ("shed", Some(_)) => figures.shed = Some(shed(&setup).await?),
        ("open" | "shed", None) => return Err(format!("{state_file} has no closed-loop figures: run `closed` first")),
        (other, _) => return Err(format!("unknown phase {other:?}: closed, open or shed")),
    }
    let json = serde_json::to_string_pretty(&figures).map_err(|e| e.to_string())?;
    std::fs::write(&state_file, json).map_err(|e| format!("{state_file}: {e}"))?;
    println!("\n(figures kept in {state_file})");
    if std::env::var_os("BENCH_TABLE_LATER").is_none() {
        report(&figures);
    }
    Ok(())
}

/// The closed loop (`BENCH_USERS` shoppers, `BENCH_CONCURRENCY` at a time, one grab each) with the
/// invariants, Redis' and the server's counters around it, and `/livez`'s cost on the same server.
async fn closed_loop(setup: &Setup) -> Result<Closed, String> {
    let Setup { state, client, base, url, concurrency, server_pid, .. } = setup;
    let (state, concurrency, server_pid) = (state, *concurrency, *server_pid);
    let n = env_num("BENCH_USERS", 10_000)?;
    let stock = env_num("BENCH_STOCK", n)? as i32;

    println!("setting up {n} users with sessions and a sale of {stock}…");
    let buyers = users(state, n).await?;
    let voucher = new_sale(state, stock, "bench flash sale").await?;
    // Each shopper has the shop page open before the sale: their session is read once then, as a page
    // load reads it, in the order they will grab.
    let unwelcome = look_in_all(client, base, &buyers, concurrency).await;
    if unwelcome > 0 {
        return Err(format!("{unwelcome} of {n} sessions not recognised by the server"));
    }

    let mut conn = state.redis.clone();
    let redis_before = RedisCounters::read(&mut conn).await?;
    let threads_before = probe::ThreadCpu::read(server_pid)?;
    let mark = CpuMark::read(setup)?;

    // Load: every user grabs once; `concurrency` requests in flight. (The line says when, to a profiler.)
    println!("grabbing…");
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
    let cpu = mark.split(setup)?;
    let redis = RedisCounters::read(&mut conn).await?.since(&redis_before);
    latencies.sort_unstable();
    let rps = n as f64 / load_secs;
    println!("\n== grab_coupon over HTTP: {n} users, concurrency {concurrency}, stock {stock}");
    println!("throughput     {rps:>10.0} req/s  ({load_secs:.2} s)");
    println!("latency p50    {:>10.1} ms", ms(percentile(&latencies, 0.50)));
    println!("latency p99    {:>10.1} ms", ms(percentile(&latencies, 0.99)));
    println!("CPU, cores     {cpu}");
    println!("  by program   {}", cpu.by_program());
    for (k, v) in &outcomes {
        println!("outcome {k:<40} {v}");
    }
    let grabs = n as f64;
    // INFO itself: one call before and one after (the second counted only after its reply).
    let client_commands = redis.total.saturating_sub(probe::script_inner(&redis)).saturating_sub(1);
    println!("\n== Redis during the load (INFO commandstats deltas; {} commands in all)", redis.total);
    for (cmd, calls) in &redis.calls {
        println!("  {cmd:<20} {calls:>9}  ({:.2} per grab)", *calls as f64 / grabs);
    }

    // Drain: every acknowledged order written by the consumer.
    let drain = written(&state.db, &[voucher], acked.len(), load_done, Duration::from_secs(120)).await?;
    // The grabs' whole cost: their requests, scripts and produces, and their orders' writing.
    let cpu_us_per_grab = (probe::cpu_ticks(server_pid)? - mark.web) as f64 * probe::micros_per_tick() / grabs;
    let grab_threads = probe::ThreadCpu::read(server_pid)?.since(&threads_before);
    let worker_cpu_us_per_order = match (setup.worker_pid, mark.worker) {
        (Some(pid), Some(before)) => {
            Some((probe::cpu_ticks(pid)? - before) as f64 * probe::micros_per_tick() / acked.len().max(1) as f64)
        }
        _ => None,
    };
    tokio::time::sleep(Duration::from_millis(500)).await; // let any late duplicate show itself
    // With a worker apart, both processes' peaks: what the sale took of the machine.
    let mut peak_rss_mb = 0.0;
    for pid in setup.pids() {
        peak_rss_mb += probe::status_kb(pid, "VmHWM")? as f64 / 1024.0;
    }
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
        app::sale::inventory::sale_state(&state.redis, &state.keys, voucher).await.map_err(|e| e.to_string())?;
    let all_persisted = acked.iter().all(|(_, id)| written.contains(id));
    let no_oversell = rows <= i64::from(stock) && pg_stock >= 0 && redis_stock.unwrap_or(0) >= 0;
    let one_per_user = distinct_users == rows;
    let agree = i64::from(pg_stock) == redis_stock.unwrap_or(-1) && redis_buyers as i64 == rows;
    println!("\n== after the writer drained");
    println!(
        "drain time     {:>10.0} ms  ({} orders, from the last answer to the last row)",
        drain.as_secs_f64() * 1000.0,
        acked.len()
    );
    println!(
        "no oversell    {no_oversell:>10}  (rows {rows} ≤ stock {stock}; Postgres stock {pg_stock}; Redis stock {redis_stock:?})"
    );
    println!("one per user   {one_per_user:>10}  ({distinct_users} distinct users in {rows} rows)");
    println!(
        "all persisted  {:>10}  ({} acknowledged, {} written, Redis buyers {redis_buyers})",
        all_persisted,
        acked.len(),
        written.len()
    );
    println!("stores agree   {agree:>10}");

    // The yardstick, on the same server now that it is quiet again: 10 × N plain requests.
    let livez_before = probe::ThreadCpu::read(server_pid)?;
    let cpu_us_per_livez = bench::livez_cpu(client, base, 10 * n, concurrency, server_pid).await?;
    let livez_threads = probe::ThreadCpu::read(server_pid)?.since(&livez_before);
    println!("\n== server CPU per request: grab {cpu_us_per_grab:.1} µs, /livez {cpu_us_per_livez:.1} µs");
    // By thread, user and system apart: where a grab's time goes beyond a /livez's.
    for (what, threads, requests) in [("a grab", &grab_threads, grabs), ("a /livez", &livez_threads, (10 * n) as f64)] {
        println!("-- {what}, by thread");
        for line in threads.per_request(requests) {
            println!("   {line}");
        }
    }
    if let Some(per_order) = worker_cpu_us_per_order {
        println!("== the worker apart: {per_order:.1} µs of CPU per order written");
    }

    let pkg = std::path::PathBuf::from(env("BENCH_SITE_PKG", "target/site/pkg"));
    let bundle = probe::Bundle::read(&pkg).map_err(|e| println!("hydrate bundle: {e}")).ok();
    // The sale's shop page as one of its shoppers sees it: which islands its first load hydrates.
    let cookie = buyers.first().map_or("", |(_, cookie)| cookie.as_str());
    let shop_islands = match bench::page(client, base, "/shops/1", cookie).await {
        Ok(html) => probe::islands_in(&html),
        Err(e) => {
            println!("shop page: {e}");
            Vec::new()
        }
    };
    Ok(Closed {
        users: n,
        concurrency,
        grabs_per_sec: rps,
        p50_ms: ms(percentile(&latencies, 0.50)),
        p99_ms: ms(percentile(&latencies, 0.99)),
        invariants_hold: no_oversell && one_per_user && all_persisted && agree,
        drain_ms: drain.as_secs_f64() * 1000.0,
        evalsha_per_grab: redis.of("evalsha") as f64 / grabs,
        client_commands_per_grab: client_commands as f64 / grabs,
        session_reads_per_grab: redis.of("get").saturating_sub(redis.of("hmget")) as f64 / grabs,
        all_commands_per_grab: redis.total as f64 / grabs,
        cpu_us_per_grab,
        worker_cpu_us_per_order,
        cpu_us_per_livez,
        peak_rss_mb,
        bundle,
        shop_islands,
        admit_per_sec: (rps * ADMIT_SHARE).round() as u32,
        cpu: Some(cpu),
    })
}

/// Fresh shoppers whose sessions the server has seen (each looked in, as a page load does).
async fn shoppers(setup: &Setup, n: usize) -> Result<Vec<(i64, String)>, String> {
    let shoppers = users(&setup.state, n).await?;
    let unwelcome = look_in_all(&setup.client, &setup.base, &shoppers, setup.concurrency).await;
    if unwelcome > 0 {
        return Err(format!("{unwelcome} of {n} sessions not recognised by the server"));
    }
    Ok(shoppers)
}

/// How long after `since` the consumer had written `acked` orders of these sales (an error past `limit`).
async fn written(
    db: &sqlx::PgPool,
    vouchers: &[i64],
    acked: usize,
    since: Instant,
    limit: Duration,
) -> Result<Duration, String> {
    loop {
        let asked = Instant::now();
        let written: i64 = sqlx::query_scalar("SELECT count(*) FROM orders WHERE voucher_id = ANY($1)")
            .bind(vouchers)
            .fetch_one(db)
            .await
            .map_err(|e| e.to_string())?;
        if written as usize >= acked {
            return Ok(since.elapsed());
        }
        if since.elapsed() > limit {
            return Err(format!("only {written} of {acked} acknowledged orders written after {} s", limit.as_secs()));
        }
        // Counting the overload's 300,000 orders takes Postgres some 50 ms: asked every 20 ms, the count
        // took most of a core from the writer it waits for. Asked at most a fifth of the time.
        tokio::time::sleep(Duration::from_millis(20).max(asked.elapsed() * 4)).await;
    }
}

/// Prints what an open-loop run saw.
fn print_run(run: &OpenLoop) {
    println!(
        "{} arrivals in {:.2} s (generator at worst {:.1} ms late); {} orders ({:.0}/s); admitted p50 {:.1} / p99 {:.1} ms, shed p99 {:.1} ms",
        run.sent,
        run.secs,
        ms(run.worst_send_lag),
        run.ok,
        run.ok as f64 / run.secs,
        ms(percentile(&run.admitted, 0.5)),
        ms(percentile(&run.admitted, 0.99)),
        ms(percentile(&run.rejected, 0.99))
    );
    let by_second: Vec<String> =
        open_loop::percentile_by_second(run, 0.99).iter().map(|p99| format!("{:.0}", ms(*p99))).collect();
    println!("admitted p99 by the second they were due in, ms: {}", by_second.join(" "));
    for (k, v) in &run.outcomes {
        println!("outcome {k:<40} {v}");
    }
}

/// The open loops against the server restarted with the bucket at the capacity: `BENCH_OPEN_SECS` (10) at
/// half the closed loop's rate (one fresh shopper an arrival) and the produce alone at that rate, then
/// `BENCH_OVERLOAD_SECS` (60) at three times it — `BENCH_OVERLOAD_USERS` (20,000) shoppers taking turns
/// over as many sales as it takes for each to grab once per sale — with the server's memory read each second.
async fn open_loops(setup: &Setup, closed: &Closed) -> Result<Open, String> {
    let capacity = closed.grabs_per_sec;
    // The closed loop's connections, shared by the arrivals; a shopper waits `BENCH_PATIENCE_SECS` (2) for
    // one, then leaves.
    let connections = open_loop::Connections {
        max: setup.concurrency,
        patience: Duration::from_secs(env_num("BENCH_PATIENCE_SECS", 2)? as u64),
    };
    let half_secs = env_num("BENCH_OPEN_SECS", 10)? as f64;
    let rate = capacity * 0.5;
    let n = (rate * half_secs).round() as usize;
    println!("\n== open loop at 0.5× capacity: {rate:.0} grabs/s for {half_secs} s ({n} shoppers)…");
    let fresh = shoppers(setup, n).await?;
    let voucher = new_sale(&setup.state, n as i32, "bench open-loop sale").await?;
    // The server was restarted for this phase, so the closed loop's connections are gone.
    bench::open_connections(&setup.client, &setup.base, connections.max).await?;
    let mark = CpuMark::read(setup)?;
    let half = open_loop::run(&setup.client, &setup.url, n, rate, connections, |i| (fresh[i].1.clone(), voucher)).await;
    let half_cpu = mark.split(setup)?;
    print_run(&half);
    println!("CPU, cores: {half_cpu}; by program: {}", half_cpu.by_program());
    println!("\n== the acks=all produce alone at {rate:.0} messages/s for {half_secs} s…");
    let mark = CpuMark::read(setup)?;
    let (produce_p50, produce_p99, produce_failed) = produce_at_rate(&setup.state, rate, half_secs).await?;
    let produce_cpu = mark.split(setup)?;
    println!("p50 {:.1} ms, p99 {:.1} ms, {produce_failed} not persisted", ms(produce_p50), ms(produce_p99));
    println!("CPU, cores: {produce_cpu}; by program: {}", produce_cpu.by_program());

    let secs = env_num("BENCH_OVERLOAD_SECS", 60)? as f64;
    let rate = capacity * 3.0;
    let n = (rate * secs).round() as usize;
    let people = env_num("BENCH_OVERLOAD_USERS", 20_000)?.min(n);
    let sales = n.div_ceil(people);
    println!(
        "\n== overload at 3× capacity: {rate:.0} grabs/s for {secs} s ({people} shoppers over {sales} sales, {} \
         connections, {} s patience)…",
        connections.max,
        connections.patience.as_secs()
    );
    let crowd = shoppers(setup, people).await?;
    let mut vouchers = Vec::with_capacity(sales);
    for _ in 0..sales {
        vouchers.push(new_sale(&setup.state, people as i32, "bench overload sale").await?);
    }
    // The server's memory (with the worker's, when apart) once a second while the overload runs.
    let (pids, done) = (setup.pids(), Arc::new(std::sync::atomic::AtomicBool::new(false)));
    let sampler = tokio::spawn({
        let done = done.clone();
        async move {
            // A read that fails (the generator out of descriptors) is left out, not counted as 0 MB: a
            // zero would make any growth look like a start from nothing.
            // Each process' reading apart, so that a growth can be put down to the web or the worker.
            let mut each = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let kb: Result<Vec<u64>, String> = pids.iter().map(|&pid| probe::status_kb(pid, "VmRSS")).collect();
                if let Ok(kb) = kb {
                    each.push(kb.iter().map(|&k| k as f64 / 1024.0).collect::<Vec<_>>());
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            each
        }
    });
    let mut conn = setup.state.redis.clone();
    let redis_before = RedisCounters::read(&mut conn).await?;
    let mark = CpuMark::read(setup)?;
    let over = open_loop::run(&setup.client, &setup.url, n, rate, connections, |i| {
        (crowd[i % people].1.clone(), vouchers[i / people])
    })
    .await;
    let overload_cpu = mark.split(setup)?;
    let web_ticks = probe::cpu_ticks(setup.server_pid)?.saturating_sub(mark.web);
    let redis = RedisCounters::read(&mut conn).await?.since(&redis_before);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let rss_each = sampler.await.map_err(|e| e.to_string())?;
    let overload_rss_mb: Vec<f64> = rss_each.iter().map(|mb| mb.iter().sum()).collect();
    print_run(&over);
    let answers = (over.admitted.len() + over.rejected.len()).max(1) as f64;
    let overload_cpu_us_per_answer = web_ticks as f64 * probe::micros_per_tick() / answers;
    // The sale script reads its stock with `GET` after its `HMGET`; every other `GET` is a session's.
    let overload_session_reads_per_answer = redis.of("get").saturating_sub(redis.of("hmget")) as f64 / answers;
    println!(
        "CPU, cores: {overload_cpu}; the server's per answer {overload_cpu_us_per_answer:.1} µs; sessions read from \
         Redis per answer {overload_session_reads_per_answer:.2}"
    );
    println!("CPU by program: {}", overload_cpu.by_program());
    println!("VmRSS each second (MB): {overload_rss_mb:.0?}");
    for (i, name) in ["server web", "server work"].iter().enumerate().take(setup.pids().len()) {
        let series: Vec<f64> = rss_each.iter().filter_map(|kb| kb.get(i).copied()).collect();
        let (first, last) = (series.first().copied().unwrap_or(0.0), series.last().copied().unwrap_or(0.0));
        let peak = series.iter().copied().fold(0.0, f64::max);
        println!("  {name}: {first:.0} MB at the start, {peak:.0} at most, {last:.0} at the end");
    }
    // The orders taken are all written before the phase ends (and before the next run's reset, which would
    // leave the rest for its writer to refuse first).
    let drained = written(&setup.state.db, &vouchers, over.ok, Instant::now(), Duration::from_secs(600)).await?;
    println!("the writer caught up {:.1} s after the overload", drained.as_secs_f64());
    Ok(Open {
        half_rate: half.rate,
        half_p99_ms: ms(percentile(&half.admitted, 0.99)),
        half_worst_lag_ms: ms(half.worst_send_lag),
        half_outcomes: half.outcomes,
        produce_p50_ms: ms(produce_p50),
        produce_p99_ms: ms(produce_p99),
        produce_failed,
        half_cpu: Some(half_cpu),
        produce_cpu: Some(produce_cpu),
        overload_rate: over.rate,
        overload_secs: over.secs,
        overload_ok_per_sec: over.ok as f64 / over.secs,
        overload_worst_lag_ms: ms(over.worst_send_lag),
        overload_outcomes: over.outcomes,
        overload_rss_mb,
        overload_drain_secs: drained.as_secs_f64(),
        overload_cpu: Some(overload_cpu),
        overload_cpu_us_per_answer,
        overload_session_reads_per_answer,
    })
}

/// Against the server restarted with the bucket at one grab a second: 10 × `BENCH_USERS` grabs by one
/// shopper, `BENCH_CONCURRENCY` at a time — all but a handful shed — and as many `GET /livez`.
async fn shed(setup: &Setup) -> Result<Shed, String> {
    let n = 10 * env_num("BENCH_USERS", 10_000)?;
    let shopper = shoppers(setup, 1).await?.remove(0).1;
    let voucher = new_sale(&setup.state, 1, "bench shed sale").await?;
    println!("\n== {n} grabs against a bucket of one a second, {} at a time…", setup.concurrency);
    let (client, url) = (setup.client.clone(), setup.url.clone());
    let (cpu_us_per_shed, answers) = bench::cpu_per_request(n, setup.concurrency, setup.server_pid, move || {
        let (client, url, shopper) = (client.clone(), url.clone(), shopper.clone());
        async move { Ok(grab(&client, &url, &shopper, voucher).await?.0) }
    })
    .await?;
    let cpu_us_per_livez = bench::livez_cpu(&setup.client, &setup.base, n, setup.concurrency, setup.server_pid).await?;
    println!(
        "answers {answers:?}; server CPU per shed grab {cpu_us_per_shed:.1} µs, per /livez {cpu_us_per_livez:.1} µs"
    );
    Ok(Shed { cpu_us_per_shed, cpu_us_per_livez, answers })
}

/// "ok", or how far from the goal: `off` is measured ÷ goal for a floor, goal ÷ measured for a ceiling.
fn verdict(met: bool, off: f64) -> String {
    if met { "ok".into() } else { format!("MISS: {off:.2}× of the goal") }
}

/// The one table: every figure beside its goal.
fn report(f: &Figures) {
    let Some(c) = &f.closed else { return };
    let row = |what: &str, measured: String, goal: &str, verdict: String| {
        println!("{what:<56} {measured:>24}  {goal:<10} {verdict}");
    };
    println!(
        "\n== grab funnel: one run of scripts/bench.sh seckill (server, load generator, Redis, Postgres and the broker"
    );
    println!("   share the same 2 cores, so the goals are costs and ratios taken in this run; the open loop and the");
    println!(
        "   overload run against the server restarted with GRAB_ADMIT_PER_SEC = {} = the closed-loop rate,",
        c.admit_per_sec
    );
    println!("   the shed grabs against it restarted with GRAB_ADMIT_PER_SEC = 1)");
    row("figure", "measured".into(), "goal", String::new());
    row(
        &format!("grabs/s, closed loop ({} users, C = {}): the capacity", c.users, c.concurrency),
        format!("{:.0}/s", c.grabs_per_sec),
        "",
        format!("p50 {:.0} ms, p99 {:.0} ms", c.p50_ms, c.p99_ms),
    );
    let per_grab = c.cpu_us_per_grab / c.cpu_us_per_livez;
    let apart = c.worker_cpu_us_per_order.is_some();
    row(
        if apart {
            "server CPU per grab ÷ per /livez (`server web`)"
        } else {
            "server CPU per grab ÷ per /livez, same server"
        },
        format!("{per_grab:.1} ({:.0} / {:.1} µs)", c.cpu_us_per_grab, c.cpu_us_per_livez),
        "≤ 3",
        verdict(per_grab <= 3.0, 3.0 / per_grab),
    );
    if let Some(per_order) = c.worker_cpu_us_per_order {
        row(
            "  the order's writing apart (`server work`): CPU per order",
            format!("{per_order:.0} µs"),
            "",
            String::new(),
        );
        let both = (c.cpu_us_per_grab + per_order) / c.cpu_us_per_livez;
        row("  both processes per grab ÷ /livez", format!("{both:.1}"), "", "(the grab's whole cost)".into());
    }
    match &f.open {
        Some(o) => {
            let floor = o.half_p99_ms / o.produce_p99_ms;
            row(
                &format!("open loop at 0.5× ({:.0}/s): p99 ÷ produce alone's p99", o.half_rate),
                format!("{floor:.1} ({:.1} / {:.1} ms)", o.half_p99_ms, o.produce_p99_ms),
                "≤ 2",
                verdict(floor <= 2.0, 2.0 / floor),
            );
            if let (Some(half), Some(produce)) = (&o.half_cpu, &o.produce_cpu) {
                row(
                    "  the machine's cores busy, grabs → the produce alone",
                    format!("{:.2} → {:.2}", half.busy, produce.busy),
                    "",
                    format!("({half} → {produce})"),
                );
            }
            let goodput = o.overload_ok_per_sec / c.grabs_per_sec;
            row(
                &format!("overload at 3× ({:.0}/s, {:.0} s): orders/s ÷ capacity", o.overload_rate, o.overload_secs),
                format!("{goodput:.2} ({:.0}/s)", o.overload_ok_per_sec),
                "≥ 0.9",
                verdict(goodput >= 0.9, goodput / 0.9),
            );
            if let (Some(closed), Some(over)) = (&c.cpu, &o.overload_cpu) {
                row(
                    "  CPU in cores, closed loop → overload",
                    format!("web {:.2} → {:.2}", closed.web, over.web),
                    "",
                    format!("({closed} → {over})"),
                );
            }
            row(
                "  the server's CPU per answer, closed loop → overload",
                format!("{:.0} → {:.0} µs", c.cpu_us_per_grab, o.overload_cpu_us_per_answer),
                "",
                format!("(sessions read from Redis per answer {:.2})", o.overload_session_reads_per_answer),
            );
            // Flat: the last quarter's peak within 10 % of the second quarter's (the first is warm-up).
            let (rss, q) = (&o.overload_rss_mb, (o.overload_rss_mb.len() / 4).max(1));
            let peak = |s: &[f64]| s.iter().copied().fold(0.0, f64::max);
            let (early, late) =
                (peak(&rss[q.min(rss.len())..(2 * q).min(rss.len())]), peak(&rss[(3 * q).min(rss.len())..]));
            let growth = late / early;
            row(
                "  server memory through it: 2nd quarter's peak → last's",
                format!("{early:.0} → {late:.0} MB"),
                "≤ +10 %",
                verdict(growth <= 1.1, 1.1 / growth),
            );
            row(
                "  its orders all written, after the overload",
                format!("{:.1} s", o.overload_drain_secs),
                "",
                "(the writer's backlog: acknowledged orders are written later, none lost)".into(),
            );
            row(
                "  generator lag at worst (0.5× / 3×)",
                format!("{:.1} / {:.1} ms", o.half_worst_lag_ms, o.overload_worst_lag_ms),
                "",
                "(latencies count from when a request was due)".into(),
            );
        }
        None => row("open loop and overload", "not run".into(), "", "(`bench-seckill open`)".into()),
    }
    match &f.shed {
        Some(sh) => {
            let shed = sh.cpu_us_per_shed / sh.cpu_us_per_livez;
            row(
                "server CPU per shed grab (429) ÷ per /livez",
                format!("{shed:.2} ({:.1} / {:.1} µs)", sh.cpu_us_per_shed, sh.cpu_us_per_livez),
                "≤ 1.5",
                verdict(shed <= 1.5, 1.5 / shed),
            );
        }
        None => row("shed grabs", "not run".into(), "", "(`bench-seckill shed`)".into()),
    }
    row(
        "Redis commands sent by clients per grab",
        format!("{:.2}", c.client_commands_per_grab),
        "≤ 1.2",
        verdict(c.client_commands_per_grab <= 1.2, 1.2 / c.client_commands_per_grab),
    );
    row("  of which EVALSHA (the sale script)", format!("{:.2}", c.evalsha_per_grab), "", String::new());
    row("  of which session reads (GET)", format!("{:.2}", c.session_reads_per_grab), "", String::new());
    row(
        "  all commands incl. those inside scripts",
        format!("{:.2}", c.all_commands_per_grab),
        "",
        "(total_commands_processed counts both)".into(),
    );
    row(
        &format!("server peak RSS (VmHWM) after the {}-user sale", c.users),
        format!("{:.0} MB", c.peak_rss_mb),
        "≤ 256 MB",
        verdict(c.peak_rss_mb <= 256.0, 256.0 / c.peak_rss_mb),
    );
    match &c.bundle {
        None => row("hydrate bundle, gzip -9", "not found".into(), "≤ 250 KB", String::new()),
        Some(b) => {
            let kb = |bytes: u64| bytes as f64 / 1024.0;
            let shop = kb(b.first_load(&c.shop_islands));
            row(
                "hydrate bundle, shop page's first load, gzip -9",
                format!("{shop:.0} KB"),
                "≤ 250 KB",
                verdict(shop <= 250.0, 250.0 / shop),
            );
            row("  its islands", c.shop_islands.join(", "), "", String::new());
            let (heaviest, heaviest_gz) = b
                .splits
                .keys()
                .map(|split| {
                    let island = split.strip_suffix("_loader").unwrap_or(split);
                    (island, b.gz(&b.shell()) + b.gz(&b.splits[split].iter().map(String::as_str).collect::<Vec<_>>()))
                })
                .max_by_key(|(_, gz)| *gz)
                .unwrap_or(("none", 0));
            row(
                &format!("  heaviest of the {} lazy islands ({heaviest}), with the shell", b.splits.len()),
                format!("{:.0} KB", kb(heaviest_gz)),
                "≤ 250 KB",
                verdict(kb(heaviest_gz) <= 250.0, 250.0 / kb(heaviest_gz)),
            );
            row("  the shell alone (every page)", format!("{:.0} KB", kb(b.gz(&b.shell()))), "", b.shell().join(", "));
            row(
                "  every file (all pages visited)",
                format!("{:.0} KB in {} files", kb(b.total()), b.files.len()),
                "",
                String::new(),
            );
        }
    }
    row(
        "invariants (no oversell, one per user, all persisted)",
        if c.invariants_hold { "hold".into() } else { "BROKEN".into() },
        "hold",
        if c.invariants_hold { "ok".into() } else { "MISS".into() },
    );
    row(
        "drain of the acknowledged orders",
        format!("{:.0} ms", c.drain_ms),
        "≤ 5 s",
        verdict(c.drain_ms <= 5000.0, 5000.0 / c.drain_ms),
    );
}
