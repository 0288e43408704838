//! All SQL and Redis of notes, likes, follows and feeds.

use crate::platform::redis_conn::Redis;
use sqlx::PgPool;

use super::model::{ModeratedNote, NewNote, NoteSummary, Person};
use crate::platform::keys::Keys;
use crate::shared::moderation::{Decision, Subject, Tally};

/// A [`NoteSummary`] query over live (neither deleted nor hidden) notes with their authors, `$rest` (from `AND` on) after the shared
/// part, pasted together as literals because the query macros read the SQL at compile time.
macro_rules! live_notes {
    ($rest:literal $(, $arg:expr)* $(,)?) => {
        sqlx::query_as!(
            NoteSummary,
            r#"SELECT n.id, n.title, n.user_id AS author_id, u.nickname AS author_name, n.shop_id, n.liked,
                      (extract(epoch FROM n.created_at) * 1000)::BIGINT AS "created_ms!"
               FROM notes n JOIN users u ON u.id = n.user_id WHERE n.deleted_at IS NULL AND n.hidden_at IS NULL "#
                + $rest,
            $($arg),*
        )
    };
}

/// A note just stored.
#[derive(Debug, Clone, Copy)]
pub struct StoredNote {
    /// Its id.
    pub id: i64,
    /// When it was written, unix ms (its score in the followers' inboxes).
    pub created_ms: i64,
}

/// Stores a note; returns its id and creation time (unix ms).
pub async fn insert_note(
    db: &PgPool,
    user_id: i64,
    shop_id: i64,
    note: &NewNote,
) -> Result<Option<StoredNote>, sqlx::Error> {
    sqlx::query_as!(
        StoredNote,
        r#"INSERT INTO notes (user_id, shop_id, title, body, images) SELECT $1, s.id, $3, $4, $5 FROM shops s WHERE s.id = $2
         RETURNING id, (extract(epoch FROM created_at) * 1000)::BIGINT AS "created_ms!""#,
        user_id,
        shop_id,
        note.title,
        note.body,
        &note.images,
    )
    .fetch_optional(db)
    .await
}

/// A note that is not deleted, with what only its own page shows.
#[derive(Debug, Clone)]
pub struct NoteDetail {
    /// What lists show of it.
    pub summary: NoteSummary,
    /// Its text.
    pub body: String,
    /// Image addresses.
    pub images: Vec<String>,
    /// Why a moderator hid it, if they did.
    pub hidden_reason: Option<String>,
}

/// One note that is not deleted (hidden ones too: their author still sees them) with its body and images,
/// in one query.
pub async fn note(db: &PgPool, id: i64) -> Result<Option<NoteDetail>, sqlx::Error> {
    let row = sqlx::query!(
        r#"SELECT n.id, n.title, n.user_id AS author_id, u.nickname AS author_name, n.shop_id, n.liked,
                  (extract(epoch FROM n.created_at) * 1000)::BIGINT AS "created_ms!", n.body, n.images, n.hidden_reason
           FROM notes n JOIN users u ON u.id = n.user_id WHERE n.deleted_at IS NULL AND n.id = $1"#,
        id,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| NoteDetail {
        summary: NoteSummary {
            id: r.id,
            title: r.title,
            author_id: r.author_id,
            author_name: r.author_name,
            shop_id: r.shop_id,
            liked: r.liked,
            created_ms: r.created_ms,
        },
        body: r.body,
        images: r.images,
        hidden_reason: r.hidden_reason,
    }))
}

/// Live notes about a shop, newest first.
pub async fn notes_of_shop(db: &PgPool, shop_id: i64, limit: i64) -> Result<Vec<NoteSummary>, sqlx::Error> {
    live_notes!("AND n.shop_id = $1 ORDER BY n.created_at DESC, n.id DESC LIMIT $2", shop_id, limit).fetch_all(db).await
}

