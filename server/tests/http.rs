//! The auth server functions over HTTP through the real router: statuses, cookies, session cycling.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

use app::shared::i18n::{Locale, td_string};
use app::testing::test_state;
use app::web::state::AppState;
use server::router::SESSION_COOKIE;

async fn post(router: &Router, path: &str, form: &str, cookie: Option<&str>) -> Response<Body> {
    let mut req = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json");
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, format!("{SESSION_COOKIE}={c}"));
    }
    router.clone().oneshot(req.body(Body::from(form.to_string())).unwrap()).await.unwrap()
}

/// A real 1×1 PNG.
const DOT_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0x50, 0x0f, 0x00, 0x04, 0x85, 0x01, 0x80, 0x84, 0xa9, 0x8c,
    0x21, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

async fn body(resp: Response<Body>) -> String {
    String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

/// The session id from Set-Cookie, checking the cookie's security attributes on the way.
fn session_cookie(resp: &Response<Body>) -> Option<String> {
    let raw = resp.headers().get_all(header::SET_COOKIE).iter().find_map(|v| {
        let s = v.to_str().ok()?;
        s.starts_with(&format!("{SESSION_COOKIE}=")).then(|| s.to_string())
    })?;
    assert!(raw.contains("HttpOnly"), "{raw}");
    assert!(raw.contains("SameSite=Lax"), "{raw}");
    let value = raw.split(';').next()?.split_once('=')?.1.to_string();
    Some(value)
}

/// Signs up over HTTP as a browser does — the form, then the code the phone got — and returns the session
/// id it ends logged in with.
async fn sign_up(router: &Router, state: &AppState, phone: &str, nickname: &str) -> String {
    let form = format!("account={phone}&nickname={nickname}&password=secret2026&password_confirm=secret2026");
    let resp = post(router, "/api/auth/register", &form, None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let waiting = session_cookie(&resp).expect("the sign-up waits in a session");
    let outbox = app::platform::sms::outbox(&state.redis, &state.keys).await.unwrap();
    let text = outbox.into_iter().find(|m| m.phone == phone).expect("a code texted").text;
    let code = text.split(|c: char| !c.is_ascii_digit()).find(|w| w.len() == 6).expect("a code").to_string();
    let resp = post(router, "/api/auth/login-code", &format!("phone={phone}&code={code}"), Some(&waiting)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    session_cookie(&resp).expect("the code logs in")
}

async fn session_exists(state: &AppState, id: &str) -> bool {
    redis::cmd("EXISTS").arg(state.keys.session(id)).query_async(&mut state.redis.clone()).await.unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn login_cycles_the_session_and_logout_ends_it(db: PgPool) {
    let state = test_state(db, &[]).await;
    let router = server::router::build(state.clone());

    let first = sign_up(&router, &state, "13900000021", "Tester").await;
    assert!(session_exists(&state, &first).await);

    let resp = post(&router, "/api/auth/login", "account=13900000021&password=secret2026", Some(&first)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let second = session_cookie(&resp).expect("new cookie on login");
    assert_ne!(first, second, "session id cycled on login");
    assert!(!session_exists(&state, &first).await, "the old id is dead");
    assert!(session_exists(&state, &second).await);

    let me = body(post(&router, "/api/auth/me", "", Some(&second)).await).await;
    assert!(me.contains("\"nickname\":\"Tester\""), "{me}");
    let stale = body(post(&router, "/api/auth/me", "", Some(&first)).await).await;
    assert_eq!(stale, "null", "the pre-login id carries no login");

    let resp = post(&router, "/api/auth/logout", "", Some(&second)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(!session_exists(&state, &second).await);
    assert_eq!(body(post(&router, "/api/auth/me", "", Some(&second)).await).await, "null");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn api_errors_carry_http_statuses(db: PgPool) {
    let state = test_state(db, &[("LOGIN_MAX_FAILURES", "2")]).await;
    let router = server::router::build(state.clone());

    let resp = post(
        &router,
        "/api/auth/register",
        "account=nope&nickname=T1&password=secret2026&password_confirm=secret2026",
        None,
    )
    .await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body(resp).await.contains("account"));

    let form = "account=13900000022&nickname=Tester&password=secret2026&password_confirm=secret2026";
    assert_eq!(post(&router, "/api/auth/register", form, None).await.status(), StatusCode::OK);
    // Again at once: a code was just texted to that number (whether or not it has an account).
    assert_eq!(post(&router, "/api/auth/register", form, None).await.status(), StatusCode::TOO_MANY_REQUESTS);

    let wrong = "account=13900000022&password=wrong2026x";
    let resp = post(&router, "/api/auth/login", wrong, None).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert!(session_cookie(&resp).is_none(), "no session for a failed login");
    let resp = post(&router, "/api/auth/login", wrong, None).await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = resp.headers()[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!(retry > 0);
    let wait = app::auth::service::human_wait(Locale::zh_CN, retry);
    assert!(body(resp).await.contains(&td_string!(Locale::zh_CN, auth.err_locked, wait = wait)));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn healthz_reports_postgres_redis_and_kafka(db: PgPool) {
    let state = test_state(db, &[]).await;
    let admin = server::router::admin(state.clone());
    let resp = admin.oneshot(Request::get("/healthz").body(Body::empty()).unwrap()).await.unwrap();
    let status = resp.status();
    let json: serde_json::Value = serde_json::from_str(&body(resp).await).unwrap();
    assert_eq!(status, StatusCode::OK, "{json}");
    for dep in ["postgres", "redis", "kafka"] {
        assert_eq!(json[dep]["ok"], true, "{dep}: {json}");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn metrics_expose_shop_cache_counters(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    server::seed::run(&db, &state.redis, &state.keys, false).await.unwrap();
    let router = server::router::build(state.clone());
    for _ in 0..3 {
        let resp = post(&router, "/api/catalog/shop", "id=1", None).await;
        assert_eq!(resp.status(), StatusCode::OK);
    }
    let resp = post(&router, "/api/catalog/shop", "id=999999", None).await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND, "unknown shop is a 404 from the API");
    let admin = server::router::admin(state.clone());
    let resp = admin.oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    let text = body(resp).await;
    assert!(text.contains("haodian_cache_events_total{cache=\"shop\",event=\"requests\"} 4"), "{text}");
    assert!(text.contains("haodian_cache_events_total{cache=\"shop\",event=\"db_loads\"} 2"), "{text}");
    assert!(text.contains("haodian_cache_events_total{cache=\"shop\",event=\"l1_hits\"} 2"), "{text}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn json_shop_route_reads_through_the_cache(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    server::seed::run(&db, &state.redis, &state.keys, false).await.unwrap();
    let router = server::router::build(state);
    let get = |path: &str| Request::get(path).body(Body::empty()).unwrap();
    let resp = router.clone().oneshot(get("/api/v1/shops/1")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body(resp).await).unwrap();
    assert_eq!(json["id"], 1);
    let resp = router.clone().oneshot(get("/api/v1/shops/999999")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(body(resp).await.contains("Shop"));
    let resp = router.oneshot(get("/api/v1/shops/abc")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "a non-numeric id is the client's error");
}

/// The search page's server function orders by relevance unless asked otherwise — where the words come
/// first, not the best score — and by score when asked.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn search_over_http_orders_by_relevance_unless_asked_otherwise(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    sqlx::query("INSERT INTO shop_types (id, name, icon) VALUES (1, '火锅', '🍲')").execute(&db).await.unwrap();
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude, score)
         VALUES (1, '老王火锅', 1, '杭州市某路', 120.16, 30.25, 4.9), (2, '火锅小馆', 1, '杭州市某路', 120.16, 30.25, 3.1)",
    )
    .execute(&db)
    .await
    .unwrap();
    let router = server::router::build(state);
    let ids = |json: &str| -> Vec<i64> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["page"]["items"].as_array().unwrap().iter().map(|s| s["id"].as_i64().unwrap()).collect()
    };
    for (form, want) in [
        ("q=%E7%81%AB%E9%94%85&page=1", [2, 1]),
        ("q=%E7%81%AB%E9%94%85&sort=relevance&page=1", [2, 1]),
        ("q=%E7%81%AB%E9%94%85&sort=score&page=1", [1, 2]),
    ] {
        let resp = post(&router, "/api/catalog/search", form, None).await;
        assert_eq!(resp.status(), StatusCode::OK, "{form}");
        assert_eq!(ids(&body(resp).await), want, "{form}");
    }
}

/// Registers an account over HTTP and returns its session id and user id.
async fn register(router: &Router, state: &AppState, phone: &str) -> (String, i64) {
    let sid = sign_up(router, state, phone, "Buyer").await;
    let id =
        sqlx::query_scalar("SELECT id FROM users WHERE phone = $1").bind(phone).fetch_one(&state.db).await.unwrap();
    (sid, id)
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn grab_over_http_needs_a_login_and_answers_statuses(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let router = server::router::build(state.clone());
    app::testing::seed_flash_sale(&db, 77, 3, -60, 3600).await.unwrap();
    app::seckill::service::restore_sales(&state).await.unwrap();

    let resp = post(&router, "/api/seckill/grab", "voucher_id=77", None).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert!(body(resp).await.contains("LoginRequired"));
    assert_eq!(
        app::sale::inventory::sale_state(&state.redis, &state.keys, 77).await.unwrap(),
        (Some(3), 0),
        "nothing taken"
    );

    let (sid, _) = register(&router, &state, "13900000031").await;
    let resp = post(&router, "/api/seckill/grab", "voucher_id=77", Some(&sid)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let order_id: i64 = body(resp).await.parse().expect("the order id");
    let resp = post(&router, "/api/seckill/grab", "voucher_id=77", Some(&sid)).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body(resp).await.contains(td_string!(Locale::zh_CN, seckill.err_already_bought)));
    assert_eq!(post(&router, "/api/seckill/grab", "voucher_id=999", Some(&sid)).await.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        post(&router, "/api/seckill/grab", "voucher_id=abc", Some(&sid)).await.status(),
        StatusCode::BAD_REQUEST
    );

    // Not written yet (no writer running here): the status is "queued"; a stranger sees nothing more.
    let status = body(post(&router, "/api/orders/status", &format!("order_id={order_id}"), Some(&sid)).await).await;
    assert_eq!(status, "\"Queued\"");
    assert_eq!(post(&router, "/api/orders/mine", "", None).await.status(), StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn only_the_owner_creates_sales_and_stock_is_fixed_once_started(db: PgPool) {
    let state = test_state(db.clone(), &[("PAY_TIMEOUT_SECS", "900")]).await;
    let router = server::router::build(state.clone());
    app::testing::seed_shop(&db).await.unwrap();
    let (owner, owner_id) = register(&router, &state, "13900000032").await;
    let (stranger, _) = register(&router, &state, "13900000033").await;
    sqlx::query("UPDATE users SET role = 'merchant' WHERE id = $1").bind(owner_id).execute(&db).await.unwrap();
    sqlx::query("UPDATE shops SET owner_id = $1 WHERE id = 1").bind(owner_id).execute(&db).await.unwrap();

    // The sale's fields travel as the server function's `form` argument (serde_qs indexing).
    let form = "shop_id=1&form[title]=T&form[rules]=&form[pay]=9.9&form[actual]=100&form[stock]=20\
                &form[begin]=2099-01-01T10:00&form[end]=2099-01-01T12:00";
    assert_eq!(post(&router, "/api/seckill/create-sale", form, None).await.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(post(&router, "/api/seckill/create-sale", form, Some(&stranger)).await.status(), StatusCode::FORBIDDEN);
    let bad = form.replace("form[stock]=20", "form[stock]=0");
    let resp = post(&router, "/api/seckill/create-sale", &bad, Some(&owner)).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body(resp).await.contains("stock"));
    let vouchers: i64 = sqlx::query_scalar("SELECT count(*) FROM vouchers").fetch_one(&db).await.unwrap();
    assert_eq!(vouchers, 0, "refusals write nothing");

    let resp = post(&router, "/api/seckill/create-sale", form, Some(&owner)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let id: i64 = body(resp).await.parse().unwrap();
    let (stock, buyers) = app::sale::inventory::sale_state(&state.redis, &state.keys, id).await.unwrap();
    assert_eq!((stock, buyers), (Some(20), 0), "creation loads the Redis state in the same step");
    let end_ms = app::testing::sale_end_ms(&db, id).await.unwrap();
    let forget_at = app::seckill::service::forget_at_ms(&state, end_ms);
    assert_eq!(forget_at, end_ms + 15 * 60_000 + 24 * 3_600_000, "kept until its last order can close, plus a day");
    let expires_at = || async { app::testing::expires_at(&state.redis, &state.keys.seckill_stock(id)).await.unwrap() };
    assert_eq!(expires_at().await, forget_at);

    let resp = post(&router, "/api/seckill/change-stock", &format!("voucher_id={id}&stock=35"), Some(&owner)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(app::sale::inventory::sale_state(&state.redis, &state.keys, id).await.unwrap().0, Some(35));
    assert_eq!(expires_at().await, forget_at, "changing the stock keeps the sale's lifetime");
    let resp = post(&router, "/api/seckill/change-stock", &format!("voucher_id={id}&stock=5"), Some(&stranger)).await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);

    sqlx::query("UPDATE vouchers SET begin_at = now() - interval '1 minute' WHERE id = $1")
        .bind(id)
        .execute(&db)
        .await
        .unwrap();
    let resp = post(&router, "/api/seckill/change-stock", &format!("voucher_id={id}&stock=50"), Some(&owner)).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(body(resp).await.contains(td_string!(Locale::zh_CN, seckill.err_stock_frozen)));
    let pg: i32 = sqlx::query_scalar("SELECT stock FROM vouchers WHERE id = $1").bind(id).fetch_one(&db).await.unwrap();
    assert_eq!(pg, 35);
    assert_eq!(app::sale::inventory::sale_state(&state.redis, &state.keys, id).await.unwrap().0, Some(35));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn nearby_search_refuses_bad_input_with_4xx(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let router = server::router::build(state);
    app::testing::seed_shop(&db).await.unwrap();
    let get = |q: &str| {
        let req = Request::get(format!("/api/geo/nearby?{q}"))
            .header(header::ACCEPT, "application/json")
            .body(Body::empty())
            .unwrap();
        router.clone().oneshot(req)
    };
    let ok = get("type_id=1&lon=120.1&lat=30.2&radius_km=&page=1").await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert!(body(ok).await.contains("\"items\""));
    let bad_lon = get("type_id=1&lon=999&lat=30.2&radius_km=&page=1").await.unwrap();
    assert_eq!(bad_lon.status(), StatusCode::BAD_REQUEST);
    assert!(body(bad_lon).await.contains(td_string!(Locale::zh_CN, common.err_longitude)));
    assert_eq!(
        get("type_id=1&lon=120.1&lat=30.2&radius_km=99&page=1").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(get("type_id=42&lon=120.1&lat=30.2&radius_km=&page=1").await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(get("type_id=x&lon=120.1&lat=30.2&radius_km=&page=1").await.unwrap().status(), StatusCode::BAD_REQUEST);
    // The filters are optional, and with one chosen (Postgres answers) the same input is refused alike.
    let narrowed =
        get("type_id=1&lon=120.1&lat=30.2&radius_km=&filter[price]=50-100&filter[rating]=4.5&filter[open]=true&page=1")
            .await
            .unwrap();
    assert_eq!(narrowed.status(), StatusCode::OK);
    assert!(body(narrowed).await.contains("\"items\""));
    assert_eq!(
        get("type_id=42&lon=120.1&lat=30.2&radius_km=&filter[open]=true&page=1").await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get("type_id=1&lon=120.1&lat=30.2&radius_km=99&filter[price]=0-50&page=1").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
}

/// A multipart body with one `file` part per (declared type, bytes).
fn multipart(parts: &[(&str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "haodianboundary7MA4YWxk";
    let mut body = Vec::new();
    for (i, (ty, bytes)) in parts.iter().enumerate() {
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f{i}\"\r\nContent-Type: {ty}\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn image_uploads_check_login_type_and_size(db: PgPool) {
    let dir = std::env::temp_dir().join(format!("haodian-uploads-{}", app::testing::unique_token()));
    let dir_str = dir.to_string_lossy().to_string();
    let state = test_state(db.clone(), &[("UPLOAD_DIR", dir_str.as_str())]).await;
    let router = server::router::build(state.clone());
    let send = |parts: Vec<(&'static str, Vec<u8>)>, cookie: Option<String>| {
        let borrowed: Vec<(&str, &[u8])> = parts.iter().map(|(t, b)| (*t, b.as_slice())).collect();
        let (ty, body) = multipart(&borrowed);
        let mut req = Request::post("/api/v1/uploads").header(header::CONTENT_TYPE, ty);
        if let Some(c) = cookie {
            req = req.header(header::COOKIE, format!("{SESSION_COOKIE}={c}"));
        }
        router.clone().oneshot(req.body(Body::from(body)).unwrap())
    };
    // A payload hidden after the picture's end: decoders ignore it, a page serving the file would not.
    let dot = DOT_PNG;
    let png: Vec<u8> = [&dot[..], b"<script>hidden payload</script>"].concat();

    assert_eq!(send(vec![("image/png", png.clone())], None).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let (sid, _) = register(&router, &state, "13900000041").await;
    let resp = send(vec![("image/png", png.clone())], Some(sid.clone())).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let urls: Vec<String> = serde_json::from_str(&body(resp).await).unwrap();
    assert_eq!(urls.len(), 1);
    assert!(urls[0].starts_with("/uploads/") && urls[0].ends_with(".png"));
    let served = router.clone().oneshot(Request::get(&urls[0]).body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    let served = served.into_body().collect().await.unwrap().to_bytes().to_vec();
    assert!(served.starts_with(&dot[..8]), "a PNG comes back");
    assert!(!served.windows(7).any(|w| w == b"payload"), "encoded afresh: nothing but the picture");
    let not_a_picture = [&dot[..8], &[7u8; 64][..]].concat();
    let resp = send(vec![("image/png", not_a_picture)], Some(sid.clone())).await.unwrap();
    assert_eq!(resp.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "PNG bytes at the start are not enough");

    let html_as_png =
        send(vec![("image/png", png.clone()), ("image/png", b"<script>alert(1)</script>".to_vec())], Some(sid.clone()))
            .await
            .unwrap();
    assert_eq!(html_as_png.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let too_big =
        send(vec![("image/png", [png.clone(), vec![0u8; 2 * 1024 * 1024]].concat())], Some(sid.clone())).await.unwrap();
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let stored = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(stored, 1, "refused uploads store nothing, not even their valid files");
    let _ = std::fs::remove_dir_all(&dir);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn uploads_past_a_persons_quota_are_refused_and_store_nothing(db: PgPool) {
    let dir = std::env::temp_dir().join(format!("haodian-uploads-{}", app::testing::unique_token()));
    let dir_str = dir.to_string_lossy().to_string();
    let state = test_state(db.clone(), &[("UPLOAD_DIR", dir_str.as_str()), ("UPLOAD_QUOTA_BYTES", "1")]).await;
    let router = server::router::build(state.clone());
    let (sid, _) = register(&router, &state, "13900000042").await;
    let resp = router.clone().oneshot(upload_request(&sid)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body(resp).await.contains(td_string!(Locale::zh_CN, social.err_quota)));
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM uploads").fetch_one(&db).await.unwrap();
    assert_eq!(rows, 0);
    assert!(std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0) == 0, "no file written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An upload of one small PNG by the session `sid`.
fn upload_request(sid: &str) -> Request<Body> {
    let (ty, payload) = multipart(&[("image/png", &DOT_PNG[..])]);
    Request::post("/api/v1/uploads")
        .header(header::CONTENT_TYPE, ty)
        .header(header::COOKIE, format!("{SESSION_COOKIE}={sid}"))
        .body(Body::from(payload))
        .unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn uploads_at_once_cannot_pass_the_quota_together(db: PgPool) {
    let dir = std::env::temp_dir().join(format!("haodian-uploads-{}", app::testing::unique_token()));
    let dir_str = dir.to_string_lossy().to_string();
    // What one cleaned picture weighs, from a first upload by someone else.
    let probe = test_state(db.clone(), &[("UPLOAD_DIR", dir_str.as_str())]).await;
    let router = server::router::build(probe.clone());
    let (sid, _) = register(&router, &probe, "13900000043").await;
    assert_eq!(router.oneshot(upload_request(&sid)).await.unwrap().status(), StatusCode::OK);
    let one: i64 = sqlx::query_scalar("SELECT bytes FROM uploads").fetch_one(&db).await.unwrap();

    // Room for two more pictures; ten uploads arrive at once.
    let quota = (2 * one).to_string();
    let state =
        test_state(db.clone(), &[("UPLOAD_DIR", dir_str.as_str()), ("UPLOAD_QUOTA_BYTES", quota.as_str())]).await;
    let router = server::router::build(state.clone());
    let (sid, user) = register(&router, &state, "13900000044").await;
    let answers = futures::future::join_all((0..10).map(|_| router.clone().oneshot(upload_request(&sid)))).await;
    let ok = answers.iter().filter(|r| r.as_ref().unwrap().status() == StatusCode::OK).count();
    let full = answers.iter().filter(|r| r.as_ref().unwrap().status() == StatusCode::PAYLOAD_TOO_LARGE).count();
    assert_eq!((ok, full), (2, 8), "exactly the two that fit");
    let (rows, bytes): (i64, i64) =
        sqlx::query_as("SELECT count(*), coalesce(sum(bytes), 0)::BIGINT FROM uploads WHERE user_id = $1")
            .bind(user)
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!((rows, bytes), (2, 2 * one), "the quota holds");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3, "no file beyond the three stored");
    let _ = std::fs::remove_dir_all(&dir);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn picture_decodes_share_a_few_slots_across_everyone(db: PgPool) {
    let dir = std::env::temp_dir().join(format!("haodian-uploads-{}", app::testing::unique_token()));
    let dir_str = dir.to_string_lossy().to_string();
    let state = test_state(db.clone(), &[("UPLOAD_DIR", dir_str.as_str()), ("PICTURE_DECODES_MAX", "1")]).await;
    let router = server::router::build(state.clone());
    let (sid, _) = register(&router, &state, "13900000045").await;
    // Someone else's big picture holds the only decode slot.
    let slot = state.picture_slots.clone().acquire_owned().await.unwrap();
    let started = std::time::Instant::now();
    let resp = router.clone().oneshot(upload_request(&sid)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE, "waited for a slot, then asked to retry");
    assert!(started.elapsed() >= std::time::Duration::from_secs(4), "it waited its turn first");
    assert!(body(resp).await.contains(td_string!(Locale::zh_CN, social.err_upload_busy)));
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM uploads").fetch_one(&db).await.unwrap();
    assert_eq!(rows, 0, "nothing stored");
    drop(slot);
    assert_eq!(router.oneshot(upload_request(&sid)).await.unwrap().status(), StatusCode::OK, "the slot is free");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `server::server_fns` owes every server function, as leptos_axum's handler did: headers it sets in
/// `ResponseOptions` reach the answer (the visitor cookie), a form posted without JavaScript goes back to
/// its page, and an error's status still wins over that redirect.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn server_functions_answer_with_what_they_set_and_send_plain_forms_back(db: PgPool) {
    app::testing::seed_shop(&db).await.unwrap();
    let state = test_state(db, &[]).await;
    let router = server::router::build(state.clone());

    let resp = post(&router, "/api/catalog/shop", "id=1", None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let cookies: Vec<_> = resp.headers().get_all(header::SET_COOKIE).iter().filter_map(|v| v.to_str().ok()).collect();
    assert!(cookies.iter().any(|c| c.starts_with("hd_vid=")), "{cookies:?}");
    assert!(body(resp).await.contains("\"name\""));

    let plain = |form: &str| {
        Request::post("/api/auth/register")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "text/html,application/xhtml+xml")
            .header(header::REFERER, "http://127.0.0.1:3000/register")
            .body(Body::from(form.to_string()))
            .unwrap()
    };
    let form = "account=13900000031&nickname=Plain&password=secret2026&password_confirm=secret2026";
    let resp = router.clone().oneshot(plain(form)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::FOUND);
    let back = resp.headers()[header::LOCATION].to_str().unwrap();
    assert!(back.starts_with("http://127.0.0.1:3000/register"), "{back}");
    assert!(session_cookie(&resp).is_some(), "the plain form's sign-up waits in a session for its code");

    let resp = router.clone().oneshot(plain("account=nope&nickname=P&password=x&password_confirm=x")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
}

/// Reads the stream until a `data:` line comes, for at most five seconds.
async fn next_data(body: &mut Body) -> String {
    loop {
        let Ok(Some(Ok(frame))) = tokio::time::timeout(std::time::Duration::from_secs(5), body.frame()).await else {
            panic!("the stream sent nothing for 5 s")
        };
        let Ok(data) = frame.into_data() else { continue };
        if let Some(line) = String::from_utf8_lossy(&data).lines().find_map(|l| l.strip_prefix("data:")) {
            return line.trim().to_string();
        }
    }
}

/// The header's unread count over server-sent events: refused without a session; the count at once, then
/// each change — a notice written, notices marked read — however it was made.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_inbox_stream_pushes_the_unread_count(db: PgPool) {
    use app::inbox::model::Facts;
    use app::inbox::service::{self as inbox, News};
    let state = test_state(db, &[]).await;
    let router = server::router::build(state.clone());
    let stream = |cookie: Option<&str>| {
        let mut req = Request::get("/api/v1/inbox/events");
        if let Some(c) = cookie {
            req = req.header(header::COOKIE, format!("{SESSION_COOKIE}={c}"));
        }
        router.clone().oneshot(req.body(Body::empty()).unwrap())
    };
    assert_eq!(stream(None).await.unwrap().status(), StatusCode::UNAUTHORIZED);

    let (sid, me) = register(&router, &state, "13900000771").await;
    let resp = stream(Some(&sid)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut events = resp.into_body();
    assert_eq!(next_data(&mut events).await, "0");

    for follower in [41, 42] {
        let news = News { subject_id: follower, facts: Facts::Followed { name: "someone".into() }, link: "/" };
        inbox::notify(&state, me, news).await.unwrap();
    }
    let mut seen = next_data(&mut events).await;
    if seen == "1" {
        seen = next_data(&mut events).await;
    }
    assert_eq!(seen, "2", "two notices, counted");
    assert_eq!(body(post(&router, "/api/inbox/read", "", Some(&sid)).await).await, "0");
    assert_eq!(next_data(&mut events).await, "0", "marked read elsewhere, the stream counts down");
}
