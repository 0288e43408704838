//! Check-ins on real Postgres and Redis: once a day, the streak across a month boundary, the calendar bits.

use app::checkin::service::{self, CheckinError};
use app::shared::clock;
use app::testing::{seed_users, test_state};
use sqlx::PgPool;
use time::{Date, Month};

fn date(y: i32, m: u8, d: u8) -> Date {
    Date::from_calendar_date(y, Month::try_from(m).unwrap(), d).unwrap()
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn a_second_check_in_the_same_day_is_refused(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let u = seed_users(&db, 470, 9).await.unwrap();
    let month = service::check_in(&state, u[7], date(2026, 3, 10)).await.unwrap();
    assert_eq!((month.checked.clone(), month.streak), (vec![10], 1));
    assert!(month.checked_today());
    assert!(matches!(service::check_in(&state, u[7], date(2026, 3, 10)).await, Err(CheckinError::AlreadyCheckedIn)));
    let again = service::month(&state, u[7], date(2026, 3, 10)).await.unwrap();
    assert_eq!((again.checked, again.streak), (vec![10], 1), "nothing changed");
    assert_eq!(service::month(&state, u[8], date(2026, 3, 10)).await.unwrap().checked, Vec::<u8>::new(), "per user");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_streak_runs_across_a_month_boundary(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let u = seed_users(&db, 471, 9).await.unwrap();
    for d in [date(2026, 1, 30), date(2026, 1, 31), date(2026, 2, 1), date(2026, 2, 2)] {
        service::check_in(&state, u[1], d).await.unwrap();
    }
    let feb2 = service::month(&state, u[1], date(2026, 2, 2)).await.unwrap();
    assert_eq!((feb2.checked.clone(), feb2.streak), (vec![1, 2], 4));
    let feb3 = service::month(&state, u[1], date(2026, 2, 3)).await.unwrap();
    assert_eq!(feb3.streak, 4, "still alive while today is open");
    assert!(!feb3.checked_today());
    assert_eq!(service::month(&state, u[1], date(2026, 2, 4)).await.unwrap().streak, 0, "a missed day ends it");

    // A whole month checked carries on into the month before it.
    for day in 1..=31 {
        service::check_in(&state, u[2], date(2026, 1, 1).replace_day(day).unwrap()).await.unwrap();
    }
    service::check_in(&state, u[2], date(2025, 12, 31)).await.unwrap();
    service::check_in(&state, u[2], date(2026, 2, 1)).await.unwrap();
    assert_eq!(service::month(&state, u[2], date(2026, 2, 1)).await.unwrap().streak, 33);
    // On the 1st, before checking in, yesterday's run still counts.
    assert_eq!(service::month(&state, u[1], date(2026, 2, 1)).await.unwrap().streak, 3);
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_calendar_marks_exactly_the_checked_days(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let u = seed_users(&db, 472, 9).await.unwrap();
    for day in [1, 5, 6, 28] {
        service::check_in(&state, u[3], date(2026, 2, 1).replace_day(day).unwrap()).await.unwrap();
    }
    let m = service::month(&state, u[3], date(2026, 2, 28)).await.unwrap();
    assert_eq!(m.checked, vec![1, 5, 6, 28]);
    assert_eq!((m.year, m.month, m.today, m.days_in_month), (2026, 2, 28, 28));
    assert_eq!(m.first_weekday, 6, "2026-02-01 is a Sunday");
    assert_eq!(m.streak, 1);
    let mid = service::month(&state, u[3], date(2026, 2, 6)).await.unwrap();
    assert_eq!((mid.checked, mid.streak), (vec![1, 5, 6], 2), "only days up to today are read");
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn the_business_day_turns_at_midnight_in_hangzhou(db: PgPool) {
    let state = test_state(db.clone(), &[]).await;
    let u = seed_users(&db, 473, 9).await.unwrap();
    // 23:59:59.999 on 30 November in Hangzhou is 15:59:59.999 UTC; one ms later it is 1 December there
    // (a new day and a new month's bitmap) while it is still 30 November in UTC.
    let last_ms_of_nov30 = 1_796_054_399_999;
    service::check_in(&state, u[3], clock::date_of(last_ms_of_nov30)).await.unwrap();
    let dec = service::check_in(&state, u[3], clock::date_of(last_ms_of_nov30 + 1)).await.expect("a new business day");
    assert_eq!((dec.month, dec.checked, dec.streak), (12, vec![1], 2));
    // 00:00 on 30 November in Hangzhou (16:00 UTC on the 29th) is the same business day as 23:59:59.999.
    let first_ms_of_nov30 = last_ms_of_nov30 + 1 - 86_400_000;
    let again = service::check_in(&state, u[3], clock::date_of(first_ms_of_nov30)).await;
    assert!(matches!(again, Err(CheckinError::AlreadyCheckedIn)), "{again:?}");
}
