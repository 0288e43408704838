//! The floor under a grab's cost (issue 36, point 1: a grab's CPU ÷ a `/livez`'s ≤ 3). A bare axum server
//! (`bench-floor serve`) on the same runtime, Redis connection and Kafka producer as `server web`, without
//! its layers, sessions or server functions, answers three requests:
//! - `GET /livez`: "ok", as `server web`'s does;
//! - `POST /io`: only what any grab must do — a form body, one Lua script on Redis, one acknowledged
//!   (acks=all) produce of an order-sized message — and a JSON number back;
//! - `POST /grab`: the real grab service (`grab_with_pass`: the sale script, the order's produce, the
//!   metrics and the tally) for the user the form names.
//!
//! `bench-floor` starts that server as a child process, measures each request's CPU from the child's
//! `/proc` counters (`BENCH_USERS` grabs, `BENCH_CONCURRENCY` at a time), and prints what each adds to a
//! bare request. Given `bench-seckill closed`'s figures of the same run (`BENCH_STATE`), it adds that to
//! `server web`'s own `/livez`: the lowest ratio a grab could reach there if everything it did beyond a
//! `/livez` cost no more than on the bare server — the floor point 1's goal is set against.
//!
//! `BENCH_FLOOR_URL` with `BENCH_FLOOR_PID` measures a `bench-floor serve` started by hand instead (under
//! valgrind, say); the lines `== phase …` and `== end …` mark each phase for a profiler.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;

use app::platform::config::Config;
use app::platform::kafka::{self, Delivery};
use app::web::state::AppState;
use bench::{HttpClient, cpu_per_request, env, env_num, livez_cpu, new_sale, users};

/// The allocator `server` uses, so that the floor's memory costs what the server's does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bare server's address when `bench-floor` starts it.
const LISTEN: &str = "127.0.0.1:3190";

/// The topic `/io` produces to (under the run's `KAFKA_TOPIC_PREFIX`); nothing reads it.
const IO_TOPIC: &str = "floor.io";

/// `/io`'s script: one key written, as the sale script writes its own.
const IO_SCRIPT: &str = "return redis.call('INCR', KEYS[1])";

#[tokio::main]
async fn main() -> Result<(), String> {
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    match std::env::args().nth(1).as_deref() {
        Some("serve") => serve(state).await,
        None => measure(state).await,
        Some(other) => Err(format!("unknown mode {other:?}: `serve`, or nothing to measure")),
    }
}

/// `/io`'s form.
#[derive(Deserialize)]
struct IoForm {
    n: i64,
}

/// `/grab`'s form: the sale and the buyer (no session: the floor has none).
#[derive(Deserialize)]
struct GrabForm {
    voucher_id: i64,
    user_id: i64,
}