/// Live notes among `ids` (any order).
pub async fn notes_by_ids(db: &PgPool, ids: &[i64]) -> Result<Vec<NoteSummary>, sqlx::Error> {
    live_notes!("AND n.id = ANY($1)", ids).fetch_all(db).await
}

/// Soft-deletes the author's note; false if it is not theirs or already gone.
pub async fn delete_note(db: &PgPool, user_id: i64, id: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE notes SET deleted_at = now() WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL",
        id,
        user_id,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A like as Postgres recorded it.
#[derive(Debug, Clone, Copy)]
pub struct LikeChange {
    /// When it was given (unix ms, its score among the likers), or `None` if the toggle took it back.
    pub liked_ms: Option<i64>,
    /// The note's count after the toggle.
    pub count: i32,
}

/// Likes or un-likes a live note for `user_id` in one transaction: the row is the record, the count
/// follows by trigger. `None` if the note is gone.
pub async fn toggle_like(db: &PgPool, note_id: i64, user_id: i64) -> Result<Option<LikeChange>, sqlx::Error> {
    let mut tx = db.begin().await?;
    // The note's row lock orders two toggles of one note; a deleted or hidden note takes no likes.
    let Some(_) = sqlx::query_scalar!(
        "SELECT id FROM notes WHERE id = $1 AND deleted_at IS NULL AND hidden_at IS NULL FOR UPDATE",
        note_id
    )
    .fetch_optional(&mut *tx)
    .await?
    else {
        return Ok(None);
    };
    let taken_back = sqlx::query!("DELETE FROM note_likes WHERE note_id = $1 AND user_id = $2", note_id, user_id)
        .execute(&mut *tx)
        .await?;
    let liked_ms = if taken_back.rows_affected() == 1 {
        None
    } else {
        Some(
            sqlx::query_scalar!(
                r#"INSERT INTO note_likes (note_id, user_id) VALUES ($1, $2)
                   RETURNING (extract(epoch FROM liked_at) * 1000)::BIGINT AS "ms!""#,
                note_id,
                user_id
            )
            .fetch_one(&mut *tx)
            .await?,
        )
    };
    let count = sqlx::query_scalar!("SELECT liked FROM notes WHERE id = $1", note_id).fetch_one(&mut *tx).await?;
    tx.commit().await?;
    Ok(Some(LikeChange { liked_ms, count }))
}

/// Puts one like into the note's sorted set (scored by when it was given), or takes it out.
pub async fn mirror_like(
    redis: &Redis,
    keys: &Keys,
    note_id: i64,
    user_id: i64,
    liked_ms: Option<i64>,
) -> Result<(), redis::RedisError> {
    let mut cmd = match liked_ms {
        Some(ms) => redis::cmd("ZADD").arg(keys.likes(note_id)).arg(ms).to_owned(),
        None => redis::cmd("ZREM").arg(keys.likes(note_id)).to_owned(),
    };
    cmd.arg(user_id).query_async(&mut redis.clone()).await
}

/// One like: who liked which note, when (unix ms).
#[derive(Debug, Clone, Copy)]
pub struct Like {
    /// The note.
    pub note_id: i64,
    /// Who liked it.
    pub user_id: i64,
    /// When.
    pub liked_ms: i64,
}

/// Every like of a live note, grouped by note, for rebuilding the Redis sets.
pub async fn all_likes(db: &PgPool) -> Result<Vec<Like>, sqlx::Error> {
    sqlx::query_as!(
        Like,
        r#"SELECT l.note_id, l.user_id, (extract(epoch FROM l.liked_at) * 1000)::BIGINT AS "liked_ms!"
           FROM note_likes l JOIN notes n ON n.id = l.note_id WHERE n.deleted_at IS NULL ORDER BY l.note_id"#
    )
    .fetch_all(db)
    .await
}

/// Writes each note's likers into its sorted set (added to what is there).
pub async fn add_like_sets(redis: &Redis, keys: &Keys, likes: &[Like]) -> Result<(), redis::RedisError> {
    zadd_grouped(redis, likes, |l| l.note_id, |n| keys.likes(n), |l| (l.liked_ms, l.user_id)).await
}

/// One `ZADD` per run of `items` with the same `group` (the key is `key(group)`, each item one
/// `(score, member)`), sent in pipelines of a few thousand: a rebuild writes every set at once.
async fn zadd_grouped<T>(
    redis: &Redis,
    items: &[T],
    group: impl Fn(&T) -> i64,
    key: impl Fn(i64) -> String,
    entry: impl Fn(&T) -> (i64, i64),
) -> Result<(), redis::RedisError> {
    const BATCH: usize = 5_000;
    let cmds = items
        .chunk_by(|a, b| group(a) == group(b))
        .map(|run| {
            let mut zadd = redis::cmd("ZADD");
            zadd.arg(key(group(&run[0])));
            run.iter().map(&entry).for_each(|(score, member)| {
                zadd.arg(score).arg(member);
            });
            zadd
        })
        .collect::<Vec<_>>();
    for batch in cmds.chunks(BATCH) {
        crate::platform::redis_conn::per_slot(redis, batch.to_vec(), false).await?;
    }
    Ok(())
}

/// One inbox entry: `note_id`, written at `created_ms`, belongs in `user_id`'s feed.
#[derive(Debug, Clone, Copy)]
pub struct InboxEntry {
    /// Whose inbox.
    pub user_id: i64,
    /// The note.
    pub note_id: i64,
    /// Its creation time (unix ms), its score.
    pub created_ms: i64,
}

/// What every inbox holds by the rules of the push (each live note — neither deleted nor hidden — of someone a user follows, written
/// after they followed), at most `per_user` newest per user, grouped by user.
pub async fn all_inboxes(db: &PgPool, per_user: i64) -> Result<Vec<InboxEntry>, sqlx::Error> {
    sqlx::query_as!(
        InboxEntry,
        r#"SELECT user_id AS "user_id!", note_id AS "note_id!", created_ms AS "created_ms!" FROM (
               SELECT f.user_id, n.id AS note_id, (extract(epoch FROM n.created_at) * 1000)::BIGINT AS created_ms,
                      row_number() OVER (PARTITION BY f.user_id ORDER BY n.created_at DESC, n.id DESC) AS nth
               FROM follows f JOIN notes n ON n.user_id = f.follows_id
               WHERE n.deleted_at IS NULL AND n.hidden_at IS NULL AND n.created_at >= f.created_at
           ) e WHERE nth <= $1 ORDER BY user_id"#,
        per_user
    )
    .fetch_all(db)
    .await
}

