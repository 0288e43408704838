//! What the load generators share: a plain HTTP client, the grab request, answer labels, fresh sales and
//! fresh logged-in shoppers; `probe` reads the server's and Redis' own counters, `open_loop` offers grabs
//! at a fixed arrival rate.

pub mod open_loop;
pub mod probe;

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};

use app::seckill::model::NewFlashSale;
use app::seckill::service;
use app::web::state::AppState;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;

/// A keep-alive HTTP/1 client.
pub type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// The variable `name`, or `default` when it is unset.
pub fn env(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// The number in variable `name`, or `default` when it is unset; anything else is an error naming it.
pub fn env_num(name: &str, default: usize) -> Result<usize, String> {
    std::env::var(name).map_or(Ok(default), |v| v.parse().map_err(|e| format!("{name}: {e}")))
}

/// One grab over HTTP: (status, body, latency).
pub async fn grab(
    client: &HttpClient,
    url: &str,
    cookie: &str,
    voucher_id: i64,
) -> Result<(u16, String, Duration), String> {
    let req = hyper::Request::post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        // The refusals `outcome` labels are read in English.
        .header("accept-language", "en")
        .header("cookie", format!("haodian.sid={cookie}"))
        .body(Full::new(Bytes::from(format!("voucher_id={voucher_id}"))))
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let resp = client.request(req).await.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, String::from_utf8_lossy(&body).into_owned(), started.elapsed()))
}

/// p50 and p99 of `rounds` sequential runs of `f` (after one that warms up), and the server's CPU per run
/// in µs when `server` (its pid, µs per clock tick) is given.
pub async fn timed_runs<F, Fut, T>(
    rounds: usize,
    server: Option<(u32, f64)>,
    mut f: F,
) -> Result<(Duration, Duration, Option<f64>), String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    f().await?;
    let before = server.and_then(|(pid, _)| probe::cpu_ticks(pid).ok());
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        f().await?;
        times.push(started.elapsed());
    }
    let after = server.and_then(|(pid, _)| probe::cpu_ticks(pid).ok());
    let cpu = match (before, after, server) {
        (Some(b), Some(a), Some((_, per_tick))) => Some((a - b) as f64 * per_tick / rounds as f64),
        _ => None,
    };
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    Ok((at(0.5), at(0.99), cpu))
}

/// The server's CPU (user + system, from `/proc/<pid>/stat`) per request, in µs, over `n` requests made
/// by `request` (which answers the status), `concurrency` at a time; and how many answered each status.
pub async fn cpu_per_request<F, Fut>(
    n: usize,
    concurrency: usize,
    pid: u32,
    request: F,
) -> Result<(f64, std::collections::BTreeMap<u16, usize>), String>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<u16, String>> + Send,
{
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let before = probe::cpu_ticks(pid)?;
    let workers: Vec<_> = (0..concurrency.min(n))
        .map(|_| {
            let (next, request) = (next.clone(), request.clone());
            tokio::spawn(async move {
                let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
                while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < n {
                    // A transport error counts as status 0.
                    *statuses.entry(request().await.unwrap_or(0)).or_default() += 1;
                }
                statuses
            })
        })
        .collect();
    let mut statuses = std::collections::BTreeMap::new();
    for w in workers {
        for (status, count) in w.await.map_err(|e| e.to_string())? {
            *statuses.entry(status).or_default() += count;
        }
    }
    let ticks = probe::cpu_ticks(pid)? - before;
    Ok((ticks as f64 * probe::micros_per_tick() / n as f64, statuses))
}

/// The server's CPU per `GET /livez` in µs (`n` of them, `concurrency` at a time): the plainest request it
/// answers, the yardstick the grab's and a shed answer's costs are divided by.
pub async fn livez_cpu(client: &HttpClient, base: &str, n: usize, concurrency: usize, pid: u32) -> Result<f64, String> {
    let (client, url) = (client.clone(), format!("{base}/livez"));
    let (cpu, statuses) = cpu_per_request(n, concurrency, pid, move || {
        let (client, url) = (client.clone(), url.clone());
        async move { Ok(as_shopper(&client, hyper::Method::GET, url, "text/plain", "").await?.0.as_u16()) }
    })
    .await?;
    match statuses.get(&200) {
        Some(&ok) if ok == n => Ok(cpu),
        _ => Err(format!("/livez answered {statuses:?}")),
    }
}

