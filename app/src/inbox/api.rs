//! Inbox server functions: thin — the edge's preamble, one service call.

use leptos::prelude::*;

use super::model::Inbox;
#[cfg(feature = "ssr")]
use super::model::NoticeKind;
use crate::shared::error::AppError;

/// The reader's inbox: latest notices, unread count, switches.
#[server(endpoint = "inbox/mine")]
pub async fn my_inbox() -> Result<Inbox, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::inbox(&cx.state, user).await?)
    })
    .await
}

/// How many of the reader's notices are unread (the header's badge).
#[server(endpoint = "inbox/unread")]
pub async fn unread_notices() -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::unread(&cx.state, user).await?)
    })
    .await
}

/// Marks one notice read (`id`), or all of them (none given); answers how many stay unread.
#[server(endpoint = "inbox/read")]
pub async fn mark_read(id: Option<i64>) -> Result<i64, AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        Ok(super::service::mark_read(&cx.state, user, id).await?)
    })
    .await
}

/// Switches one kind of notice (`order_paid`, `new_follower`…) on or off.
#[server(endpoint = "inbox/switch")]
pub async fn set_switch(kind: String, on: bool) -> Result<(), AppError> {
    crate::web::edge::run(|cx| async move {
        let user = cx.require_user_id().await?;
        let kind = NoticeKind::parse(&kind)?;
        Ok(super::service::set_switch(&cx.state, user, kind, on).await?)
    })
    .await
}