/// Adds the entries to the inboxes (a note already there keeps its place).
pub async fn add_to_inboxes(redis: &Redis, keys: &Keys, entries: &[InboxEntry]) -> Result<(), redis::RedisError> {
    zadd_grouped(redis, entries, |e| e.user_id, |u| keys.feed(u), |e| (e.created_ms, e.note_id)).await
}

/// The first `n` likers in the order they liked, and whether `viewer` is among all likers.
pub async fn likers(
    redis: &Redis,
    keys: &Keys,
    note_id: i64,
    n: isize,
    viewer: Option<i64>,
) -> Result<(Vec<i64>, bool), redis::RedisError> {
    let mut pipe = redis::pipe();
    pipe.cmd("ZRANGE").arg(keys.likes(note_id)).arg(0).arg(n - 1);
    pipe.cmd("ZSCORE").arg(keys.likes(note_id)).arg(viewer.unwrap_or(0));
    let (first, mine): (Vec<i64>, Option<f64>) = pipe.query_async(&mut redis.clone()).await?;
    Ok((first, viewer.is_some() && mine.is_some()))
}

/// Nicknames of `ids`, in the order given (unknown ids dropped).
pub async fn people(db: &PgPool, ids: &[i64]) -> Result<Vec<Person>, sqlx::Error> {
    let rows = sqlx::query_as!(Person, "SELECT id, nickname, avatar_url AS avatar FROM users WHERE id = ANY($1)", ids)
        .fetch_all(db)
        .await?;
    Ok(ids.iter().filter_map(|id| rows.iter().find(|p| p.id == *id).cloned()).collect())
}

