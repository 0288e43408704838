//! Check-in rules: once a day (China Standard Time), the streak across month boundaries, the calendar.

use time::Date;

use super::model::{CheckinMonth, days_set, trailing_run};
use super::store;
use crate::platform::backend::BackendError;
use crate::shared::clock;
use crate::shared::error::AppError;
use crate::web::state::AppState;

/// What can go wrong; converted to [`AppError`] at the edge.
#[derive(Debug, thiserror::Error)]
pub enum CheckinError {
    /// Already checked in today.
    #[error("already checked in today")]
    AlreadyCheckedIn,
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(CheckinError);

impl From<CheckinError> for AppError {
    fn from(e: CheckinError) -> Self {
        match e {
            CheckinError::AlreadyCheckedIn => {
                let locale = crate::shared::i18n::locale();
                AppError::invalid("checkin", crate::shared::i18n::td_string!(locale, checkin.err_already_checked_in))
            }
            CheckinError::Backend(e) => e.into(),
        }
    }
}

fn key(state: &AppState, user_id: i64, date: Date) -> String {
    state.keys.checkin(user_id, &clock::month_key(date))
}

/// Checks `user_id` in on `today`: Postgres records it, then the month's bitmap in Redis. A second
/// check-in the same day is refused (and the bit set, should Redis have lost it).
pub async fn check_in(state: &AppState, user_id: i64, today: Date) -> Result<CheckinMonth, CheckinError> {
    let first = store::record(state.postgres()?, user_id, today).await?;
    store::check_in(&state.redis, &key(state, user_id, today), today.day()).await?;
    if !first {
        return Err(CheckinError::AlreadyCheckedIn);
    }
    month(state, user_id, today).await
}

/// How far back a rebuild restores the bitmaps: the calendar shows this month, a streak reads back while
/// whole months are checked (ten years at most, as [`month`] does).
const REBUILD_MONTHS: i32 = 120;

/// Sets the bitmaps' bits from Postgres' rows (added to what Redis holds); answers how many days.
pub async fn load_checkins(state: &AppState) -> Result<usize, BackendError> {
    let today = clock::today();
    let from = time::Date::from_calendar_date(today.year() - REBUILD_MONTHS / 12, today.month(), 1).unwrap_or(today);
    let rows = store::since(state.postgres()?, from).await?;
    let days: Vec<(String, u8)> = rows.iter().map(|(user, day)| (key(state, *user, *day), day.day())).collect();
    store::set_days(&state.redis, &days).await?;
    Ok(days.len())
}

/// The month of `today` with its checked days and the streak. The streak counts back from today (or from
/// yesterday while today is still open) and continues into earlier months while whole months are checked.
pub async fn month(state: &AppState, user_id: i64, today: Date) -> Result<CheckinMonth, CheckinError> {
    let bits = store::month_bits(&state.redis, &key(state, user_id, today), today.day()).await?;
    let day = u32::from(today.day());
    // Count back from today, or from yesterday while today is still open (the streak is still alive).
    let (mut streak, reaches_first) = if bits & 1 == 1 {
        let run = trailing_run(bits, day);
        (run, run == day)
    } else {
        let run = trailing_run(bits >> 1, day - 1);
        (run, run == day - 1)
    };
    // While the run reaches the 1st, it continues at the end of the month before (10 years at most).
    let mut complete = reaches_first;
    let mut month_start = today.replace_day(1).unwrap_or(today);
    for _ in 0..120 {
        let Some(last_of_prev) = month_start.previous_day().filter(|_| complete) else { break };
        let len = last_of_prev.day();
        let run = trailing_run(
            store::month_bits(&state.redis, &key(state, user_id, last_of_prev), len).await?,
            u32::from(len),
        );
        streak += run;
        complete = run == u32::from(len);
        month_start = last_of_prev.replace_day(1).unwrap_or(last_of_prev);
    }
    Ok(CheckinMonth {
        year: today.year(),
        month: u8::from(today.month()),
        today: today.day(),
        days_in_month: today.month().length(today.year()),
        first_weekday: month_start_weekday(today),
        checked: days_set(bits, day),
        streak,
    })
}

fn month_start_weekday(today: Date) -> u8 {
    today.replace_day(1).unwrap_or(today).weekday().number_days_from_monday()
}
