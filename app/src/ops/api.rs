//! Operators' server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{AuditLog, Dashboard};
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