/// Records a follow; false if it existed.
pub async fn follow(db: &PgPool, user_id: i64, target: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "INSERT INTO follows (user_id, follows_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        user_id,
        target
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Removes a follow; false if there was none.
pub async fn unfollow(db: &PgPool, user_id: i64, target: i64) -> Result<bool, sqlx::Error> {
    let done =
        sqlx::query!("DELETE FROM follows WHERE user_id = $1 AND follows_id = $2", user_id, target).execute(db).await?;
    Ok(done.rows_affected() == 1)
}

/// Whom `user_id` follows.
pub async fn following(db: &PgPool, user_id: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!("SELECT follows_id FROM follows WHERE user_id = $1", user_id).fetch_all(db).await
}

/// Whether `name` (a stored file's name) was uploaded by `user_id`.
pub async fn uploaded_by(db: &PgPool, name: &str, user_id: i64) -> Result<bool, sqlx::Error> {
    Ok(sqlx::query_scalar!("SELECT EXISTS (SELECT 1 FROM uploads WHERE name = $1 AND user_id = $2)", name, user_id)
        .fetch_one(db)
        .await?
        .unwrap_or(false))
}

/// Who follows `user_id`.
pub async fn followers(db: &PgPool, user_id: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!("SELECT user_id FROM follows WHERE follows_id = $1", user_id).fetch_all(db).await
}

/// How many follow a user, and how many they follow.
#[derive(Debug, Clone, Copy)]
pub struct FollowCounts {
    /// Users who follow them.
    pub followers: i64,
    /// Users they follow.
    pub following: i64,
}

/// Followers and following of a user.
pub async fn follow_counts(db: &PgPool, user_id: i64) -> Result<FollowCounts, sqlx::Error> {
    sqlx::query_as!(
        FollowCounts,
        r#"SELECT (SELECT count(*) FROM follows WHERE follows_id = $1) AS "followers!", (SELECT count(*) FROM follows WHERE user_id = $1) AS "following!""#,
        user_id,
    )
    .fetch_one(db)
    .await
}

/// One follow: `user_id` follows `follows_id`.
#[derive(Debug, Clone, Copy)]
pub struct Follow {
    /// The follower.
    pub user_id: i64,
    /// Whom they follow.
    pub follows_id: i64,
}

/// Every follow, grouped by follower, for rebuilding the Redis sets.
pub async fn all_follows(db: &PgPool) -> Result<Vec<Follow>, sqlx::Error> {
    sqlx::query_as!(Follow, "SELECT user_id, follows_id FROM follows ORDER BY user_id").fetch_all(db).await
}

/// Adds or removes `target` in `user_id`'s follow set.
pub async fn set_follow(
    redis: &Redis,
    keys: &Keys,
    user_id: i64,
    target: i64,
    on: bool,
) -> Result<(), redis::RedisError> {
    redis::cmd(if on { "SADD" } else { "SREM" })
        .arg(keys.follows(user_id))
        .arg(target)
        .query_async(&mut redis.clone())
        .await
}

/// People both users follow and whether `a` follows `b`. The two sets are read and intersected here, not
/// with `SINTER`: on a cluster two users' sets live in different slots (a follow list is short).
pub async fn common_follows(redis: &Redis, keys: &Keys, a: i64, b: i64) -> Result<(Vec<i64>, bool), redis::RedisError> {
    let members = |user| redis::cmd("SMEMBERS").arg(keys.follows(user)).to_owned();
    let mut sets = crate::platform::redis_conn::per_slot(redis, vec![members(a), members(b)], false).await?.into_iter();
    let mut set = || -> Result<std::collections::BTreeSet<i64>, redis::RedisError> {
        Ok(redis::from_redis_value(sets.next().unwrap_or(redis::Value::Nil))?)
    };
    let (of_a, of_b) = (set()?, set()?);
    Ok((of_a.intersection(&of_b).copied().collect(), of_a.contains(&b)))
}

/// Rebuilds every follow set from Postgres (start-up): one round trip (one per slot on a cluster).
pub async fn replace_follow_sets(redis: &Redis, keys: &Keys, follows: &[Follow]) -> Result<(), redis::RedisError> {
    if follows.is_empty() {
        return Ok(());
    }
    let mut cmds = Vec::new();
    for group in follows.chunk_by(|a, b| a.user_id == b.user_id) {
        cmds.push(redis::cmd("DEL").arg(keys.follows(group[0].user_id)).to_owned());
        cmds.push(
            redis::cmd("SADD")
                .arg(keys.follows(group[0].user_id))
                .arg(group.iter().map(|f| f.follows_id).collect::<Vec<_>>())
                .to_owned(),
        );
    }
    crate::platform::redis_conn::per_slot(redis, cmds, true).await.map(drop)
}

/// Puts a note into each follower's inbox, scored by its creation time.
pub async fn push_to_feeds(
    redis: &Redis,
    keys: &Keys,
    followers: &[i64],
    note_id: i64,
    created_ms: i64,
) -> Result<(), redis::RedisError> {
    let cmds = followers.iter().map(|f| redis::cmd("ZADD").arg(keys.feed(*f)).arg(created_ms).arg(note_id).to_owned());
    crate::platform::redis_conn::per_slot(redis, cmds.collect(), false).await.map(drop)
}

/// Takes a note out of each follower's inbox.
pub async fn remove_from_feeds(
    redis: &Redis,
    keys: &Keys,
    followers: &[i64],
    note_id: i64,
) -> Result<(), redis::RedisError> {
    let cmds = followers.iter().map(|f| redis::cmd("ZREM").arg(keys.feed(*f)).arg(note_id).to_owned());
    crate::platform::redis_conn::per_slot(redis, cmds.collect(), false).await.map(drop)
}

/// Up to `count` inbox entries with score ≤ `max`, newest first, skipping the first `offset`: `(note, score)`.
pub async fn feed_page(
    redis: &Redis,
    keys: &Keys,
    user_id: i64,
    max: i64,
    offset: u32,
    count: u32,
) -> Result<Vec<(i64, i64)>, redis::RedisError> {
    redis::cmd("ZREVRANGEBYSCORE")
        .arg(keys.feed(user_id))
        .arg(max)
        .arg("-inf")
        .arg("WITHSCORES")
        .arg("LIMIT")
        .arg(offset)
        .arg(count)
        .query_async(&mut redis.clone())
        .await
}

/// Records a stored upload.
pub async fn record_upload(
    tx: &mut sqlx::PgConnection,
    name: &str,
    user_id: i64,
    bytes: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query!("INSERT INTO uploads (name, user_id, bytes) VALUES ($1, $2, $3)", name, user_id, bytes)
        .execute(tx)
        .await
        .map(|_| ())
}

/// What one user has stored.
#[derive(Debug, Clone, Copy)]
pub struct UploadUsage {
    /// Files.
    pub files: i64,
    /// Bytes, all files together.
    pub bytes: i64,
}

/// How many files and bytes `user_id` has stored, holding their account row until the transaction ends:
/// two uploads of one person at once take turns, so both cannot pass the quota on the same reading.
pub async fn upload_usage_locked(tx: &mut sqlx::PgConnection, user_id: i64) -> Result<UploadUsage, sqlx::Error> {
    sqlx::query!("SELECT id FROM users WHERE id = $1 FOR UPDATE", user_id).fetch_optional(&mut *tx).await?;
    sqlx::query_as!(
        UploadUsage,
        r#"SELECT count(*) AS "files!", coalesce(sum(bytes), 0)::BIGINT AS "bytes!" FROM uploads WHERE user_id = $1"#,
        user_id,
    )
    .fetch_one(tx)
    .await
}

/// Forgets uploads older than `grace` that no live note and no shop shows; returns their names (the
/// caller removes the files).
pub async fn forget_orphan_uploads(db: &PgPool, grace: std::time::Duration) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar!(
        "DELETE FROM uploads u
         WHERE u.created_at < now() - make_interval(secs => $1::float8)
           AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.deleted_at IS NULL AND '/uploads/' || u.name = ANY (n.images))
           AND NOT EXISTS (SELECT 1 FROM shops s WHERE '/uploads/' || u.name = ANY (s.images))
           AND NOT EXISTS (SELECT 1 FROM review_versions v WHERE '/uploads/' || u.name = ANY (v.images))
           AND NOT EXISTS (SELECT 1 FROM users p WHERE p.avatar_url = '/uploads/' || u.name)
           AND NOT EXISTS (SELECT 1 FROM merchant_applications a WHERE a.shop_front = '/uploads/' || u.name)
         RETURNING u.name",
        grace.as_secs_f64(),
    )
    .fetch_all(db)
    .await
}

