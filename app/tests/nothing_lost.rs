//! Nothing a person did is lost when Redis forgets: check-ins, likes, follows, the follow feed and the
//! day's visitor counts (up to the last snapshot) come back from Postgres when Redis restarts empty.

use app::catalog::{service as catalog, visitors};
use app::checkin::service as checkin;
use app::recovery::service::heal_once;
use app::shared::clock;
use app::social::model::NewNote;
use app::social::service as social;
use app::testing::{seed_shop, seed_users, test_state};
use sqlx::PgPool;
use time::Duration;

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn what_people_did_comes_back_after_redis_restarts_empty(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    app::recovery::service::rebuild(&state).await.unwrap(); // what `server serve` does at start
    let users = seed_users(&db, 460, 4).await.unwrap();
    let (writer, reader, liker, walker) = (users[0], users[1], users[2], users[3]);

    // A 41-day streak across a month boundary, ending today.
    let today = clock::today();
    for back in (0..41).rev() {
        checkin::check_in(&state, walker, today - Duration::days(back)).await.unwrap();
    }
    // A follow, a note in the follower's feed, two likes (one taken back by another user).
    social::set_follow(&state, reader, writer, true).await.unwrap();
    let note =
        social::write_note(&state, writer, 1, NewNote::parse("Hand-pulled noodles", "Worth the queue.", "").unwrap())
            .await
            .unwrap();
    social::toggle_like(&state, liker, note).await.unwrap();
    social::toggle_like(&state, reader, note).await.unwrap();
    social::toggle_like(&state, reader, note).await.unwrap();
    // 50 visitors, a snapshot, then 5 more that the next snapshot would have kept.
    for v in 0..50 {
        catalog::record_visit(&state, 1, &format!("visitor-{v}")).await.unwrap();
    }
    assert_eq!(visitors::snapshot(&state).await.unwrap(), 2, "the shop and the site");
    let snapshotted = catalog::visitors_last_week(&state, 1).await.unwrap().last().unwrap().1;
    for v in 50..55 {
        catalog::record_visit(&state, 1, &format!("visitor-{v}")).await.unwrap();
    }

    let before = (
        checkin::month(&state, walker, today).await.unwrap(),
        social::note(&state, note, Some(liker)).await.unwrap(),
        social::feed(&state, reader, None, 0).await.unwrap(),
        social::profile(&state, writer, Some(reader)).await.unwrap(),
    );
    assert_eq!(before.0.streak, 41);

    // Redis restarts empty.
    app::platform::keys::unlink_matching(&state.redis, &format!("{}*", state.config.redis_key_prefix)).await.unwrap();
    assert_eq!(checkin::month(&state, walker, today).await.unwrap().streak, 0, "the bitmaps were gone");

    let rebuilt = heal_once(&state).await.unwrap().expect("the loss is noticed and healed");
    assert_eq!((rebuilt.likes, rebuilt.follows, rebuilt.checkins), (1, 1, 41));
    let month = checkin::month(&state, walker, today).await.unwrap();
    assert_eq!((month.streak, &month.checked), (41, &before.0.checked), "every check-in is back");
    let view = social::note(&state, note, Some(liker)).await.unwrap();
    assert!(view.liked_by_me, "the like is back");
    assert_eq!(view.summary.liked, 1);
    assert_eq!(view.first_likers.iter().map(|p| p.id).collect::<Vec<_>>(), vec![liker]);
    assert!(
        !social::note(&state, note, Some(reader)).await.unwrap().liked_by_me,
        "the like taken back stays taken back"
    );
    let feed = social::feed(&state, reader, None, 0).await.unwrap();
    assert_eq!(feed.notes.iter().map(|n| n.id).collect::<Vec<_>>(), vec![note], "the feed is back");
    assert!(social::profile(&state, writer, Some(reader)).await.unwrap().followed_by_me, "the follow is back");
    // The day's visitors as of the snapshot; the five after it were the interval's loss.
    let after = catalog::visitors_last_week(&state, 1).await.unwrap().last().unwrap().1;
    assert_eq!(after, snapshotted);
    // Checking in again today is still refused: the record says it happened.
    assert!(checkin::check_in(&state, walker, today).await.is_err());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn visits_counted_after_the_loss_are_merged_with_the_snapshot_not_replaced(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    seed_shop(&db).await.unwrap();
    for v in 0..20 {
        catalog::record_visit(&state, 1, &format!("early-{v}")).await.unwrap();
    }
    visitors::snapshot(&state).await.unwrap();
    assert_eq!(visitors::snapshot(&state).await.unwrap(), 0, "nothing visited since: nothing copied");
    app::platform::keys::unlink_matching(&state.redis, &format!("{}uv:*", state.config.redis_key_prefix))
        .await
        .unwrap();
    // Visitors arrive before the rebuild; one of them had come before the loss too.
    for v in ["late-1", "late-2", "early-3"] {
        catalog::record_visit(&state, 1, v).await.unwrap();
    }
    visitors::restore(&state).await.unwrap();
    visitors::restore(&state).await.unwrap(); // twice changes nothing
    // The union of both: the count Redis gives for the 22 distinct visitors added to one fresh set.
    let reference = format!("{}reference", state.config.redis_key_prefix);
    let everyone: Vec<String> =
        (0..20).map(|v| format!("early-{v}")).chain(["late-1".into(), "late-2".into()]).collect();
    let (_, union): (i64, u64) = redis::pipe()
        .cmd("PFADD")
        .arg(&reference)
        .arg(&everyone)
        .cmd("PFCOUNT")
        .arg(&reference)
        .query_async(&mut state.redis.clone())
        .await
        .unwrap();
    assert_eq!(catalog::visitors_last_week(&state, 1).await.unwrap().last().unwrap().1, union);
}
