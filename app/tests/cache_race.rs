//! The shop cache's last race, against real Redis and Postgres: a load that read Postgres before an edit
//! must not write the old row back to L2 after the edit's invalidation; 1,000 readers of an expired entry
//! on three instances cost Postgres exactly one load, counted by Postgres' own statistics; an invalidation
//! that failed after the edit's commit lands once Redis answers again.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use app::catalog::model::Shop;
use app::catalog::service::{self, ShopCache};
use app::platform::cache::{CacheEvent, L2Entry};
use app::platform::redis_conn::RedisTarget;
use app::shared::clock::now_ms;
use app::testing::{Proxy, ProxyMode, test_instances};
use app::web::state::AppState;
use futures::future::{BoxFuture, join_all};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use tokio::sync::Notify;

/// A pause in [`gated_load`]: `read` is signalled once the loader has read Postgres, then it waits for
/// `resume` before handing the row to the cache.
#[derive(Default)]
struct Gate {
    read: Notify,
    resume: Notify,
}

/// Armed gates by shop id (tests run side by side in one binary, each on ids of its own).
static GATES: LazyLock<Mutex<HashMap<i64, Arc<Gate>>>> = LazyLock::new(Mutex::default);

/// Makes the next load of `id` through [`gated_load`] pause after its Postgres read.
fn arm(id: i64) -> Arc<Gate> {
    let gate = Arc::new(Gate::default());
    GATES.lock().unwrap().insert(id, gate.clone());
    gate
}

/// The test's loader, a plain function as the catalog's: the shop's name from Postgres, pausing once
/// after the read if a gate is armed for the id (the cache is generic over its loader, so no hook in the
/// production code is needed to hold a load at the worst moment).
fn gated_load(db: PgPool, id: i64) -> BoxFuture<'static, Result<Option<Shop>, sqlx::Error>> {
    Box::pin(async move {
        let name: Option<String> =
            sqlx::query_scalar("SELECT name FROM shops WHERE id = $1").bind(id).fetch_optional(&db).await?;
        let gate = GATES.lock().unwrap().remove(&id);
        if let Some(gate) = gate {
            gate.read.notify_one();
            gate.resume.notified().await;
        }
        Ok(name.map(|name| Shop { id, name, type_id: 1, type_name: "T".into(), ..Shop::default() }))
    })
}

async fn fixture(db: &PgPool, id: i64, name: &str) {
    sqlx::query("INSERT INTO shop_types (id, name) VALUES (1, 'T') ON CONFLICT DO NOTHING").execute(db).await.unwrap();
    sqlx::query(
        "INSERT INTO shops (id, name, type_id, address, longitude, latitude) VALUES ($1, $2, 1, '杭州市延安路1号', 120.16, 30.25)",
    )
    .bind(id)
    .bind(name)
    .execute(db)
    .await
    .unwrap();
}

fn cache(state: &AppState) -> &ShopCache {
    ShopCache::of(state).unwrap()
}

/// An owner's edit as the catalog makes it, without the form: Postgres first, then the invalidation.
async fn edit(state: &AppState, id: i64, name: &str) {
    sqlx::query("UPDATE shops SET name = $2 WHERE id = $1").bind(id).bind(name).execute(&state.db).await.unwrap();
    cache(state).invalidate(id).await;
}

