//! Check-in server functions.

use leptos::prelude::*;

use super::model::CheckinMonth;
use crate::shared::error::AppError;

/// Checks the logged-in user in for today (the business day, China Standard Time).
#[server(endpoint = "checkin/today")]
pub async fn check_in_today() -> Result<CheckinMonth, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper(&cx).await?;
        Ok(super::service::check_in(&cx.state, user.id, crate::shared::clock::today()).await?)
    })
    .await
}

/// This month's check-ins and the streak of the logged-in user.
#[server(endpoint = "checkin/month")]
pub async fn month_of_checkins() -> Result<CheckinMonth, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_user(&cx).await?;
        Ok(super::service::month(&cx.state, user.id, crate::shared::clock::today()).await?)
    })
    .await
}
