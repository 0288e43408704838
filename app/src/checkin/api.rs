//! Check-in server functions.

use leptos::prelude::*;

use super::model::CheckinMonth;
use crate::error::AppError;

/// Checks the logged-in user in for today.
#[server(endpoint = "checkin/today")]
pub async fn check_in_today() -> Result<CheckinMonth, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    super::service::check_in(&state, user.id, super::service::today()).await.map_err(|e| AppError::from(e).respond())
}

/// This month's check-ins and the streak of the logged-in user.
#[server(endpoint = "checkin/month")]
pub async fn month_of_checkins() -> Result<CheckinMonth, AppError> {
    let state = crate::edge::state()?;
    let user = crate::edge::current_user().await?.ok_or_else(|| AppError::LoginRequired.respond())?;
    super::service::month(&state, user.id, super::service::today()).await.map_err(|e| AppError::from(e).respond())
}
