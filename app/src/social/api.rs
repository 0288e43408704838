//! Social server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::{FeedPage, NoteSummary, NoteView, Profile};
use crate::shared::error::AppError;
#[cfg(feature = "ssr")]
use crate::web::abuse::Action;

/// Writes a note about a shop (images: one address per line); answers its id.
#[server(endpoint = "social/write-note")]
pub async fn write_note(shop_id: i64, title: String, body: String, images: String) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper_id(&cx).await?;
        let note = super::model::NewNote::parse(&title, &body, &images)?;
        cx.spend(Action::Note, &format!("u:{user}"))?;
        Ok(super::service::write_note(&cx.state, user, shop_id, note).await?)
    })
    .await
}

/// Deletes one of the user's notes.
#[server(endpoint = "social/delete-note")]
pub async fn delete_note(note_id: i64) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::delete_note(&cx.state, user, note_id).await?)
    })
    .await
}

/// One note with its first likers.
#[server(endpoint = "social/note")]
pub async fn get_note(note_id: i64) -> Result<NoteView, AppError> {
    crate::web::edge::run(|cx| async move {
        let viewer = cx.user_id().await?;
        Ok(super::service::note(&cx.state, note_id, viewer).await?)
    })
    .await
}

/// Likes or un-likes a note; answers (liked now, count).
#[server(endpoint = "social/like")]
pub async fn toggle_like(note_id: i64) -> Result<(bool, i32), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper_id(&cx).await?;
        cx.spend(Action::Like, &format!("u:{user}"))?;
        Ok(super::service::toggle_like(&cx.state, user, note_id).await?)
    })
    .await
}

/// Reports someone else's note as abusive, for the operators' queue.
#[server(endpoint = "social/report-note")]
pub async fn report_note(note_id: i64, reason: String) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = crate::auth::api::require_shopper_id(&cx).await?;
        cx.spend(Action::Note, &format!("u:{user}"))?;
        Ok(super::service::report(&cx.state, user, note_id, &reason).await?)
    })
    .await
}

/// The latest notes about a shop.
#[server(endpoint = "social/shop-notes")]
pub async fn shop_notes(shop_id: i64) -> Result<Vec<NoteSummary>, AppError> {
    crate::web::edge::run(|cx| async move { Ok(super::service::notes_of_shop(&cx.state, shop_id).await?) }).await
}

/// A user's profile as the viewer sees it.
#[server(endpoint = "social/profile")]
pub async fn get_profile(user_id: i64) -> Result<Profile, AppError> {
    crate::web::edge::run(|cx| async move {
        let viewer = cx.user_id().await?;
        Ok(super::service::profile(&cx.state, user_id, viewer).await?)
    })
    .await
}

/// Follows (`on`) or unfollows a user.
#[server(endpoint = "social/follow")]
pub async fn set_follow(user_id: i64, on: bool) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let me = crate::auth::api::require_shopper_id(&cx).await?;
        cx.spend(Action::Follow, &format!("u:{me}"))?;
        Ok(super::service::set_follow(&cx.state, me, user_id, on).await?)
    })
    .await
}

/// One page of the follow feed from the cursor (`max` empty: from the newest).
#[server(endpoint = "social/feed")]
pub async fn my_feed(max: Option<i64>, offset: u32) -> Result<FeedPage, AppError> {
    crate::web::edge::run(|cx| async move {
        let me = cx.require_user_id().await?;
        Ok(super::service::feed(&cx.state, me, max, offset).await?)
    })
    .await
}
