//! The slider puzzle in front of a grab, on real Redis and Postgres: a sale with the human check takes no
//! grab without a pass, a pass buys exactly one grab by the user who earned it, each puzzle is answered
//! once, and the check survives Redis losing its data.

use std::time::Duration;

use app::sale::inventory::{self, GrabCode};
use app::seckill::model::NewFlashSale;
use app::seckill::service::{self, SeckillError};
use app::shared::clock::now_ms;
use app::shared::human_check::{Puzzle, Refusal};
use app::testing::{seed_shop, seed_users, test_state};
use app::web::state::AppState;
use sqlx::PgPool;

/// Where every gap is in these tests (`HUMAN_CHECK_FIXED_GAP`): the picture's pixels hold it for a person,
/// and nothing a test could read does.
const GAP: u16 = 150;

/// The gap's left edge, as the test-only switch put it.
fn gap_of(_: &Puzzle) -> u16 {
    GAP
}

async fn open_checked_sale(state: &AppState, stock: i32) -> i64 {
    seed_shop(&state.db).await.unwrap();
    let now = now_ms();
    let sale = NewFlashSale {
        title: "Puzzle sale".into(),
        rules: String::new(),
        pay_cents: 990,
        actual_cents: 5000,
        stock,
        begin_ms: now - 1_000,
        end_ms: now + 3_600_000,
        human_check: true,
    };
    service::open_sale(state, 1, sale).await.unwrap()
}

/// Draws a puzzle, waits as a person would, and answers it `off` px beside the gap.
async fn answer(state: &AppState, user: i64, sale: i64, off: i32) -> (Puzzle, Result<String, SeckillError>) {
    let p = service::puzzle(state, user, sale);
    tokio::time::sleep(Duration::from_millis(120)).await;
    let x = (i32::from(gap_of(&p)) + off) as u16;
    let result = service::solve(state, user, sale, &p.ticket, x, 110).await;
    (p, result)
}

