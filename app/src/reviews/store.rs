//! All SQL of the reviews capability. A shop's figures are kept by the triggers of
//! `migrations/20261203000001_reviews.sql`, in the transaction of each write here, and the rankings are
//! read from them through partial indexes (`migrations/20261216000001_rankings_by_index.sql`).

use sqlx::PgPool;

use super::model::{Cursor, NewReview, Reply, Review, ReviewFilter, ReviewStatus};
use crate::shared::moderation::{Decision, Subject, Tally};

/// A review row as stored, with its author's name and whether the viewer voted it helpful.
struct ReviewRow {
    id: i64,
    shop_id: i64,
    author_id: i64,
    author_name: String,
    stars: i16,
    aspects: Vec<i16>,
    spend_cents: Option<i64>,
    body: String,
    images: Vec<String>,
    tags: Vec<String>,
    verified: bool,
    helpful: i32,
    voted_by_me: bool,
    version: i32,
    status: String,
    hidden_reason: Option<String>,
    reply: Option<String>,
    replied_ms: Option<i64>,
    created_ms: i64,
}

impl From<ReviewRow> for Review {
    fn from(r: ReviewRow) -> Self {
        let status = match (r.status.as_str(), r.hidden_reason) {
            ("hidden", reason) => ReviewStatus::Hidden(reason.unwrap_or_default()),
            _ => ReviewStatus::Visible,
        };
        Review {
            id: r.id,
            shop_id: r.shop_id,
            author_id: r.author_id,
            author_name: r.author_name,
            stars: r.stars,
            aspects: r.aspects,
            spend_cents: r.spend_cents,
            body: r.body,
            images: r.images,
            tags: r.tags,
            verified: r.verified,
            helpful: r.helpful,
            voted_by_me: r.voted_by_me,
            edited: r.version > 1,
            status,
            reply: r.reply.map(|text| Reply { text, at_ms: r.replied_ms.unwrap_or_default() }),
            created_ms: r.created_ms,
        }
    }
}

/// A [`ReviewRow`] query: the shared columns and joins (`$1` is the viewer, 0 for nobody, whose votes are
/// not looked for) with `$rest` (from `WHERE` on) after them, pasted together as literals because the query
/// macros read the SQL at compile time. The author's name is the review's own column (kept by triggers).
macro_rules! reviews {
    ($rest:literal $(, $arg:expr)* $(,)?) => {
        sqlx::query_as!(
            ReviewRow,
            r#"SELECT r.id, r.shop_id, r.user_id AS author_id, r.author_name, r.stars, r.aspects,
                    r.spend_cents, r.body, r.images, r.tags, r.verified, r.helpful,
                    (v.user_id IS NOT NULL) AS "voted_by_me!", r.version, r.status, r.hidden_reason, r.reply,
                    (extract(epoch FROM r.replied_at) * 1000)::BIGINT AS replied_ms,
                    (extract(epoch FROM r.created_at) * 1000)::BIGINT AS "created_ms!"
             FROM reviews r
             LEFT JOIN review_votes v ON $1::BIGINT <> 0 AND v.review_id = r.id AND v.user_id = $1 "# + $rest,
            $($arg),*
        )
    };
}

/// What a write left: the review and its version.
pub struct Saved {
    /// Review id.
    pub id: i64,
    /// Its version now (1: new).
    pub version: i32,
}

/// Writes `user_id`'s review of `shop_id`, or their next version of it (a review they deleted comes back
/// as new), and keeps the version; the shop's figures follow by trigger in the same transaction.
pub async fn save(
    db: &PgPool,
    shop_id: i64,
    user_id: i64,
    r: &NewReview,
    verified: bool,
) -> Result<Saved, sqlx::Error> {
    let mut tx = db.begin().await?;
    let saved = sqlx::query_as!(
        Saved,
        "INSERT INTO reviews AS r (shop_id, user_id, stars, aspects, spend_cents, body, images, tags, verified)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (shop_id, user_id) DO UPDATE SET
             stars = EXCLUDED.stars, aspects = EXCLUDED.aspects, spend_cents = EXCLUDED.spend_cents,
             body = EXCLUDED.body, images = EXCLUDED.images, tags = EXCLUDED.tags,
             verified = r.verified OR EXCLUDED.verified, version = r.version + 1,
             status = CASE WHEN r.status = 'deleted' THEN 'visible' ELSE r.status END,
             created_at = CASE WHEN r.status = 'deleted' THEN now() ELSE r.created_at END,
             updated_at = now()
         RETURNING id, version",
        shop_id,
        user_id,
        r.stars,
        &r.aspects[..],
        r.spend_cents,
        r.body,
        &r.images,
        &r.tags,
        verified,
    )
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query!(
        "INSERT INTO review_versions (review_id, version, stars, aspects, spend_cents, body, images, tags)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        saved.id,
        saved.version,
        r.stars,
        &r.aspects[..],
        r.spend_cents,
        r.body,
        &r.images,
        &r.tags,
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(saved)
}

/// The author deletes their review (it stops counting); answers its shop, `None` if they have no such
/// review.
pub async fn delete(db: &PgPool, user_id: i64, id: i64) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "UPDATE reviews SET status = 'deleted', updated_at = now()
         WHERE id = $1 AND user_id = $2 AND status <> 'deleted' RETURNING shop_id",
        id,
        user_id,
    )
    .fetch_optional(db)
    .await
}

