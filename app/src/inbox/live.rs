//! `GET /api/v1/inbox/events`: the reader's unread count as server-sent events, for the header of every
//! page they have open. Whoever changes a reader's notices (a new one, marked read) announces the reader's
//! id on one Redis channel; each instance follows it and pokes the streams it holds for that reader, which
//! read the count again from Postgres (the record) and send it when it moved.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::watch;
use tower_sessions::Session;

use crate::platform::channel::{Heard, Topic};
use crate::shared::error::AppError;
use crate::web::session::SessionPolicy;
use crate::web::state::AppState;

/// The shortest gap between two counts of one stream: a burst of notices is one update.
const COALESCE: Duration = Duration::from_millis(200);

/// This instance's open streams, by reader: a poke counter each (the stream reads the count itself).
#[derive(Debug, Default, Clone)]
pub struct InboxLive(Arc<Mutex<HashMap<i64, watch::Sender<u64>>>>);

impl InboxLive {
    /// A stream for reader `user_id`: changes whenever their count may have moved.
    fn watch(&self, user_id: i64) -> watch::Receiver<u64> {
        let Ok(mut readers) = self.0.lock() else { return watch::channel(0).1 };
        // Readers with no stream left go with the next one that opens.
        readers.retain(|_, tx| tx.receiver_count() > 0);
        readers.entry(user_id).or_insert_with(|| watch::channel(0).0).subscribe()
    }

    /// Pokes reader `user_id`'s streams on this instance, if any.
    fn poke(&self, user_id: i64) {
        if let Ok(readers) = self.0.lock()
            && let Some(tx) = readers.get(&user_id)
        {
            tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Pokes every stream: after a (re)subscription, announcements may have been missed.
    fn poke_all(&self) {
        if let Ok(readers) = self.0.lock() {
            readers.values().for_each(|tx| tx.send_modify(|n| *n = n.wrapping_add(1)));
        }
    }

    /// Follows the inbox channel for the life of the process.
    pub fn spawn_listener(&self, redis_url: &str, channel: String) -> tokio::task::JoinHandle<()> {
        let live = self.clone();
        let mut heard = crate::platform::channel::follow(redis_url, Topic::Channel(channel));
        tokio::spawn(async move {
            while let Some(notice) = heard.recv().await {
                match notice {
                    Heard::Notice { payload, .. } => match payload.parse() {
                        Ok(user_id) => live.poke(user_id),
                        Err(_) => tracing::warn!(%payload, "bad inbox announcement"),
                    },
                    Heard::Subscribed(_) => live.poke_all(),
                    Heard::Lost(_) => {}
                }
            }
        })
    }
}

/// Announces that reader `user_id`'s notices changed, so their open pages hear of it. A failure costs
/// only the push (the count is right on the next page); it is logged.
pub async fn announce(state: &AppState, user_id: i64) {
    let sent: Result<i64, _> = redis::cmd(state.redis.announce_command())
        .arg(state.keys.inbox_channel())
        .arg(user_id)
        .query_async(&mut state.redis.clone())
        .await;
    if let Err(e) = sent {
        tracing::warn!(user = user_id, "inbox change not announced: {e}");
    }
}

/// The handler: 401 without a logged-in reader; else the count now, then each time it moves.
pub async fn unread_events(State(state): State<AppState>, session: Session) -> Response {
    let policy = SessionPolicy::from_config(&state.config);
    let user_id = match crate::web::session::user_id(&session, &policy).await {
        Ok(Some(id)) => id,
        Ok(None) => return AppError::LoginRequired.into_response(),
        Err(e) => return AppError::from(e).into_response(),
    };
    let Some(live) = state.parts.get::<InboxLive>().cloned() else {
        return AppError::internal("the instance's state has no inbox streams").into_response();
    };
    // Watch first, then read: a notice between the two is not missed.
    let rx = live.watch(user_id);
    let first = match super::service::unread(&state, user_id).await {
        Ok(n) => n,
        Err(e) => return AppError::from(e).into_response(),
    };
    let opening = futures::stream::once(async move { Ok::<_, Infallible>(Event::default().data(first.to_string())) });
    let updates = futures::stream::unfold((rx, first, state), move |(mut rx, mut last, state)| async move {
        loop {
            rx.changed().await.ok()?;
            tokio::time::sleep(COALESCE).await;
            rx.borrow_and_update();
            match super::service::unread(&state, user_id).await {
                Ok(n) if n != last => {
                    last = n;
                    return Some((Ok(Event::default().data(n.to_string())), (rx, last, state)));
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(user = user_id, "unread count not read for a stream: {e}"),
            }
        }
    });
    Sse::new(futures::StreamExt::chain(opening, updates)).keep_alive(KeepAlive::default()).into_response()
}
