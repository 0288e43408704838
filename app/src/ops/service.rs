//! The operators' rules: only an operator reads the audit log and the dashboard or moderates; the log's
//! filters are checked before the query; the dashboard's figures come from each capability's own records,
//! and moderation decisions are carried out by the capability that keeps what is decided on.

use super::model::{
    ACTIONS, AUDIT_PAGE, AuditItem, AuditLog, DASHBOARD_DAYS, Dashboard, HIDDEN_LIST, Moderation, Offender, QUEUE_SIZE,
    SiteDay, SiteSale,
};
use crate::auth::model::{CurrentUser, Role};
use crate::auth::service::AuthError;
use crate::orders::service::OrderError;
use crate::platform::audit;
use crate::platform::backend::BackendError;
use crate::platform::breaker::BreakerState;
use crate::reviews::service::{self as reviews, ReviewError};
use crate::seckill::service::SeckillError;
use crate::shared::clock;
use crate::shared::error::AppError;
use crate::shared::moderation::{Decision, Subject};
use crate::social::service::{self as social, SocialError};
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
    /// Accounts (the new-account counts).
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// Orders and money.
    #[error(transparent)]
    Orders(#[from] OrderError),
    /// Flash sales.
    #[error(transparent)]
    Seckill(#[from] SeckillError),
    /// Reviews (their moderation).
    #[error(transparent)]
    Reviews(#[from] ReviewError),
    /// Notes (their moderation).
    #[error(transparent)]
    Social(#[from] SocialError),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(OpsError, Auth, Orders, Seckill, Reviews, Social);

impl From<OpsError> for AppError {
    fn from(e: OpsError) -> Self {
        match e {
            OpsError::LoginRequired => AppError::LoginRequired,
            OpsError::NotOperator => AppError::Forbidden,
            OpsError::Invalid(e) => e,
            OpsError::Auth(e) => e.into(),
            OpsError::Orders(e) => e.into(),
            OpsError::Seckill(e) => e.into(),
            OpsError::Reviews(e) => e.into(),
            OpsError::Social(e) => e.into(),
            OpsError::Backend(e) => e.into(),
        }
    }
}

/// `user`, if they are an operator.
pub fn operator(user: Option<&CurrentUser>) -> Result<&CurrentUser, OpsError> {
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
        _ => {
            let locale = crate::shared::i18n::locale();
            let message = crate::shared::i18n::td_string!(locale, ops.err_action_pick);
            return Err(OpsError::Invalid(AppError::invalid("action", message)));
        }
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

/// The dashboard for operator `user`: the last 30 days of the site from Postgres' records and the site's
/// visitor HyperLogLogs, the flash sales running or to come with Redis' stock, and this instance's order
/// writer lag and breakers — read from the figures `/metrics` exports. Without Redis the visitors are
/// marked unavailable; the rest still shows.
pub async fn dashboard(state: &AppState, user: Option<&CurrentUser>) -> Result<Dashboard, OpsError> {
    operator(user)?;
    let first = clock::today() - time::Duration::days(DASHBOARD_DAYS - 1);
    let since_ms = clock::day_start_ms(first);
    let (visitors, accounts, trade, sales) = tokio::join!(
        crate::catalog::service::site_visitors_per_day(state, DASHBOARD_DAYS),
        crate::auth::service::accounts_per_day(state, since_ms),
        crate::orders::service::site_trade(state, since_ms),
        crate::seckill::service::current_sales(state),
    );
    let mut unavailable = Vec::new();
    let visitors: std::collections::HashMap<String, u64> = visitors
        .inspect_err(|e| {
            tracing::warn!("dashboard without visitors: {e}");
            unavailable.push("visitors".to_string());
        })
        .unwrap_or_default()
        .into_iter()
        .collect();
    let accounts: std::collections::HashMap<String, i64> = accounts?.into_iter().collect();
    let mut trade: std::collections::HashMap<String, crate::orders::model::SiteTrade> =
        trade?.into_iter().map(|t| (t.day.clone(), t)).collect();
    let days = (0..DASHBOARD_DAYS)
        .map(|n| {
            let day = clock::iso_day(first + time::Duration::days(n));
            let t = trade.remove(&day).unwrap_or_default();
            SiteDay {
                visitors: visitors.get(&day).copied().unwrap_or(0),
                new_accounts: accounts.get(&day).copied().unwrap_or(0),
                orders: t.orders,
                sales_cents: t.charged_cents,
                refunds: t.refunds,
                refunded_cents: t.refunded_cents,
                day,
            }
        })
        .collect();
    let sales = sales?.into_iter().map(|(shop_id, shop_name, sale)| SiteSale { shop_id, shop_name, sale }).collect();
    let breakers = state
        .breakers
        .states()
        .into_iter()
        .map(|(service, s)| {
            let word = match s {
                BreakerState::Closed => "closed",
                BreakerState::HalfOpen => "half-open",
                BreakerState::Open => "open",
            };
            (service.name().to_string(), word.to_string())
        })
        .collect();
    Ok(Dashboard {
        days,
        unavailable,
        sales,
        writer_lag: state.metrics.lag_of(&crate::orders::writer::group(&state.config)),
        breakers,
        read_at_ms: clock::now_ms(),
    })
}

/// The moderation page for operator `user`: reported reviews and notes with their reports, what was hidden
/// lately, and every author with hidden writing (repeat offenders first).
pub async fn moderation(state: &AppState, user: Option<&CurrentUser>) -> Result<Moderation, OpsError> {
    operator(user)?;
    let (reported_reviews, reported_notes, hidden_reviews, hidden_notes, review_tally, note_tally) = tokio::join!(
        reviews::moderation_queue(state, QUEUE_SIZE),
        social::moderation_queue(state, QUEUE_SIZE),
        reviews::hidden_lately(state, HIDDEN_LIST),
        social::hidden_lately(state, HIDDEN_LIST),
        reviews::hidden_per_author(state),
        social::hidden_per_author(state),
    );
    let mut authors: std::collections::HashMap<i64, Offender> = std::collections::HashMap::new();
    for t in review_tally? {
        authors
            .entry(t.user_id)
            .or_insert(Offender { user_id: t.user_id, name: t.name, reviews: 0, notes: 0 })
            .reviews = t.hidden;
    }
    for t in note_tally? {
        authors.entry(t.user_id).or_insert(Offender { user_id: t.user_id, name: t.name, reviews: 0, notes: 0 }).notes =
            t.hidden;
    }
    let mut authors: Vec<Offender> = authors.into_values().collect();
    authors.sort_by(|a, b| b.hidden().cmp(&a.hidden()).then(a.user_id.cmp(&b.user_id)));
    Ok(Moderation {
        reviews: reported_reviews?,
        notes: reported_notes?,
        hidden_reviews: hidden_reviews?,
        hidden_notes: hidden_notes?,
        authors,
    })
}

/// Operator `user` hides, keeps or restores a review or a note (audited, and its author told, by the
/// capability that keeps it).
pub async fn moderate(
    state: &AppState,
    user: Option<&CurrentUser>,
    subject: Subject,
    id: i64,
    decision: &Decision,
) -> Result<(), OpsError> {
    let me = operator(user)?;
    match subject {
        Subject::Review => reviews::moderate(state, me.id, id, decision).await?,
        Subject::Note => social::moderate(state, me.id, id, decision).await?,
    }
    Ok(())
}
