//! Live stock across instances on real Redis: a grab on one instance reaches a page following the sale on
//! another within moments, a give-back too, and once an instance has heard "0" a grab there is refused
//! without asking Redis (the in-process view answers) — while the SSE stream a shop page opens coalesces
//! a burst of grabs into at most five updates a second.

use std::time::{Duration, Instant};

use app::platform::channel::{Heard, Topic};
use app::sale::inventory::{self, GrabCode};
use app::seckill::service::{self, SeckillError};
use app::testing::{seed_flash_sale, seed_users, test_instances};
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use sqlx::PgPool;
use tower::ServiceExt;

async fn heard(rx: &mut tokio::sync::watch::Receiver<Option<i64>>, want: i64) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while *rx.borrow_and_update() != Some(want) {
        assert!(Instant::now() < deadline, "never heard {want}; last {:?}", *rx.borrow());
        let _ = tokio::time::timeout(Duration::from_millis(200), rx.changed()).await;
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_grab_on_one_instance_moves_the_stock_on_every_other(db: PgPool) {
    let instances = test_instances(db.clone(), 2, &[("IP_RATE_LIMIT", "1000000")]).await;
    let (a, b) = (&instances[0], &instances[1]);
    seed_flash_sale(&db, 31, 2, -60, 3600).await.unwrap();
    service::restore_sales(a).await.unwrap();
    // B follows the sale (on a cluster that subscribes to its shard channel); let both subscriptions
    // settle before the first announcement.
    let mut on_b = b.live_stock.watch(31);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let users = seed_users(&db, 61, 3).await.unwrap();

    let order = a.ids.next_id().unwrap();
    assert_eq!(inventory::try_grab(&a.redis, &a.keys, 31, users[0], order).await.unwrap(), GrabCode::Ok);
    heard(&mut on_b, 1).await;
    assert_eq!(
        inventory::try_grab(&a.redis, &a.keys, 31, users[1], a.ids.next_id().unwrap()).await.unwrap(),
        GrabCode::Ok
    );
    heard(&mut on_b, 0).await;

    // B heard "0": its grab is refused in process — the script never runs, so Redis records no attempt.
    let hits_before = b.metrics.seckill.sold_out_flag_hits.get();
    assert!(matches!(
        service::grab(b, users[2], 31, "203.0.113.5").await,
        Err(SeckillError::Refused(GrabCode::SoldOut))
    ));
    assert_eq!(b.metrics.seckill.sold_out_flag_hits.get(), hits_before + 1);
    let tries: i64 =
        redis::cmd("EXISTS").arg(b.keys.seckill_tries(31, users[2])).query_async(&mut b.redis.clone()).await.unwrap();
    assert_eq!(tries, 0, "no round trip to Redis for a sale known to be sold out");

    // A give-back (a closed order) announces the coupon again, and B lets grabs through once more.
    assert!(inventory::release(&a.redis, &a.keys, 31, users[0], order).await.unwrap());
    heard(&mut on_b, 1).await;
    assert!(!b.live_stock.is_sold_out(31));
}

/// Every instance hears every announcement, so one per grab cost each of them more than the grabs it
/// served: a burst is announced about once per quiet spell — yet the figure it leaves, with no grab after
/// it, still reaches every instance (and so every shop page) a spell later.
#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_burst_is_announced_sparingly_and_leaves_its_true_figure_everywhere(db: PgPool) {
    let settings = [("IP_RATE_LIMIT", "1000000"), ("LIVE_STOCK_QUIET_MS", "100")];
    let instances = test_instances(db.clone(), 2, &settings).await;
    let (a, b) = (&instances[0], &instances[1]);
    app::platform::kafka::ensure_topics(&a.config).await.unwrap();
    seed_flash_sale(&db, 34, 500, -60, 3600).await.unwrap();
    service::restore_sales(a).await.unwrap();
    let (mut on_a, mut on_b) = (a.live_stock.watch(34), b.live_stock.watch(34));
    let channel = format!("{}:live", a.keys.seckill_stock(34));
    let mut announced = app::platform::channel::follow(&a.config.redis_url, Topic::Channel(channel));
    tokio::time::sleep(Duration::from_millis(300)).await;

    // 150 shoppers at once, half on each instance.
    let users = seed_users(&db, 63, 150).await.unwrap();
    let started = Instant::now();
    let grabs = users.iter().enumerate().map(|(i, &user)| service::grab(&instances[i % 2], user, 34, "203.0.113.9"));
    for grabbed in futures::future::join_all(grabs).await {
        grabbed.unwrap();
    }
    let spells = started.elapsed().as_secs_f64() / 0.1;
    heard(&mut on_b, 350).await;
    // The grabbing instance hears it on its own subscription, which may come a moment after B's.
    heard(&mut on_a, 350).await;
    assert_eq!(a.live_stock.latest(34), Some(350), "the grabbing instance shows it too");

    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut figures = Vec::new();
    while let Ok(notice) = announced.try_recv() {
        if let Heard::Notice { payload, .. } = notice {
            figures.push(payload.parse::<i64>().unwrap());
        }
    }
    assert_eq!(figures.last(), Some(&350), "the last announcement is the figure the burst left: {figures:?}");
    // Per spell: one grab's announcement and each instance's owed one.
    let most = 3.0 * spells.ceil() + 3.0;
    assert!(
        (figures.len() as f64) <= most && figures.len() < users.len() / 2,
        "{} announcements for {} grabs over {spells:.1} spells: {figures:?}",
        figures.len(),
        users.len()
    );
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_shop_pages_stream_starts_with_the_stock_and_coalesces_a_burst(db: PgPool) {
    let instances = test_instances(db.clone(), 1, &[]).await;
    let state = &instances[0];
    seed_flash_sale(&db, 32, 500, -60, 3600).await.unwrap();
    service::restore_sales(state).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let router = server::router::build(state.clone());
    let get = |uri: &str| Request::get(uri).body(Body::empty()).unwrap();
    assert_eq!(router.clone().oneshot(get("/api/v1/stock?sales=999")).await.unwrap().status().as_u16(), 404);
    assert_eq!(router.clone().oneshot(get("/api/v1/stock?sales=x")).await.unwrap().status().as_u16(), 400);
    // A page follows its sales over one stream; 999 is not a sale and is left out.
    let resp = router.oneshot(get("/api/v1/stock?sales=32,999")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut body = resp.into_body();

    // 200 grabs as fast as Redis takes them, over about a second.
    let users = seed_users(&db, 62, 200).await.unwrap();
    let burst = tokio::spawn({
        let state = state.clone();
        async move {
            for u in users {
                let id = state.ids.next_id().unwrap();
                inventory::try_grab(&state.redis, &state.keys, 32, u, id).await.unwrap();
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    });
    let started = Instant::now();
    let mut figures = Vec::new();
    while figures.last() != Some(&300) {
        assert!(started.elapsed() < Duration::from_secs(10), "stream stalled at {figures:?}");
        let Ok(Some(Ok(frame))) = tokio::time::timeout(Duration::from_secs(5), body.frame()).await else {
            panic!("stream ended at {figures:?}")
        };
        let Ok(data) = frame.into_data() else { continue };
        for line in String::from_utf8_lossy(&data).lines() {
            if let Some(pairs) = line.strip_prefix("data:") {
                let (sale, stock) = pairs.trim().split_once(':').expect("id:stock");
                assert_eq!(sale, "32", "only the sale that exists: {pairs}");
                figures.push(stock.parse::<i64>().unwrap());
            }
        }
    }
    burst.await.unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    assert_eq!(figures[0], 500, "the stream opens with the stock as Redis holds it");
    assert!(figures.windows(2).all(|w| w[1] < w[0]), "only ever down during a burst: {figures:?}");
    // At most five a second (plus the first), far fewer than the 200 grabs.
    assert!((figures.len() as f64) <= 2.0 + elapsed * 5.0, "{} updates in {elapsed:.1} s: {figures:?}", figures.len());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn ids_that_are_no_sale_leave_nothing_behind(db: PgPool) {
    let instances = test_instances(db.clone(), 1, &[("IP_RATE_LIMIT", "1000000")]).await;
    let state = &instances[0];
    seed_flash_sale(&db, 33, 5, -60, 3600).await.unwrap();
    service::restore_sales(state).await.unwrap();
    let (public, admin) = (server::router::build(state.clone()), server::router::admin(state.clone()));
    let get = |uri: String| Request::get(uri).body(Body::empty()).unwrap();
    let held = || async {
        let resp = admin.clone().oneshot(get("/metrics".into())).await.unwrap();
        let text = String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
        let line = text.lines().find(|l| l.starts_with("haodian_live_stock_sales ")).expect("the gauge").to_string();
        line.rsplit(' ').next().unwrap().parse::<i64>().unwrap()
    };
    // A scanner walking the id space, twenty ids a request, and grabs of sales that do not exist.
    for batch in 0..50_i64 {
        let ids: Vec<String> = (0..20).map(|i| (1_000_000 + batch * 20 + i).to_string()).collect();
        let resp = public.clone().oneshot(get(format!("/api/v1/stock?sales={}", ids.join(",")))).await.unwrap();
        assert_eq!(resp.status().as_u16(), 404);
    }
    let user = seed_users(&db, 63, 1).await.unwrap()[0];
    for id in 2_000_000..2_000_100 {
        let e = service::grab(state, user, id, "203.0.113.7").await.expect_err("no such sale");
        assert!(matches!(e, SeckillError::Refused(GrabCode::NoSuchSale)), "{e:?}");
    }
    assert_eq!(held().await, 0, "1,100 ids that are no sale: no view kept");
    // The real sale is followed once shown or grabbed, and only it.
    let resp = public.clone().oneshot(get("/api/v1/stock?sales=33,1000001".into())).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert!(service::grab(state, user, 33, "203.0.113.7").await.is_ok());
    assert_eq!(held().await, 1, "the one sale that exists");
}
