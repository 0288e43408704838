//! Binding a user to the tower-sessions session.

use tower_sessions::Session;

const USER_ID: &str = "uid";

/// Session operations failed (the Redis store was unreachable, usually).
#[derive(Debug, thiserror::Error)]
#[error("session store: {0}")]
pub struct SessionError(#[from] tower_sessions::session::Error);

/// Logs `user_id` in. The session id is cycled first so an id planted before login (fixation) is useless.
pub async fn sign_in(session: &Session, user_id: i64) -> Result<(), SessionError> {
    session.cycle_id().await?;
    session.insert(USER_ID, user_id).await?;
    Ok(())
}

/// Logs out: the whole record is deleted and the cookie cleared.
pub async fn sign_out(session: &Session) -> Result<(), SessionError> {
    session.flush().await?;
    Ok(())
}

/// The logged-in user id, if any.
pub async fn user_id(session: &Session) -> Result<Option<i64>, SessionError> {
    Ok(session.get::<i64>(USER_ID).await?)
}

/// Mints a logged-in session for `user_id` directly in `store` and returns the cookie value. For load
/// generators: logging 10,000 users in over HTTP would spend minutes in argon2 before measuring anything.
pub async fn mint(
    store: &crate::session::RedisSessionStore,
    user_id: i64,
    ttl: time::Duration,
) -> Result<String, SessionError> {
    use tower_sessions::SessionStore;
    let mut data = std::collections::HashMap::new();
    data.insert(USER_ID.to_string(), serde_json::Value::from(user_id));
    let mut record = tower_sessions::session::Record {
        id: tower_sessions::session::Id::default(),
        data,
        expiry_date: time::OffsetDateTime::now_utc() + ttl,
    };
    store.create(&mut record).await.map_err(tower_sessions::session::Error::from)?;
    Ok(record.id.to_string())
}
