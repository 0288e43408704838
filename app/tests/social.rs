//! Notes, likes, follows and the feed on real Redis and Postgres.

use app::social::model::NewNote;
use app::social::service;
use app::testing::{seed_shop, seed_users, test_state};
use sqlx::PgPool;

fn note(title: &str) -> NewNote {
    NewNote::parse(title, "body", "").unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn concurrent_likes_and_unlikes_keep_the_count_equal_to_the_set(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let users = seed_users(&db, 430, 60).await.unwrap();
    let id = service::write_note(&state, users[0], 1, note("n")).await.unwrap();
    // 60 users like at once; the first 20 of them then toggle again (un-like) at once.
    let toggle_all = |who: Vec<i64>| {
        let state = state.clone();
        async move {
            let tasks: Vec<_> = who
                .into_iter()
                .map(|u| {
                    let state = state.clone();
                    tokio::spawn(async move { service::toggle_like(&state, u, id).await.unwrap() })
                })
                .collect();
            for t in tasks {
                t.await.unwrap();
            }
        }
    };
    toggle_all(users.clone()).await;
    toggle_all(users[..20].to_vec()).await;
    let card: u64 = redis::cmd("ZCARD").arg(state.keys.likes(id)).query_async(&mut state.redis.clone()).await.unwrap();
    let liked: i32 = sqlx::query_scalar("SELECT liked FROM notes WHERE id = $1").bind(id).fetch_one(&db).await.unwrap();
    assert_eq!((card, liked), (40, 40));
    let view = service::note(&state, id, Some(users[0])).await.unwrap();
    assert!(!view.liked_by_me, "users[0] un-liked");
    assert!(service::note(&state, id, Some(users[59])).await.unwrap().liked_by_me);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_first_five_likers_come_in_the_order_they_liked(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let users = seed_users(&db, 431, 8).await.unwrap();
    let id = service::write_note(&state, users[0], 1, note("n")).await.unwrap();
    for u in [7, 3, 5, 1, 6, 2, 4] {
        // One like per millisecond or more: the order of liking, not of ids, decides.
        service::toggle_like(&state, users[u], id).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    let view = service::note(&state, id, None).await.unwrap();
    let first: Vec<i64> = view.first_likers.iter().map(|p| p.id).collect();
    assert_eq!(first, vec![users[7], users[3], users[5], users[1], users[6]], "five, not seven, in liking order");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn follow_unfollow_and_common_follows(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let u = seed_users(&db, 432, 5).await.unwrap();
    for (a, b) in [(0, 2), (0, 3), (0, 4), (1, 3), (1, 4), (1, 0)] {
        service::set_follow(&state, u[a], u[b], true).await.unwrap();
    }
    service::set_follow(&state, u[0], u[2], true).await.unwrap(); // twice is once
    let p = service::profile(&state, u[1], Some(u[0])).await.unwrap();
    let mut common: Vec<i64> = p.common.iter().map(|x| x.id).collect();
    common.sort_unstable();
    assert_eq!(common, vec![u[3], u[4]]);
    assert_eq!((p.followers, p.following, p.followed_by_me), (0, 3, false));
    assert!(service::profile(&state, u[0], Some(u[1])).await.unwrap().followed_by_me);

    service::set_follow(&state, u[0], u[3], false).await.unwrap();
    let set: Vec<i64> =
        redis::cmd("SMEMBERS").arg(state.keys.follows(u[0])).query_async(&mut state.redis.clone()).await.unwrap();
    assert!(!set.contains(&u[3]), "an unfollow leaves no trace in the set");
    let rows: i64 =
        sqlx::query_scalar("SELECT count(*) FROM follows WHERE user_id = $1").bind(u[0]).fetch_one(&db).await.unwrap();
    assert_eq!((rows, set.len()), (2, 2));
    let p = service::profile(&state, u[1], Some(u[0])).await.unwrap();
    assert_eq!(p.common.iter().map(|x| x.id).collect::<Vec<_>>(), vec![u[4]]);
    assert!(matches!(service::set_follow(&state, u[0], u[0], true).await, Err(service::SocialError::SelfFollow)));
    assert!(matches!(
        service::set_follow(&state, u[0], 987_654, true).await,
        Err(service::SocialError::NotFound(app::shared::error::Thing::User))
    ));

    // Redis lost the sets: start-up rebuilds them from Postgres.
    redis::cmd("DEL").arg(state.keys.follows(u[0])).query_async::<()>(&mut state.redis.clone()).await.unwrap();
    service::load_follows(&state).await.unwrap();
    let mut set: Vec<i64> =
        redis::cmd("SMEMBERS").arg(state.keys.follows(u[0])).query_async(&mut state.redis.clone()).await.unwrap();
    set.sort_unstable();
    assert_eq!(set, vec![u[2], u[4]]);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_feed_pages_through_notes_with_equal_timestamps_and_drops_deleted_ones(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    let u = seed_users(&db, 433, 2).await.unwrap();
    let (author, reader) = (u[0], u[1]);
    service::set_follow(&state, reader, author, true).await.unwrap();
    // 25 notes written in the same millisecond, plus 3 later ones.
    let same: Vec<i64> = sqlx::query_scalar(
        "INSERT INTO notes (user_id, shop_id, title, body, created_at)
         SELECT $1, 1, 'same ' || g, 'b', to_timestamp(1796000000) FROM generate_series(1, 25) g RETURNING id",
    )
    .bind(author)
    .fetch_all(&db)
    .await
    .unwrap();
    // The inbox as fan-out leaves it: a stale entry (no such note) and 25 notes with one score.
    let inbox = |id: i64, score: i64| {
        let mut redis = state.redis.clone();
        let key = state.keys.feed(reader);
        async move { redis::cmd("ZADD").arg(key).arg(score).arg(id).query_async::<()>(&mut redis).await.unwrap() }
    };
    inbox(0, 0).await;
    for id in &same {
        inbox(*id, 1_796_000_000_000).await;
    }
    let mut later = Vec::new();
    for i in 0..3 {
        later.push(service::write_note(&state, author, 1, note(&format!("later {i}"))).await.unwrap());
    }
    let mut seen = Vec::new();
    let (mut max, mut offset) = (None, 0);
    loop {
        let page = service::feed(&state, reader, max, offset).await.unwrap();
        seen.extend(page.notes.iter().map(|n| n.id));
        match page.next_max {
            Some(m) => (max, offset) = (Some(m), page.next_offset),
            None => break,
        }
    }
    assert_eq!(&seen[..3], &[later[2], later[1], later[0]], "newest first");
    let mut rest = seen[3..].to_vec();
    rest.sort_unstable();
    let mut expected = same.clone();
    expected.sort_unstable();
    assert_eq!(rest, expected, "all 25 equal-time notes, none skipped or repeated");

    service::delete_note(&state, author, later[1]).await.unwrap();
    let first = service::feed(&state, reader, None, 0).await.unwrap();
    assert!(!first.notes.iter().any(|n| n.id == later[1]), "a deleted note drops out");
    assert!(
        matches!(service::delete_note(&state, reader, later[0]).await, Err(service::SocialError::NoteNotFound)),
        "only the author deletes"
    );
}