/// A label for an answer: "ok", or the error variant (`SoldOut` is a `Validation` with that message).
pub fn outcome(status: u16, body: &str) -> String {
    if status == 200 {
        return "ok".into();
    }
    let kind = body.trim_start_matches(['{', '"']).split(['"', ':']).next().unwrap_or("?");
    let detail = if body.contains("Sold out") {
        " (sold out)"
    } else if body.contains("already have") {
        " (already)"
    } else {
        ""
    };
    format!("{status} {kind}{detail}")
}

/// A fresh sale for this run, live now, created the way a merchant's creation does (Postgres + Redis).
pub async fn new_sale(state: &AppState, stock: i32, title: &str) -> Result<i64, String> {
    let now = app::shared::clock::now_ms();
    let sale = NewFlashSale {
        title: title.into(),
        rules: String::new(),
        pay_cents: 990,
        actual_cents: 5000,
        stock,
        begin_ms: now - 1000,
        end_ms: now + 3_600_000,
        // Simulated buyers cannot slide a puzzle; the merchant turned the check off for this sale.
        human_check: false,
    };
    service::open_sale(state, 1, sale).await.map_err(|e| e.to_string())
}

/// `n` fresh shoppers, each with a logged-in session; returns (user id, cookie).
pub async fn users(state: &AppState, n: usize) -> Result<Vec<(i64, String)>, String> {
    let tag = format!("{:08x}", rand_u32());
    let ids: Vec<i64> = sqlx::query_scalar(
        "INSERT INTO users (email, nickname, password_hash)
         SELECT 'bench-' || $1 || '-' || g || '@example.com', 'bench' || g, 'x' FROM generate_series(1, $2) g ORDER BY g RETURNING id",
    )
    .bind(&tag)
    .bind(n as i32)
    .fetch_all(&state.db)
    .await
    .map_err(|e| e.to_string())?;
    let store = app::web::session::durable_uncached(state);
    // 64 at a time: tens of thousands of sessions one round trip after another would take a while.
    futures::stream::iter(ids)
        .map(|id| {
            let store = store.clone();
            async move {
                let cookie =
                    app::web::session::mint(&store, id, time::Duration::hours(1)).await.map_err(|e| e.to_string())?;
                Ok::<_, String>((id, cookie))
            }
        })
        .buffered(64)
        .try_collect()
        .await
}

/// Sends an empty-bodied request to `url` as the shopper with `cookie` (`""`: a visitor without a session);
/// answers the status and body.
async fn as_shopper(
    client: &HttpClient,
    method: hyper::Method,
    url: String,
    accept: &str,
    cookie: &str,
) -> Result<(hyper::StatusCode, Bytes), String> {
    let mut req = hyper::Request::builder().method(method).uri(url).header("accept", accept);
    // No cookie at all for a visitor ("" ), as a browser without a session sends none.
    if !cookie.is_empty() {
        req = req.header("cookie", format!("haodian.sid={cookie}"));
    }
    let req = req.body(Full::new(Bytes::new())).map_err(|e| e.to_string())?;
    let resp = client.request(req).await.map_err(|e| e.to_string())?;
    let status = resp.status();
    Ok((status, resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes()))
}

/// What a shopper's page load does before the grab button is pressed: `POST /api/auth/me`, which reads the
/// session (and so puts it in the instance's session cache). Answers the status.
pub async fn look_in(client: &HttpClient, base: &str, cookie: &str) -> Result<u16, String> {
    let url = format!("{base}/api/auth/me");
    Ok(as_shopper(client, hyper::Method::POST, url, "application/json", cookie).await?.0.as_u16())
}

/// The HTML of the page at `path` as the shopper with `cookie` gets it.
pub async fn page(client: &HttpClient, base: &str, path: &str, cookie: &str) -> Result<String, String> {
    let (status, body) = as_shopper(client, hyper::Method::GET, format!("{base}{path}"), "text/html", cookie).await?;
    if !status.is_success() {
        return Err(format!("{path}: {status}"));
    }
    String::from_utf8(body.to_vec()).map_err(|e| format!("{path}: {e}"))
}

/// GETs a JSON endpoint (a GET server function: without `Accept: application/json` Leptos answers a
/// form's redirect instead of the value) and answers its body, or the status if it is not 2xx.
pub async fn api_get(client: &HttpClient, base: &str, path: &str) -> Result<String, String> {
    let (status, body) =
        as_shopper(client, hyper::Method::GET, format!("{base}{path}"), "application/json", "").await?;
    if !status.is_success() {
        return Err(format!("{path}: {status}"));
    }
    String::from_utf8(body.to_vec()).map_err(|e| format!("{path}: {e}"))
}

