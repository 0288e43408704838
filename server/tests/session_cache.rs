//! Sessions cached in each instance: a request with a session cookie (every grab) reads no Redis, and a
//! logout on one instance ends the session on every other at once — on real Redis, two instances. And
//! sessions kept in Postgres under Redis: a Redis that forgot them logs nobody out.

use std::time::{Duration, Instant};

use app::testing::{seed_users, test_instances};
use app::web::session::RedisSessionStore;
use sqlx::PgPool;
use tower_sessions::SessionStore;
use tower_sessions::session::Id;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_session_is_read_from_the_instance_and_a_logout_anywhere_ends_it_everywhere(db: PgPool) {
    let instances = test_instances(db.clone(), 2, &[]).await;
    let (a, b) = (&instances[0], &instances[1]);
    // Both instances are listening before anything is announced.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let on_a = RedisSessionStore::cached(a.redis.clone(), a.keys.clone(), a.sessions.clone());
    let on_b = RedisSessionStore::cached(b.redis.clone(), b.keys.clone(), b.sessions.clone());
    let user = seed_users(&db, 72, 1).await.unwrap()[0];
    let sid = app::web::session::mint(&on_a, user, time::Duration::hours(1)).await.unwrap();
    let id: Id = sid.parse().unwrap();
    assert!(on_b.load(&id).await.unwrap().is_some(), "B reads it from Redis once");

    // The Redis copy removed behind everyone's back (no announcement): B answers from its own copy, so a
    // request with this cookie costs B no Redis read.
    let _: () = redis::cmd("DEL").arg(a.keys.session(&sid)).query_async(&mut a.redis.clone()).await.unwrap();
    assert!(on_b.load(&id).await.unwrap().is_some(), "answered from B's copy");
    // A store without the cache sees the truth.
    assert!(RedisSessionStore::new(b.redis.clone(), b.keys.clone()).load(&id).await.unwrap().is_none());

    // A logout on A is announced: B drops its copy within moments.
    let sid2 = app::web::session::mint(&on_a, user, time::Duration::hours(1)).await.unwrap();
    let id2: Id = sid2.parse().unwrap();
    assert!(on_b.load(&id2).await.unwrap().is_some());
    on_a.delete(&id2).await.unwrap();
    let started = Instant::now();
    while on_b.load(&id2).await.unwrap().is_some() {
        assert!(started.elapsed() < Duration::from_secs(2), "B still honours a session logged out on A");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_session_outlives_a_redis_that_forgot_it_and_a_logout_ends_it_in_both(db: PgPool) {
    let instances = test_instances(db.clone(), 2, &[]).await;
    let (a, b) = (&instances[0], &instances[1]);
    let user = seed_users(&db, 73, 1).await.unwrap()[0];
    let sid = app::web::session::mint(&app::web::session::durable(a), user, time::Duration::hours(1)).await.unwrap();
    let id: Id = sid.parse().unwrap();

    // Redis forgets every session (a restart without a disk), with no announcement to anyone.
    app::platform::keys::unlink_matching(&a.redis, &format!("{}*", a.keys.session(""))).await.unwrap();
    assert!(RedisSessionStore::new(b.redis.clone(), b.keys.clone()).load(&id).await.unwrap().is_none());

    // B still knows the shopper: the record comes back from Postgres and Redis has its copy again.
    let back = app::web::session::durable_uncached(b).load(&id).await.unwrap().expect("the session survived");
    assert_eq!(back.data.get("uid").and_then(|v| v.as_i64()), Some(user));
    assert!(
        RedisSessionStore::new(a.redis.clone(), a.keys.clone()).load(&id).await.unwrap().is_some(),
        "Redis refilled"
    );

    // A logout on A ends it in Redis and in Postgres: it cannot come back from either.
    app::web::session::durable(a).delete(&id).await.unwrap();
    assert!(app::web::session::durable_uncached(b).load(&id).await.unwrap().is_none());
    let rows: i64 =
        sqlx::query_scalar("SELECT count(*) FROM sessions WHERE id = $1").bind(&sid).fetch_one(&db).await.unwrap();
    assert_eq!(rows, 0);
}
