//! Reads on a hot standby (`DATABASE_READ_URL`): the catalog's and the reviews' lists come from the replica,
//! while what a shopper just wrote is read from the primary, so they see it at once however far the
//! replica lags. Needs the replica `scripts/cluster.sh replica` starts (scripts/test.sh starts it and
//! names it in `TEST_REPLICA_URL`); the test makes it lag by pausing its replay.

use std::time::Duration;

use app::auth::model::{CurrentUser, Role};
use app::reviews::model::{NewReview, ReviewFilter, ReviewForm, ReviewSort};
use app::reviews::service as reviews;
use app::testing::{seed_shop, seed_users, test_state};
use app::web::state::AppState;
use sqlx::{Connection, PgConnection, PgPool};

/// The replica's base URL (no database): the test reads its own database there.
fn replica_url() -> String {
    std::env::var("TEST_REPLICA_URL").expect(
        "TEST_REPLICA_URL names the hot standby: start one with `scripts/cluster.sh replica` (scripts/test.sh does)",
    )
}

/// Pauses (`true`) or resumes the replica's replay of the primary's WAL.
async fn replay(paused: bool) {
    let mut admin = PgConnection::connect(&format!("{}/postgres", replica_url())).await.expect("the replica answers");
    let call = if paused { "SELECT pg_wal_replay_pause()" } else { "SELECT pg_wal_replay_resume()" };
    sqlx::query(call).execute(&mut admin).await.expect("replay paused or resumed");
}

/// Waits until the replica's copy of this test's database answers `sql` with a count of at least `n`.
async fn replica_has(state: &AppState, sql: &str, n: i64) {
    for _ in 0..200 {
        if let Ok(found) = sqlx::query_scalar::<_, i64>(sql).fetch_one(&state.db_read).await
            && found >= n
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the replica did not catch up within 10 s: {sql}");
}

/// Waits until the instance's reads go to the replica (`true`) or to the primary (`false`).
async fn on_replica(state: &AppState, want: bool) {
    for _ in 0..100 {
        if state.read_route.on_replica() == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("reads did not move {} within 5 s", if want { "to the replica" } else { "to the primary" });
}

/// The ids of shop 1's reviews as anyone reads its list (newest first).
async fn listed(state: &AppState) -> Vec<i64> {
    let page = reviews::page(state, 1, ReviewSort::Newest, ReviewFilter::default(), "", None).await.unwrap();
    page.items.iter().map(|r| r.id).collect()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_shopper_sees_their_own_new_review_at_once_although_the_replica_lags(db: PgPool) {
    // A run that died while the replica was paused leaves it paused: resume first.
    replay(false).await;
    let state = test_state(db.clone(), &[("DATABASE_READ_URL", &replica_url())]).await;
    assert_ne!(
        state.db_read.connect_options().get_port(),
        state.db.connect_options().get_port(),
        "the reads under test go to the replica"
    );
    on_replica(&state, true).await;
    seed_shop(&db).await.unwrap();
    let author = seed_users(&db, 611, 1).await.unwrap()[0];
    replica_has(&state, &format!("SELECT count(*) FROM users WHERE id = {author}"), 1).await;
    replica_has(&state, "SELECT count(*) FROM shops WHERE id = 1", 1).await;

    replay(true).await;
    // Whatever happens below, the replica replays again afterwards (other runs read from it too).
    let lagging = tokio::spawn({
        let state = state.clone();
        async move {
            let me =
                CurrentUser { id: author, nickname: "u".into(), role: Role::Shopper, masked_account: String::new() };
            let form = ReviewForm {
                stars: "5".into(),
                aspect1: "5".into(),
                aspect2: "4".into(),
                aspect3: "5".into(),
                spend: "80".into(),
                body: "刚吃完，环境很好，服务也周到，推荐招牌菜。".into(),
                images: String::new(),
                tags: String::new(),
            };
            let id = reviews::write(&state, &me, 1, NewReview::try_from(form).unwrap()).await.unwrap();
            // Its author sees it at once: their own review is read from the primary.
            let context = reviews::context(&state, 1, Some(&me)).await.unwrap();
            assert_eq!(context.mine.map(|r| r.id), Some(id), "the author's own review, at once");
            // The list everyone reads comes from the replica, which has not replayed it yet.
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(!listed(&state).await.contains(&id), "the list is read from the lagging replica");
            id
        }
    })
    .await;
    replay(false).await;
    let id = lagging.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));

    // Once the replica catches up, everyone's list has it.
    for _ in 0..200 {
        if listed(&state).await.contains(&id) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the replica did not show review {id} within 10 s of replaying again");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_replica_that_does_not_answer_sends_reads_to_the_primary_and_leaves_writes_alone(db: PgPool) {
    // Nothing listens on port 1: a standby that is down.
    let state = test_state(db.clone(), &[("DATABASE_READ_URL", "postgres://postgres@127.0.0.1:1")]).await;
    seed_shop(&db).await.unwrap();
    let author = seed_users(&db, 612, 1).await.unwrap()[0];
    let me = CurrentUser { id: author, nickname: "u".into(), role: Role::Shopper, masked_account: String::new() };
    // Well past the watch's first probes: the route has tried the standby and stayed on the primary.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    on_replica(&state, false).await;
    for _ in 0..20 {
        assert_eq!(listed(&state).await, Vec::<i64>::new(), "the list is read, from the primary");
    }
    let form = ReviewForm {
        stars: "4".into(),
        aspect1: "4".into(),
        aspect2: "4".into(),
        aspect3: "4".into(),
        spend: String::new(),
        body: "备用库没开，评价照样能写，也能马上看到。".into(),
        images: String::new(),
        tags: String::new(),
    };
    let id = reviews::write(&state, &me, 1, NewReview::try_from(form).unwrap()).await.unwrap();
    assert_eq!(listed(&state).await, vec![id], "written on the primary and listed from it");
    assert_eq!(
        state.breakers.postgres.state(),
        app::platform::breaker::BreakerState::Closed,
        "the standby's silence opened nothing"
    );
}
