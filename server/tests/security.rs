//! The public edge as an attacker meets it: cross-site posts refused (nothing written), hardening headers
//! and a nonce-bound Content-Security-Policy on pages, the operators' routes absent from the public port,
//! and a client address that the client cannot choose by writing `X-Forwarded-For` or by rotating
//! through its IPv6 /64.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

use app::auth::service::{CodeText, code_text};
use app::shared::i18n::{Locale, td_string};
use app::testing::test_state;

/// A form POST with these extra headers, from `peer` when given.
async fn post(
    router: &Router,
    path: &str,
    form: &str,
    headers: &[(&str, &str)],
    peer: Option<SocketAddr>,
) -> Response<Body> {
    let mut req = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .header(header::HOST, "127.0.0.1:3000");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut req = req.body(Body::from(form.to_string())).unwrap();
    if let Some(peer) = peer {
        req.extensions_mut().insert(ConnectInfo(peer));
    }
    router.clone().oneshot(req).await.unwrap()
}

async fn body(resp: Response<Body>) -> String {
    String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

async fn users(db: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM users").fetch_one(db).await.unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn cross_site_posts_are_refused_and_write_nothing(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let router = server::router::build(state.clone());
    let form = "account=13900000061&nickname=Mallory&password=secret2026&password_confirm=secret2026";
    let before = users(&db).await;
    for headers in [
        vec![("sec-fetch-site", "cross-site"), ("origin", "https://evil.example")],
        vec![("sec-fetch-site", "same-site"), ("origin", "https://sub.127.0.0.1")],
        vec![("origin", "https://evil.example")],
    ] {
        let resp = post(&router, "/api/auth/register", form, &headers, None).await;
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{headers:?}");
        assert!(resp.headers().get(header::SET_COOKIE).is_none(), "no session for a forged request");
    }
    // Login CSRF (logging the victim into the attacker's account) is the same post.
    let resp =
        post(&router, "/api/auth/login", "account=13800000001&password=x", &[("origin", "https://evil.example")], None)
            .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    assert_eq!(users(&db).await, before, "nothing written");
    assert!(texted(&state, "13900000061").await.is_none(), "no text message sent");

    let same = [("sec-fetch-site", "same-origin"), ("origin", "http://127.0.0.1:3000")];
    assert_eq!(post(&router, "/api/auth/register", form, &same, None).await.status(), StatusCode::OK);
    assert!(texted(&state, "13900000061").await.is_some(), "the sign-up code went out");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn pages_carry_hardening_headers_and_a_nonce_bound_policy(db: PgPool) {
    let state = test_state(db, &[]).await;
    let router = server::router::build(state);
    let resp = router.clone().oneshot(Request::get("/login").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let h = resp.headers().clone();
    assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(h[header::X_FRAME_OPTIONS], "DENY");
    assert_eq!(h[header::REFERRER_POLICY], "strict-origin-when-cross-origin");
    let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap().to_string();
    assert!(csp.contains("frame-ancestors 'none'") && csp.contains("object-src 'none'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    let nonce = csp.split("'nonce-").nth(1).and_then(|r| r.split('\'').next()).expect("a nonce").to_string();
    let html = body(resp).await;
    assert!(html.contains(&format!("nonce=\"{nonce}\"")), "the hydration script carries the policy's nonce");

    // A second page gets a fresh nonce.
    let again = router.clone().oneshot(Request::get("/login").body(Body::empty()).unwrap()).await.unwrap();
    assert!(!again.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap().contains(&nonce));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn operators_routes_are_not_on_the_public_port(db: PgPool) {
    let state = test_state(db, &[]).await;
    let (public, admin) = (server::router::build(state.clone()), server::router::admin(state));
    for path in ["/metrics", "/healthz"] {
        let resp = public.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{path} on the public port");
        let resp = admin.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{path} on the operators' port");
    }
    let resp = public.oneshot(Request::get("/livez").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn behind_our_proxy_the_client_cannot_pick_its_address(db: PgPool) {
    // Two failures lock an account; eight lock an address (whatever the accounts).
    let state = test_state(db, &[("TRUSTED_PROXIES", "10.0.0.0/8"), ("LOGIN_MAX_FAILURES", "2")]).await;
    let router = server::router::build(state);
    let proxy = Some(SocketAddr::from(([10, 0, 0, 1], 44_000)));
    let attempt = |account: u32, forwarded: &'static str| {
        let router = router.clone();
        async move {
            let form = format!("account=139{account:08}&password=guess");
            post(&router, "/api/auth/login", &form, &[("x-forwarded-for", forwarded)], proxy).await.status()
        }
    };
    // One attacker (203.0.113.5, as our proxy saw it) rotating the address it claims, one account each.
    let claims = ["1.1.1.1, 203.0.113.5", "2.2.2.2, 203.0.113.5", "3.3.3.3, 203.0.113.5", "4.4.4.4, 203.0.113.5"];
    for (i, claim) in claims.iter().cycle().take(7).enumerate() {
        assert_eq!(attempt(100 + i as u32, claim).await, StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    assert_eq!(
        attempt(200, "9.9.9.9, 203.0.113.5").await,
        StatusCode::TOO_MANY_REQUESTS,
        "the eighth locks the address"
    );
    assert_eq!(attempt(201, "203.0.113.5").await, StatusCode::TOO_MANY_REQUESTS);
    // Another person behind the same proxy is not locked out with them.
    assert_eq!(attempt(202, "203.0.113.6").await, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_ipv6_client_rotating_through_its_64_spends_one_budget(db: PgPool) {
    // Eight failures lock an address; one IPv6 subscriber owns a /64 and picks a fresh address each time,
    // straight (its socket address) and behind our proxy (its X-Forwarded-For hop).
    let state = test_state(db, &[("TRUSTED_PROXIES", "10.0.0.0/8"), ("LOGIN_MAX_FAILURES", "2")]).await;
    let router = server::router::build(state);
    let attempt = |i: u32, peer: SocketAddr, forwarded: Option<String>| {
        let router = router.clone();
        async move {
            let form = format!("account=139{:08}&password=guess", 300 + i);
            let headers: Vec<(&str, &str)> = forwarded.iter().map(|f| ("x-forwarded-for", f.as_str())).collect();
            post(&router, "/api/auth/login", &form, &headers, Some(peer)).await.status()
        }
    };
    let direct = |i: u32| format!("[2001:db8:7:9:{i:x}::{:x}]:40000", i * 7 + 1).parse::<SocketAddr>().unwrap();
    for i in 0..7 {
        assert_eq!(attempt(i, direct(i), None).await, StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    assert_eq!(attempt(7, direct(77), None).await, StatusCode::TOO_MANY_REQUESTS, "the eighth locks the /64");
    // The neighbouring /64 is somebody else.
    let neighbour = "[2001:db8:7:a::1]:40000".parse().unwrap();
    assert_eq!(attempt(8, neighbour, None).await, StatusCode::UNAUTHORIZED);

    let proxy = SocketAddr::from(([10, 0, 0, 1], 44_000));
    for i in 0..7 {
        let hop = Some(format!("2001:db8:5:5:{i:x}:{i:x}::9"));
        assert_eq!(attempt(20 + i, proxy, hop).await, StatusCode::UNAUTHORIZED, "proxied attempt {i}");
    }
    let hop = Some("2001:db8:5:5:ffff::1".to_string());
    assert_eq!(attempt(30, proxy, hop).await, StatusCode::TOO_MANY_REQUESTS, "the same /64 behind the proxy");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_overloaded_instance_sheds_at_once_and_times_out_what_hangs(db: PgPool) {
    use app::testing::{Proxy, ProxyMode};
    let mut state = test_state(db.clone(), &[("HTTP_MAX_IN_FLIGHT", "1"), ("HTTP_TIMEOUT_SECS", "1")]).await;
    let proxy = Proxy::start("127.0.0.1:5432".parse().unwrap()).await.unwrap();
    let through_proxy = (*db.connect_options()).clone().host("127.0.0.1").port(proxy.addr.port());
    state.db = sqlx::postgres::PgPoolOptions::new()
        .acquire_timeout(std::time::Duration::from_secs(5))
        .connect_with(through_proxy)
        .await
        .unwrap();
    let router = server::router::build(state);
    let types = |router: Router| async move { post(&router, "/api/catalog/types", "", &[], None).await };
    proxy.set(ProxyMode::Stall);
    let started = std::time::Instant::now();
    let hung = tokio::spawn(types(router.clone()));
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let shed = post(&router, "/api/catalog/types", "", &[("accept-language", "en")], None).await;
    assert_eq!(shed.status(), StatusCode::SERVICE_UNAVAILABLE, "the one slot is taken");
    assert_eq!(shed.headers()[header::RETRY_AFTER], "1");
    assert!(started.elapsed() < std::time::Duration::from_millis(800), "shed at once, not queued");
    let busy = format!(r#"{{"Unavailable":"{}"}}"#, td_string!(Locale::en, common.err_server_busy));
    assert_eq!(body(shed).await, busy, "the app's own error shape, in the language asked for");
    let hung = hung.await.unwrap();
    assert_eq!(hung.status(), StatusCode::SERVICE_UNAVAILABLE, "cut off by the request timeout");
    assert_eq!(hung.headers()[header::RETRY_AFTER], "1");
    let too_long = format!(r#"{{"Unavailable":"{}"}}"#, td_string!(Locale::zh_CN, common.err_timed_out));
    assert_eq!(body(hung).await, too_long, "the app's own error shape");
    assert!(started.elapsed() < std::time::Duration::from_millis(2_500), "{:?}", started.elapsed());
    proxy.set(ProxyMode::Up);
}

/// Registers an account over HTTP (the form, then the texted code) and returns its session cookie.
async fn register_session(router: &Router, state: &app::web::state::AppState, account: &str) -> String {
    let form = format!("account={account}&nickname=Slider&password=secret2026&password_confirm=secret2026");
    let resp = post(router, "/api/auth/register", &form, &[], None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let waiting = set_session(&resp).expect("the sign-up waits in a session");
    let (code, _) = texted(state, account).await.expect("a code texted");
    let form = format!("phone={account}&code={code}");
    let resp = post(router, "/api/auth/login-code", &form, &[("cookie", &waiting)], None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    set_session(&resp).expect("a session cookie")
}

async fn logged_in(router: &Router, cookie: &str) -> bool {
    let resp = post(router, "/api/auth/me", "", &[("cookie", cookie)], None).await;
    body(resp).await.contains("Slider")
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn activity_keeps_a_session_alive_until_its_absolute_cap(db: PgPool) {
    let state = test_state(db, &[("SESSION_TTL_SECS", "4"), ("SESSION_MAX_AGE_SECS", "7")]).await;
    let router = server::router::build(state.clone());
    let sleep = |ms| tokio::time::sleep(std::time::Duration::from_millis(ms));
    let active = register_session(&router, &state, "13900000071").await;
    let idle = register_session(&router, &state, "13900000072").await;
    // Activity every 1.5 s carries the active session past its 4 s idle lifetime.
    for _ in 0..4 {
        sleep(1_500).await;
        assert!(logged_in(&router, &active).await, "active and within its cap");
    }
    assert!(!logged_in(&router, &idle).await, "6 s without activity: the idle one has ended");
    // Past 7 s since the login, activity no longer helps.
    sleep(1_500).await;
    assert!(!logged_in(&router, &active).await, "the absolute cap ends it");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_address_creates_a_few_accounts_an_hour_and_typos_cost_nothing(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let router = server::router::build(state.clone());
    let from = |last: u8| Some(SocketAddr::from(([203, 0, 113, last], 40_000)));
    let form = |n: u32, confirm: &str| {
        format!("account=1366000{n:04}&nickname=Bot{n}&password=secret2026&password_confirm={confirm}")
    };
    // Mistyped forms are refused as such and spend nothing.
    for n in 0..10 {
        let resp = post(&router, "/api/auth/register", &form(n, "typo"), &[], from(7)).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    }
    for n in 0..5 {
        let resp = post(&router, "/api/auth/register", &form(n, "secret2026"), &[], from(7)).await;
        assert_eq!(resp.status(), StatusCode::OK, "account {n}");
    }
    let resp = post(&router, "/api/auth/register", &form(5, "secret2026"), &[], from(7)).await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = resp.headers()[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((600..=720).contains(&wait), "one more in about 12 minutes: {wait}");
    let what = td_string!(Locale::zh_CN, common.abuse_register);
    assert!(body(resp).await.contains(&td_string!(Locale::zh_CN, common.err_too_many, what = what, secs = wait)));
    assert!(texted(&state, "13660000005").await.is_none(), "no text message sent");
    let resp = post(&router, "/api/auth/register", &form(6, "secret2026"), &[], from(8)).await;
    assert_eq!(resp.status(), StatusCode::OK, "another address has its own budget");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn text_that_can_only_do_harm_is_refused_next_to_its_field(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    app::testing::seed_shop(&db).await.unwrap();
    let router = server::router::build(state.clone());
    let cookie = register_session(&router, &state, "13900000081").await;
    let notes = || async { sqlx::query_scalar::<_, i64>("SELECT count(*) FROM notes").fetch_one(&db).await.unwrap() };
    for (form, field) in [
        ("shop_id=1&title=Hi&body=tasty%00noodles&images=", "body"),
        ("shop_id=1&title=%E2%80%AEgpj.exe&body=tasty&images=", "title"),
        ("shop_id=1&title=Hi&body=tasty&images=http%3A%2F%2Fimg.example%2Fa.png", "images"),
        ("shop_id=1&title=Hi&body=tasty&images=javascript%3Aalert(1)", "images"),
    ] {
        let resp = post(&router, "/api/social/write-note", form, &[("cookie", &cookie)], None).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{form}");
        let text = body(resp).await;
        assert!(text.contains(&format!("\"field\":\"{field}\"")), "{form}: {text}");
    }
    assert_eq!(notes().await, 0, "nothing written");
    let ok = "shop_id=1&title=Hi&body=line%20one%0Aline%20two&images=%2Fuploads%2Fa.png";
    assert_eq!(
        post(&router, "/api/social/write-note", ok, &[("cookie", &cookie)], None).await.status(),
        StatusCode::OK
    );
    assert_eq!(notes().await, 1);
}

/// A page as `GET`, with its HTML.
async fn page(router: &Router, path: &str) -> (StatusCode, String) {
    let resp = router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
    (resp.status(), body(resp).await)
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn next_never_leads_off_the_site_once_dot_segments_are_resolved(db: PgPool) {
    let state = test_state(db, &[]).await;
    let router = server::router::build(state);
    // Each resolves, in a browser, to the path `//evil.example`, that is to the host evil.example.
    let tricks = ["/.//", "/..//", "/%2e//", "/%2E//", "/x/..//", "/.%5C/", "/./%5C", "/%2e%2f%2f"];
    let mut variants = 0;
    for form in ["/login", "/login/code", "/register"] {
        for trick in tricks {
            let (status, html) = page(&router, &format!("{form}?next={trick}evil.example")).await;
            assert_eq!(status, StatusCode::OK, "{form} {trick}");
            assert!(!html.contains("evil.example"), "{form}?next={trick}evil.example is carried into the page");
            variants += 1;
        }
        // A path on the site is kept, query and all.
        for good in ["/shops/1?tab=x", "/me"] {
            let (_, html) = page(&router, &format!("{form}?next={}", good.replace('?', "%3F"))).await;
            assert!(html.contains(good), "{form}: {good} is where the form goes next");
        }
    }
    assert_eq!(variants, 24);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn invented_methods_and_paths_mint_no_metric_series(db: PgPool) {
    let state = test_state(db, &[]).await;
    let (public, admin) = (server::router::build(state.clone()), server::router::admin(state));
    for n in 0..5 {
        let method = axum::http::Method::from_bytes(format!("INVENTED{n}").as_bytes()).unwrap();
        let req = Request::builder().method(method).uri("/livez").body(Body::empty()).unwrap();
        public.clone().oneshot(req).await.unwrap();
    }
    for path in ["/livez", "/no/such/page-x7q", "/shops/99x7q", "/pkg/x7q.js"] {
        public.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
    }
    let resp = admin.oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    let text = body(resp).await;
    let series: Vec<&str> =
        text.lines().filter(|l| l.starts_with("haodian_http_request_duration_seconds_count")).collect();
    assert!(!text.contains("INVENTED"), "a method of the client's choosing is a label: {series:#?}");
    assert!(!text.contains("x7q"), "a path of the client's choosing is a label: {series:#?}");
    assert!(series.iter().any(|l| l.contains("route=\"/livez\"") && l.contains("method=\"other\"")), "{series:#?}");
    assert!(series.iter().any(|l| l.contains("route=\"/livez\"") && l.contains("method=\"GET\"")), "{series:#?}");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_oversized_form_is_refused_as_too_large(db: PgPool) {
    let state = test_state(db, &[]).await;
    let router = server::router::build(state);
    let form = format!("account={}&password=x", "a".repeat(4 * 1024 * 1024));
    let resp = post(&router, "/api/auth/login", &form, &[], None).await;
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let text = body(resp).await;
    let limit_mb = server::server_fns::FORM_LIMIT / (1024 * 1024);
    assert!(text.contains(&td_string!(Locale::zh_CN, common.err_form_too_large, max = limit_mb)), "{text}");
    // Without a length up front (streamed in chunks), the same answer.
    let chunks =
        futures::stream::iter((0..64).map(|_| Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b'a'; 64 * 1024]))));
    let req = Request::post("/api/auth/login")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .body(Body::from_stream(chunks))
        .unwrap();
    assert_eq!(router.clone().oneshot(req).await.unwrap().status(), StatusCode::PAYLOAD_TOO_LARGE);
    // An ordinary form is still read.
    let resp = post(&router, "/api/auth/login", "account=13900000091&password=x", &[], None).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn uploads_are_served_under_a_policy_that_runs_nothing(db: PgPool) {
    let dir = std::env::temp_dir().join(format!("haodian-uploads-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("shops")).unwrap();
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>"#;
    std::fs::write(dir.join("shops/evil.svg"), svg).unwrap();
    let state = test_state(db, &[("UPLOAD_DIR", dir.to_str().unwrap())]).await;
    let router = server::router::build(state);
    for path in ["/uploads/shops/evil.svg", "/uploads/no-such.png"] {
        let resp = router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        let h = resp.headers();
        assert_eq!(
            h.get(header::CONTENT_SECURITY_POLICY).map(|v| v.to_str().unwrap()),
            Some("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
            "{path}"
        );
        assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_nonce_appears_only_in_nonce_attributes(db: PgPool) {
    let state = test_state(db, &[]).await;
    let router = server::router::build(state);
    for path in ["/login", "/"] {
        let resp = router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        let csp = resp.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap().to_string();
        let nonce = csp.split("'nonce-").nth(1).and_then(|r| r.split('\'').next()).expect("a nonce").to_string();
        let html = body(resp).await;
        let anywhere = html.matches(nonce.as_str()).count();
        let as_nonce = html.matches(&format!(" nonce=\"{nonce}\"")).count();
        assert!(as_nonce >= 1, "{path}: the scripts carry it");
        assert_eq!(anywhere, as_nonce, "{path}: the nonce is readable outside a nonce attribute");
    }
}

/// The newest code texted to `phone` (the local sender's outbox stands in for the phone), and its text.
async fn texted(state: &app::web::state::AppState, phone: &str) -> Option<(String, String)> {
    let outbox = app::platform::sms::outbox(&state.redis, &state.keys).await.unwrap();
    let sms = outbox.into_iter().find(|m| m.phone == phone)?;
    let code = sms.text.split(|c: char| !c.is_ascii_digit()).find(|w| w.len() == 6)?.to_string();
    Some((code, sms.text))
}

/// The session cookie (`name=value`) an answer sets, if any.
fn set_session(resp: &Response<Body>) -> Option<String> {
    resp.headers().get_all(header::SET_COOKIE).iter().find_map(|v| {
        let first = v.to_str().ok()?.split(';').next()?;
        first.starts_with(&format!("{}=", server::router::SESSION_COOKIE)).then(|| first.to_string())
    })
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn registration_does_not_tell_who_has_an_account(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let router = server::router::build(state.clone());
    let from = |last: u8| Some(SocketAddr::from(([203, 0, 113, last], 40_000)));
    let form =
        |phone: &str| format!("account={phone}&nickname=Mallory&password=planted2026&password_confirm=planted2026");
    for n in 0..8 {
        sqlx::query("INSERT INTO users (phone, nickname, password_hash, role) VALUES ($1, 'Owner', '!', 'shopper')")
            .bind(format!("1377777{n:04}"))
            .execute(&db)
            .await
            .unwrap();
    }
    // A taken number and a new one: the same status, the same kind of answer (where the code went).
    let (taken, new) = ("13777770000", "13666660000");
    let taken_resp = post(&router, "/api/auth/register", &form(taken), &[], from(9)).await;
    let new_resp = post(&router, "/api/auth/register", &form(new), &[], from(9)).await;
    assert_eq!((taken_resp.status(), new_resp.status()), (StatusCode::OK, StatusCode::OK));
    let (taken_cookie, new_cookie) = (set_session(&taken_resp).unwrap(), set_session(&new_resp).unwrap());
    assert_eq!(body(taken_resp).await, "\"137****0000\"");
    assert_eq!(body(new_resp).await, "\"136****0000\"");
    // Only the phone learns which it is: its owner gets a log-in code, the new number its sign-up code.
    // (In Chinese: the form asked for no language.)
    let (owner_code, to_owner) = texted(&state, taken).await.expect("the owner is told");
    assert_eq!(to_owner, code_text(Locale::zh_CN, CodeText::Taken, &owner_code));
    let (code, to_new) = texted(&state, new).await.expect("the new number gets its code");
    assert_eq!(to_new, code_text(Locale::zh_CN, CodeText::SignUp, &code));

    // Guessing at the code says nothing either, and planted nothing on the taken number.
    let wrong = |phone: &str, cookie: &str| {
        let (router, form, cookie) = (router.clone(), format!("phone={phone}&code=000000"), cookie.to_string());
        async move { body(post(&router, "/api/auth/login-code", &form, &[("cookie", &cookie)], None).await).await }
    };
    assert_eq!(wrong(taken, &taken_cookie).await, wrong(new, &new_cookie).await);
    let owner: String =
        sqlx::query_scalar("SELECT nickname FROM users WHERE phone = $1").bind(taken).fetch_one(&db).await.unwrap();
    assert_eq!(owner, "Owner");

    // The new number's code, in the browser that asked for it, makes the account as the form said.
    let form = format!("phone={new}&code={}", if code == "000000" { "000001" } else { &code });
    let resp = post(&router, "/api/auth/login-code", &form, &[("cookie", &new_cookie)], None).await;
    if code != "000000" {
        assert_eq!(resp.status(), StatusCode::OK);
        let login = post(&router, "/api/auth/login", &format!("account={new}&password=planted2026"), &[], None).await;
        assert!(body(login).await.contains("Mallory"), "the chosen name and password");
    }

    // An enumerator runs out of budget after five tries, whatever the numbers.
    let mut statuses = Vec::new();
    for n in 1..8 {
        statuses.push(post(&router, "/api/auth/register", &form_for(n), &[], from(10)).await.status());
    }
    assert_eq!(statuses[..5], [StatusCode::OK; 5]);
    assert_eq!(statuses[5..], [StatusCode::TOO_MANY_REQUESTS; 2]);
}

fn form_for(n: u32) -> String {
    format!("account=1377777{n:04}&nickname=Mallory&password=planted2026&password_confirm=planted2026")
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_browser_that_logs_in_becomes_a_known_device_of_that_account(db: PgPool) {
    let state = test_state(db.clone(), &[("LOGIN_CODE_COOLDOWN_SECS", "0")]).await;
    let router = server::router::build(state.clone());
    let device_cookie = |resp: &Response<Body>| {
        resp.headers().get_all(header::SET_COOKIE).iter().find_map(|v| {
            let v = v.to_str().ok()?;
            v.starts_with("hd_dev=").then(|| v.to_string())
        })
    };
    assert_eq!(post(&router, "/api/auth/send-code", "phone=13900000071", &[], None).await.status(), StatusCode::OK);
    let (code, _) = texted(&state, "13900000071").await.expect("a code");
    let resp = post(&router, "/api/auth/login-code", &format!("phone=13900000071&code={code}"), &[], None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let set = device_cookie(&resp).expect("the browser is remembered");
    assert!(set.contains("Path=/api/auth") && set.contains("HttpOnly"), "{set}");
    let token = set.trim_start_matches("hd_dev=").split(';').next().unwrap().to_string();
    let kept: i64 = sqlx::query_scalar("SELECT count(*) FROM known_devices").fetch_one(&db).await.unwrap();
    assert_eq!(kept, 1);
    let hashed: i64 = sqlx::query_scalar("SELECT count(*) FROM known_devices WHERE token_hash = sha256($1::bytea)")
        .bind(token.as_bytes())
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(hashed, 1, "the token's SHA-256 is what is kept");
    let plain: i64 =
        sqlx::query_scalar("SELECT count(*) FROM known_devices WHERE position($1::bytea IN token_hash) > 0")
            .bind(token.as_bytes())
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(plain, 0, "never the token itself");

    // The same browser logging in again is not remembered twice.
    let cookie = format!("hd_dev={token}");
    post(&router, "/api/auth/send-code", "phone=13900000071", &[("cookie", cookie.as_str())], None).await;
    let (code, _) = texted(&state, "13900000071").await.expect("a code");
    let again = format!("phone=13900000071&code={code}");
    let resp = post(&router, "/api/auth/login-code", &again, &[("cookie", cookie.as_str())], None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(device_cookie(&resp).is_none(), "known already");
    let kept: i64 = sqlx::query_scalar("SELECT count(*) FROM known_devices").fetch_one(&db).await.unwrap();
    assert_eq!(kept, 1);
}