/// One review that is not deleted, as `viewer` sees it.
pub async fn by_id(db: &PgPool, id: i64, viewer: i64) -> Result<Option<Review>, sqlx::Error> {
    let row = reviews!("WHERE r.id = $2 AND r.status <> 'deleted'", viewer, id).fetch_optional(db).await?;
    Ok(row.map(Review::from))
}

/// Reviews by id that are not deleted (any order).
pub async fn by_ids(db: &PgPool, ids: &[i64]) -> Result<Vec<Review>, sqlx::Error> {
    let rows = reviews!("WHERE r.id = ANY($2) AND r.status <> 'deleted'", 0_i64, ids).fetch_all(db).await?;
    Ok(rows.into_iter().map(Review::from).collect())
}

/// `user_id`'s review of `shop_id` (hidden ones too), unless deleted.
pub async fn of_author(db: &PgPool, shop_id: i64, user_id: i64) -> Result<Option<Review>, sqlx::Error> {
    let row = reviews!("WHERE r.shop_id = $2 AND r.user_id = $1 AND r.status <> 'deleted'", user_id, shop_id)
        .fetch_optional(db)
        .await?;
    Ok(row.map(Review::from))
}

/// Up to `limit` visible reviews of a shop after `cursor`, newest first.
pub async fn newest(
    db: &PgPool,
    shop_id: i64,
    filter: ReviewFilter,
    after: Option<Cursor>,
    limit: i64,
    viewer: i64,
) -> Result<Vec<Review>, sqlx::Error> {
    let before = after.map_or(i64::MAX, |c| c.id);
    let rows = reviews!(
        "WHERE r.shop_id = $2 AND r.status = 'visible' AND r.id < $3
           AND ($4::SMALLINT IS NULL OR r.stars = $4) AND (NOT $5 OR r.images <> '{}')
         ORDER BY r.id DESC LIMIT $6",
        viewer,
        shop_id,
        before,
        filter.stars,
        filter.photos,
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(Review::from).collect())
}

/// Up to `limit` visible reviews of a shop after `cursor`, most helpful first (newest first among equals).
pub async fn most_helpful(
    db: &PgPool,
    shop_id: i64,
    filter: ReviewFilter,
    after: Option<Cursor>,
    limit: i64,
    viewer: i64,
) -> Result<Vec<Review>, sqlx::Error> {
    let (helpful, before) = after.map_or((i32::MAX, i64::MAX), |c| (c.helpful, c.id));
    let rows = reviews!(
        "WHERE r.shop_id = $2 AND r.status = 'visible' AND (r.helpful, r.id) < ($3, $4)
           AND ($5::SMALLINT IS NULL OR r.stars = $5) AND (NOT $6 OR r.images <> '{}')
         ORDER BY r.helpful DESC, r.id DESC LIMIT $7",
        viewer,
        shop_id,
        helpful,
        before,
        filter.stars,
        filter.photos,
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(Review::from).collect())
}

/// Up to `limit` visible reviews of a shop after `cursor`, newest first; only those without a reply
/// when `unanswered` (the console).
pub async fn for_console(
    db: &PgPool,
    shop_id: i64,
    unanswered: bool,
    after: Option<Cursor>,
    limit: i64,
) -> Result<Vec<Review>, sqlx::Error> {
    let before = after.map_or(i64::MAX, |c| c.id);
    let rows = reviews!(
        "WHERE r.shop_id = $2 AND r.status = 'visible' AND r.id < $3 AND (NOT $4 OR r.reply IS NULL)
         ORDER BY r.id DESC LIMIT $5",
        0_i64,
        shop_id,
        before,
        unanswered,
        limit,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(Review::from).collect())
}

/// Visible reviews without a reply, per shop of `shop_ids` (shops with none are left out).
pub async fn unanswered_counts(db: &PgPool, shop_ids: &[i64]) -> Result<Vec<(i64, i64)>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT shop_id, count(*) AS "n!" FROM reviews
         WHERE shop_id = ANY($1) AND status = 'visible' AND reply IS NULL GROUP BY shop_id"#,
        shop_ids,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.shop_id, r.n)).collect())
}