/// Files `reporter`'s report of a note for the operators (reporting again while the first is open replaces
/// its reason).
pub async fn report(db: &PgPool, id: i64, reporter: i64, reason: &str) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "INSERT INTO note_reports AS p (note_id, reporter_id, reason) VALUES ($1, $2, $3)
         ON CONFLICT (note_id, reporter_id) DO UPDATE SET reason = EXCLUDED.reason, created_at = now(),
             resolved_at = NULL, resolved_by = NULL, resolution = NULL",
        id,
        reporter,
        reason,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// An open report of a note.
pub struct ReportRow {
    /// The note reported.
    pub note_id: i64,
    /// Why.
    pub reason: String,
    /// Who reported it.
    pub reporter_name: String,
    /// When, unix ms.
    pub created_ms: i64,
}

/// The open reports of the `limit` notes reported longest ago, oldest report first.
pub async fn open_reports(db: &PgPool, limit: i64) -> Result<Vec<ReportRow>, sqlx::Error> {
    sqlx::query_as!(
        ReportRow,
        r#"WITH queue AS (
               SELECT note_id, min(created_at) AS since FROM note_reports WHERE resolved_at IS NULL
               GROUP BY note_id ORDER BY since, note_id LIMIT $1)
           SELECT p.note_id, p.reason, u.nickname AS reporter_name,
                  (extract(epoch FROM p.created_at) * 1000)::BIGINT AS "created_ms!"
           FROM queue q JOIN note_reports p ON p.note_id = q.note_id AND p.resolved_at IS NULL
           JOIN users u ON u.id = p.reporter_id JOIN notes n ON n.id = p.note_id
           WHERE n.deleted_at IS NULL
           ORDER BY q.since, q.note_id, p.created_at, p.id"#,
        limit,
    )
    .fetch_all(db)
    .await
}

