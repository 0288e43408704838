//! The fault-injection suite's client and judge (`scripts/chaos.sh` breaks things around it).
//!
//! `chaos prepare <dir> <stock> <users>`: a fresh live sale and shoppers with sessions, written to `<dir>`,
//! some of whom check in, like and follow, and visit a shop (`facts.json`).
//! `chaos load <dir> <seconds>`: every shopper grabs once through the instances in `CHAOS_URLS` (comma
//! separated), the way a person would through an outage: on 503, 429, a dropped connection or "sale being
//! restored" they try again (on the other instance), on 401 they log in again; until a final answer or the
//! deadline. Every answer goes to `<dir>/answers.jsonl`, the acknowledged order ids to `<dir>/acked`.
//! `chaos check <dir> <scenario>`: waits for the orders to drain and the state to heal, then checks
//! against Postgres — no oversell, no duplicate (user, sale), every acknowledged order persisted or
//! explicitly failed (and shown so), stock conserved, drift back to 0; and that what the shoppers did
//! besides grabbing outlived the fault: nobody logged out, check-ins, likes, follows and the feed intact,
//! today's visitors at least as of the servers' last copy to Postgres — and prints one table row.
//! `chaos answers <dir>`: what the shoppers were told through a load balancer while things broke: every
//! refusal a clear one (a 503 or 429 with a message, never a dropped connection or a bare 502), and every
//! shopper who was refused for a moment got a final answer by retrying.
//!
//! `DATABASE_URL`, `REDIS_URL`, `KAFKA_BROKERS`, `REDIS_KEY_PREFIX`, `KAFKA_TOPIC_PREFIX` as the servers use.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::orders::model::OrderStatus;
use app::platform::config::Config;
use app::web::state::AppState;
use bench::{HttpClient, grab, new_sale, session_for, users};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::sync::Mutex;

/// The sale and shoppers of one scenario, as `prepare` wrote them.
struct Prepared {
    voucher: i64,
    stock: i64,
    users: Vec<(i64, String)>,
}

