//! The operators' audit log (`operator_actions`, append-only): a capability writes its operator's action
//! here in the transaction that makes it, so the log cannot miss one; the operators' pages read it.

use sqlx::{PgConnection, PgPool};

use crate::shared::moderation::{Decision, Subject};

/// One operator action to record.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// Who acted.
    pub operator_id: i64,
    /// What, as `subject.verb` (`review.hide`).
    pub action: &'a str,
    /// On what (the subject's id).
    pub subject_id: i64,
    /// Why, as the operator gave it.
    pub reason: Option<&'a str>,
}

impl<'a> Entry<'a> {
    /// The entry of `operator`'s moderation `decision` on item `id` of kind `subject`.
    pub fn moderation(operator_id: i64, subject: Subject, id: i64, decision: &'a Decision) -> Self {
        Self { operator_id, action: decision.action(subject), subject_id: id, reason: decision.reason() }
    }
}

/// Records `entry` on `conn` — the action's own transaction; answers its place in the log (a notice about
/// the action is keyed by it, so each action tells its subject once).
pub async fn record(conn: &mut PgConnection, entry: Entry<'_>) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar!(
        "INSERT INTO operator_actions (operator_id, action, subject_id, reason) VALUES ($1, $2, $3, $4) RETURNING id",
        entry.operator_id,
        entry.action,
        entry.subject_id,
        entry.reason,
    )
    .fetch_one(conn)
    .await
}

/// One recorded action, with its operator's name.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Its place in the log (newer is larger).
    pub id: i64,
    /// Who acted.
    pub operator_id: i64,
    /// Their name.
    pub operator_name: String,
    /// What (`subject.verb`).
    pub action: String,
    /// On what.
    pub subject_id: i64,
    /// Why.
    pub reason: Option<String>,
    /// When, unix ms.
    pub at_ms: i64,
}

/// Which actions a reading of the log wants: any field left `None` matches all.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// Only this operator's.
    pub operator_id: Option<i64>,
    /// Only this action.
    pub action: Option<&'a str>,
    /// Only on this subject.
    pub subject_id: Option<i64>,
    /// Only older than this entry (the next page).
    pub before: Option<i64>,
}

/// Up to `limit` actions matching `filter`, newest first.
pub async fn list(db: &PgPool, filter: Filter<'_>, limit: i64) -> Result<Vec<Recorded>, sqlx::Error> {
    sqlx::query_as!(
        Recorded,
        r#"SELECT a.id, a.operator_id, u.nickname AS operator_name, a.action, a.subject_id, a.reason,
                  (extract(epoch FROM a.at) * 1000)::BIGINT AS "at_ms!"
           FROM operator_actions a JOIN users u ON u.id = a.operator_id
           WHERE ($1::BIGINT IS NULL OR a.operator_id = $1)
             AND ($2::TEXT IS NULL OR a.action = $2)
             AND ($3::BIGINT IS NULL OR a.subject_id = $3)
             AND ($4::BIGINT IS NULL OR a.id < $4)
           ORDER BY a.id DESC
           LIMIT $5"#,
        filter.operator_id,
        filter.action,
        filter.subject_id,
        filter.before,
        limit,
    )
    .fetch_all(db)
    .await
}

/// Everyone who has acted, by name (the log's filter by operator).
pub async fn operators(db: &PgPool) -> Result<Vec<(i64, String)>, sqlx::Error> {
    let rows = sqlx::query!(
        "SELECT u.id, u.nickname FROM users u
         WHERE u.role = 'operator' OR EXISTS (SELECT 1 FROM operator_actions a WHERE a.operator_id = u.id)
         ORDER BY u.nickname, u.id"
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r.nickname)).collect())
}