/// Notes among `ids` that are not deleted, hidden ones too, as moderation shows them (any order).
pub async fn for_moderation(db: &PgPool, ids: &[i64]) -> Result<Vec<ModeratedNote>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT n.id, n.title, n.user_id AS author_id, u.nickname AS author_name, n.shop_id, n.liked,
                  (extract(epoch FROM n.created_at) * 1000)::BIGINT AS "created_ms!", n.body, s.name AS shop_name,
                  n.hidden_reason, (extract(epoch FROM n.hidden_at) * 1000)::BIGINT AS hidden_ms
           FROM notes n JOIN users u ON u.id = n.user_id JOIN shops s ON s.id = n.shop_id
           WHERE n.deleted_at IS NULL AND n.id = ANY($1)"#,
        ids,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| ModeratedNote {
            summary: NoteSummary {
                id: r.id,
                title: r.title,
                author_id: r.author_id,
                author_name: r.author_name,
                shop_id: r.shop_id,
                liked: r.liked,
                created_ms: r.created_ms,
            },
            body: r.body,
            shop_name: r.shop_name,
            hidden_reason: r.hidden_reason,
            hidden_ms: r.hidden_ms,
        })
        .collect())
}

/// The `limit` notes hidden last (not deleted since), newest first.
pub async fn hidden_lately(db: &PgPool, limit: i64) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar!(
        "SELECT id FROM notes WHERE hidden_at IS NOT NULL AND deleted_at IS NULL
         ORDER BY hidden_at DESC, id DESC LIMIT $1",
        limit,
    )
    .fetch_all(db)
    .await
}

