//! The grab's gate in front of everything else: past `GRAB_ADMIT_PER_SEC` a grab is answered 429 with
//! `Retry-After` at once — before its session is read — while the grabs let in go on as before.

use axum::body::Body;
use axum::http::{Request, header};
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

use app::testing::test_state;

fn grab() -> Request<Body> {
    Request::post("/api/seckill/grab")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ACCEPT, "application/json")
        .body(Body::from("voucher_id=1"))
        .unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn grabs_past_the_admission_rate_are_shed_at_once_with_retry_after(db: PgPool) {
    // 10 a second, in bursts of one: the first grab is let in (and, logged out, answered 401).
    let state = test_state(db, &[("GRAB_ADMIT_PER_SEC", "10")]).await;
    let router = server::router::build(state);
    let first = router.clone().oneshot(grab()).await.unwrap();
    assert_eq!(first.status().as_u16(), 401, "let in: it got as far as the session");
    let started = std::time::Instant::now();
    let shed = router.clone().oneshot(grab()).await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_millis(50), "shed at once, not queued");
    assert_eq!(shed.status().as_u16(), 429);
    assert_eq!(shed.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()), Some("1"));
    let body = shed.into_body().collect().await.unwrap().to_bytes();
    let err: app::shared::error::AppError = serde_json::from_slice(&body).unwrap();
    assert!(matches!(err, app::shared::error::AppError::Busy { .. }), "{err:?}");
    // A tenth of a second later the bucket has room again.
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert_eq!(router.oneshot(grab()).await.unwrap().status().as_u16(), 401);
}