/// Waits until nobody holds `id`'s rebuild lock (the paused load has written, or not, and let go).
async fn lock_released(state: &AppState, id: i64) {
    let key = state.keys.shop_lock(id);
    let started = Instant::now();
    loop {
        let held: bool = redis::cmd("EXISTS").arg(&key).query_async(&mut state.redis.clone()).await.unwrap();
        if !held {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the rebuild lock was never released");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// What L2 holds for `id`: `None` for no entry, else the name (`Some(None)` for a null marker).
async fn l2_name(state: &AppState, id: i64) -> Option<Option<String>> {
    cache(state).l2_entry(id).await.unwrap().map(|e| e.data.map(|s| s.name))
}

/// Reads `id` on `state` until it shows `name` (L1 copies go on the invalidation message); the last name seen.
async fn eventually_reads(state: &AppState, id: i64, name: &str) -> String {
    let mut seen = String::new();
    for _ in 0..60 {
        seen = service::shop(state, id).await.unwrap().name.clone();
        if seen == name {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    seen
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_rebuild_that_read_before_an_edit_does_not_write_the_old_row_back(db: PgPool) {
    const ID: i64 = 11;
    fixture(&db, ID, "旧名字").await;
    let states = test_instances(db.clone(), 2, &[]).await;
    tokio::time::sleep(Duration::from_millis(300)).await; // both listeners subscribed
    let (a, b) = (&states[0], &states[1]);
    let stale = Shop { id: ID, name: "旧名字".into(), type_id: 1, ..Shop::default() };
    cache(a).put_l2(ID, &L2Entry { data: Some(stale), expires_at: now_ms() - 1_000 }).await.unwrap();

    // A reader on A finds the entry expired: served stale, a background rebuild starts and reads Postgres...
    let gate = arm(ID);
    let served = cache(a).get(ID, gated_load).await.unwrap().unwrap();
    assert_eq!(served.name, "旧名字");
    tokio::time::timeout(Duration::from_secs(5), gate.read.notified()).await.expect("the rebuild read Postgres");
    // ...and before it writes, the owner saves on B (commit, then invalidation).
    edit(b, ID, "新名字").await;
    gate.resume.notify_one();
    lock_released(a, ID).await;

    let l2 = l2_name(a, ID).await;
    assert!(
        matches!(&l2, None | Some(Some(_))) && l2.as_ref().and_then(|n| n.as_deref()) != Some("旧名字"),
        "L2 holds {l2:?}: the rebuild wrote the row it read before the edit back after the invalidation"
    );
    assert!(cache(&states[0]).metrics.get(CacheEvent::StaleFillsRefused) >= 1, "the epoch refused the write");
    for state in &states {
        assert_eq!(eventually_reads(state, ID, "新名字").await, "新名字", "every instance reads the edit");
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_cold_load_that_read_before_an_edit_does_not_write_the_old_row_back(db: PgPool) {
    const ID: i64 = 12;
    fixture(&db, ID, "旧名字").await;
    let states = test_instances(db.clone(), 2, &[]).await;
    tokio::time::sleep(Duration::from_millis(300)).await; // both listeners subscribed
    let (a, b) = (states[0].clone(), &states[1]);

    // A cold read on A takes the lock and reads Postgres...
    let gate = arm(ID);
    let reader = tokio::spawn(async move { cache(&a).get(ID, gated_load).await.map(|s| s.map(|s| s.name.clone())) });
    tokio::time::timeout(Duration::from_secs(5), gate.read.notified()).await.expect("the load read Postgres");
    // ...and before it writes, the owner saves on B.
    edit(b, ID, "新名字").await;
    gate.resume.notify_one();
    let answered = reader.await.unwrap().unwrap();
    lock_released(&states[0], ID).await;

    let l2 = l2_name(&states[0], ID).await;
    assert!(
        l2.as_ref().and_then(|n| n.as_deref()) != Some("旧名字"),
        "L2 holds {l2:?} (the read answered {answered:?}): the old row is back after the invalidation"
    );
    assert!(cache(&states[0]).metrics.get(CacheEvent::StaleFillsRefused) >= 1, "the epoch refused the write");
    for state in &states {
        assert_eq!(eventually_reads(state, ID, "新名字").await, "新名字", "every instance reads the edit");
    }
}

/// Scans of `shops` Postgres has recorded (sequential and index): the catalog's loader is the only
/// reader of that table in these tests, one scan a load.
async fn shop_scans(db: &PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'shops'",
    )
    .fetch_one(db)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_thousand_readers_of_an_expired_entry_on_three_instances_cost_one_postgres_load(db: PgPool) {
    // `#[sqlx::test]` runs on one thread; the instances and their readers get a runtime with workers of
    // its own, so loads, locks and rebuilds on different instances really overlap.
    let options = (*db.connect_options()).clone();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(3).enable_all().build().unwrap();
    let (loads, counted) = tokio::task::spawn_blocking(move || {
        let figures = runtime.block_on(thousand_readers(options));
        runtime.shutdown_timeout(Duration::from_secs(1));
        figures
    })
    .await
    .unwrap();
    eprintln!(
        "1,000 readers, 3 instances: Postgres counted {loads} scan(s) of shops; the caches counted {counted} load(s)"
    );
    assert_eq!(loads, 1, "Postgres' own statistics: exactly one load");
    assert_eq!(counted, 1, "the caches' counters agree");
}

/// 1,000 concurrent readers of a logically expired entry spread over three instances: (loads as
/// Postgres' statistics count them, loads as the caches count them).
async fn thousand_readers(options: sqlx::postgres::PgConnectOptions) -> (i64, u64) {
    const ID: i64 = 13;
    let db = PgPoolOptions::new().max_connections(2).connect_with(options.clone()).await.unwrap();
    fixture(&db, ID, "新名字").await;
    // The instances get a pool of their own: closing it ends its backends, which hands their statistics to
    // Postgres' shared counters (a live backend flushes them only now and then).
    let pool = PgPoolOptions::new().max_connections(8).connect_with(options).await.unwrap();
    let states = test_instances(pool.clone(), 3, &[]).await;
    let stale = Shop { id: ID, name: "旧名字".into(), type_id: 1, ..Shop::default() };
    cache(&states[0]).put_l2(ID, &L2Entry { data: Some(stale), expires_at: now_ms() - 1_000 }).await.unwrap();
    let before = shop_scans(&db).await;
    // The rebuild's read of the row waits behind this lock until every reader has answered, so each answer
    // came from the stale entry at once, not after the load — and however slowly a busy machine runs the
    // thousand readers, none of them arrives after the rebuild has already written.
    let mut hold = db.begin().await.unwrap();
    sqlx::query("LOCK TABLE shops IN ACCESS EXCLUSIVE MODE").execute(&mut *hold).await.unwrap();

    let reads = (0..1_000).map(|i| {
        let state = states[i % 3].clone();
        tokio::spawn(async move { service::shop(&state, ID).await.map(|s| s.name.clone()) })
    });
    let names = join_all(reads).await;
    assert_eq!(l2_name(&states[0], ID).await, Some(Some("旧名字".into())), "the rebuild waits for the lock");
    hold.rollback().await.unwrap();
    assert!(
        names.iter().all(|n| n.as_ref().is_ok_and(|n| n.as_deref().is_ok_and(|n| n == "旧名字"))),
        "every reader got the stale value at once"
    );

    let started = Instant::now();
    while l2_name(&states[0], ID).await != Some(Some("新名字".into())) {
        assert!(started.elapsed() < Duration::from_secs(10), "the entry was never rebuilt");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // any straggling rebuild has had its chance
    let counted: u64 = states.iter().map(|s| cache(s).metrics.get(CacheEvent::DbLoads)).sum();

    pool.close().await;
    let started = Instant::now();
    while shop_scans(&db).await == before && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // every closed backend has reported
    let loads = shop_scans(&db).await - before;
    db.close().await;
    (loads, counted)
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn an_invalidation_that_failed_after_the_commit_is_retried(db: PgPool) {
    const ID: i64 = 14;
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into());
    let RedisTarget::Single(single) = RedisTarget::parse(&url) else {
        eprintln!("skipped: a proxy can stand in front of one Redis node, not a cluster (which names its nodes)");
        return;
    };
    let parsed = redis::Client::open(single.as_str()).unwrap().get_connection_info().clone();
    let redis::ConnectionAddr::Tcp(host, port) = parsed.addr().clone() else { panic!("REDIS_URL is not TCP") };
    let target = tokio::net::lookup_host((host.as_str(), port)).await.unwrap().next().unwrap();
    let proxy = Proxy::start(target).await.unwrap();
    let through_proxy = format!("redis://{}/{}", proxy.addr, parsed.redis_settings().db());
    fixture(&db, ID, "旧名字").await;
    let state = test_instances(db.clone(), 1, &[("REDIS_URL", through_proxy.as_str())]).await.remove(0);
    // Redis as it is, not through the proxy: what L2 really holds.
    let mut direct = redis::Client::open(single.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let entry = state.keys.shop(ID);
    assert_eq!(service::shop(&state, ID).await.unwrap().name, "旧名字");
    let held: Option<String> = redis::cmd("GET").arg(&entry).query_async(&mut direct).await.unwrap();
    assert!(held.is_some_and(|e| e.contains("旧名字")), "the read filled L2");

    proxy.set(ProxyMode::Cut);
    let asked = Instant::now();
    edit(&state, ID, "新名字").await;
    assert!(asked.elapsed() < Duration::from_secs(8), "the edit waited {:?} on a dead Redis", asked.elapsed());
    assert_eq!(cache(&state).metrics.get(CacheEvent::InvalidationRetries), 1, "handed to the retry");
    let held: Option<String> = redis::cmd("GET").arg(&entry).query_async(&mut direct).await.unwrap();
    assert!(held.is_some_and(|e| e.contains("旧名字")), "with Redis unreachable, the old entry is still there");

    proxy.set(ProxyMode::Up);
    let started = Instant::now();
    loop {
        let held: Option<String> = redis::cmd("GET").arg(&entry).query_async(&mut direct).await.unwrap();
        if !held.is_some_and(|e| e.contains("旧名字")) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the invalidation was never retried");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let epoch: Option<i64> = redis::cmd("GET").arg(state.keys.shop_epoch(ID)).query_async(&mut direct).await.unwrap();
    assert_eq!(epoch, Some(1), "the retry moved the edit epoch on");
    assert_eq!(eventually_reads(&state, ID, "新名字").await, "新名字");
}