/// Every author with hidden notes, and how many.
pub async fn hidden_per_author(db: &PgPool) -> Result<Vec<Tally>, sqlx::Error> {
    sqlx::query_as!(
        Tally,
        r#"SELECT n.user_id, u.nickname AS name, count(*) AS "hidden!" FROM notes n JOIN users u ON u.id = n.user_id
           WHERE n.hidden_at IS NOT NULL AND n.deleted_at IS NULL GROUP BY n.user_id, u.nickname"#,
    )
    .fetch_all(db)
    .await
}

/// A note's author and when it was written.
struct Target {
    author_id: i64,
    created_ms: i64,
}

/// What a moderation decision touched.
#[derive(Debug, Clone, Copy)]
pub struct Moderated {
    /// The note's author (whose followers' feeds follow, and who hears of it).
    pub author_id: i64,
    /// When the note was written (its score in the feeds), unix ms.
    pub created_ms: i64,
    /// The decision's place in the audit log.
    pub action_id: i64,
}

/// An operator's decision on a note, with its audit entry, in one transaction: hiding (a second one
/// rewrites the reason) or keeping closes its open reports; restoring shows a hidden one again. `None` if
/// there is no such note in a state the decision applies to.
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
                r#"UPDATE notes SET hidden_at = now(), hidden_reason = $2 WHERE id = $1 AND deleted_at IS NULL
                   RETURNING user_id AS author_id, (extract(epoch FROM created_at) * 1000)::BIGINT AS "created_ms!""#,
                id,
                reason,
            )
            .fetch_optional(&mut *tx)
            .await?
        }
        Decision::Keep => {
            sqlx::query_as!(
                Target,
                r#"SELECT user_id AS author_id, (extract(epoch FROM created_at) * 1000)::BIGINT AS "created_ms!"
                   FROM notes WHERE id = $1 AND deleted_at IS NULL"#,
                id,
            )
            .fetch_optional(&mut *tx)
            .await?
        }
        Decision::Restore(_) => {
            sqlx::query_as!(
                Target,
                r#"UPDATE notes SET hidden_at = NULL, hidden_reason = NULL
                   WHERE id = $1 AND deleted_at IS NULL AND hidden_at IS NOT NULL
                   RETURNING user_id AS author_id, (extract(epoch FROM created_at) * 1000)::BIGINT AS "created_ms!""#,
                id,
            )
            .fetch_optional(&mut *tx)
            .await?
        }
    };
    let Some(Target { author_id, created_ms }) = target else {
        return Ok(None);
    };
    let entry = crate::platform::audit::Entry::moderation(operator, Subject::Note, id, decision);
    let action_id = crate::platform::audit::record(&mut tx, entry).await?;
    if let Some(resolution) = decision.resolution() {
        sqlx::query!(
            "UPDATE note_reports SET resolved_at = now(), resolved_by = $2, resolution = $3
             WHERE note_id = $1 AND resolved_at IS NULL",
            id,
            operator,
            resolution,
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(Some(Moderated { author_id, created_ms, action_id }))
}
