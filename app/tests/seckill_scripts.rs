//! The flash-sale Redis scripts under real concurrency: no oversell, one per user, nil-safety, release once.

use std::time::Duration;

use app::keys::Keys;
use app::seckill::model::GrabCode;
use app::seckill::store;
use app::state::redis_connection;
use app::testing::{expires_at, unique_token};
use futures::future::join_all;
use redis::aio::ConnectionManager;

async fn setup() -> (ConnectionManager, Keys) {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into());
    (redis_connection(&url).await.expect("redis"), Keys::new(format!("test:{}:", unique_token())))
}

fn now_ms() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1_000_000
}

const HOUR: i64 = 3_600_000;

#[tokio::test]
async fn a_thousand_buyers_on_a_hundred_coupons_get_exactly_a_hundred() {
    let (redis, keys) = setup().await;
    store::load_sale(&redis, &keys, 42, 100, (now_ms() - HOUR, now_ms() + HOUR), now_ms() + 3 * HOUR).await.unwrap();
    let grabs = (1..=1_000).map(|user| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move { store::try_grab(&redis, &keys, 42, user).await.unwrap() }
    });
    let codes = join_all(grabs).await;
    assert_eq!(codes.iter().filter(|c| **c == GrabCode::Ok).count(), 100);
    assert_eq!(codes.iter().filter(|c| **c == GrabCode::SoldOut).count(), 900);
    assert_eq!(store::sale_state(&redis, &keys, 42).await.unwrap(), (Some(0), 100));
}

#[tokio::test]
async fn one_user_firing_fifty_grabs_gets_one() {
    let (redis, keys) = setup().await;
    store::load_sale(&redis, &keys, 7, 10, (now_ms() - HOUR, now_ms() + HOUR), now_ms() + 3 * HOUR).await.unwrap();
    let grabs = (0..50).map(|_| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move { store::try_grab(&redis, &keys, 7, 1234).await.unwrap() }
    });
    let codes = join_all(grabs).await;
    assert_eq!(codes.iter().filter(|c| **c == GrabCode::Ok).count(), 1);
    assert!(codes.iter().all(|c| matches!(c, GrabCode::Ok | GrabCode::AlreadyBought)));
    assert_eq!(store::sale_state(&redis, &keys, 7).await.unwrap(), (Some(9), 1));
}

#[tokio::test]
async fn window_and_missing_sale_answer_without_deducting() {
    let (redis, keys) = setup().await;
    assert_eq!(store::try_grab(&redis, &keys, 1, 1).await.unwrap(), GrabCode::NoSuchSale, "nil-safe");
    store::load_sale(&redis, &keys, 2, 5, (now_ms() + HOUR, now_ms() + 2 * HOUR), now_ms() + 3 * HOUR).await.unwrap();
    assert_eq!(store::try_grab(&redis, &keys, 2, 1).await.unwrap(), GrabCode::NotStarted);
    store::load_sale(&redis, &keys, 3, 5, (now_ms() - 2 * HOUR, now_ms() - HOUR), now_ms() + 3 * HOUR).await.unwrap();
    assert_eq!(store::try_grab(&redis, &keys, 3, 1).await.unwrap(), GrabCode::Ended);
    for vid in [2, 3] {
        assert_eq!(store::sale_state(&redis, &keys, vid).await.unwrap(), (Some(5), 0), "nothing written");
    }
    // Half a sale's state (e.g. stock key evicted) is also "no such sale", never a script error.
    let _: () = redis::cmd("DEL").arg(keys.seckill_stock(2)).query_async(&mut redis.clone()).await.unwrap();
    assert_eq!(store::try_grab(&redis, &keys, 2, 1).await.unwrap(), GrabCode::NoSuchSale);
}