/// POSTs to a server function with no arguments as the shopper with `cookie` and answers its JSON, or
/// the status if it is not 2xx.
pub async fn api_post(client: &HttpClient, base: &str, path: &str, cookie: &str) -> Result<String, String> {
    let (status, body) =
        as_shopper(client, hyper::Method::POST, format!("{base}{path}"), "application/json", cookie).await?;
    if !status.is_success() {
        return Err(format!("{path}: {status}"));
    }
    String::from_utf8(body.to_vec()).map_err(|e| format!("{path}: {e}"))
}

/// [`look_in`] for every one of `shoppers`, `concurrency` at a time and in their order (so each one's
/// session is about as fresh when their grab comes); answers how many were not answered 200.
pub async fn look_in_all(client: &HttpClient, base: &str, shoppers: &[(i64, String)], concurrency: usize) -> usize {
    futures::stream::iter(shoppers)
        .map(|(_, cookie)| look_in(client, base, cookie))
        .buffered(concurrency)
        .filter(|r| futures::future::ready(!matches!(r, Ok(200))))
        .count()
        .await
}

/// Opens `n` connections to the server at `base` (as many `GET /livez` at once), left idle in `client`'s
/// pool: an open loop against a restarted server then measures grabs, not `n` connections being opened
/// (a front proxy or a mobile gateway, which the open loop's shared connections stand for, holds its
/// connections open).
pub async fn open_connections(client: &HttpClient, base: &str, n: usize) -> Result<(), String> {
    let url = format!("{base}/livez");
    let answers = futures::future::join_all(
        (0..n).map(|_| as_shopper(client, hyper::Method::GET, url.clone(), "text/plain", "")),
    )
    .await;
    match answers.into_iter().find(|a| !matches!(a, Ok((status, _)) if status.is_success())) {
        None => Ok(()),
        Some(Ok((status, _))) => Err(format!("opening connections: /livez answered {status}")),
        Some(Err(e)) => Err(format!("opening connections: {e}")),
    }
}

fn rand_u32() -> u32 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (t.as_nanos() as u32) ^ std::process::id()
}

/// The grab script's six keys for a benchmark sale under hash tag `tag`.
pub fn script_keys(prefix: &str, tag: &str) -> Vec<String> {
    ["stock", "buyers", "window", "grabs", "tries", "pass"]
        .iter()
        .map(|s| format!("{prefix}bench:{{{tag}}}:{s}"))
        .collect()
}

/// Readies a sale for `redis-benchmark` to run the grab script on, through `conn`: `lua/seckill.lua`
/// loaded (answers its SHA) and, under `tag`, a live window and ample stock, so every call takes a coupon;
/// Redis forgets them after ten minutes. Answers the SHA and [`script_keys`].
pub async fn evalsha_sale(
    conn: &mut impl redis::aio::ConnectionLike,
    prefix: &str,
    tag: &str,
) -> Result<(String, Vec<String>), String> {
    let sha: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(include_str!("../../lua/seckill.lua"))
        .query_async(conn)
        .await
        .map_err(|e| e.to_string())?;
    let k = script_keys(prefix, tag);
    let (now, ttl) = (app::shared::clock::now_ms(), 600_000);
    redis::pipe()
        .cmd("SET")
        .arg(&k[0])
        .arg(1_000_000_000)
        .arg("PX")
        .arg(ttl)
        .ignore()
        .cmd("DEL")
        .arg(&k[1])
        .arg(&k[3])
        .ignore()
        .cmd("HSET")
        .arg(&k[2])
        .arg("begin")
        .arg(now - 1000)
        .arg("end")
        .arg(now + ttl)
        .ignore()
        .cmd("PEXPIRE")
        .arg(&k[2])
        .arg(ttl)
        .ignore()
        .query_async::<()>(conn)
        .await
        .map_err(|e| e.to_string())?;
    Ok((sha, k))
}

/// Logs `user_id` in again (a new session, as the login form would).
pub async fn session_for(state: &AppState, user_id: i64) -> Result<String, String> {
    let store = app::web::session::durable_uncached(state);
    app::web::session::mint(&store, user_id, time::Duration::hours(1)).await.map_err(|e| e.to_string())
}
