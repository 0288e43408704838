//! The authorization matrix: every server function × {anonymous, shopper, another merchant, the owner,
//! an operator} with the status each must get, run against the real router — and a check that fails when a server
//! function exists that the table does not list, so a new endpoint cannot ship without its row.
//!
//! "The owner" owns what the row acts on: shop 1, the sale on it, the note and the order in question. The
//! operator runs the platform: their pages are theirs alone, and no shopper's or merchant's path lets them
//! act (they neither buy nor grab, review, post, like, follow, check in or save).

use std::collections::BTreeSet;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

use app::testing::test_state;
use server::router::SESSION_COOKIE;

use crate::support::{EVERYONE, fill, table, world};

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn every_server_function_answers_each_kind_of_caller_as_the_table_says(db: PgPool) {
    let state = test_state(db.clone(), &[("IP_RATE_LIMIT", "1000000"), ("LOGIN_MAX_FAILURES", "100")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let w = world(&state, &db).await;
    let router: Router = server::router::build(state.clone());
    let mut wrong = Vec::new();
    // The order export is a plain route (it streams), held to the same rule as the orders list (checked
    // first, as the QR code below: the table's last rows end the sessions).
    for (i, expect) in [401u16, 403, 403, 200, 403].into_iter().enumerate() {
        let mut req = Request::get("/merchant/shops/1/orders.csv?status=paid").body(Body::empty()).unwrap();
        if let Some(sid) = &w.sessions[i] {
            req.headers_mut().insert(header::COOKIE, format!("{SESSION_COOKIE}={sid}").parse().unwrap());
        }
        let status = router.clone().oneshot(req).await.unwrap().status().as_u16();
        if status != expect {
            wrong.push(format!("orders.csv as {:?}: {status}, expected {expect}", EVERYONE[i]));
        }
    }
    // So is the QR code of a paid order's redemption code: its buyer's alone (the owner bought `order`;
    // paying it first changes no row of the table, whose pay row then finds it paid).
    app::orders::service::pay(&state, w.owner, w.order).await.unwrap();
    for (i, expect) in [401u16, 404, 404, 200, 404].into_iter().enumerate() {
        let mut req = Request::get(format!("/orders/{}/code.svg", w.order)).body(Body::empty()).unwrap();
        if let Some(sid) = &w.sessions[i] {
            req.headers_mut().insert(header::COOKIE, format!("{SESSION_COOKIE}={sid}").parse().unwrap());
        }
        let resp = router.clone().oneshot(req).await.unwrap();
        let status = resp.status().as_u16();
        let svg = resp.headers().get(header::CONTENT_TYPE).is_some_and(|t| t == "image/svg+xml");
        if status != expect || (status == 200) != svg {
            wrong.push(format!("code.svg as {:?}: {status} (an SVG: {svg}), expected {expect}", EVERYONE[i]));
        }
    }
    let mut n = 0;
    for r in table() {
        for (i, who) in EVERYONE.iter().enumerate() {
            n += 1;
            let args = fill(r.args, &w, n);
            let mut req = if r.get {
                Request::get(format!("{}?{}", r.path, args.replace(' ', "%20"))).body(Body::empty()).unwrap()
            } else {
                Request::post(r.path)
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(Body::from(args))
                    .unwrap()
            };
            req.headers_mut().insert(header::ACCEPT, "application/json".parse().unwrap());
            if let Some(sid) = &w.sessions[i] {
                req.headers_mut().insert(header::COOKIE, format!("{SESSION_COOKIE}={sid}").parse().unwrap());
            }
            let resp = router.clone().oneshot(req).await.unwrap();
            let status = resp.status().as_u16();
            if status != r.expect[i] {
                let body = resp.into_body().collect().await.unwrap().to_bytes();
                wrong.push(format!(
                    "{} as {who:?}: {status}, expected {} ({})",
                    r.path,
                    r.expect[i],
                    String::from_utf8_lossy(&body).chars().take(120).collect::<String>()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{} cells differ:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn the_table_lists_every_server_function() {
    // Server functions register themselves at start-up (as the router's `leptos_routes` finds them).
    let registered: BTreeSet<String> =
        leptos::server_fn::axum::server_fn_paths().map(|(path, _)| path.to_string()).collect();
    let listed: BTreeSet<String> = table().iter().map(|r| r.path.to_string()).collect();
    let unlisted: Vec<_> = registered.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&registered).collect();
    assert!(unlisted.is_empty(), "server functions missing from the authorization matrix: {unlisted:?}");
    assert!(gone.is_empty(), "rows for server functions that no longer exist: {gone:?}");
    assert!(registered.len() >= 30, "{registered:?}");
}