/// Marks the review helpful for `user_id` (`on`) or takes the vote back, and keeps the count with it;
/// answers the count, `None` if the review is not visible. A second vote changes nothing.
pub async fn vote(db: &PgPool, id: i64, user_id: i64, on: bool) -> Result<Option<i32>, sqlx::Error> {
    let mut tx = db.begin().await?;
    // Locks the review, so the vote and the count move together.
    let Some(helpful) =
        sqlx::query_scalar!("SELECT helpful FROM reviews WHERE id = $1 AND status = 'visible' FOR UPDATE", id)
            .fetch_optional(&mut *tx)
            .await?
    else {
        return Ok(None);
    };
    let changed = if on {
        sqlx::query!(
            "INSERT INTO review_votes (review_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            id,
            user_id
        )
        .execute(&mut *tx)
        .await?
    } else {
        sqlx::query!("DELETE FROM review_votes WHERE review_id = $1 AND user_id = $2", id, user_id)
            .execute(&mut *tx)
            .await?
    };
    if changed.rows_affected() == 0 {
        return Ok(Some(helpful));
    }
    let helpful = sqlx::query_scalar!(
        "UPDATE reviews SET helpful = helpful + CASE WHEN $2 THEN 1 ELSE -1 END WHERE id = $1 RETURNING helpful",
        id,
        on,
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(helpful))
}

/// Writes (or rewrites) the merchant's reply under a review that is not deleted; false if there is none.
pub async fn set_reply(db: &PgPool, id: i64, text: &str) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE reviews SET reply = $2, replied_at = now() WHERE id = $1 AND status <> 'deleted'",
        id,
        text,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Files `reporter`'s report of a review for the operators (a second report by the same person while the
/// first is open replaces its reason).
pub async fn report(db: &PgPool, id: i64, reporter: i64, reason: &str) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "INSERT INTO review_reports AS p (review_id, reporter_id, reason) VALUES ($1, $2, $3)
         ON CONFLICT (review_id, reporter_id) DO UPDATE SET reason = EXCLUDED.reason, created_at = now(),
             resolved_at = NULL, resolved_by = NULL, resolution = NULL",
        id,
        reporter,
        reason,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// An open report, without its review.
pub struct ReportRow {
    /// The review reported.
    pub review_id: i64,
    /// Why.
    pub reason: String,
    /// Who reported it.
    pub reporter_name: String,
    /// When, unix ms.
    pub created_ms: i64,
    /// The review's shop.
    pub shop_name: String,
}

/// The open reports of the `limit` reviews reported longest ago, oldest report first.
pub async fn open_reports(db: &PgPool, limit: i64) -> Result<Vec<ReportRow>, sqlx::Error> {
    sqlx::query_as!(
        ReportRow,
        r#"WITH queue AS (
               SELECT review_id, min(created_at) AS since FROM review_reports WHERE resolved_at IS NULL
               GROUP BY review_id ORDER BY since, review_id LIMIT $1)
           SELECT p.review_id, p.reason, u.nickname AS reporter_name,
                  (extract(epoch FROM p.created_at) * 1000)::BIGINT AS "created_ms!", s.name AS shop_name
           FROM queue q JOIN review_reports p ON p.review_id = q.review_id AND p.resolved_at IS NULL
           JOIN users u ON u.id = p.reporter_id JOIN reviews r ON r.id = p.review_id JOIN shops s ON s.id = r.shop_id
           WHERE r.status <> 'deleted'
           ORDER BY q.since, q.review_id, p.created_at, p.id"#,
        limit,
    )
    .fetch_all(db)
    .await
}

/// A hidden review's place in the list of recent hidings.
pub struct HiddenRow {
    /// The review.
    pub id: i64,
    /// Its shop's name.
    pub shop_name: String,
    /// When it was hidden, unix ms.
    pub hidden_ms: i64,
}

/// The `limit` reviews hidden last, newest first.
pub async fn hidden_lately(db: &PgPool, limit: i64) -> Result<Vec<HiddenRow>, sqlx::Error> {
    sqlx::query_as!(
        HiddenRow,
        r#"SELECT r.id, s.name AS shop_name, (extract(epoch FROM r.hidden_at) * 1000)::BIGINT AS "hidden_ms!"
           FROM reviews r JOIN shops s ON s.id = r.shop_id
           WHERE r.status = 'hidden' ORDER BY r.hidden_at DESC, r.id DESC LIMIT $1"#,
        limit,
    )
    .fetch_all(db)
    .await
}