/// The bare server, on `BENCH_FLOOR_LISTEN` (`127.0.0.1:3190`) until killed.
async fn serve(state: AppState) -> Result<(), String> {
    if std::env::var_os("BENCH_FLOOR_CHILD").is_some() {
        // `bench-floor` holds this process' stdin: its end (the parent gone, even killed) ends this one,
        // so no bare server is left behind on the port.
        tokio::task::spawn_blocking(|| {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            std::process::exit(0);
        });
    }
    let topic = kafka::topic(&state.config, IO_TOPIC);
    kafka::create_topics(&state.config, std::slice::from_ref(&topic)).await.map_err(|e| e.to_string())?;
    let publisher = state.publisher.clone();
    let prepare = topic.clone();
    tokio::task::spawn_blocking(move || publisher.prepare(&prepare, Duration::from_secs(10)))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let key = format!("{}floor:io", state.config.redis_key_prefix);
    let script = std::sync::Arc::new(redis::Script::new(IO_SCRIPT));
    // `/io`'s message: an order as the grab produces one (its size and encoding), made once.
    let order = kafka::OrderCreated {
        order_id: 1 << 60,
        user_id: 1 << 30,
        voucher_id: 1 << 20,
        ts: app::shared::clock::now_ms(),
    };
    let payload: std::sync::Arc<[u8]> = serde_json::to_vec(&order).map_err(|e| e.to_string())?.into();
    let io = move |State(state): State<AppState>, Form(form): Form<IoForm>| {
        let (script, key, topic, payload) = (script.clone(), key.clone(), topic.clone(), payload.clone());
        async move {
            let mut redis = state.grab_redis.clone();
            let _: i64 = script
                .key(&key)
                .invoke_async(&mut redis)
                .await
                .map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
            match state.publisher.send(&topic, &payload).await {
                Delivery::Persisted => Ok(Json(form.n)),
                Delivery::NotPersisted(e) | Delivery::Unknown(e) => {
                    Err((StatusCode::SERVICE_UNAVAILABLE, e.to_string()))
                }
            }
        }
    };
    let grab = |State(state): State<AppState>, Form(form): Form<GrabForm>| async move {
        app::seckill::service::grab_with_pass(&state, form.user_id, form.voucher_id, "127.0.0.1", None)
            .await
            .map(Json)
            .map_err(|e| (StatusCode::CONFLICT, e.to_string()))
    };
    let router = Router::new()
        .route("/livez", get(|| async { "ok" }))
        .route("/io", post(io))
        .route("/grab", post(grab))
        .with_state(state);
    let addr: SocketAddr = env("BENCH_FLOOR_LISTEN", LISTEN).parse().map_err(|e| format!("BENCH_FLOOR_LISTEN: {e}"))?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("{addr}: {e}"))?;
    axum::serve(listener, router).await.map_err(|e| e.to_string())
}

/// The bare server `bench-floor` measures: its own child, or one started by hand.
struct Floor {
    base: String,
    pid: u32,
    child: Option<std::process::Child>,
}

