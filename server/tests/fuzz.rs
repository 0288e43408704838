//! Every server function and HTTP route fuzzed through the real router: for each, `FUZZ_CASES` (1,000)
//! inputs generated from the arguments that work (`support::table`) — a field replaced by something
//! hostile (malformed percent-encodings, huge and empty values, NUL and control characters, bidi and
//! combining marks, numbers at and past the edges), fields dropped, repeated or added, bodies of random
//! bytes, wrong content types — sent as anonymous, a shopper and the owner. Each must be answered below
//! 500, without a panic, and an input answered 4xx must have written nothing to Postgres (every table's
//! writes are counted by a trigger; sessions, whose expiry slides on any request, aside). The generator is
//! seeded (`FUZZ_SEED`), so a failure replays; the inputs each function received are printed and written,
//! one table per shard, to `fuzz-report-{1..4}.md` in the build directory's `tmp/` (`CARGO_TARGET_TMPDIR`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use http_body_util::BodyExt;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use sqlx::PgPool;
use tower::ServiceExt;

use app::testing::test_state;
use server::router::SESSION_COOKIE;

use crate::support::{fill, table, world};

/// Values that break parsers: empty and blank, huge, control and invisible characters, numbers at and
/// past every edge, and things that mean something elsewhere (markup, SQL, paths, JSON).
const HOSTILE: &[&str] = &[
    "",
    " ",
    "\t\r\n",
    "\0",
    "a\0b",
    "\u{1}\u{7}\u{1b}[31m",
    "\u{202E}gpj.exe",
    "\u{2066}x\u{2069}",
    "e\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}",
    "\u{200B}\u{FEFF}",
    "\u{FFFD}",
    "😀👨‍👩‍👧‍👦",
    "-1",
    "0",
    "-0",
    "1.5",
    "1e309",
    "-1e309",
    "NaN",
    "inf",
    "0x10",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "00000000000000000000001",
    "true",
    "null",
    "[]",
    "{}",
    "{\"a\":1}",
    "<script>alert(1)</script>",
    "' OR '1'='1' --",
    "../../../../etc/passwd",
    "/uploads/%2e%2e/x.png",
    "javascript:alert(1)",
    "//evil.example",
    "2026-02-30T25:61",
    "9999-12-31T23:59",
    "0000-01-01",
];

