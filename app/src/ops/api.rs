//! Operators' server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{AuditLog, Dashboard, Moderation};
use crate::shared::error::AppError;

/// A page of the audit log, filtered (operators only).
#[server(endpoint = "ops/audit")]
pub async fn read_audit_log(
    operator: Option<i64>,
    action: String,
    subject: Option<i64>,
    before: Option<i64>,
) -> Result<AuditLog, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        let q = super::service::AuditQuery { operator_id: operator, action: &action, subject_id: subject, before };
        Ok(super::service::audit_log(&cx.state, user.as_ref(), q).await?)
    })
    .await
}

/// The site's dashboard (operators only).
#[server(endpoint = "ops/dashboard")]
pub async fn read_dashboard() -> Result<Dashboard, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::dashboard(&cx.state, user.as_ref()).await?)
    })
    .await
}

/// The moderation queue: reported reviews and notes, what was hidden lately, the authors with hidden
/// writing (operators only).
#[server(endpoint = "ops/moderation")]
pub async fn read_moderation() -> Result<Moderation, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        Ok(super::service::moderation(&cx.state, user.as_ref()).await?)
    })
    .await
}

/// Hides (`decision` "hide", with a reason for the author), keeps or restores (with a reason) a review or a
/// note (`subject` "review" or "note"); operators only.
#[server(endpoint = "ops/moderate")]
pub async fn moderate(subject: String, id: i64, decision: String, reason: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::current_user(&cx).await?;
        // Who asks first: nobody else learns what the form's fields must be.
        super::service::operator(user.as_ref())?;
        let subject = crate::shared::moderation::Subject::parse(&subject)?;
        let decision = crate::shared::moderation::Decision::parse(&decision, &reason)?;
        Ok(super::service::moderate(&cx.state, user.as_ref(), subject, id, &decision).await?)
    })
    .await
}
