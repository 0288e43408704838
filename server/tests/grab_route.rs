//! The grab's own route (server/src/grab.rs), through the real router on real Redis, Postgres and Kafka:
//! it answers a settled shopper's grab exactly as the server function behind the session layer would, and
//! hands on every grab whose session that layer must read, renew or end.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;
use tower_sessions::SessionStore;
use tower_sessions::session::{Id, Record};

use app::testing::{seed_flash_sale, seed_users, test_instances};
use app::web::session::SessionPolicy;
use app::web::state::AppState;
use server::router::SESSION_COOKIE;

/// A grab as the page's script sends it, with `cookie` as the whole `Cookie` header.
fn grab(form: &str, cookie: &str) -> Request<Body> {
    Request::post("/api/seckill/grab")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .header(header::COOKIE, cookie)
        .body(Body::from(form.to_string()))
        .unwrap()
}

/// The cookie that names session `sid` once: the route may answer.
fn once(sid: &str) -> String {
    format!("{SESSION_COOKIE}={sid}")
}

/// The cookie that names session `sid` twice: the route hands the grab on, and the session layer reads `sid`.
fn twice(sid: &str) -> String {
    format!("{SESSION_COOKIE}={sid}; {SESSION_COOKIE}={sid}")
}

/// Everything of an answer a client can read but the session's own cookie: status, the headers the server
/// function sets, and the body.
#[derive(Debug, PartialEq)]
struct Answer {
    status: StatusCode,
    content_type: Option<String>,
    error_mark: Option<String>,
    retry_after: Option<String>,
    body: String,
}

async fn answer(resp: Response<Body>) -> Answer {
    let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let (status, content_type, error_mark, retry_after) =
        (resp.status(), header("content-type"), header("serverfnerror"), header("retry-after"));
    let body = String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    Answer { status, content_type, error_mark, retry_after, body }
}

/// How many grabs `state`'s route has handed on so far.
fn handed_on(state: &AppState) -> u64 {
    state.metrics.seckill.handed_on.get()
}

/// A shopper's session minted on `state`, once the instance holds its copy settled.
async fn settled(state: &AppState, user: i64) -> String {
    let sid =
        app::web::session::mint(&app::web::session::durable(state), user, time::Duration::hours(1)).await.unwrap();
    wait_until_settled(state, &sid).await;
    sid
}

