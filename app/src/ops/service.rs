//! The operators' rules: only an operator reads the audit log; filters are checked before the query.

use super::model::{ACTIONS, AUDIT_PAGE, AuditItem, AuditLog};
use crate::auth::model::{CurrentUser, Role};
use crate::platform::audit;
use crate::platform::backend::BackendError;
use crate::shared::error::AppError;
use crate::web::state::AppState;

/// What can go wrong on the operators' side; converted to [`AppError`] at the server-function edge.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// Nobody is logged in.
    #[error("login required")]
    LoginRequired,
    /// Logged in, but not an operator.
    #[error("not an operator")]
    NotOperator,
    /// A filter that is not one of the log's.
    #[error("invalid filter: {0}")]
    Invalid(AppError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(OpsError);

impl From<OpsError> for AppError {
    fn from(e: OpsError) -> Self {
        match e {
            OpsError::LoginRequired => AppError::LoginRequired,
            OpsError::NotOperator => AppError::Forbidden,
            OpsError::Invalid(e) => e,
            OpsError::Backend(e) => e.into(),
        }
    }
}

/// `user`, if they are an operator.
fn operator(user: Option<&CurrentUser>) -> Result<&CurrentUser, OpsError> {
    match user {
        None => Err(OpsError::LoginRequired),
        Some(u) if u.role == Role::Operator => Ok(u),
        Some(_) => Err(OpsError::NotOperator),
    }
}

/// The log's filters as the page sends them ("" or absent for any).
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditQuery<'a> {
    /// Only this operator's actions.
    pub operator_id: Option<i64>,
    /// Only this action (one of [`ACTIONS`]).
    pub action: &'a str,
    /// Only on this subject.
    pub subject_id: Option<i64>,
    /// Older than this entry.
    pub before: Option<i64>,
}

/// A page of the audit log for operator `user`.
pub async fn audit_log(state: &AppState, user: Option<&CurrentUser>, q: AuditQuery<'_>) -> Result<AuditLog, OpsError> {
    operator(user)?;
    let action = match q.action.trim() {
        "" => None,
        a if ACTIONS.iter().any(|(known, _)| *known == a) => Some(a),
        _ => return Err(OpsError::Invalid(AppError::invalid("action", "Pick an action from the list."))),
    };
    let filter = audit::Filter { operator_id: q.operator_id, action, subject_id: q.subject_id, before: q.before };
    let db = state.postgres()?;
    let mut rows = audit::list(db, filter, AUDIT_PAGE + 1).await?;
    let more = rows.len() as i64 > AUDIT_PAGE;
    rows.truncate(AUDIT_PAGE as usize);
    let next_before = if more { rows.last().map(|r| r.id) } else { None };
    let entries = rows
        .into_iter()
        .map(|r| AuditItem {
            id: r.id,
            operator_id: r.operator_id,
            operator_name: r.operator_name,
            action: r.action,
            subject_id: r.subject_id,
            reason: r.reason,
            at_ms: r.at_ms,
        })
        .collect();
    Ok(AuditLog { entries, operators: audit::operators(db).await?, next_before })
}
