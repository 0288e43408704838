//! Social rules: writing and deleting notes (with the followers' inboxes), likes, follows, the feed.

use super::model::{FeedPage, NewNote, NoteSummary, NoteView, Profile, next_cursor};
use super::store;
use crate::clock::now_ms;
use crate::error::{AppError, BackendError};
use crate::state::AppState;

/// Notes per feed page.
pub const FEED_PAGE: u32 = 10;

/// What can go wrong; converted to [`AppError`] at the edge.
#[derive(Debug, thiserror::Error)]
pub enum SocialError {
    /// No such note (or deleted).
    #[error("note not found")]
    NoteNotFound,
    /// No such shop or user.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// Following oneself.
    #[error("cannot follow oneself")]
    SelfFollow,
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(SocialError);

impl From<SocialError> for AppError {
    fn from(e: SocialError) -> Self {
        match e {
            SocialError::NoteNotFound => AppError::NotFound("Note".into()),
            SocialError::NotFound(what) => AppError::NotFound(what.into()),
            SocialError::SelfFollow => AppError::invalid("follow", "You cannot follow yourself."),
            SocialError::Backend(e) => e.into(),
        }
    }
}

/// Writes a note about a shop and pushes it into every follower's inbox.
pub async fn write_note(state: &AppState, author: i64, shop_id: i64, note: NewNote) -> Result<i64, SocialError> {
    let (id, created_ms) =
        store::insert_note(state.postgres()?, author, shop_id, &note).await?.ok_or(SocialError::NotFound("Shop"))?;
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

/// One note with its first five likers and whether `viewer` likes it.
pub async fn note(state: &AppState, id: i64, viewer: Option<i64>) -> Result<NoteView, SocialError> {
    let (summary, body, images) = store::note(state.postgres()?, id).await?.ok_or(SocialError::NoteNotFound)?;
    let (first, liked_by_me) = store::likers(&state.redis, &state.keys, id, 5, viewer).await?;
    let mine = viewer == Some(summary.author_id);
    Ok(NoteView {
        summary,
        body,
        images,
        liked_by_me,
        mine,
        first_likers: store::people(state.postgres()?, &first).await?,
    })
}

/// Likes or un-likes; Redis decides atomically, Postgres' count follows by the same step. Returns
/// (liked now, count).
pub async fn toggle_like(state: &AppState, user_id: i64, note_id: i64) -> Result<(bool, i32), SocialError> {
    store::note(state.postgres()?, note_id).await?.ok_or(SocialError::NoteNotFound)?;
    let delta = store::toggle_like(&state.redis, &state.keys, note_id, user_id, now_ms()).await?;
    let count = store::add_likes(state.postgres()?, note_id, delta).await?;
    Ok((delta > 0, count))
}

/// Follows or unfollows `target`: Postgres and the Redis set both change (an unfollow leaves no trace).
pub async fn set_follow(state: &AppState, user_id: i64, target: i64, on: bool) -> Result<(), SocialError> {
    if user_id == target {
        return Err(SocialError::SelfFollow);
    }
    if store::people(state.postgres()?, &[target]).await?.is_empty() {
        return Err(SocialError::NotFound("User"));
    }
    if on {
        store::follow(state.postgres()?, user_id, target).await?;
    } else {
        store::unfollow(state.postgres()?, user_id, target).await?;
    }
    store::set_follow(&state.redis, &state.keys, user_id, target, on).await?;
    Ok(())
}

/// A profile as `viewer` sees it: counts, whether they follow, and the people both follow.
pub async fn profile(state: &AppState, user_id: i64, viewer: Option<i64>) -> Result<Profile, SocialError> {
    let person =
        store::people(state.postgres()?, &[user_id]).await?.into_iter().next().ok_or(SocialError::NotFound("User"))?;
    let (followers, following) = store::follow_counts(state.postgres()?, user_id).await?;
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
pub async fn load_follows(state: &AppState) -> Result<usize, SocialError> {
    let follows = store::all_follows(state.postgres()?).await?;
    // Sets of users who follow nobody any more must go too, not only those being rewritten.
    crate::keys::unlink_matching(&state.redis, &state.keys.follows_pattern()).await?;
    store::replace_follow_sets(&state.redis, &state.keys, &follows).await?;
    Ok(follows.len())
}
