//! The inbox's SQL: notices and the kinds switched off.

use sqlx::PgPool;

/// One notice's row.
pub struct NoticeRow {
    pub id: i64,
    pub kind: String,
    pub detail: String,
    /// The notice's [`Facts`](super::model::Facts) as JSON (none on notices written before they were kept).
    pub facts: Option<String>,
    pub link: String,
    pub at_ms: i64,
    pub read: bool,
}

/// Writes a notice unless its reader switched its kind off or has it already (one per kind and subject);
/// true if written.
pub async fn notify(
    db: &PgPool,
    user_id: i64,
    kind: &str,
    subject_id: i64,
    facts: &str,
    link: &str,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "INSERT INTO notices (user_id, kind, subject_id, facts, link)
         SELECT $1, $2, $3, $4::TEXT::JSONB, $5
         WHERE NOT EXISTS (SELECT 1 FROM notice_switches_off WHERE user_id = $1 AND kind = $2)
         ON CONFLICT (user_id, kind, subject_id) DO NOTHING",
        user_id,
        kind,
        subject_id,
        facts,
        link,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// [`notify`] for many readers at once, in one statement (`(user_id, subject_id, facts, link)` each, one
/// kind); answers the readers told now.
pub async fn notify_many(
    db: &PgPool,
    kind: &str,
    notices: &[(i64, i64, String, String)],
) -> Result<Vec<i64>, sqlx::Error> {
    let users: Vec<i64> = notices.iter().map(|n| n.0).collect();
    let subjects: Vec<i64> = notices.iter().map(|n| n.1).collect();
    let facts: Vec<String> = notices.iter().map(|n| n.2.clone()).collect();
    let links: Vec<String> = notices.iter().map(|n| n.3.clone()).collect();
    sqlx::query_scalar!(
        "INSERT INTO notices (user_id, kind, subject_id, facts, link)
         SELECT n.user_id, $1, n.subject_id, n.facts::JSONB, n.link
         FROM unnest($2::BIGINT[], $3::BIGINT[], $4::TEXT[], $5::TEXT[]) AS n (user_id, subject_id, facts, link)
         WHERE NOT EXISTS (SELECT 1 FROM notice_switches_off s WHERE s.user_id = n.user_id AND s.kind = $1)
         ON CONFLICT (user_id, kind, subject_id) DO NOTHING
         RETURNING user_id",
        kind,
        &users,
        &subjects,
        &facts,
        &links,
    )
    .fetch_all(db)
    .await
}

/// `user_id`'s latest `limit` notices, newest first.
pub async fn latest(db: &PgPool, user_id: i64, limit: i64) -> Result<Vec<NoticeRow>, sqlx::Error> {
    sqlx::query_as!(
        NoticeRow,
        r#"SELECT id, kind, detail, facts::TEXT AS facts, link, (extract(epoch FROM created_at) * 1000)::BIGINT AS "at_ms!",
                  read_at IS NOT NULL AS "read!"
           FROM notices WHERE user_id = $1 ORDER BY id DESC LIMIT $2"#,
        user_id,
        limit,
    )
    .fetch_all(db)
    .await
}

/// How many of `user_id`'s notices are unread.
pub async fn unread(db: &PgPool, user_id: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM notices WHERE user_id = $1 AND read_at IS NULL"#, user_id)
        .fetch_one(db)
        .await
}

/// Marks `user_id`'s notice `id` read, or all of them (`None`); answers how many changed.
pub async fn mark_read(db: &PgPool, user_id: i64, id: Option<i64>) -> Result<u64, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE notices SET read_at = now()
         WHERE user_id = $1 AND read_at IS NULL AND ($2::BIGINT IS NULL OR id = $2)",
        user_id,
        id,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected())
}

/// Whether notice `id` is `user_id`'s.
pub async fn has_notice(db: &PgPool, user_id: i64, id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM notices WHERE id = $1 AND user_id = $2) AS "found!""#,
        id,
        user_id
    )
    .fetch_one(db)
    .await
}

/// The kinds `user_id` switched off.
pub async fn switched_off(db: &PgPool, user_id: i64) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar!("SELECT kind FROM notice_switches_off WHERE user_id = $1", user_id).fetch_all(db).await
}

/// Switches `kind` on or off for `user_id`.
pub async fn set_switch(db: &PgPool, user_id: i64, kind: &str, on: bool) -> Result<(), sqlx::Error> {
    if on {
        sqlx::query!("DELETE FROM notice_switches_off WHERE user_id = $1 AND kind = $2", user_id, kind)
            .execute(db)
            .await?;
    } else {
        sqlx::query!(
            "INSERT INTO notice_switches_off (user_id, kind) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            user_id,
            kind
        )
        .execute(db)
        .await?;
    }
    Ok(())
}

/// Deletes every notice of `user_id` and their switches (their account is closing).
pub async fn forget(db: &PgPool, user_id: i64) -> Result<(), sqlx::Error> {
    let mut tx = db.begin().await?;
    sqlx::query!("DELETE FROM notices WHERE user_id = $1", user_id).execute(&mut *tx).await?;
    sqlx::query!("DELETE FROM notice_switches_off WHERE user_id = $1", user_id).execute(&mut *tx).await?;
    tx.commit().await
}