impl Floor {
    /// The server `BENCH_FLOOR_URL`/`BENCH_FLOOR_PID` name, or a child started here once it answers.
    async fn start(client: &HttpClient) -> Result<Self, String> {
        if let (Ok(base), Ok(pid)) = (std::env::var("BENCH_FLOOR_URL"), std::env::var("BENCH_FLOOR_PID")) {
            let pid = pid.parse().map_err(|_| format!("BENCH_FLOOR_PID {pid:?}: not a pid"))?;
            return Ok(Self { base, pid, child: None });
        }
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let child = std::process::Command::new(exe)
            .arg("serve")
            .env("BENCH_FLOOR_LISTEN", LISTEN)
            .env("BENCH_FLOOR_CHILD", "1")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting `bench-floor serve`: {e}"))?;
        let floor = Self { base: format!("http://{LISTEN}"), pid: child.id(), child: Some(child) };
        for _ in 0..600 {
            if livez_cpu(client, &floor.base, 1, 1, floor.pid).await.is_ok() {
                return Ok(floor);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err("`bench-floor serve` did not answer /livez within a minute".into())
    }
}

impl Drop for Floor {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// POSTs the form `body` to `url` with the headers a grab sends (the buyer's session `cookie` among them,
/// which the bare server does not read but parses as any request's); answers the status.
async fn post_form(client: &HttpClient, url: &str, cookie: &str, body: String) -> Result<u16, String> {
    let req = hyper::Request::post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .header("accept-language", "en")
        .header("cookie", format!("haodian.sid={cookie}"))
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let resp = client.request(req).await.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    http_body_util::BodyExt::collect(resp.into_body()).await.map_err(|e| e.to_string())?;
    Ok(status)
}

/// `n` POSTs to `url` on the floor, the `i`th with the cookie and form `form(i)`, every one of which must
/// answer 200; the floor's CPU per request in µs.
async fn phase(
    name: &str,
    client: &HttpClient,
    url: String,
    floor: &Floor,
    n: usize,
    concurrency: usize,
    form: impl Fn(usize) -> (String, String) + Clone + Send + Sync + 'static,
) -> Result<f64, String> {
    println!("== phase {name}");
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let client = client.clone();
    let (cpu, statuses) = cpu_per_request(n, concurrency, floor.pid, move || {
        let (client, url, form) = (client.clone(), url.clone(), form.clone());
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        async move {
            let (cookie, body) = form(i);
            post_form(&client, &url, &cookie, body).await
        }
    })
    .await?;
    println!("== end {name}");
    match statuses.get(&200) {
        Some(&ok) if ok == n => Ok(cpu),
        _ => Err(format!("{name}: answers {statuses:?}")),
    }
}

/// `bench-seckill closed`'s CPU per grab and per `/livez` on `server web`, if that phase ran in this run.
fn server_web_figures() -> Option<(f64, f64)> {
    let text = std::fs::read_to_string(env("BENCH_STATE", ".run/bench-seckill.json")).ok()?;
    let figures: serde_json::Value = serde_json::from_str(&text).ok()?;
    let closed = figures.get("closed")?;
    Some((closed.get("cpu_us_per_grab")?.as_f64()?, closed.get("cpu_us_per_livez")?.as_f64()?))
}

/// The three phases against the floor, then the table.
async fn measure(state: AppState) -> Result<(), String> {
    let n = env_num("BENCH_USERS", 10_000)?;
    let concurrency = env_num("BENCH_CONCURRENCY", 1000)?;
    let client: HttpClient = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(4 * concurrency).build_http();
    let floor = Floor::start(&client).await?;
    println!("setting up {n} buyers and a sale of {n} for the floor at {}…", floor.base);
    let buyers: std::sync::Arc<[(i64, String)]> = users(&state, n).await?.into();
    let voucher = new_sale(&state, n as i32, "floor flash sale").await?;
    // Connections opened and the instance warmed before anything is counted.
    livez_cpu(&client, &floor.base, concurrency, concurrency, floor.pid).await?;

    println!("== phase livez");
    let livez = livez_cpu(&client, &floor.base, 10 * n, concurrency, floor.pid).await?;
    println!("== end livez");
    let shoppers = buyers.clone();
    let io = phase("io", &client, format!("{}/io", floor.base), &floor, n, concurrency, move |i| {
        (shoppers[i % shoppers.len()].1.clone(), format!("n={i}"))
    })
    .await?;
    let grab = phase("grab", &client, format!("{}/grab", floor.base), &floor, n, concurrency, move |i| {
        let (user, cookie) = &buyers[i % buyers.len()];
        (cookie.clone(), format!("voucher_id={voucher}&user_id={user}"))
    })
    .await?;

    println!("\n== the floor under a grab: CPU per request of a bare axum server on the same stack, µs");
    println!("| request | CPU | beyond its `/livez` |");
    println!("|---|---:|---:|");
    println!("| `GET /livez` | {livez:.1} | |");
    println!("| `POST /io`: form, one script, one acks=all produce | {io:.1} | {:.1} |", io - livez);
    println!("| `POST /grab`: the grab service | {grab:.1} | {:.1} |", grab - livez);
    match server_web_figures() {
        Some((web_grab, web_livez)) => {
            println!(
                "\n`server web` in this run (bench-seckill closed): grab {web_grab:.1} µs, /livez {web_livez:.1} µs"
            );
            println!("| on `server web` | CPU ÷ `/livez` | goal |");
            println!("|---|---:|---:|");
            println!("| the grab as measured | {:.2} | ≤ 3 |", web_grab / web_livez);
            println!("| floor: its `/livez` + what `/io` adds | {:.2} | ≤ 3 |", (web_livez + io - livez) / web_livez);
            println!(
                "| floor: its `/livez` + what the grab service adds | {:.2} | ≤ 3 |",
                (web_livez + grab - livez) / web_livez
            );
        }
        None => {
            println!("\n(no `bench-seckill closed` figures in BENCH_STATE: run it first to set the floor beside them)")
        }
    }
    Ok(())
}
