//! Social rules: writing and deleting notes (with the followers' inboxes), likes, follows, the feed, and
//! reporting and moderating notes.

use std::collections::HashMap;

use super::model::{FeedPage, ModeratedNote, NewNote, NoteSummary, NoteView, Profile, ReportedNote, next_cursor};
use super::store;
use crate::inbox::model::Facts;
use crate::inbox::service::{self as inbox, News};
use crate::platform::backend::BackendError;
use crate::shared::error::{AppError, Thing};
use crate::shared::i18n::{locale, td_string};
use crate::shared::moderation::{Decision, Report, Tally};
use crate::shared::text::{FreeText, TextRule};
use crate::web::state::AppState;

/// Notes per feed page.
pub const FEED_PAGE: u32 = 10;

/// What can go wrong; converted to [`AppError`] at the edge.
#[derive(Debug, thiserror::Error)]
pub enum SocialError {
    /// No such note (or deleted).
    #[error("note not found")]
    NoteNotFound,
    /// No such shop or user.
    #[error("{0:?} not found")]
    NotFound(Thing),
    /// Following oneself.
    #[error("cannot follow oneself")]
    SelfFollow,
    /// Input failed validation (a report's reason, one's own note).
    #[error("invalid input: {0}")]
    Invalid(AppError),
    /// The user's uploads would pass their quota.
    #[error("upload quota reached")]
    QuotaReached,
    /// Storing a file failed.
    #[error("storing an upload: {0}")]
    Storage(std::io::Error),
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(SocialError);

impl From<SocialError> for AppError {
    fn from(e: SocialError) -> Self {
        match e {
            SocialError::NoteNotFound => AppError::NotFound(Thing::Note),
            SocialError::NotFound(thing) => AppError::NotFound(thing),
            SocialError::SelfFollow => AppError::invalid("follow", td_string!(locale(), social.err_self_follow)),
            SocialError::Invalid(e) => e,
            SocialError::QuotaReached => AppError::invalid("images", td_string!(locale(), social.err_quota)),
            e @ SocialError::Storage(_) => AppError::internal(e),
            SocialError::Backend(e) => e.into(),
        }
    }
}

/// Writes a note about a shop and pushes it into every follower's inbox.
pub async fn write_note(state: &AppState, author: i64, shop_id: i64, note: NewNote) -> Result<i64, SocialError> {
    let store::StoredNote { id, created_ms } = store::insert_note(state.postgres()?, author, shop_id, &note)
        .await?
        .ok_or(SocialError::NotFound(Thing::Shop))?;
    let followers = store::followers(state.postgres()?, author).await?;
    store::push_to_feeds(&state.redis, &state.keys, &followers, id, created_ms).await?;
    Ok(id)
}

/// Deletes the author's note and takes it out of the inboxes (the feed also skips deleted notes).
pub async fn delete_note(state: &AppState, author: i64, id: i64) -> Result<(), SocialError> {
    if !store::delete_note(state.postgres()?, author, id).await? {
        return Err(SocialError::NoteNotFound);
    }
    let followers = store::followers(state.postgres()?, author).await?;
    store::remove_from_feeds(&state.redis, &state.keys, &followers, id).await?;
    Ok(())
}

/// The latest notes about a shop, newest first.
pub async fn notes_of_shop(state: &AppState, shop_id: i64) -> Result<Vec<NoteSummary>, SocialError> {
    Ok(store::notes_of_shop(state.postgres()?, shop_id, 50).await?)
}

/// One note with its first five likers and whether `viewer` likes it; a hidden note only for its author,
/// with the moderator's reason.
pub async fn note(state: &AppState, id: i64, viewer: Option<i64>) -> Result<NoteView, SocialError> {
    let store::NoteDetail { summary, body, images, hidden_reason } =
        store::note(state.postgres()?, id).await?.ok_or(SocialError::NoteNotFound)?;
    let mine = viewer == Some(summary.author_id);
    if hidden_reason.is_some() && !mine {
        return Err(SocialError::NoteNotFound);
    }
    let (first, liked_by_me) = store::likers(&state.redis, &state.keys, id, 5, viewer).await?;
    Ok(NoteView {
        summary,
        body,
        images,
        liked_by_me,
        mine,
        hidden: hidden_reason,
        first_likers: store::people(state.postgres()?, &first).await?,
    })
}

/// Reports someone else's live note as abusive, for the operators' queue.
pub async fn report(state: &AppState, user_id: i64, note_id: i64, reason: &str) -> Result<(), SocialError> {
    let rule = TextRule { min: 5, max: 500, multiline: true };
    let length = td_string!(locale(), social.err_report_reason_len, min = rule.min, max = rule.max);
    let reason = FreeText::parse("reason", reason, rule, &length).map_err(SocialError::Invalid)?;
    let db = state.postgres()?;
    let note =
        store::note(db, note_id).await?.filter(|n| n.hidden_reason.is_none()).ok_or(SocialError::NoteNotFound)?;
    if note.summary.author_id == user_id {
        return Err(SocialError::Invalid(AppError::invalid(
            "reason",
            td_string!(locale(), social.err_report_own_note),
        )));
    }
    Ok(store::report(db, note_id, user_id, reason.as_str()).await?)
}

/// The `limit` notes reported longest ago, each with its open reports (the operators' queue; the caller
/// checked that an operator asks).
pub async fn moderation_queue(state: &AppState, limit: i64) -> Result<Vec<ReportedNote>, SocialError> {
    let db = state.postgres()?;
    let rows = store::open_reports(db, limit).await?;
    let mut ids: Vec<i64> = rows.iter().map(|r| r.note_id).collect();
    ids.dedup();
    let mut notes: HashMap<i64, ModeratedNote> =
        store::for_moderation(db, &ids).await?.into_iter().map(|n| (n.summary.id, n)).collect();
    let mut queue: Vec<ReportedNote> = Vec::with_capacity(ids.len());
    for row in rows {
        let report = Report { reporter_name: row.reporter_name, reason: row.reason, at_ms: row.created_ms };
        match queue.last_mut() {
            Some(last) if last.note.summary.id == row.note_id => last.reports.push(report),
            _ => {
                if let Some(note) = notes.remove(&row.note_id) {
                    queue.push(ReportedNote { note, reports: vec![report] });
                }
            }
        }
    }
    Ok(queue)
}

/// The `limit` notes hidden last, newest first (for restoring; the caller checked the operator).
pub async fn hidden_lately(state: &AppState, limit: i64) -> Result<Vec<ModeratedNote>, SocialError> {
    let db = state.postgres()?;
    let ids = store::hidden_lately(db, limit).await?;
    let mut notes: HashMap<i64, ModeratedNote> =
        store::for_moderation(db, &ids).await?.into_iter().map(|n| (n.summary.id, n)).collect();
    Ok(ids.iter().filter_map(|id| notes.remove(id)).collect())
}

/// Every author with hidden notes, and how many.
pub async fn hidden_per_author(state: &AppState) -> Result<Vec<Tally>, SocialError> {
    Ok(store::hidden_per_author(state.postgres()?).await?)
}

/// `operator` hides a note (it leaves the shop's list, the feeds and its likers' reach; its author still
/// opens it and reads why, also in their inbox), keeps it (its reports close) or restores a hidden one
/// (back in the feeds at its first place); each is in the audit log. The caller checked the operator.
pub async fn moderate(state: &AppState, operator: i64, note_id: i64, decision: &Decision) -> Result<(), SocialError> {
    let done =
        store::moderate(state.postgres()?, note_id, operator, decision).await?.ok_or(SocialError::NoteNotFound)?;
    let hidden = match decision {
        Decision::Keep => return Ok(()),
        Decision::Hide(_) => true,
        Decision::Restore(_) => false,
    };
    let followers = store::followers(state.postgres()?, done.author_id).await?;
    // Postgres holds the decision; the feeds also skip hidden notes as they read, so a feed left behind
    // here shows no hidden note (and `load_inboxes` rebuilds them after a Redis restart).
    let feeds = match decision {
        Decision::Hide(_) => store::remove_from_feeds(&state.redis, &state.keys, &followers, note_id).await,
        _ => store::push_to_feeds(&state.redis, &state.keys, &followers, note_id, done.created_ms).await,
    };
    if let Err(e) = feeds {
        tracing::warn!(note = note_id, "followers' feeds not updated after moderation: {e}");
    }
    let reason = decision.reason().unwrap_or_default().to_string();
    let link = format!("/notes/{note_id}");
    let facts = Facts::Moderated { hidden, review_of: None, reason };
    let news = News { subject_id: done.action_id, facts, link: &link };
    inbox::tell(state, done.author_id, news).await;
    Ok(())
}

/// Likes or un-likes: Postgres records it (the row and the count in one transaction), then Redis' copy of
/// the likers follows. Returns (liked now, count).
pub async fn toggle_like(state: &AppState, user_id: i64, note_id: i64) -> Result<(bool, i32), SocialError> {
    let change = store::toggle_like(state.postgres()?, note_id, user_id).await?.ok_or(SocialError::NoteNotFound)?;
    store::mirror_like(&state.redis, &state.keys, note_id, user_id, change.liked_ms).await?;
    Ok((change.liked_ms.is_some(), change.count))
}

/// Follows or unfollows `target`: Postgres and the Redis set both change (an unfollow leaves no trace).
pub async fn set_follow(state: &AppState, user_id: i64, target: i64, on: bool) -> Result<(), SocialError> {
    if user_id == target {
        return Err(SocialError::SelfFollow);
    }
    if store::people(state.postgres()?, &[target]).await?.is_empty() {
        return Err(SocialError::NotFound(Thing::User));
    }
    if on {
        if store::follow(state.postgres()?, user_id, target).await?
            && let Some(me) = store::people(state.postgres()?, &[user_id]).await?.into_iter().next()
        {
            let link = format!("/users/{user_id}");
            let news = News { subject_id: user_id, facts: Facts::Followed { name: me.nickname.clone() }, link: &link };
            inbox::tell(state, target, news).await;
        }
    } else {
        store::unfollow(state.postgres()?, user_id, target).await?;
    }
    store::set_follow(&state.redis, &state.keys, user_id, target, on).await?;
    Ok(())
}

/// Ends every follow from and to `user_id` (their account is closing), in Postgres and in Redis.
pub async fn forget_follows(state: &AppState, user_id: i64) -> Result<(), SocialError> {
    let db = state.postgres()?;
    let pairs = store::following(db, user_id)
        .await?
        .into_iter()
        .map(|target| (user_id, target))
        .chain(store::followers(db, user_id).await?.into_iter().map(|follower| (follower, user_id)));
    for (from, to) in pairs.collect::<Vec<_>>() {
        store::unfollow(db, from, to).await?;
        store::set_follow(&state.redis, &state.keys, from, to, false).await?;
    }
    Ok(())
}

/// Whether `address` (`/uploads/…`) is a picture `user_id` uploaded: only their own may be their face.
pub async fn uploaded_by(state: &AppState, address: &str, user_id: i64) -> Result<bool, SocialError> {
    match address.strip_prefix("/uploads/") {
        Some(name) if !name.is_empty() && !name.contains('/') => {
            Ok(store::uploaded_by(state.postgres()?, name, user_id).await?)
        }
        _ => Ok(false),
    }
}

/// A profile as `viewer` sees it: counts, whether they follow, and the people both follow.
pub async fn profile(state: &AppState, user_id: i64, viewer: Option<i64>) -> Result<Profile, SocialError> {
    let person = store::people(state.postgres()?, &[user_id])
        .await?
        .into_iter()
        .next()
        .ok_or(SocialError::NotFound(Thing::User))?;
    let store::FollowCounts { followers, following } = store::follow_counts(state.postgres()?, user_id).await?;
    let (common, followed_by_me) = match viewer.filter(|v| *v != user_id) {
        Some(v) => {
            let (ids, follows) = store::common_follows(&state.redis, &state.keys, v, user_id).await?;
            (store::people(state.postgres()?, &ids).await?, follows)
        }
        None => (Vec::new(), false),
    };
    Ok(Profile { person, followers, following, followed_by_me, common })
}

/// One page of `user_id`'s follow feed from the cursor `(max, offset)` (`max` = None: from the newest).
pub async fn feed(state: &AppState, user_id: i64, max: Option<i64>, offset: u32) -> Result<FeedPage, SocialError> {
    let max = max.unwrap_or(i64::MAX);
    let entries = store::feed_page(&state.redis, &state.keys, user_id, max, offset, FEED_PAGE).await?;
    let (next_max, next_offset) = next_cursor(&entries, max, offset, entries.len() == FEED_PAGE as usize);
    let ids: Vec<i64> = entries.iter().map(|(id, _)| *id).collect();
    let mut found = store::notes_by_ids(state.postgres()?, &ids).await?;
    // Inbox order (newest first); a note deleted meanwhile is simply left out.
    let notes =
        ids.iter().filter_map(|id| found.iter().position(|n| n.id == *id).map(|i| found.swap_remove(i))).collect();
    Ok(FeedPage { notes, next_max, next_offset })
}

/// Rebuilds the follow sets from Postgres (start-up; Postgres is the truth).
pub async fn load_follows(state: &AppState) -> Result<usize, BackendError> {
    // Sets of users who follow nobody any more must go too, not only those being rewritten. Unlinked
    // before Postgres is read, so a follow made meanwhile is in the read or lands after the unlink.
    crate::platform::keys::unlink_matching(&state.redis, &state.keys.follows_pattern()).await?;
    let follows = store::all_follows(state.postgres()?).await?;
    store::replace_follow_sets(&state.redis, &state.keys, &follows).await?;
    Ok(follows.len())
}

/// Rebuilds every note's likers from Postgres' rows; answers how many likes.
pub async fn load_likes(state: &AppState) -> Result<usize, BackendError> {
    // As for follows: unlinked first, so a like made meanwhile is in the read or lands after it.
    crate::platform::keys::unlink_matching(&state.redis, &state.keys.likes_pattern()).await?;
    let likes = store::all_likes(state.postgres()?).await?;
    store::add_like_sets(&state.redis, &state.keys, &likes).await?;
    Ok(likes.len())
}

/// Inbox entries a rebuild restores per person (a feed page is 10; nobody scrolls back further).
const INBOX_REBUILT: i64 = 1_000;

/// Refills the follow feeds' inboxes from Postgres' notes and follows, added to what they hold (a note
/// pushed meanwhile stays); answers how many entries.
pub async fn load_inboxes(state: &AppState) -> Result<usize, BackendError> {
    let entries = store::all_inboxes(state.postgres()?, INBOX_REBUILT).await?;
    store::add_to_inboxes(&state.redis, &state.keys, &entries).await?;
    Ok(entries.len())
}

/// Stores `user_id`'s cleaned pictures (bytes and extension) under random names, within their quota
/// (`UPLOAD_QUOTA_BYTES` in all, 500 files); answers their addresses.
pub async fn store_uploads(
    state: &AppState,
    user_id: i64,
    files: Vec<(Vec<u8>, &'static str)>,
) -> Result<Vec<String>, SocialError> {
    let mut tx = state.postgres()?.begin().await?;
    let store::UploadUsage { files: count, bytes } = store::upload_usage_locked(&mut tx, user_id).await?;
    let adding: i64 = files.iter().map(|(b, _)| b.len() as i64).sum();
    if count + files.len() as i64 > MAX_UPLOADS_PER_USER || bytes + adding > state.config.upload_quota_bytes as i64 {
        return Err(SocialError::QuotaReached);
    }
    let dir = &state.config.upload_dir;
    tokio::fs::create_dir_all(dir).await.map_err(SocialError::Storage)?;
    let mut names = Vec::with_capacity(files.len());
    let stored = async {
        for (bytes, ext) in files {
            let name = format!("{:032x}.{ext}", rand::random::<u128>());
            names.push(name.clone());
            tokio::fs::write(dir.join(&name), &bytes).await.map_err(SocialError::Storage)?;
            store::record_upload(&mut tx, &name, user_id, bytes.len() as i64).await?;
        }
        tx.commit().await?;
        Ok::<_, SocialError>(())
    }
    .await;
    if let Err(e) = stored {
        // Nothing recorded: leave no file behind either.
        for name in &names {
            let _ = tokio::fs::remove_file(dir.join(name)).await;
        }
        return Err(e);
    }
    Ok(names.iter().map(|name| format!("/uploads/{name}")).collect())
}

/// Most files one person keeps.
const MAX_UPLOADS_PER_USER: i64 = 500;

/// Removes uploads older than `grace` that no note, shop or review (any version of it) shows (abandoned drafts, deleted notes);
/// returns how many.
pub async fn sweep_orphan_uploads(state: &AppState, grace: std::time::Duration) -> Result<usize, SocialError> {
    let names = store::forget_orphan_uploads(state.postgres()?, grace).await?;
    for name in &names {
        if let Err(e) = tokio::fs::remove_file(state.config.upload_dir.join(name)).await
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(%name, "orphan upload not removed: {e}");
        }
    }
    Ok(names.len())
}

/// Runs [`sweep_orphan_uploads`] every hour with `UPLOAD_ORPHAN_HOURS` of grace.
pub fn spawn_upload_sweeper(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match sweep_orphan_uploads(&state, state.config.upload_orphan_grace).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "orphan uploads removed"),
                Err(e) => tracing::warn!("upload sweep skipped: {e}"),
            }
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    })
}