#[tokio::test]
async fn a_release_gives_back_exactly_once() {
    let (redis, keys) = setup().await;
    store::load_sale(&redis, &keys, 9, 1, (now_ms() - HOUR, now_ms() + HOUR), now_ms() + 3 * HOUR).await.unwrap();
    assert_eq!(store::try_grab(&redis, &keys, 9, 5).await.unwrap(), GrabCode::Ok);
    assert_eq!(store::try_grab(&redis, &keys, 9, 6).await.unwrap(), GrabCode::SoldOut);
    let releases = (0..20).map(|_| {
        let (redis, keys) = (redis.clone(), keys.clone());
        async move { store::release(&redis, &keys, 9, 5, 777).await.unwrap() }
    });
    let released = join_all(releases).await;
    assert_eq!(released.iter().filter(|r| **r).count(), 1, "redelivered releases are no-ops");
    assert_eq!(store::sale_state(&redis, &keys, 9).await.unwrap(), (Some(1), 0));
    assert_eq!(store::try_grab(&redis, &keys, 9, 5).await.unwrap(), GrabCode::Ok, "the buyer may grab again");
}

#[tokio::test]
async fn the_sliding_window_limits_and_says_how_long_to_wait() {
    let (redis, keys) = setup().await;
    let key = keys.rate_limit("grab", "user-1");
    for _ in 0..3 {
        assert_eq!(store::rate_limit(&redis, &key, 1_000, 3).await.unwrap(), None);
    }
    let wait = store::rate_limit(&redis, &key, 1_000, 3).await.unwrap().expect("fourth is refused");
    assert!((1..=1_000).contains(&wait), "{wait}");
    tokio::time::sleep(Duration::from_millis(wait + 50)).await;
    assert_eq!(store::rate_limit(&redis, &key, 1_000, 3).await.unwrap(), None, "a slot freed up");
}

#[sqlx::test(migrator = "app::state::MIGRATOR")]
async fn instances_lease_different_worker_numbers(db: sqlx::PgPool) {
    let states = app::testing::test_instances(db, 3, &[]).await;
    let workers: std::collections::HashSet<u64> = states.iter().map(|s| s.ids.worker()).collect();
    assert_eq!(workers.len(), 3, "each instance mints ids in its own space");
    let a = states[0].ids.next_id();
    let b = states[1].ids.next_id();
    assert_ne!(a, b);
}

/// Every key a sale owns, including the sets the scripts create later.
fn sale_keys(keys: &Keys, vid: i64) -> [String; 4] {
    [keys.seckill_stock(vid), keys.seckill_buyers(vid), keys.seckill_window(vid), keys.seckill_released(vid)]
}

#[tokio::test]
async fn a_sale_is_forgotten_as_a_whole_when_its_time_is_up() {
    let (redis, keys) = setup().await;
    let forget_at = now_ms() + 1_500;
    store::load_sale(&redis, &keys, 11, 2, (now_ms() - HOUR, now_ms() + HOUR), forget_at).await.unwrap();
    assert_eq!(store::try_grab(&redis, &keys, 11, 1).await.unwrap(), GrabCode::Ok);
    assert!(store::release(&redis, &keys, 11, 1, 100).await.unwrap());
    assert_eq!(store::try_grab(&redis, &keys, 11, 2).await.unwrap(), GrabCode::Ok);
    store::set_stock(&redis, &keys, 11, 1).await.unwrap();
    for key in sale_keys(&keys, 11) {
        assert_eq!(expires_at(&redis, &key).await.unwrap(), forget_at, "{key} must share the sale's lifetime");
    }
    tokio::time::sleep(Duration::from_millis((forget_at - now_ms()).max(0) as u64 + 100)).await;
    assert_eq!(store::try_grab(&redis, &keys, 11, 3).await.unwrap(), GrabCode::NoSuchSale);
    assert!(!store::release(&redis, &keys, 11, 2, 101).await.unwrap(), "nothing to give back");
    let left: i64 = redis::cmd("EXISTS").arg(&sale_keys(&keys, 11)[..]).query_async(&mut redis.clone()).await.unwrap();
    assert_eq!(left, 0, "a late release must not bring a forgotten sale's keys back");
}