/// Waits until `state`'s copy of session `sid` is one the route answers for (the instance must be listening
/// for changes to keep copies; a read through the store puts one there).
async fn wait_until_settled(state: &AppState, sid: &str) {
    let id: Id = sid.parse().unwrap();
    let policy = SessionPolicy::from_config(&state.config);
    let started = Instant::now();
    while app::web::session::settled_shopper(&state.sessions, &id, &policy).await.is_none() {
        assert!(started.elapsed() < Duration::from_secs(5), "the instance never held the session");
        let _ = app::web::session::durable(state).load(&id).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn ready(db: &PgPool, n: usize) -> Vec<AppState> {
    ready_with(db, n, &[]).await
}

async fn ready_with(db: &PgPool, n: usize, overrides: &[(&str, &str)]) -> Vec<AppState> {
    let instances = test_instances(db.clone(), n, overrides).await;
    app::platform::kafka::ensure_topics(&instances[0].config).await.unwrap();
    for (voucher, stock) in [(81, 10), (82, 1)] {
        seed_flash_sale(db, voucher, stock, -60, 3600).await.unwrap();
    }
    app::seckill::service::restore_sales(&instances[0]).await.unwrap();
    instances
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_route_answers_as_the_server_function_behind_the_session_layer(db: PgPool) {
    let state = ready(&db, 1).await.remove(0);
    let router = server::router::build(state.clone());
    let users = seed_users(&db, 81, 2).await.unwrap();
    let sid = settled(&state, users[0]).await;

    // A coupon taken by the route comes back as the order id, in JSON.
    let before = handed_on(&state);
    let taken = answer(router.clone().oneshot(grab("voucher_id=81", &once(&sid))).await.unwrap()).await;
    assert_eq!(handed_on(&state), before, "the route answered it");
    assert_eq!(taken.status, StatusCode::OK, "{taken:?}");
    assert_eq!(taken.content_type.as_deref(), Some("application/json"));
    assert_eq!(taken.error_mark, None);
    let order_id: i64 = serde_json::from_str(&taken.body).expect("the order id");
    assert!(order_id > 0);

    // Refusals, one way and the other: already bought, arguments that do not parse, a sale that does not
    // exist, a sold-out sale.
    let other = settled(&state, users[1]).await;
    let _ = router.clone().oneshot(grab("voucher_id=82", &once(&other))).await.unwrap();
    for form in ["voucher_id=81", "voucher_id=abc", "voucher_id=81&pass=a%20b&x=1", "voucher_id=999", "voucher_id=82"] {
        let before = handed_on(&state);
        let by_route = answer(router.clone().oneshot(grab(form, &once(&sid))).await.unwrap()).await;
        assert_eq!(handed_on(&state), before, "{form}: the route answered it");
        let whole_way = answer(router.clone().oneshot(grab(form, &twice(&sid))).await.unwrap()).await;
        assert_eq!(handed_on(&state), before + 1, "{form}: handed on");
        assert_eq!(by_route, whole_way, "{form}");
        assert!(by_route.status.is_client_error(), "{form}: {by_route:?}");
        assert_eq!(by_route.error_mark.as_deref(), Some("/api/seckill/grab"), "{form}");
    }

    // One coupon per shopper, whichever way the grabs went: the whole way first, then the route.
    let third = seed_users(&db, 82, 1).await.unwrap()[0];
    let sid3 = settled(&state, third).await;
    let first = router.clone().oneshot(grab("voucher_id=81", &twice(&sid3))).await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let again = answer(router.clone().oneshot(grab("voucher_id=81", &once(&sid3))).await.unwrap()).await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST, "{again:?}");
    let (stock, _) = app::sale::inventory::sale_state(&state.redis, &state.keys, 81).await.unwrap();
    assert_eq!(stock, Some(8), "two coupons taken, by two shoppers");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn grabs_whose_session_needs_the_session_layer_go_the_whole_way(db: PgPool) {
    let state = ready(&db, 1).await.remove(0);
    let router = server::router::build(state.clone());
    let users = seed_users(&db, 83, 3).await.unwrap();

    // A form posted without JavaScript goes the whole way, and back to its page.
    let sid = settled(&state, users[0]).await;
    let before = handed_on(&state);
    let form = Request::post("/api/seckill/grab")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "text/html,application/xhtml+xml")
        .header(header::REFERER, "http://localhost/shops/1")
        .header(header::COOKIE, once(&sid))
        .body(Body::from("voucher_id=81"))
        .unwrap();
    let resp = router.clone().oneshot(form).await.unwrap();
    assert_eq!(handed_on(&state), before + 1);
    assert_eq!(resp.status(), StatusCode::FOUND);
    let back = resp.headers().get(header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or_default();
    assert!(back.starts_with("http://localhost/shops/1"), "sent back to {back}");

    // A login past its absolute lifetime: refused with 401, and the session is ended.
    let policy = SessionPolicy::from_config(&state.config);
    let now = app::shared::clock::now_ms();
    let old_login = now - policy.max_age.as_millis() as i64 - 1_000;
    let sid = record(&state, users[1], old_login, now).await;
    let before = handed_on(&state);
    let resp = answer(router.clone().oneshot(grab("voucher_id=81", &once(&sid))).await.unwrap()).await;
    assert_eq!(handed_on(&state), before + 1);
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{resp:?}");
    let id: Id = sid.parse().unwrap();
    assert!(app::web::session::durable_uncached(&state).load(&id).await.unwrap().is_none(), "the session ended");

    // A session due its renewal goes the whole way once, is renewed there, and its next grab is the route's.
    let quarter = (policy.ttl / 4).as_millis() as i64;
    let sid = record(&state, users[2], now - quarter - 1_000, now - quarter - 1_000).await;
    let before = handed_on(&state);
    let resp = router.clone().oneshot(grab("voucher_id=999", &once(&sid))).await.unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert_eq!(handed_on(&state), before + 1, "renewed by the session layer");
    wait_until_settled(&state, &sid).await;
    let resp = router.clone().oneshot(grab("voucher_id=999", &once(&sid))).await.unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert_eq!(handed_on(&state), before + 1, "then answered by the route");

    // No session at all: the whole way's 401.
    let resp = router.clone().oneshot(grab("voucher_id=81", "lang=en")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_logout_on_another_instance_is_honoured_by_the_route(db: PgPool) {
    let instances = ready(&db, 2).await;
    let (a, b) = (&instances[0], &instances[1]);
    let router_b = server::router::build(b.clone());
    let user = seed_users(&db, 84, 1).await.unwrap()[0];
    let sid = settled(b, user).await;
    let before = handed_on(b);
    let resp = router_b.clone().oneshot(grab("voucher_id=999", &once(&sid))).await.unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND, "a shopper, answered by the route");
    assert_eq!(handed_on(b), before);

    // Logged out on A: B's route stops answering for the session within moments, and the whole way says 401.
    app::web::session::durable(a).delete(&sid.parse().unwrap()).await.unwrap();
    let started = Instant::now();
    loop {
        let resp = router_b.clone().oneshot(grab("voucher_id=81", &once(&sid))).await.unwrap();
        if resp.status() == StatusCode::UNAUTHORIZED {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(2), "B still grabs for a session logged out on A");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (stock, _) = app::sale::inventory::sale_state(&b.redis, &b.keys, 81).await.unwrap();
    assert_eq!(stock, Some(10), "nothing taken for the logged-out session");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_shopper_whose_page_another_instance_served_is_answered_by_the_route(db: PgPool) {
    let instances = ready(&db, 2).await;
    let (a, b) = (&instances[0], &instances[1]);
    let router_b = server::router::build(b.clone());
    let users = seed_users(&db, 86, 2).await.unwrap();
    let policy = SessionPolicy::from_config(&b.config);

    // Logged in on A, where the page was served: B holds no copy, reads the session itself and takes the
    // coupon on its route, and keeps a copy for the shopper's next call.
    let sid = settled(a, users[0]).await;
    let id: Id = sid.parse().unwrap();
    assert!(app::web::session::settled_shopper(&b.sessions, &id, &policy).await.is_none(), "B holds no copy");
    let before = handed_on(b);
    let taken = answer(router_b.clone().oneshot(grab("voucher_id=81", &once(&sid))).await.unwrap()).await;
    assert_eq!(taken.status, StatusCode::OK, "{taken:?}");
    assert_eq!(handed_on(b), before, "answered by the route");
    let started = Instant::now();
    while app::web::session::settled_shopper(&b.sessions, &id, &policy).await.is_none() {
        assert!(started.elapsed() < Duration::from_secs(5), "B kept no copy of the session it read");
        // B keeps copies only while it listens for changes; until then each grab reads the session again.
        let _ = router_b.clone().oneshot(grab("voucher_id=999", &once(&sid))).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // A session Redis lost (a restart): read back from Postgres, as the session layer would, and answered.
    let lost = settled(a, users[1]).await;
    let mut redis = b.redis.clone();
    let _: i64 = redis::AsyncCommands::del(&mut redis, b.keys.session(&lost)).await.unwrap();
    let taken = answer(router_b.clone().oneshot(grab("voucher_id=81", &once(&lost))).await.unwrap()).await;
    assert_eq!(taken.status, StatusCode::OK, "{taken:?}");
    assert_eq!(handed_on(b), before, "answered by the route");

    // A cookie naming no session: nothing to answer for, so the whole way's 401.
    let unknown = Id::default().to_string();
    let resp = router_b.clone().oneshot(grab("voucher_id=81", &once(&unknown))).await.unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(handed_on(b), before + 1);
    let (stock, _) = app::sale::inventory::sale_state(&b.redis, &b.keys, 81).await.unwrap();
    assert_eq!(stock, Some(8), "two coupons taken, one each");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_gate_comes_before_the_route_reads_a_session_and_counts_a_grab_once(db: PgPool) {
    // One grab a second, in bursts of one.
    let instances = ready_with(&db, 2, &[("GRAB_ADMIT_PER_SEC", "1")]).await;
    let (a, b) = (&instances[0], &instances[1]);
    let router_b = server::router::build(b.clone());
    let users = seed_users(&db, 87, 21).await.unwrap();
    let read = |state: &AppState| state.metrics.seckill.sessions_read.get();

    // A session due its renewal, which B holds no copy of: the route lets it through the gate, reads it,
    // and hands it on to the session layer, whose gate does not take a second grab's room for it.
    let policy = SessionPolicy::from_config(&b.config);
    let now = app::shared::clock::now_ms();
    let quarter = (policy.ttl / 4).as_millis() as i64;
    let due = record(a, users[0], now - quarter - 1_000, now - quarter - 1_000).await;
    let (before_read, before_on) = (read(b), handed_on(b));
    let resp = answer(router_b.clone().oneshot(grab("voucher_id=999", &once(&due))).await.unwrap()).await;
    assert_eq!((read(b), handed_on(b)), (before_read + 1, before_on + 1), "read, then handed on");
    assert_eq!(resp.status, StatusCode::NOT_FOUND, "answered by the server function, not shed: {resp:?}");

    // Shoppers B holds no copy of, faster than the gate's one a second: those shed read no session.
    let mut shed = 0;
    for &user in &users[1..] {
        let sid = settled(a, user).await;
        let before = read(b);
        let resp = router_b.clone().oneshot(grab("voucher_id=81", &once(&sid))).await.unwrap();
        if resp.status() == StatusCode::TOO_MANY_REQUESTS {
            assert_eq!(read(b), before, "a shed grab read its session");
            shed += 1;
        } else {
            assert_eq!(read(b), before + 1);
        }
    }
    assert!(shed > 0, "20 grabs in a row and the gate at one a second shed none");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn with_the_redis_breaker_open_the_route_refuses_as_the_session_layer_would(db: PgPool) {
    let instances = ready(&db, 2).await;
    let (a, b) = (&instances[0], &instances[1]);
    let router_b = server::router::build(b.clone());
    let user = seed_users(&db, 85, 1).await.unwrap()[0];
    // Logged in on A: B holds no copy, so its session layer would read Redis.
    let sid = settled(a, user).await;
    while b.breakers.redis.state() != app::platform::breaker::BreakerState::Open {
        b.breakers.redis.failure();
    }

    let before = handed_on(b);
    let by_route = answer(router_b.clone().oneshot(grab("voucher_id=81", &once(&sid))).await.unwrap()).await;
    assert_eq!(handed_on(b), before, "answered by the route");
    let whole_way = answer(router_b.clone().oneshot(grab("voucher_id=81", &twice(&sid))).await.unwrap()).await;
    assert_eq!(handed_on(b), before + 1);
    assert_eq!(by_route.status, StatusCode::SERVICE_UNAVAILABLE, "{by_route:?}");
    // The same answer but for the wait, which may have crossed a second between the two.
    let waits = [&by_route, &whole_way].map(|a| a.retry_after.as_deref().and_then(|s| s.parse::<u64>().ok()));
    assert!(waits.iter().all(|w| w.is_some_and(|w| (1..=5).contains(&w))), "{waits:?}");
    let without_wait = |a: Answer| Answer { retry_after: None, ..a };
    assert_eq!(without_wait(by_route), without_wait(whole_way));

    // Without a session there is nothing to read: the whole way's 401, breaker or not.
    let resp = router_b.clone().oneshot(grab("voucher_id=81", "lang=en")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    let (stock, _) = app::sale::inventory::sale_state(&a.redis, &a.keys, 81).await.unwrap();
    assert_eq!(stock, Some(10), "nothing taken");
}

/// A shopper's session with its login and its last renewal at the given times (unix ms), in the store.
async fn record(state: &AppState, user: i64, login_at: i64, renewed_at: i64) -> String {
    let mut data = std::collections::HashMap::new();
    data.insert("uid".to_string(), serde_json::Value::from(user));
    data.insert("login_at".to_string(), serde_json::Value::from(login_at));
    data.insert("renewed_at".to_string(), serde_json::Value::from(renewed_at));
    let mut record =
        Record { id: Id::default(), data, expiry_date: time::OffsetDateTime::now_utc() + time::Duration::hours(1) };
    app::web::session::durable(state).create(&mut record).await.unwrap();
    record.id.to_string()
}