fn read_prepared(dir: &Path) -> Result<Prepared, String> {
    let text = std::fs::read_to_string(dir.join("sale")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut lines = text.lines();
    let mut next_num = |what: &str| -> Result<i64, String> {
        lines.next().and_then(|l| l.parse().ok()).ok_or_else(|| format!("sale file: no {what}"))
    };
    let (voucher, stock) = (next_num("voucher")?, next_num("stock")?);
    let users = std::fs::read_to_string(dir.join("users"))
        .map_err(|e| e.to_string())?
        .lines()
        .filter_map(|l| l.split_once(' ').and_then(|(id, c)| Some((id.parse().ok()?, c.to_string()))))
        .collect();
    Ok(Prepared { voucher, stock, users })
}

async fn prepare(state: &AppState, dir: &Path, stock: i32, n: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let buyers = users(state, n).await?;
    let voucher = new_sale(state, stock, "chaos flash sale").await?;
    std::fs::write(dir.join("sale"), format!("{voucher}\n{stock}\n")).map_err(|e| e.to_string())?;
    let lines: String = buyers.iter().map(|(id, c)| format!("{id} {c}\n")).collect();
    std::fs::write(dir.join("users"), lines).map_err(|e| e.to_string())?;
    let facts = Facts::create(state, &buyers.iter().map(|(id, _)| *id).collect::<Vec<_>>()).await?;
    std::fs::write(dir.join("facts.json"), serde_json::to_string(&facts).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// What some of the shoppers did before the wave, besides grabbing — each must outlive every fault,
/// Redis restarting empty included (its records are in Postgres): check-ins, likes, follows, visits.
#[derive(serde::Serialize, serde::Deserialize)]
struct Facts {
    /// Shoppers who checked in the last three days (a streak of 3).
    walkers: Vec<i64>,
    /// A note by the first shopper, and who liked it.
    note: i64,
    likers: Vec<i64>,
    /// Who follows the first shopper.
    followers: Vec<i64>,
    /// Shop 1's visitors today once the servers had copied them to Postgres.
    visitors: u64,
}

impl Facts {
    async fn create(state: &AppState, users: &[i64]) -> Result<Self, String> {
        let today = app::shared::clock::today();
        let (author, crowd) = users.split_first().ok_or("no shoppers")?;
        let crowd = &crowd[..crowd.len().min(20)];
        for u in crowd {
            for back in 0..3 {
                app::checkin::service::check_in(state, *u, today - time::Duration::days(back))
                    .await
                    .map_err(|x| x.to_string())?;
            }
        }
        // Followed first, so the note is pushed into each follower's feed.
        for u in crowd {
            app::social::service::set_follow(state, *u, *author, true).await.map_err(|x| x.to_string())?;
        }
        let draft = app::social::model::NewNote::parse("Chaos noodles", "Still good after a fault.", "")
            .map_err(|x| x.to_string())?;
        let note = app::social::service::write_note(state, *author, 1, draft).await.map_err(|x| x.to_string())?;
        for u in crowd {
            app::social::service::toggle_like(state, *u, note).await.map_err(|x| x.to_string())?;
        }
        let visited_from: time::OffsetDateTime =
            sqlx::query_scalar("SELECT now()").fetch_one(&state.db).await.map_err(|x| x.to_string())?;
        for u in crowd {
            app::catalog::service::record_visit(state, 1, &format!("chaos-visitor-{u}"))
                .await
                .map_err(|x| x.to_string())?;
        }
        // The servers copy the day's visitors to Postgres every VISITOR_SNAPSHOT_SECS (1 s here): wait for it.
        let started = Instant::now();
        loop {
            let copied: Option<i64> = sqlx::query_scalar(
                "SELECT 1::BIGINT FROM visitor_days WHERE scope = 'shop:1' AND day = $1 AND saved_at > $2",
            )
            .bind(today)
            .bind(visited_from)
            .fetch_optional(&state.db)
            .await
            .map_err(|x| x.to_string())?;
            if copied.is_some() {
                break;
            }
            if started.elapsed() > Duration::from_secs(20) {
                return Err("the servers did not copy the visitor counts to Postgres within 20 s".into());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let visitors = today_visitors(state).await?;
        Ok(Self { walkers: crowd.to_vec(), note, likers: crowd.to_vec(), followers: crowd.to_vec(), visitors })
    }

    /// The verdicts, in the table's order: check-ins, likes, follows, visitors.
    async fn check(&self, state: &AppState) -> Result<[Result<String, String>; 4], String> {
        let today = app::shared::clock::today();
        let mut streaks = 0;
        for u in &self.walkers {
            let month = app::checkin::service::month(state, *u, today).await.map_err(|x| x.to_string())?;
            streaks += usize::from(month.streak >= 3);
        }
        let mut liked = 0;
        for u in &self.likers {
            let view = app::social::service::note(state, self.note, Some(*u)).await.map_err(|x| x.to_string())?;
            liked += usize::from(view.liked_by_me);
        }
        let author =
            app::social::service::note(state, self.note, None).await.map_err(|x| x.to_string())?.summary.author_id;
        let mut following = 0;
        for u in &self.followers {
            let profile = app::social::service::profile(state, author, Some(*u)).await.map_err(|x| x.to_string())?;
            let feed = app::social::service::feed(state, *u, None, 0).await.map_err(|x| x.to_string())?;
            following += usize::from(profile.followed_by_me && feed.notes.iter().any(|n| n.id == self.note));
        }
        let visitors = today_visitors(state).await?;
        let n = self.walkers.len();
        Ok([
            verdict(streaks == n, format!("{streaks}/{n} streaks")),
            verdict(liked == self.likers.len(), format!("{liked}/{} likes", self.likers.len())),
            verdict(following == n, format!("{following}/{n} follows with the note in the feed")),
            verdict(visitors >= self.visitors, format!("{visitors} of {} visitors", self.visitors)),
        ])
    }
}

async fn today_visitors(state: &AppState) -> Result<u64, String> {
    let days = app::catalog::service::visitors_last_week(state, 1).await.map_err(|x| x.to_string())?;
    Ok(days.last().map_or(0, |(_, n)| *n))
}

/// How one shopper's attempts ended.
enum Ending {
    Acked(i64),
    Final,
    GaveUp,
}

/// One shopper pressing "grab" until a final answer or the deadline.
async fn shopper(
    state: &AppState,
    client: &HttpClient,
    urls: &[String],
    voucher: i64,
    user: (i64, String),
    deadline: Instant,
    log: &Mutex<std::fs::File>,
) -> Ending {
    let (user_id, mut cookie) = user;
    let mut attempt = 0usize;
    while Instant::now() < deadline {
        let url = &urls[(user_id as usize + attempt) % urls.len()];
        attempt += 1;
        let answer = grab(client, &format!("{url}/api/seckill/grab"), &cookie, voucher).await;
        let (status, body) = match &answer {
            Ok((status, body, _)) => (*status, body.clone()),
            Err(e) => (0, e.clone()),
        };
        let line = serde_json::json!({
            "user": user_id, "instance": url, "status": status, "body": body.chars().take(160).collect::<String>(),
            "at_ms": app::shared::clock::now_ms(),
        });
        let _ = writeln!(log.lock().await, "{line}");
        let wait = match status {
            200 => return body.trim().parse().map(Ending::Acked).unwrap_or(Ending::Final),
            // Sold out, already have one, the sale ended: a final answer.
            400 => return Ending::Final,
            401 => {
                // Redis lost the sessions: log in again.
                match session_for(state, user_id).await {
                    Ok(c) => cookie = c,
                    Err(_) => tokio::time::sleep(Duration::from_millis(300)).await,
                }
                Duration::ZERO
            }
            429 => Duration::from_millis(500),
            _ => Duration::from_millis(300),
        };
        tokio::time::sleep(wait).await;
    }
    Ending::GaveUp
}

async fn load(state: &AppState, dir: &Path, seconds: u64) -> Result<(), String> {
    let p = read_prepared(dir)?;
    let urls: Vec<String> = std::env::var("CHAOS_URLS")
        .unwrap_or_else(|_| "http://127.0.0.1:3000".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let client: HttpClient =
        Client::builder(TokioExecutor::new()).pool_idle_timeout(Duration::from_secs(5)).build_http();
    let log = Arc::new(Mutex::new(std::fs::File::create(dir.join("answers.jsonl")).map_err(|e| e.to_string())?));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    // Arrivals spread evenly over `CHAOS_SPREAD_MS` (default 8 s), so a fault injected a few seconds in
    // lands mid-sale, with shoppers still arriving.
    let spread =
        Duration::from_millis(std::env::var("CHAOS_SPREAD_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(8000));
    let n = p.users.len().max(1) as u32;
    let shoppers: Vec<_> = p
        .users
        .into_iter()
        .enumerate()
        .map(|(i, user)| {
            let (state, client, urls, log) = (state.clone(), client.clone(), urls.clone(), log.clone());
            let arrives = started + spread * i as u32 / n;
            tokio::spawn(async move {
                tokio::time::sleep_until(arrives.into()).await;
                (user.0, shopper(&state, &client, &urls, p.voucher, user, deadline, &log).await)
            })
        })
        .collect();
    let (mut acked, mut finals, mut gave_up) = (Vec::new(), 0, 0);
    for s in shoppers {
        match s.await.map_err(|e| e.to_string())? {
            (user, Ending::Acked(order)) => acked.push(format!("{user} {order}")),
            (_, Ending::Final) => finals += 1,
            (_, Ending::GaveUp) => gave_up += 1,
        }
    }
    std::fs::write(dir.join("acked"), acked.join("\n")).map_err(|e| e.to_string())?;
    println!("load: {} acknowledged, {finals} final refusals, {gave_up} gave up", acked.len());
    Ok(())
}

/// One scenario's verdicts.
struct Verdicts {
    oversell: Result<String, String>,
    duplicates: Result<String, String>,
    acknowledged: Result<String, String>,
    conserved: Result<String, String>,
    drift: Result<String, String>,
    /// Nobody was logged out: no shopper was asked to log in again, every session still live.
    sessions: Result<String, String>,
    /// Check-ins, likes, follows (with the feed), today's visitors (as of the last copy to Postgres).
    facts: [Result<String, String>; 4],
}

fn verdict(ok: bool, detail: String) -> Result<String, String> {
    if ok { Ok(detail) } else { Err(detail) }
}

/// The ids among `ids` that `sql` (one `= ANY($1)` query) finds.
async fn ids_among(db: &sqlx::PgPool, sql: &str, ids: &[i64]) -> Result<HashSet<i64>, String> {
    let found: Vec<i64> = sqlx::query_scalar(sql).bind(ids).fetch_all(db).await.map_err(|e| e.to_string())?;
    Ok(found.into_iter().collect())
}

async fn check(state: &AppState, dir: &Path, scenario: &str) -> Result<bool, String> {
    let p = read_prepared(dir)?;
    let acked: Vec<(i64, i64)> = std::fs::read_to_string(dir.join("acked"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' ').and_then(|(u, o)| Some((u.parse().ok()?, o.parse().ok()?))))
        .collect();
    let answers = std::fs::read_to_string(dir.join("answers.jsonl")).unwrap_or_default().lines().count();
    let ids: Vec<i64> = acked.iter().map(|(_, o)| *o).collect();
    let db = &state.db;
    let q = |e: sqlx::Error| e.to_string();

    // Every acknowledged order is written or recorded as failed, within the drain time.
    let started = Instant::now();
    let (written, failed) = loop {
        let written = ids_among(db, "SELECT id FROM orders WHERE id = ANY($1)", &ids).await?;
        let failed = ids_among(db, "SELECT order_id FROM order_failures WHERE order_id = ANY($1)", &ids).await?;
        if written.len() + failed.len() >= ids.len() || started.elapsed() > Duration::from_secs(60) {
            break (written, failed);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let drain = started.elapsed();
    let mut shown_failed = 0;
    for (user, order) in acked.iter().filter(|(_, o)| failed.contains(o)) {
        if matches!(app::orders::writer::status(state, *user, *order).await, Ok(OrderStatus::Failed(_))) {
            shown_failed += 1;
        }
    }
    let missing = ids.len() - written.len() - failed.len();
    if missing > 0 {
        explain_lost(state, &acked, &written, &failed).await;
    }

    // Drift back to 0: the healer and the stranded-grab sweeper have had their time.
    let started = Instant::now();
    let drift = loop {
        let sales = app::seckill::service::audit(state, None).await.map_err(|e| e.to_string())?;
        let drift = sales.iter().find(|s| s.voucher_id == p.voucher).map_or(i64::MAX, |s| s.drift());
        if drift == 0 || started.elapsed() > Duration::from_secs(60) {
            break drift;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let settle = started.elapsed();

    let (live, rows, distinct, pg_stock): (i64, i64, i64, i32) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE o.status IN ('unpaid', 'paid', 'used')), count(*), count(DISTINCT o.user_id),
                (SELECT stock FROM vouchers WHERE id = $1)
         FROM orders o WHERE o.voucher_id = $1",
    )
    .bind(p.voucher)
    .fetch_one(db)
    .await
    .map_err(q)?;
    let v = Verdicts {
        oversell: verdict(live <= p.stock && pg_stock >= 0, format!("{live} sold of {}", p.stock)),
        duplicates: verdict(rows == distinct, format!("{rows} orders, {distinct} buyers")),
        // A "yours" is a promise: every acknowledged grab ends as a stored order (none refused later, as
        // a coupon sold twice would be), and no more are acknowledged than there are coupons.
        acknowledged: verdict(
            missing == 0 && failed.is_empty() && ids.len() as i64 <= p.stock,
            format!(
                "{} acked of {}: {} stored, {} failed ({shown_failed} shown), {missing} lost",
                ids.len(),
                p.stock,
                written.len(),
                failed.len()
            ),
        ),
        conserved: verdict(
            i64::from(pg_stock) + live == p.stock,
            format!("{pg_stock} left + {live} sold = {}", i64::from(pg_stock) + live),
        ),
        drift: verdict(drift == 0, format!("{drift} after {:.1} s", settle.as_secs_f64())),
        sessions: sessions_kept(state, dir, &p.users).await?,
        facts: serde_json::from_str::<Facts>(
            &std::fs::read_to_string(dir.join("facts.json")).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?
        .check(state)
        .await?,
    };
    let [checkins, likes, follows, visitors] = &v.facts;
    let cells = [
        &v.oversell,
        &v.duplicates,
        &v.acknowledged,
        &v.conserved,
        &v.drift,
        &v.sessions,
        checkins,
        likes,
        follows,
        visitors,
    ];
    let all_ok = cells.iter().all(|c| c.is_ok());
    let cell = |c: &Result<String, String>| match c {
        Ok(d) => format!("ok ({d})"),
        Err(d) => format!("FAIL ({d})"),
    };
    let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
    let row = format!("| {scenario} | {answers} | {} | {:.1} s |", cells.join(" | "), drain.as_secs_f64());
    println!("{row}");
    let mut table = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.parent().unwrap_or(dir).join("table.md"))
        .map_err(|e| e.to_string())?;
    writeln!(table, "{row}").map_err(|e| e.to_string())?;
    Ok(all_ok)
}

/// The sessions verdict: no answer asked a shopper to log in again (401), and every shopper's session is
/// still there (read from Redis or, should Redis have lost it, from Postgres).
async fn sessions_kept(
    state: &AppState,
    dir: &Path,
    users: &[(i64, String)],
) -> Result<Result<String, String>, String> {
    use tower_sessions::SessionStore;
    let answers = std::fs::read_to_string(dir.join("answers.jsonl")).unwrap_or_default();
    let relogins = answers.lines().filter(|l| l.contains("\"status\":401")).count();
    let store = app::web::session::durable_uncached(state);
    let mut live = 0;
    for (_, cookie) in users {
        let Ok(id) = cookie.parse::<tower_sessions::session::Id>() else { continue };
        live += usize::from(store.load(&id).await.map_err(|e| e.to_string())?.is_some());
    }
    Ok(verdict(
        relogins == 0 && live == users.len(),
        format!("{live}/{} live, {relogins} asked to log in again", users.len()),
    ))
}

/// Says on stderr where the acknowledged orders that are neither stored nor failed are, so a failed run
/// tells its reader which promise broke: an order id acknowledged to two shoppers, an order still waiting
/// in Kafka for the writer (a stalled consumer), or one that is nowhere (acknowledged, never produced).
async fn explain_lost(state: &AppState, acked: &[(i64, i64)], written: &HashSet<i64>, failed: &HashSet<i64>) {
    let mut seen = HashSet::new();
    let shared = acked.iter().filter(|(_, o)| !seen.insert(*o)).count();
    let lost: Vec<&(i64, i64)> = acked.iter().filter(|(_, o)| !written.contains(o) && !failed.contains(o)).collect();
    // Past a group's committed offsets: the writer's (waiting for it), and a group that never committed
    // (the whole topic: whether the order was ever produced at all).
    let among = |group: String| {
        let lost = &lost;
        async move {
            match app::platform::kafka::unconsumed_orders(&state.config, &group).await {
                Ok(orders) => {
                    let found: HashSet<i64> = orders.iter().map(|o| o.order_id).collect();
                    lost.iter().filter(|(_, o)| found.contains(o)).count().to_string()
                }
                Err(e) => format!("unknown ({e})"),
            }
        }
    };
    let writer = app::orders::writer::group(&state.config);
    let waiting = among(writer.clone()).await;
    let in_topic = among(format!("chaos-judge-{}", app::shared::clock::now_ms())).await;
    let sample: Vec<String> = lost.iter().take(10).map(|(u, o)| format!("user {u} order {o}")).collect();
    eprintln!(
        "{} acknowledged orders neither stored nor failed: {in_topic} of them in the orders topic at all, \
         {waiting} past the offsets of {writer} (not consumed yet); {shared} order ids acknowledged twice; \
         e.g. {}",
        lost.len(),
        sample.join(", ")
    );
}

/// One answer as `load` logged it.
#[derive(serde::Deserialize)]
struct Answer {
    user: i64,
    status: u16,
    body: String,
}

/// The `answers` verdict: counts per status, then whether every answer was clear and every retry completed.
fn answers(dir: &Path, scenario: &str) -> Result<bool, String> {
    let text = std::fs::read_to_string(dir.join("answers.jsonl")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut by_status = std::collections::BTreeMap::<u16, usize>::new();
    let mut unclear = Vec::new();
    // Each shopper's answers in order: whether they were ever refused for a moment, and how they ended.
    let mut shoppers = std::collections::HashMap::<i64, (bool, u16)>::new();
    for line in text.lines() {
        let a: Answer = serde_json::from_str(line).map_err(|e| format!("answers.jsonl: {e}"))?;
        *by_status.entry(a.status).or_default() += 1;
        // A refusal the shopper can act on: "try again" with a reason. A 401 asks them to log in again.
        let clear = match a.status {
            200 | 400 | 401 => true,
            429 | 503 => a.body.trim().starts_with('{') && a.body.len() > 10,
            _ => false,
        };
        if !clear && unclear.len() < 5 {
            unclear.push(format!("{} {}", a.status, a.body.chars().take(80).collect::<String>()));
        }
        let entry = shoppers.entry(a.user).or_insert((false, 0));
        entry.0 |= matches!(a.status, 0 | 429 | 500..);
        entry.1 = a.status;
    }
    let refused = shoppers.values().filter(|(refused, _)| *refused).count();
    let stuck = shoppers.values().filter(|(refused, last)| *refused && !matches!(last, 200 | 400)).count();
    let counts: Vec<String> = by_status.iter().map(|(s, n)| format!("{s} ×{n}")).collect();
    let unclear_n: usize =
        by_status.iter().filter(|(s, _)| !matches!(s, 200 | 400 | 401 | 429 | 503)).map(|(_, n)| n).sum();
    let ok = unclear.is_empty() && stuck == 0;
    let row = format!(
        "| {scenario} | {} | {} | {} |",
        counts.join(", "),
        if unclear.is_empty() {
            "ok (every refusal a 503/429 with a message)".to_string()
        } else {
            format!("FAIL ({unclear_n} unclear: {})", unclear.join("; "))
        },
        if stuck == 0 {
            format!("ok ({refused} shoppers refused for a moment, all got a final answer)")
        } else {
            format!("FAIL ({stuck} of {refused} refused shoppers never got a final answer)")
        },
    );
    println!("{row}");
    Ok(ok)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Reading the answers needs no services.
    if let (Some("answers"), Some(dir)) = (args.first().map(String::as_str), args.get(1)) {
        let scenario = args.get(2).cloned().unwrap_or_else(|| "?".into());
        return if answers(Path::new(dir), &scenario)? {
            Ok(())
        } else {
            Err(format!("{scenario}: an answer was unclear or a shopper was left without one"))
        };
    }
    let config = Config::from_env().map_err(|e| e.to_string())?;
    let options = leptos::prelude::LeptosOptions::builder().output_name("haodian").build();
    let state = app::start::connect(config, options).await.map_err(|e| e.to_string())?;
    let num = |i: usize| -> Result<u64, String> {
        args.get(i).and_then(|a| a.parse().ok()).ok_or_else(|| format!("argument {i} must be a number"))
    };
    let dir = PathBuf::from(args.get(1).ok_or("usage: chaos prepare|load|check <dir> …")?);
    match args.first().map(String::as_str) {
        Some("prepare") => prepare(&state, &dir, num(2)? as i32, num(3)? as usize).await,
        Some("load") => load(&state, &dir, num(2)?).await,
        Some("check") => {
            let scenario = args.get(2).cloned().unwrap_or_else(|| "?".into());
            if check(&state, &dir, &scenario).await? { Ok(()) } else { Err(format!("{scenario}: a check failed")) }
        }
        _ => Err("usage: chaos prepare <dir> <stock> <users> | load <dir> <seconds> | check <dir> <scenario> \
             | answers <dir> <scenario>"
            .into()),
    }
}