/// Every author with hidden reviews, and how many.
pub async fn hidden_per_author(db: &PgPool) -> Result<Vec<Tally>, sqlx::Error> {
    sqlx::query_as!(
        Tally,
        r#"SELECT r.user_id, u.nickname AS name, count(*) AS "hidden!"
           FROM reviews r JOIN users u ON u.id = r.user_id WHERE r.status = 'hidden' GROUP BY r.user_id, u.nickname"#,
    )
    .fetch_all(db)
    .await
}

/// A review's shop and author.
struct Target {
    shop_id: i64,
    author_id: i64,
}

/// What a moderation decision touched.
#[derive(Debug, Clone, Copy)]
pub struct Moderated {
    /// The review's shop (whose figures may have moved).
    pub shop_id: i64,
    /// Its author (who hears of a hiding or a restoring).
    pub author_id: i64,
    /// The decision's place in the audit log.
    pub action_id: i64,
}

/// An operator's decision on a review, with its audit entry, in one transaction: hiding (a visible or
/// hidden one; a second hiding rewrites the reason) or keeping closes its open reports; restoring shows a
/// hidden one again. `None` if there is no such review in a state the decision applies to.
pub async fn moderate(
    db: &PgPool,
    id: i64,
    operator: i64,
    decision: &Decision,
) -> Result<Option<Moderated>, sqlx::Error> {
    let mut tx = db.begin().await?;
    let target = match decision {
        Decision::Hide(reason) => {
            sqlx::query_as!(
                Target,
                "UPDATE reviews SET status = 'hidden', hidden_reason = $2, hidden_at = now(), updated_at = now()
                 WHERE id = $1 AND status <> 'deleted' RETURNING shop_id, user_id AS author_id",
                id,
                reason,
            )
            .fetch_optional(&mut *tx)
            .await?
        }
        Decision::Keep => {
            sqlx::query_as!(
                Target,
                "SELECT shop_id, user_id AS author_id FROM reviews WHERE id = $1 AND status <> 'deleted'",
                id
            )
            .fetch_optional(&mut *tx)
            .await?
        }
        Decision::Restore(_) => {
            sqlx::query_as!(
                Target,
                "UPDATE reviews SET status = 'visible', hidden_reason = NULL, hidden_at = NULL, updated_at = now()
                 WHERE id = $1 AND status = 'hidden' RETURNING shop_id, user_id AS author_id",
                id,
            )
            .fetch_optional(&mut *tx)
            .await?
        }
    };
    let Some(Target { shop_id, author_id }) = target else {
        return Ok(None);
    };
    let entry = crate::platform::audit::Entry::moderation(operator, Subject::Review, id, decision);
    let action_id = crate::platform::audit::record(&mut tx, entry).await?;
    if let Some(resolution) = decision.resolution() {
        sqlx::query!(
            "UPDATE review_reports SET resolved_at = now(), resolved_by = $2, resolution = $3
             WHERE review_id = $1 AND resolved_at IS NULL",
            id,
            operator,
            resolution,
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(Some(Moderated { shop_id, author_id, action_id }))
}

/// Every type's prior becomes its reviews' mean and every score follows; answers how many scores changed.
pub async fn refresh_priors(db: &PgPool) -> Result<i32, sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT refresh_review_priors() AS "changed!""#).fetch_one(db).await
}

/// The best `n` shops of type `type_id` with enough reviews to rank, city-wide, best first (ties by id).
/// The literal 5 is [`super::model::MIN_REVIEWS_TO_RANK`], written out so the planner sees it is the
/// partial index `shops_ranked`'s own condition: the ranking reads its first `n` entries, however big the
/// city.
pub async fn ranked(db: &PgPool, type_id: i64, n: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "SELECT id FROM shops WHERE type_id = $1 AND review_count >= 5 ORDER BY score DESC, id LIMIT $2",
        type_id,
        n
    )
    .fetch_all(db)
    .await
}

/// [`ranked`] in one business area (`shops_ranked_area`).
pub async fn ranked_in_area(db: &PgPool, type_id: i64, area: &str, n: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "SELECT id FROM shops WHERE type_id = $1 AND area = $2 AND review_count >= 5
         ORDER BY score DESC, id LIMIT $3",
        type_id,
        area,
        n
    )
    .fetch_all(db)
    .await
}

/// The first `n` places of every type's city-wide ranking, as (type, shop), each type's best first: the
/// home page's podiums, one index read per type.
pub async fn podiums(db: &PgPool, n: i64) -> Result<Vec<(i64, i64)>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT t.id AS "type_id!", r.id AS "shop_id!" FROM shop_types t
           CROSS JOIN LATERAL (SELECT s.id, s.score FROM shops s WHERE s.type_id = t.id AND s.review_count >= 5
                               ORDER BY s.score DESC, s.id LIMIT $1) r
           ORDER BY t.id, r.score DESC, r.id"#,
        n
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.type_id, r.shop_id)).collect())
}