/// A generated value: one of [`HOSTILE`], a long run of one, random characters, or random bytes.
fn value(rng: &mut StdRng) -> String {
    match rng.gen_range(0..10) {
        0..=4 => HOSTILE.choose(rng).map(|s| (*s).to_string()).unwrap_or_default(),
        5 => HOSTILE.choose(rng).map(|s| s.repeat(rng.gen_range(100..20_000))).unwrap_or_default(),
        6 => (0..rng.gen_range(1..64)).map(|_| char::from_u32(rng.gen_range(0..0x3_0000)).unwrap_or('?')).collect(),
        7 => rng.gen_range(i64::MIN..=i64::MAX).to_string(),
        8 => format!("{}", rng.gen_range(-1e12..1e12)),
        _ => (0..rng.gen_range(1..64)).map(|_| rng.r#gen::<u8>() as char).collect(),
    }
}

/// `s` percent-encoded for a form body or a query string.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The longest query generated: a request line past 64 KiB is no URI `http` can build (and one a front
/// proxy refuses before we see it).
const MAX_QUERY: usize = 16 * 1024;

/// A generated body as a query string: every byte a URI cannot carry as it is percent-encoded, the rest
/// (malformed escapes included) left for the server to judge.
fn query_safe(body: &[u8]) -> String {
    body.iter()
        .map(|&b| match b {
            b'!'..=b'~' if !matches!(b, b'"' | b'#' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}') => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A form's fields, as the table writes them (already encoded).
fn fields(args: &str) -> Vec<(String, String)> {
    args.split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (kv.to_string(), String::new()),
        })
        .collect()
}

/// One generated input: the body (or query) and its content type.
struct Input {
    body: Vec<u8>,
    content_type: Option<&'static str>,
}

/// Mutates the working arguments `args` into one input.
fn mutate(rng: &mut StdRng, args: &str) -> Input {
    let mut form = fields(args);
    let form_type = Some("application/x-www-form-urlencoded");
    let join = |form: &[(String, String)]| form.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
    match rng.gen_range(0..12) {
        // One field hostile (most inputs: the others stay valid, so the hostile one is what is judged).
        0..=4 if !form.is_empty() => {
            let i = rng.gen_range(0..form.len());
            form[i].1 = encode(&value(rng));
            Input { body: join(&form).into_bytes(), content_type: form_type }
        }
        5 => {
            for f in &mut form {
                f.1 = encode(&value(rng));
            }
            Input { body: join(&form).into_bytes(), content_type: form_type }
        }
        6 if !form.is_empty() => {
            form.remove(rng.gen_range(0..form.len()));
            Input { body: join(&form).into_bytes(), content_type: form_type }
        }
        7 if !form.is_empty() => {
            let again = (form[rng.gen_range(0..form.len())].0.clone(), encode(&value(rng)));
            form.push(again);
            form.shuffle(rng);
            Input { body: join(&form).into_bytes(), content_type: form_type }
        }
        8 => {
            form.push((encode(&value(rng)), encode(&value(rng))));
            Input { body: join(&form).into_bytes(), content_type: form_type }
        }
        // Malformed percent-encodings and raw bytes that are not UTF-8.
        9 => {
            let mut body = join(&form).into_bytes();
            let junk: &[&[u8]] = &[b"%", b"%zz", b"%f", b"%FF%FE", b"\xff\xfe\x00", b"=&=&&==", b"%00", b"+%2B+"];
            body.extend_from_slice(junk.choose(rng).copied().unwrap_or(b"%"));
            Input { body, content_type: form_type }
        }
        10 => {
            let body = (0..rng.gen_range(0..4096)).map(|_| rng.r#gen::<u8>()).collect();
            Input { body, content_type: [form_type, None].choose(rng).copied().flatten() }
        }
        // The right fields under the wrong content type.
        _ => {
            let types = ["application/json", "text/plain", "multipart/form-data; boundary=x", "application/cbor"];
            let body = if rng.gen_bool(0.5) {
                serde_json::to_vec(&form.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<BTreeMap<_, _>>())
                    .unwrap_or_default()
            } else {
                join(&form).into_bytes()
            };
            Input { body, content_type: types.choose(rng).copied() }
        }
    }
}

/// Counts every row written to a table of ours, except the sessions (a request's activity slides their
/// expiry, whatever it is answered) and the order-id leases (renewed in the background).
async fn count_writes(db: &PgPool) {
    sqlx::raw_sql(
        "CREATE TABLE fuzz_writes (n BIGINT NOT NULL);
         INSERT INTO fuzz_writes VALUES (0);
         CREATE FUNCTION fuzz_count() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN UPDATE fuzz_writes SET n = n + 1; RETURN NULL; END $$;
         DO $$ DECLARE t text; BEGIN
           FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public'
                    AND tablename NOT IN ('fuzz_writes', 'sessions', 'id_leases', '_sqlx_migrations') LOOP
             EXECUTE format('CREATE TRIGGER fuzz_count AFTER INSERT OR UPDATE OR DELETE ON %I
                             FOR EACH ROW EXECUTE FUNCTION fuzz_count()', t);
           END LOOP;
         END $$;",
    )
    .execute(db)
    .await
    .unwrap();
}

async fn writes(db: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT n FROM fuzz_writes").fetch_one(db).await.unwrap()
}

/// What one target received and how it answered.
#[derive(Default)]
struct Tally {
    inputs: u32,
    ok: u32,
    refused: u32,
}

/// The plain routes (not server functions), with `{}` where generated text goes.
const ROUTES: &[&str] = &[
    "/api/v1/shops/{}",
    "/api/v1/stock?sales={}",
    "/merchant/shops/{}/orders.csv?status={}&from={}",
    "/shops/{}",
    "/shops/{}/edit",
    "/notes/{}",
    "/users/{}",
    "/types/{}?sort={}&page={}",
    "/search?q={}&page={}",
    "/nearby?type={}&lon={}&lat={}",
    "/login?next={}",
    "/merchant/sales/{}",
    "/uploads/{}",
];

/// The run is cut into shards that nextest runs side by side, each in a process of its own (a single one
/// took 200 s on one core); every target falls in exactly one, by its place in the list.
const SHARDS: usize = 4;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn every_server_function_and_route_survives_generated_input_shard_1(db: PgPool) {
    fuzz(db, 0).await;
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn every_server_function_and_route_survives_generated_input_shard_2(db: PgPool) {
    fuzz(db, 1).await;
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn every_server_function_and_route_survives_generated_input_shard_3(db: PgPool) {
    fuzz(db, 2).await;
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn every_server_function_and_route_survives_generated_input_shard_4(db: PgPool) {
    fuzz(db, 3).await;
}

/// Fuzzes the targets of shard `shard`: the table's rows, the plain routes, then uploads, numbered in that
/// order, those whose number is `shard` modulo [`SHARDS`].
async fn fuzz(db: PgPool, shard: usize) {
    let mine = |target: usize| target % SHARDS == shard;
    let cases: u32 = std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000);
    let seed: u64 = std::env::var("FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(20_261_203);
    let settings = [
        ("IP_RATE_LIMIT", "100000000"),
        ("LOGIN_MAX_FAILURES", "100000"),
        ("ABUSE_LIMIT_FACTOR", "100000"),
        ("LOGIN_CODE_COOLDOWN_SECS", "0"),
    ];
    let state = test_state(db.clone(), &settings).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let w = world(&state, &db).await;
    count_writes(&db).await;
    let router: Router = server::router::build(state.clone());
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut broken = Vec::new();

    let mut send = async |target: &str, req: Request<Body>, what: String| {
        let before = writes(&db).await;
        let resp = router.clone().oneshot(req).await.unwrap();
        let status = resp.status().as_u16();
        // A live stream (the stock's server-sent events) never ends: its status is the answer.
        let streaming =
            resp.headers().get(header::CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
        let body = if streaming {
            Default::default()
        } else {
            resp.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default()
        };
        let tally = tallies.entry(target.to_string()).or_default();
        tally.inputs += 1;
        if status >= 500 {
            broken.push(format!(
                "{target}: {status} for {what}: {}",
                String::from_utf8_lossy(&body[..body.len().min(200)])
            ));
        } else if status >= 400 {
            tally.refused += 1;
            let after = writes(&db).await;
            if after != before {
                broken.push(format!("{target}: answered {status} yet wrote {} rows, for {what}", after - before));
            }
        } else {
            tally.ok += 1;
        }
    };

    let started = std::time::Instant::now();
    let rows = table();
    let (row_count, route_count) = (rows.len(), ROUTES.len());
    for row in rows.into_iter().enumerate().filter_map(|(i, row)| mine(i).then_some(row)) {
        // Ending a session mid-run would turn every later case anonymous.
        let callers: &[usize] = if row.path == "/api/auth/logout" { &[0] } else { &[0, 1, 3] };
        for case in 0..cases {
            let args = fill(row.args, &w, 10_000 + case as usize);
            let input = mutate(&mut rng, &args);
            let caller = callers[case as usize % callers.len()];
            let mut req = if row.get {
                Request::get(format!("{}?{}", row.path, query_safe(&input.body[..input.body.len().min(MAX_QUERY)])))
            } else {
                let mut req = Request::post(row.path);
                if let Some(ty) = input.content_type {
                    req = req.header(header::CONTENT_TYPE, ty);
                }
                req
            };
            req = req.header(header::ACCEPT, "application/json");
            if let Some(sid) = &w.sessions[caller] {
                req = req.header(header::COOKIE, format!("{SESSION_COOKIE}={sid}"));
            }
            let body = if row.get { Body::empty() } else { Body::from(input.body.clone()) };
            let Ok(req) = req.body(body) else { continue };
            let what = format!(
                "caller {caller}, body {:?}",
                String::from_utf8_lossy(&input.body[..input.body.len().min(160)])
            );
            send(row.path, req, what).await;
        }
        eprintln!("fuzz: {} done at {:.0?}", row.path, started.elapsed());
    }
    for route in ROUTES.iter().enumerate().filter_map(|(j, route)| mine(row_count + j).then_some(route)) {
        for case in 0..cases {
            let mut uri = String::new();
            for (i, part) in route.split("{}").enumerate() {
                if i > 0 {
                    let v = if case % 4 == 0 { w.sale.to_string() } else { value(&mut rng) };
                    let v = encode(&v);
                    uri.push_str(&v[..v.len().min(MAX_QUERY / 4)]);
                }
                uri.push_str(part);
            }
            let caller = [0, 1, 3][case as usize % 3];
            let mut req = Request::get(&uri).header(header::ACCEPT, "text/html,application/json");
            if let Some(sid) = &w.sessions[caller] {
                req = req.header(header::COOKIE, format!("{SESSION_COOKIE}={sid}"));
            }
            let Ok(req) = req.body(Body::empty()) else { continue };
            send(route, req, format!("caller {caller}, {uri:.200}")).await;
        }
        eprintln!("fuzz: {route} done at {:.0?}", started.elapsed());
    }
    // Uploads: multipart bodies with hostile parts, and what is not multipart at all.
    let uploads = if mine(row_count + route_count) { cases } else { 0 };
    for case in 0..uploads {
        let boundary = "fuzzboundary";
        let ty = ["image/png", "image/jpeg", "image/gif", "image/webp", "text/html", ""].choose(&mut rng).copied();
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n",
            ["file", "", "files[]"].choose(&mut rng).copied().unwrap_or("file"),
            value(&mut rng).replace(['"', '\r', '\n'], ""),
            ty.unwrap_or_default()
        )
        .into_bytes();
        let magic: &[&[u8]] = &[b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"RIFF\0\0\0\0WEBP", b""];
        body.extend_from_slice(magic.choose(&mut rng).copied().unwrap_or_default());
        body.extend((0..rng.gen_range(0..2048)).map(|_| rng.r#gen::<u8>()));
        if rng.gen_bool(0.8) {
            body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        }
        let content_type =
            if rng.gen_bool(0.9) { format!("multipart/form-data; boundary={boundary}") } else { value(&mut rng) };
        let caller = [0, 1, 3][case as usize % 3];
        let mut req = Request::post("/api/v1/uploads");
        if let Ok(v) = header::HeaderValue::from_str(&content_type) {
            req = req.header(header::CONTENT_TYPE, v);
        }
        if let Some(sid) = &w.sessions[caller] {
            req = req.header(header::COOKIE, format!("{SESSION_COOKIE}={sid}"));
        }
        let Ok(req) = req.body(Body::from(body)) else { continue };
        send("/api/v1/uploads", req, format!("caller {caller}, multipart case {case}")).await;
    }

    let mut report =
        format!("| target | inputs | answered 2xx/3xx | refused 4xx |\n|---|---:|---:|---:|\n<!-- seed {seed} -->\n");
    for (target, t) in &tallies {
        let _ = writeln!(report, "| `{target}` | {} | {} | {} |", t.inputs, t.ok, t.refused);
    }
    let total: u32 = tallies.values().map(|t| t.inputs).sum();
    let _ = writeln!(report, "| **{} targets** | **{total}** | | |", tallies.len());
    println!("{report}");
    let file = format!("fuzz-report-{}.md", shard + 1);
    let _ = std::fs::write(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(file), &report);
    // The authorization matrix checks that the table lists every server function; here, that this shard
    // reached each of its targets.
    let targets = (0..=row_count + route_count).filter(|t| mine(*t)).count();
    assert_eq!(tallies.len(), targets, "shard {} reached each of its targets", shard + 1);
    assert!(broken.is_empty(), "{} inputs broke a promise (seed {seed}):\n{}", broken.len(), broken.join("\n"));
    assert!(tallies.values().all(|t| t.inputs >= cases), "each got its {cases} inputs");
}
