//! Inbox rules: who is told what, once, unless they switched it off; reading and marking read.

use super::model::{Facts, INBOX_PAGE, Inbox, Notice, NoticeKind};
use super::store;
use crate::platform::backend::BackendError;
use crate::shared::error::{AppError, Thing};
use crate::web::state::AppState;

/// What can go wrong; converted to [`AppError`] at the edge.
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    /// No such notice of the reader's.
    #[error("notice not found")]
    NotFound,
    /// A backing service failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

crate::backend_errors!(InboxError);

impl From<InboxError> for AppError {
    fn from(e: InboxError) -> Self {
        match e {
            InboxError::NotFound => AppError::NotFound(Thing::Notice),
            InboxError::Backend(e) => e.into(),
        }
    }
}

/// What a notice says and where it leads: what it is about (`subject_id`: the order, review, follower or
/// operator action, so each is told once), the facts its sentence is worded from, and the page it opens.
#[derive(Debug, Clone)]
pub struct News<'a> {
    /// The order, review, follower or operator action it is about.
    pub subject_id: i64,
    /// What happened (which makes its kind).
    pub facts: Facts,
    /// The page it opens.
    pub link: &'a str,
}

impl News<'_> {
    /// The facts as the `notices.facts` column keeps them.
    fn facts_json(&self) -> String {
        serde_json::to_string(&self.facts).unwrap_or_default()
    }
}

/// Tells `user_id` the news, unless they switched its kind off or were told already.
pub async fn notify(state: &AppState, user_id: i64, news: News<'_>) -> Result<(), InboxError> {
    let kind = news.facts.kind().as_db();
    if store::notify(state.postgres()?, user_id, kind, news.subject_id, &news.facts_json(), news.link).await? {
        super::live::announce(state, user_id).await;
    }
    Ok(())
}

/// Tells each `(reader, news)` its news (all of one kind), in one statement however many; those told now
/// hear of it on their open pages.
pub async fn notify_many(state: &AppState, kind: NoticeKind, many: &[(i64, News<'_>)]) -> Result<(), InboxError> {
    let rows: Vec<(i64, i64, String, String)> = many
        .iter()
        .filter(|(_, news)| news.facts.kind() == kind)
        .map(|(user, news)| (*user, news.subject_id, news.facts_json(), news.link.to_string()))
        .collect();
    let mut told = store::notify_many(state.postgres()?, kind.as_db(), &rows).await?;
    told.sort_unstable();
    told.dedup();
    for user in told {
        super::live::announce(state, user).await;
    }
    Ok(())
}

/// [`notify`] for a caller whose own work is done and must stand whatever happens to the notice: a
/// failure is logged, not returned.
pub async fn tell(state: &AppState, user_id: i64, news: News<'_>) {
    let kind = news.facts.kind();
    if let Err(e) = notify(state, user_id, news).await {
        tracing::warn!(user = user_id, kind = kind.as_db(), "notice not written: {e}");
    }
}

/// The reader's inbox: the latest notices, the unread count and the switches.
pub async fn inbox(state: &AppState, user_id: i64) -> Result<Inbox, InboxError> {
    let db = state.postgres()?;
    let (rows, unread, off) = tokio::try_join!(
        store::latest(db, user_id, INBOX_PAGE),
        store::unread(db, user_id),
        store::switched_off(db, user_id)
    )?;
    let locale = crate::shared::i18n::locale();
    let notices = rows
        .into_iter()
        .filter_map(|r| {
            let kind = NoticeKind::from_db(&r.kind)?;
            let text = match r.facts.as_deref().and_then(|f| serde_json::from_str::<Facts>(f).ok()) {
                Some(facts) => facts.sentence(locale),
                None => kind.earlier(locale, &r.detail),
            };
            Some(Notice { id: r.id, kind, text, link: r.link, at_ms: r.at_ms, read: r.read })
        })
        .collect();
    let switches = NoticeKind::ALL.into_iter().map(|k| (k, !off.iter().any(|o| o == k.as_db()))).collect();
    Ok(Inbox { notices, unread, switches })
}

/// How many of the reader's notices are unread.
pub async fn unread(state: &AppState, user_id: i64) -> Result<i64, InboxError> {
    Ok(store::unread(state.postgres()?, user_id).await?)
}

/// Marks notice `id` read (or all, `None`); answers the unread count after. Marking a read notice again
/// changes nothing; someone else's (or no) notice is not found.
pub async fn mark_read(state: &AppState, user_id: i64, id: Option<i64>) -> Result<i64, InboxError> {
    let db = state.postgres()?;
    let marked = store::mark_read(db, user_id, id).await?;
    if marked == 0
        && let Some(id) = id
        && !store::has_notice(db, user_id, id).await?
    {
        return Err(InboxError::NotFound);
    }
    if marked > 0 {
        // The reader's other open pages (another tab, the phone) count down too.
        super::live::announce(state, user_id).await;
    }
    Ok(store::unread(db, user_id).await?)
}

/// Switches a kind of notice on or off for the reader.
pub async fn set_switch(state: &AppState, user_id: i64, kind: NoticeKind, on: bool) -> Result<(), InboxError> {
    Ok(store::set_switch(state.postgres()?, user_id, kind.as_db(), on).await?)
}

/// Forgets `user_id`'s notices and switches: their account is closing.
pub async fn forget(state: &AppState, user_id: i64) -> Result<(), InboxError> {
    Ok(store::forget(state.postgres()?, user_id).await?)
}
