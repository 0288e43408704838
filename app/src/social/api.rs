//! Social server functions: thin — session, call the service, map errors.

use leptos::prelude::*;

use super::model::{FeedPage, NoteSummary, NoteView, Profile};
use crate::error::AppError;

#[cfg(feature = "ssr")]
async fn me() -> Result<i64, AppError> {
    crate::edge::session_user_id().await?.ok_or_else(|| AppError::LoginRequired.respond())
}

/// Writes a note about a shop (images: one address per line); answers its id.
#[server(endpoint = "social/write-note")]
pub async fn write_note(shop_id: i64, title: String, body: String, images: String) -> Result<i64, AppError> {
    let state = crate::edge::state()?;
    let user = me().await?;
    let note = super::model::NewNote::parse(&title, &body, &images).map_err(AppError::respond)?;
    super::service::write_note(&state, user, shop_id, note).await.map_err(|e| AppError::from(e).respond())
}

/// Deletes one of the user's notes.
#[server(endpoint = "social/delete-note")]
pub async fn delete_note(note_id: i64) -> Result<(), AppError> {
    let state = crate::edge::state()?;
    let user = me().await?;
    super::service::delete_note(&state, user, note_id).await.map_err(|e| AppError::from(e).respond())
}

/// One note with its first likers.
#[server(endpoint = "social/note")]
pub async fn get_note(note_id: i64) -> Result<NoteView, AppError> {
    let state = crate::edge::state()?;
    let viewer = crate::edge::session_user_id().await?;
    super::service::note(&state, note_id, viewer).await.map_err(|e| AppError::from(e).respond())
}

/// Likes or un-likes a note; answers (liked now, count).
#[server(endpoint = "social/like")]
pub async fn toggle_like(note_id: i64) -> Result<(bool, i32), AppError> {
    let state = crate::edge::state()?;
    let user = me().await?;
    super::service::toggle_like(&state, user, note_id).await.map_err(|e| AppError::from(e).respond())
}

/// The latest notes about a shop.
#[server(endpoint = "social/shop-notes")]
pub async fn shop_notes(shop_id: i64) -> Result<Vec<NoteSummary>, AppError> {
    let state = crate::edge::state()?;
    super::store::notes_of_shop(&state.db, shop_id, 50).await.map_err(|e| AppError::internal(e).respond())
}

/// A user's profile as the viewer sees it.
#[server(endpoint = "social/profile")]
pub async fn get_profile(user_id: i64) -> Result<Profile, AppError> {
    let state = crate::edge::state()?;
    let viewer = crate::edge::session_user_id().await?;
    super::service::profile(&state, user_id, viewer).await.map_err(|e| AppError::from(e).respond())
}

/// Follows (`on`) or unfollows a user.
#[server(endpoint = "social/follow")]
pub async fn set_follow(user_id: i64, on: bool) -> Result<(), AppError> {
    let state = crate::edge::state()?;
    let me = me().await?;
    super::service::set_follow(&state, me, user_id, on).await.map_err(|e| AppError::from(e).respond())
}

/// One page of the follow feed from the cursor (`max` empty: from the newest).
#[server(endpoint = "social/feed")]
pub async fn my_feed(max: Option<i64>, offset: u32) -> Result<FeedPage, AppError> {
    let state = crate::edge::state()?;
    let me = me().await?;
    super::service::feed(&state, me, max, offset).await.map_err(|e| AppError::from(e).respond())
}
