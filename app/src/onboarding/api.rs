//! Onboarding's server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{ApplicationForm, ApplicationPage, QueuedApplication};
use crate::shared::error::AppError;

/// The logged-in person's latest application to open a shop, and whether they may send one.
#[server(endpoint = "onboarding/mine")]
pub async fn my_application() -> Result<ApplicationPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::mine(&cx.state, user.as_ref()).await?)
    })
    .await
}

/// A shopper applies to become a merchant; answers the application's id.
#[server(endpoint = "onboarding/apply")]
pub async fn apply_to_open_shop(form: ApplicationForm) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::apply(&cx.state, user.as_ref(), form).await?)
    })
    .await
}

/// The waiting applications (operators only), oldest first.
#[server(endpoint = "onboarding/queue")]
pub async fn application_queue() -> Result<Vec<QueuedApplication>, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::queue(&cx.state, user.as_ref()).await?)
    })
    .await
}

/// An operator approves application `id` (`approve`; `reason` an optional note) or rejects it (`reason`
/// required, shown to the applicant); answers the shop an approval opened.
#[server(endpoint = "onboarding/decide")]
pub async fn decide_application(id: i64, approve: bool, reason: String) -> Result<Option<i64>, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let decision = if approve { super::service::Decision::Approve } else { super::service::Decision::Reject };
        Ok(super::service::decide(&cx.state, user.as_ref(), id, decision, &reason).await?)
    })
    .await
}