fn refused(r: Result<i64, SeckillError>) -> GrabCode {
    match r {
        Err(SeckillError::Refused(code)) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn puzzle_refusal<T: std::fmt::Debug>(r: Result<T, SeckillError>) -> Refusal {
    match r {
        Err(SeckillError::Puzzle(why)) => why,
        other => panic!("expected a puzzle refusal, got {other:?}"),
    }
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_pass_buys_one_grab_by_the_user_who_solved_the_puzzle(db: PgPool) {
    let state = test_state(db.clone(), &[("HUMAN_CHECK_MIN_DRAG_MS", "100"), ("HUMAN_CHECK_FIXED_GAP", "150")]).await;
    app::platform::kafka::ensure_topics(&state.config).await.unwrap();
    let sale = open_checked_sale(&state, 5).await;
    let users = seed_users(&db, 610, 3).await.unwrap();
    let (alice, bob) = (users[0], users[1]);

    // No pass, a made-up pass: refused, nothing taken.
    assert_eq!(refused(service::grab(&state, alice, sale, "10.0.0.1").await), GrabCode::NeedsPuzzle);
    let made_up = "0123456789abcdef0123456789abcdef";
    let r = service::grab_with_pass(&state, alice, sale, "10.0.0.1", Some(made_up)).await;
    assert_eq!(refused(r), GrabCode::NeedsPuzzle);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, sale).await.unwrap(), (Some(5), 0));

    // Alice solves one; Bob cannot spend her pass, she can, once.
    let (_, pass) = answer(&state, alice, sale, 3).await;
    let pass = pass.expect("in the gap, within the tolerance");
    let r = service::grab_with_pass(&state, bob, sale, "10.0.0.2", Some(&pass)).await;
    assert_eq!(refused(r), GrabCode::NeedsPuzzle, "someone else's pass");
    service::grab_with_pass(&state, alice, sale, "10.0.0.1", Some(&pass)).await.expect("her pass, her grab");
    let r = service::grab_with_pass(&state, alice, sale, "10.0.0.1", Some(&pass)).await;
    assert_eq!(refused(r), GrabCode::NeedsPuzzle, "a pass is spent by its grab");
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, sale).await.unwrap(), (Some(4), 1));

    // Bob's own pass works; a second pass of Alice's meets "already bought" (and is spent too).
    let (_, pass) = answer(&state, bob, sale, 0).await;
    service::grab_with_pass(&state, bob, sale, "10.0.0.2", Some(&pass.unwrap())).await.expect("Bob's grab");
    let (_, pass) = answer(&state, alice, sale, -2).await;
    let r = service::grab_with_pass(&state, alice, sale, "10.0.0.1", Some(&pass.unwrap())).await;
    assert_eq!(refused(r), GrabCode::AlreadyBought);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, sale).await.unwrap(), (Some(3), 2));
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn each_puzzle_is_answered_once_and_only_as_a_person_could(db: PgPool) {
    let state = test_state(db.clone(), &[("HUMAN_CHECK_MIN_DRAG_MS", "100"), ("HUMAN_CHECK_FIXED_GAP", "150")]).await;
    let sale = open_checked_sale(&state, 5).await;
    let users = seed_users(&db, 611, 2).await.unwrap();
    let user = users[0];

    // A miss spends the puzzle: the right answer afterwards is too late.
    let (p, missed) = answer(&state, user, sale, 12).await;
    assert_eq!(puzzle_refusal(missed), Refusal::Missed);
    let again = service::solve(&state, user, sale, &p.ticket, gap_of(&p), 110).await;
    assert_eq!(puzzle_refusal(again), Refusal::Reused);

    // A right answer is honoured once.
    let (p, pass) = answer(&state, user, sale, 0).await;
    assert!(pass.is_ok());
    let again = service::solve(&state, user, sale, &p.ticket, gap_of(&p), 110).await;
    assert_eq!(puzzle_refusal(again), Refusal::Reused);

    // Faster than a hand, another user's ticket, another sale's, a tampered one: refused before Redis.
    let p = service::puzzle(&state, user, sale);
    let fast = service::solve(&state, user, sale, &p.ticket, gap_of(&p), 110).await;
    assert_eq!(puzzle_refusal(fast), Refusal::TooFast, "answered the instant it was drawn");
    tokio::time::sleep(Duration::from_millis(120)).await;
    let flick = service::solve(&state, user, sale, &p.ticket, gap_of(&p), 20).await;
    assert_eq!(puzzle_refusal(flick), Refusal::TooFast, "a 20 ms drag");
    let theirs = service::solve(&state, users[1], sale, &p.ticket, gap_of(&p), 110).await;
    assert_eq!(puzzle_refusal(theirs), Refusal::Forged);
    let elsewhere = service::solve(&state, user, sale + 1, &p.ticket, gap_of(&p), 110).await;
    assert_eq!(puzzle_refusal(elsewhere), Refusal::Forged);
    let mut tampered = p.ticket.clone();
    tampered.replace_range(tampered.len() - 1.., if tampered.ends_with('0') { "1" } else { "0" });
    let forged = service::solve(&state, user, sale, &tampered, gap_of(&p), 110).await;
    assert_eq!(puzzle_refusal(forged), Refusal::Forged);
    // Those refusals did not spend it: the real answer still counts.
    assert!(service::solve(&state, user, sale, &p.ticket, gap_of(&p), 110).await.is_ok());

    // An instance with another key does not honour this one's puzzles.
    let other =
        test_state(db.clone(), &[("HUMAN_CHECK_SECRET", "another key"), ("HUMAN_CHECK_FIXED_GAP", "150")]).await;
    let p = service::puzzle(&state, user, sale);
    tokio::time::sleep(Duration::from_millis(320)).await;
    let r = service::solve(&other, user, sale, &p.ticket, gap_of(&p), 400).await;
    assert_eq!(puzzle_refusal(r), Refusal::Forged);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_check_survives_redis_losing_its_data(db: PgPool) {
    let state = test_state(db.clone(), &[("HUMAN_CHECK_MIN_DRAG_MS", "100"), ("HUMAN_CHECK_FIXED_GAP", "150")]).await;
    let sale = open_checked_sale(&state, 5).await;
    let users = seed_users(&db, 612, 1).await.unwrap();
    app::platform::keys::unlink_matching(&state.redis, &format!("{}*", state.config.redis_key_prefix)).await.unwrap();
    service::restore_sales(&state).await.unwrap();
    assert_eq!(refused(service::grab(&state, users[0], sale, "10.0.0.1").await), GrabCode::NeedsPuzzle);
    assert_eq!(inventory::sale_state(&state.redis, &state.keys, sale).await.unwrap(), (Some(5), 0));
}
