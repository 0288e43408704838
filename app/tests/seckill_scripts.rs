//! The flash-sale Redis scripts under real concurrency: no oversell, one per user, nil-safety, release once.

use std::time::Duration;

use app::platform::keys::Keys;
use app::platform::redis_conn::Redis;
use app::sale::inventory::{self, GrabCode, StockSet};
use app::shared::clock::now_ms;
use app::start::redis_connection;
use app::testing::{expires_at, unique_token};
use futures::future::join_all;

async fn setup() -> (Redis, Keys) {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into());
    (redis_connection(&url).await.expect("redis"), Keys::new(format!("test:{}:", unique_token())))
}

const HOUR: i64 = 3_600_000;

#[tokio::test]
async fn a_thousand_buyers_on_a_hundred_coupons_get_exactly_a_hundred() {
    let (redis, keys) = setup().await;
    inventory::load_sale(&redis, &keys, 42, 100, (now_ms() - HOUR, now_ms() + HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    let grabs = (1..=1_000).map(|user| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move { inventory::try_grab(&redis, &keys, 42, user, 0).await.unwrap() }
    });
    let codes = join_all(grabs).await;
    assert_eq!(codes.iter().filter(|c| **c == GrabCode::Ok).count(), 100);
    assert_eq!(codes.iter().filter(|c| **c == GrabCode::SoldOut).count(), 900);
    assert_eq!(inventory::sale_state(&redis, &keys, 42).await.unwrap(), (Some(0), 100));
}

#[tokio::test]
async fn one_user_firing_fifty_grabs_gets_one() {
    let (redis, keys) = setup().await;
    inventory::load_sale(&redis, &keys, 7, 10, (now_ms() - HOUR, now_ms() + HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    // Each attempt mints its own order id, as the grab does.
    let grabs = (1..=50).map(|attempt| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move { inventory::try_grab(&redis, &keys, 7, 1234, attempt).await.unwrap() }
    });
    let codes = join_all(grabs).await;
    assert_eq!(codes.iter().filter(|c| **c == GrabCode::Ok).count(), 1);
    assert!(codes.iter().all(|c| matches!(c, GrabCode::Ok | GrabCode::AlreadyBought)));
    assert_eq!(inventory::sale_state(&redis, &keys, 7).await.unwrap(), (Some(9), 1));
}

#[tokio::test]
async fn a_grab_sent_again_answers_as_the_first_time_and_takes_one_coupon() {
    // A client that lost the answer mid-failover re-sends the same call (same order id) to the new primary.
    let (redis, keys) = setup().await;
    inventory::load_sale(&redis, &keys, 8, 10, (now_ms() - HOUR, now_ms() + HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    assert_eq!(inventory::try_grab(&redis, &keys, 8, 1234, 77).await.unwrap(), GrabCode::Ok);
    assert_eq!(inventory::try_grab(&redis, &keys, 8, 1234, 77).await.unwrap(), GrabCode::Ok, "the same grab");
    assert_eq!(inventory::try_grab(&redis, &keys, 8, 1234, 78).await.unwrap(), GrabCode::AlreadyBought);
    assert_eq!(inventory::sale_state(&redis, &keys, 8).await.unwrap(), (Some(9), 1));
    // Given back, the old order id no longer counts as a grab.
    assert!(inventory::release(&redis, &keys, 8, 1234, 77).await.unwrap());
    assert_eq!(inventory::try_grab(&redis, &keys, 8, 1234, 77).await.unwrap(), GrabCode::Ok, "a new grab");
    assert_eq!(inventory::sale_state(&redis, &keys, 8).await.unwrap(), (Some(9), 1));
}

#[tokio::test]
async fn window_and_missing_sale_answer_without_deducting() {
    let (redis, keys) = setup().await;
    assert_eq!(inventory::try_grab(&redis, &keys, 1, 1, 0).await.unwrap(), GrabCode::NoSuchSale, "nil-safe");
    inventory::load_sale(&redis, &keys, 2, 5, (now_ms() + HOUR, now_ms() + 2 * HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    assert_eq!(inventory::try_grab(&redis, &keys, 2, 1, 0).await.unwrap(), GrabCode::NotStarted);
    inventory::load_sale(&redis, &keys, 3, 5, (now_ms() - 2 * HOUR, now_ms() - HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    assert_eq!(inventory::try_grab(&redis, &keys, 3, 1, 0).await.unwrap(), GrabCode::Ended);
    for vid in [2, 3] {
        assert_eq!(inventory::sale_state(&redis, &keys, vid).await.unwrap(), (Some(5), 0), "nothing written");
    }
    // Half a sale's state (e.g. stock key evicted) is also "no such sale", never a script error.
    let _: () = redis::cmd("DEL").arg(keys.seckill_stock(2)).query_async(&mut redis.clone()).await.unwrap();
    assert_eq!(inventory::try_grab(&redis, &keys, 2, 1, 0).await.unwrap(), GrabCode::NoSuchSale);
}

#[tokio::test]
async fn a_release_gives_back_exactly_once() {
    let (redis, keys) = setup().await;
    inventory::load_sale(&redis, &keys, 9, 1, (now_ms() - HOUR, now_ms() + HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    assert_eq!(inventory::try_grab(&redis, &keys, 9, 5, 0).await.unwrap(), GrabCode::Ok);
    assert_eq!(inventory::try_grab(&redis, &keys, 9, 6, 0).await.unwrap(), GrabCode::SoldOut);
    let releases = (0..20).map(|_| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move { inventory::release(&redis, &keys, 9, 5, 777).await.unwrap() }
    });
    let released = join_all(releases).await;
    assert_eq!(released.iter().filter(|r| **r).count(), 1, "redelivered releases are no-ops");
    assert_eq!(inventory::sale_state(&redis, &keys, 9).await.unwrap(), (Some(1), 0));
    assert_eq!(inventory::try_grab(&redis, &keys, 9, 5, 0).await.unwrap(), GrabCode::Ok, "the buyer may grab again");
}

#[tokio::test]
async fn the_window_slides_and_says_how_long_to_wait() {
    // 3 requests per 1,000 ms. Two at t0 and one at t1 ≈ t0 + 600 fill the window. Just after t0 + 1,000 the
    // two old ones have slid out but the one at t1 has not: exactly two more fit, and the next must wait
    // until t1 + 1,000. A fixed window (reset at t0 + 1,000) would let three through there, not two.
    // The limit lives in the sale script: attempts on a sale that has not started count like any other.
    let (redis, keys) = setup().await;
    inventory::load_sale(&redis, &keys, 11, 10, (now_ms() + HOUR, now_ms() + 2 * HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    let rules = inventory::GrabRules {
        attempts: inventory::AttemptLimit { limit: 3, window_ms: 1_000 },
        quiet: Duration::ZERO,
    };
    let attempt = std::sync::atomic::AtomicI64::new(0);
    let check = || async {
        let id = attempt.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match inventory::try_grab_limited(&redis, &keys, 11, 1, id, None, rules).await {
            Ok(inventory::Grabbed { code: GrabCode::RateLimited, wait_ms, .. }) => {
                Ok::<_, redis::RedisError>(Some(wait_ms))
            }
            Ok(inventory::Grabbed { code, .. }) => {
                assert_eq!(code, GrabCode::NotStarted);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    };
    let t0 = std::time::Instant::now();
    assert_eq!(check().await.unwrap(), None);
    assert_eq!(check().await.unwrap(), None);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(check().await.unwrap(), None);
    let t1 = t0.elapsed().as_millis() as u64;
    assert!(check().await.unwrap().is_some(), "a fourth within the window is refused");
    tokio::time::sleep(Duration::from_millis(1_050).saturating_sub(t0.elapsed())).await;
    assert_eq!(check().await.unwrap(), None, "the two oldest slid out");
    assert_eq!(check().await.unwrap(), None, "the two oldest slid out");
    let wait = check().await.unwrap().expect("the request at t1 still counts: a sliding window, not a fixed one");
    let now = t0.elapsed().as_millis() as u64;
    // The wait runs to t1 + 1,000 (± the few ms between our clock and Redis').
    let expected = (t1 + 1_000).saturating_sub(now);
    assert!(wait.abs_diff(expected) <= 50, "wait {wait} ms, expected about {expected} ms");
    tokio::time::sleep(Duration::from_millis(wait + 20)).await;
    assert_eq!(check().await.unwrap(), None, "a slot freed up exactly when it said");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn instances_mint_ids_that_never_collide(db: sqlx::PgPool) {
    // Three instances started together mint ids concurrently; every id must be distinct, or one buyer's
    // order would be taken for another's redelivery and vanish.
    let states = app::testing::test_instances(db, 3, &[]).await;
    let minted = join_all(states.iter().map(|s| {
        let ids = s.ids.clone();
        async move {
            tokio::task::spawn_blocking(move || (0..20_000).map(|_| ids.next_id().unwrap()).collect::<Vec<i64>>()).await
        }
    }))
    .await;
    let mut all = std::collections::HashSet::new();
    for ids in minted {
        for id in ids.unwrap() {
            assert!(all.insert(id), "id {id} minted twice");
        }
    }
    assert_eq!(all.len(), 60_000);
}

/// Every key a sale owns, including the sets the scripts create later.
fn sale_keys(keys: &Keys, vid: i64) -> [String; 5] {
    [
        keys.seckill_stock(vid),
        keys.seckill_buyers(vid),
        keys.seckill_window(vid),
        keys.seckill_released(vid),
        keys.seckill_grabs(vid),
    ]
}

#[tokio::test]
async fn a_caller_whose_call_timed_out_can_check_whether_its_grab_happened() {
    let (redis, keys) = setup().await;
    inventory::load_sale(&redis, &keys, 12, 1, (now_ms() - HOUR, now_ms() + HOUR), false, now_ms() + 3 * HOUR)
        .await
        .unwrap();
    assert!(!inventory::grab_recorded(&redis, &keys, 12, 1, 500).await.unwrap(), "nothing yet");
    assert_eq!(inventory::try_grab(&redis, &keys, 12, 1, 500).await.unwrap(), GrabCode::Ok);
    assert!(inventory::grab_recorded(&redis, &keys, 12, 1, 500).await.unwrap(), "this grab happened");
    assert!(
        !inventory::grab_recorded(&redis, &keys, 12, 1, 501).await.unwrap(),
        "another attempt of the same user did not"
    );
    assert_eq!(inventory::try_grab(&redis, &keys, 12, 2, 502).await.unwrap(), GrabCode::SoldOut);
    assert!(!inventory::grab_recorded(&redis, &keys, 12, 2, 502).await.unwrap(), "a refused grab is not recorded");
}

#[tokio::test]
async fn a_sale_is_forgotten_as_a_whole_when_its_time_is_up() {
    let (redis, keys) = setup().await;
    let forget_at = now_ms() + 1_500;
    inventory::load_sale(&redis, &keys, 11, 2, (now_ms() - HOUR, now_ms() + HOUR), false, forget_at).await.unwrap();
    assert_eq!(inventory::try_grab(&redis, &keys, 11, 1, 0).await.unwrap(), GrabCode::Ok);
    assert!(inventory::release(&redis, &keys, 11, 1, 100).await.unwrap());
    assert_eq!(inventory::try_grab(&redis, &keys, 11, 2, 0).await.unwrap(), GrabCode::Ok);
    assert_eq!(inventory::set_stock(&redis, &keys, 11, 1).await.unwrap(), StockSet::Refused, "it has started");
    for key in sale_keys(&keys, 11) {
        assert_eq!(expires_at(&redis, &key).await.unwrap(), forget_at, "{key} must share the sale's lifetime");
    }
    tokio::time::sleep(Duration::from_millis((forget_at - now_ms()).max(0) as u64 + 100)).await;
    assert_eq!(inventory::try_grab(&redis, &keys, 11, 3, 0).await.unwrap(), GrabCode::NoSuchSale);
    assert!(!inventory::release(&redis, &keys, 11, 2, 101).await.unwrap(), "nothing to give back");
    let left: i64 = redis::cmd("EXISTS").arg(&sale_keys(&keys, 11)[..]).query_async(&mut redis.clone()).await.unwrap();
    assert_eq!(left, 0, "a late release must not bring a forgotten sale's keys back");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn worker_numbers_stay_unique_through_more_than_1024_restarts(db: sqlx::PgPool) {
    use app::platform::ids::{self, LeaseError};
    // One instance lives throughout; 1,100 others start and stop around it (the old `INCR % 1024` handed
    // the live instance's number out again on the 1,025th start).
    let ttl = Duration::from_secs(30);
    let survivor = ids::acquire(&db, ttl).await.unwrap();
    let mut minted = std::collections::HashSet::new();
    minted.insert(survivor.next_id().unwrap());
    for restart in 0..1_100 {
        // A number given back rests for two seconds; with the others all used, wait for one.
        let instance = loop {
            match ids::acquire(&db, ttl).await {
                Err(LeaseError::NoneFree) => tokio::time::sleep(Duration::from_millis(100)).await,
                other => break other.unwrap(),
            }
        };
        assert_ne!(instance.worker(), survivor.worker(), "restart {restart} got the live instance's number");
        assert!(minted.insert(instance.next_id().unwrap()));
        assert!(minted.insert(survivor.next_id().unwrap()));
        instance.release(&db).await.unwrap();
        assert!(instance.next_id().is_err(), "a released number mints nothing");
    }
    // Crashed instances keep their numbers until their leases run out: with every number held, a new
    // instance is refused rather than handed a number in use.
    tokio::time::sleep(Duration::from_millis(2_100)).await; // every given-back number has rested
    let mut crashed = Vec::new();
    for _ in 0..1_023 {
        crashed.push(ids::acquire(&db, ttl).await.unwrap());
    }
    let workers: std::collections::HashSet<u64> =
        crashed.iter().map(|g| g.worker()).chain([survivor.worker()]).collect();
    assert_eq!(workers.len(), 1_024, "every live instance has its own number");
    assert!(matches!(ids::acquire(&db, ttl).await, Err(LeaseError::NoneFree)));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_instance_whose_lease_was_taken_over_stops_minting_and_leases_anew(db: sqlx::PgPool) {
    let ids = app::platform::ids::acquire(&db, Duration::from_secs(30)).await.unwrap();
    let old = ids.worker();
    assert!(ids.next_id().is_ok());
    // Another holder now owns the number (as if this instance had been cut off past its lease).
    sqlx::query(
        "UPDATE id_leases SET holder = 'someone else', expires_at = now() + interval '1 minute' WHERE worker = $1",
    )
    .bind(old as i32)
    .execute(&db)
    .await
    .unwrap();
    assert!(ids.renew(&db).await.unwrap(), "a fresh number is leased");
    assert_ne!(ids.worker(), old, "it never mints with the number it lost");
    let holder: Option<String> = sqlx::query_scalar("SELECT holder FROM id_leases WHERE worker = $1")
        .bind(old as i32)
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(holder.as_deref(), Some("someone else"));
    assert!(ids.next_id().is_ok());
}

#[tokio::test]
async fn a_stock_change_never_overwrites_grabs() {
    let (redis, keys) = setup().await;
    let stock = |vid: i64| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move {
            let v: Option<i64> =
                redis::cmd("GET").arg(keys.seckill_stock(vid)).query_async(&mut redis.clone()).await.unwrap();
            v
        }
    };
    // Not started: the change takes, and the sale keeps its lifetime.
    let forget_at = now_ms() + 3 * HOUR;
    inventory::load_sale(&redis, &keys, 13, 5, (now_ms() + HOUR, now_ms() + 2 * HOUR), false, forget_at).await.unwrap();
    assert_eq!(inventory::set_stock(&redis, &keys, 13, 8).await.unwrap(), StockSet::Set);
    assert_eq!(stock(13).await, Some(8));
    assert_eq!(expires_at(&redis, &keys.seckill_stock(13)).await.unwrap(), forget_at);

    // Postgres allowed the change a moment before the start; it reaches Redis after two grabs.
    inventory::load_sale(&redis, &keys, 14, 5, (now_ms() + 300, now_ms() + HOUR), false, forget_at).await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(inventory::try_grab(&redis, &keys, 14, 1, 601).await.unwrap(), GrabCode::Ok);
    assert_eq!(inventory::try_grab(&redis, &keys, 14, 2, 602).await.unwrap(), GrabCode::Ok);
    assert_eq!(inventory::set_stock(&redis, &keys, 14, 5).await.unwrap(), StockSet::Refused);
    assert_eq!(stock(14).await, Some(3), "the two grabs stand");

    // Redis lost the sale: nothing is written (the rebuild reads Postgres).
    assert_eq!(inventory::set_stock(&redis, &keys, 15, 5).await.unwrap(), StockSet::Absent);
    assert_eq!(stock(15).await, None);
}
