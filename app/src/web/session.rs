//! Sessions: a tower-sessions store over the project's own redis-rs connection (one Redis client, not
//! two) with an in-process cache in front and the Postgres record under it, and the binding of a session
//! to the user who logged in with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::platform::redis_conn::Redis;
use async_trait::async_trait;
use redis::AsyncCommands;
use time::OffsetDateTime;
use tower_sessions::Session;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

use crate::platform::breaker::Service;
use crate::platform::channel::{Heard, Topic};
use crate::platform::keys::Keys;
use crate::shared::clock::now_ms;
use crate::web::session_record::PgSessionStore;

/// Each instance's copy of the sessions it has read lately, so a request with a session cookie — every
/// grab — reads no Redis. Every save and delete is announced on `session:changed`; each instance drops
/// its copy when it hears one, and trusts its copies only while it is listening (after a lost
/// subscription it drops them all and reads Redis until it listens again). Copies also age out.
pub struct SessionCache {
    /// Shared, not cloned, by a read: a record is a map of strings, and the grab's route only looks.
    records: moka::future::Cache<Id, Arc<Record>>,
    listening: AtomicBool,
}

impl std::fmt::Debug for SessionCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionCache").field("entries", &self.records.entry_count()).finish()
    }
}

impl SessionCache {
    /// Copies kept at most `ttl` each, up to 100,000 of them.
    pub fn new(ttl: Duration) -> Self {
        Self {
            records: moka::future::Cache::builder().max_capacity(100_000).time_to_live(ttl).build(),
            listening: AtomicBool::new(false),
        }
    }

    async fn get(&self, id: &Id) -> Option<Arc<Record>> {
        if !self.listening.load(Ordering::Acquire) {
            return None;
        }
        self.records.get(id).await.filter(|r| r.expiry_date > OffsetDateTime::now_utc())
    }

    async fn put(&self, record: &Record) {
        if self.listening.load(Ordering::Acquire) {
            self.records.insert(record.id, Arc::new(record.clone())).await;
        }
    }

    /// Follows `session:changed` for the life of the process; copies are trusted only while subscribed.
    pub fn spawn_listener(self: &Arc<Self>, redis_url: String, keys: Keys) -> tokio::task::JoinHandle<()> {
        let cache = self.clone();
        let mut heard = crate::platform::channel::follow(&redis_url, Topic::Channel(keys.session_changed()));
        tokio::spawn(async move {
            while let Some(notice) = heard.recv().await {
                match notice {
                    Heard::Subscribed(_) => {
                        cache.records.invalidate_all();
                        cache.listening.store(true, Ordering::Release);
                    }
                    Heard::Notice { payload, .. } => match payload.parse::<Id>() {
                        Ok(id) => cache.records.invalidate(&id).await,
                        Err(_) => cache.records.invalidate_all(),
                    },
                    Heard::Lost(_) => {
                        cache.listening.store(false, Ordering::Release);
                        cache.records.invalidate_all();
                    }
                }
            }
        })
    }
}

/// Stores each session as JSON at `session:{id}` with a Redis TTL equal to its expiry.
#[derive(Clone)]
pub struct RedisSessionStore {
    redis: Redis,
    keys: Keys,
    cache: Option<Arc<SessionCache>>,
    /// The instance's breakers: a session read that goes to Redis passes the Redis breaker (the server's).
    breakers: Option<crate::platform::breaker::Breakers>,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore").field("keys", &self.keys).finish()
    }
}

impl RedisSessionStore {
    /// A store writing under `keys`' namespace, reading Redis every time (tools and tests).
    pub fn new(redis: Redis, keys: Keys) -> Self {
        Self { redis, keys, cache: None, breakers: None }
    }

    /// A store that answers reads from `cache` while it can (the server's).
    pub fn cached(redis: Redis, keys: Keys, cache: Arc<SessionCache>) -> Self {
        Self { redis, keys, cache: Some(cache), breakers: None }
    }

    /// Reads through the Redis breaker of `breakers`: while Redis is away the request that needs the
    /// session is refused at once, and a read Redis did not answer counts against the breaker. Without
    /// it a grab, whose session is read from Redis once the instance has lost its subscription and with it
    /// its copies, failed there on every try and never reached the breaker, which then never opened.
    pub fn behind(mut self, breakers: crate::platform::breaker::Breakers) -> Self {
        self.breakers = Some(breakers);
        self
    }

    /// Runs `cmd` on session `id` and announces the change on `session:changed` in the same round trip, so
    /// every instance drops its copy; answers `cmd`'s reply.
    async fn announced<T: redis::FromRedisValue>(&self, cmd: redis::Cmd, id: &str) -> session_store::Result<T> {
        let publish = redis::cmd(self.redis.announce_command()).arg(self.keys.session_changed()).arg(id).to_owned();
        let replies =
            crate::platform::redis_conn::per_slot(&self.redis, vec![cmd, publish], false).await.map_err(backend)?;
        let reply = replies.into_iter().next().unwrap_or(redis::Value::Nil);
        redis::from_redis_value(reply).map_err(|e| backend(e.into()))
    }

    async fn write(&self, record: &Record, only_if_new: bool) -> session_store::Result<bool> {
        let ttl = (record.expiry_date - OffsetDateTime::now_utc()).whole_seconds();
        if ttl <= 0 {
            return Ok(true);
        }
        let json = serde_json::to_string(record).map_err(|e| session_store::Error::Encode(e.to_string()))?;
        let id = record.id.to_string();
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.keys.session(&id)).arg(json).arg("EX").arg(ttl);
        if only_if_new {
            cmd.arg("NX");
        }
        let reply: Option<String> = self.announced(cmd, &id).await?;
        if reply.is_some()
            && let Some(cache) = &self.cache
        {
            cache.put(record).await;
        }
        Ok(reply.is_some())
    }
}

fn backend(e: redis::RedisError) -> session_store::Error {
    session_store::Error::Backend(e.to_string())
}

impl RedisSessionStore {
    /// A read Redis did not answer: the current request's Redis breaker hears of it (the error that
    /// reaches the web edge is a session error, which names no service).
    fn failed(&self, e: redis::RedisError) -> session_store::Error {
        if self.breakers.is_some() && crate::platform::redis_conn::is_outage(&e) {
            crate::platform::breaker::note_failure(Service::Redis);
        }
        backend(e)
    }
}

#[async_trait]
impl SessionStore for RedisSessionStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        // Ids are 128 random bits, but a collision must never hand one user another's session.
        while !self.write(record, true).await? {
            record.id = Id::default();
        }
        Ok(())
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        self.write(record, false).await.map(|_| ())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        if let Some(cache) = &self.cache
            && let Some(record) = cache.get(id).await
        {
            return Ok(Some(Record::clone(&record)));
        }
        if let Some(breakers) = &self.breakers {
            breakers.admit(Service::Redis).map_err(|open| session_store::Error::Backend(open.to_string()))?;
        }
        let raw: Option<String> =
            self.redis.clone().get(self.keys.session(&id.to_string())).await.map_err(|e| self.failed(e))?;
        let record: Option<Record> = raw
            .map(|s| serde_json::from_str(&s).map_err(|e| session_store::Error::Decode(e.to_string())))
            .transpose()?;
        if let (Some(cache), Some(record)) = (&self.cache, &record) {
            cache.put(record).await;
        }
        Ok(record)
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        let id = id.to_string();
        let mut del = redis::cmd("DEL");
        del.arg(self.keys.session(&id));
        let _: i64 = self.announced(del, &id).await?;
        if let (Some(cache), Ok(id)) = (&self.cache, id.parse::<Id>()) {
            cache.records.invalidate(&id).await;
        }
        Ok(())
    }
}

/// The store the server uses: Redis (with each instance's memory in front) answers, Postgres keeps the
/// record. A session Redis lost is read back from Postgres and put into Redis again; a save or a logout
/// writes both, so a Redis restart logs nobody out and a logout ends the session everywhere at once.
pub type DurableSessionStore = tower_sessions::CachingSessionStore<RedisSessionStore, PgSessionStore>;

/// The server's session store over `state`'s Redis, session cache and Postgres.
pub fn durable(state: &crate::web::state::AppState) -> DurableSessionStore {
    tower_sessions::CachingSessionStore::new(
        RedisSessionStore::cached(state.redis.clone(), state.keys.clone(), state.sessions.clone())
            .behind(state.breakers.clone()),
        PgSessionStore::new(state.db.clone()),
    )
}

/// A durable store that reads Redis every time (tools, load generators and tests).
pub fn durable_uncached(state: &crate::web::state::AppState) -> DurableSessionStore {
    tower_sessions::CachingSessionStore::new(
        RedisSessionStore::new(state.redis.clone(), state.keys.clone()),
        PgSessionStore::new(state.db.clone()),
    )
}

/// Deletes expired session records every `every` for the life of the process (Redis expires its own).
pub fn spawn_expired_deletion(state: crate::web::state::AppState, every: Duration) -> tokio::task::JoinHandle<()> {
    let store = PgSessionStore::new(state.db.clone());
    tokio::spawn(async move {
        loop {
            match store.delete_expired().await {
                Ok(0) => {}
                Ok(n) => tracing::debug!(deleted = n, "expired sessions deleted"),
                Err(e) => tracing::warn!("expired sessions not deleted, retrying later: {e}"),
            }
            tokio::time::sleep(every).await;
        }
    })
}

const USER_ID: &str = "uid";

/// Session operations failed (the Redis store was unreachable, usually).
#[derive(Debug, thiserror::Error)]
#[error("session store: {0}")]
pub struct SessionError(#[from] tower_sessions::session::Error);

/// The store not answering is an outage the user can wait out (503, "try again"); a session that does not
/// decode is our fault.
impl From<SessionError> for crate::shared::error::AppError {
    fn from(e: SessionError) -> Self {
        match e.0 {
            tower_sessions::session::Error::Store(cause) => {
                tracing::warn!("session store unavailable: {cause}");
                store_unavailable()
            }
            other => Self::internal(SessionError(other)),
        }
    }
}

/// What a request whose session could not be read is told: the store is not answering, try again.
pub fn store_unavailable() -> crate::shared::error::AppError {
    crate::shared::error::AppError::Unavailable(
        crate::shared::i18n::td_string!(crate::shared::i18n::locale(), common.err_session_unavailable).into(),
    )
}

/// When the user logged in (unix ms): the absolute cap counts from here.
const LOGIN_AT: &str = "login_at";
/// When the session's expiry was last pushed back (unix ms).
const RENEWED_AT: &str = "renewed_at";

/// How long a session lives: `ttl` after the last activity, and never past `max_age` after the login.
#[derive(Debug, Clone, Copy)]
pub struct SessionPolicy {
    /// Idle lifetime (`SESSION_TTL_SECS`).
    pub ttl: std::time::Duration,
    /// Absolute lifetime (`SESSION_MAX_AGE_SECS`): then the user logs in again, however active.
    pub max_age: std::time::Duration,
}

impl SessionPolicy {
    /// From the settings.
    pub fn from_config(config: &crate::platform::config::Config) -> Self {
        Self { ttl: config.session_ttl, max_age: config.session_max_age }
    }
}

/// The `User-Agent` of the browser that logged in (the first [`MAX_USER_AGENT`] characters): how its owner
/// tells their signed-in devices apart, worded when shown (see [`device_kind`]).
const DEVICE: &str = "device";

/// How much of a `User-Agent` a session keeps.
const MAX_USER_AGENT: usize = 300;

/// Set on an operator's session: the hot shopper paths (the grab) keep operators out without reading
/// the account (the role an operator has does not change while they are logged in).
const STAFF: &str = "staff";

/// Logs `user_id` in from the browser that sent `user_agent`, marked `staff` for an operator. The session
/// id is cycled first so an id planted before login (fixation) is useless.
pub async fn sign_in(session: &Session, user_id: i64, user_agent: &str, staff: bool) -> Result<(), SessionError> {
    session.cycle_id().await?;
    session.insert(USER_ID, user_id).await?;
    session.insert(DEVICE, user_agent.chars().take(MAX_USER_AGENT).collect::<String>()).await?;
    if staff {
        session.insert(STAFF, true).await?;
    }
    session.insert(LOGIN_AT, now_ms()).await?;
    session.insert(RENEWED_AT, now_ms()).await?;
    Ok(())
}

/// The browser and the system a `User-Agent` names, by the names people know them by (the same in every
/// language; the words around them are the page's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceKind {
    /// The browser ("Chrome", "WeChat"), when recognised.
    pub browser: Option<&'static str>,
    /// The system it runs on ("Android", "iPhone"), when recognised.
    pub system: Option<&'static str>,
}

/// Reads a browser's `User-Agent` for the browser and the system it runs on.
pub fn device_kind(user_agent: &str) -> DeviceKind {
    // Order matters: Edge and Opera also say "Chrome", Chrome also says "Safari", WeChat's browser both.
    const BROWSERS: [(&str, &str); 8] = [
        ("MicroMessenger", "WeChat"),
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("HeadlessChrome", "Headless Chrome"),
        ("Chrome/", "Chrome"),
        ("CriOS/", "Chrome"),
        ("Firefox/", "Firefox"),
        ("Safari/", "Safari"),
    ];
    const SYSTEMS: [(&str, &str); 7] = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ];
    let find =
        |table: &[(&str, &'static str)]| table.iter().find(|(mark, _)| user_agent.contains(mark)).map(|(_, n)| *n);
    DeviceKind { browser: find(&BROWSERS), system: find(&SYSTEMS) }
}

/// One signed-in session of a person, as their device list shows it.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The session's id (a bearer secret: it never leaves the server).
    pub id: Id,
    /// The `User-Agent` of the browser that logged in (none on a session that never kept it).
    pub user_agent: Option<String>,
    /// When it logged in, unix ms.
    pub login_at_ms: i64,
    /// When it was last active (to within a quarter of the idle lifetime), unix ms.
    pub seen_ms: i64,
}

/// `user_id`'s live sessions, the most recently active first (from the record, which holds every one).
pub async fn sessions_of(db: &sqlx::PgPool, user_id: i64) -> Result<Vec<SignedIn>, sqlx::Error> {
    let rows = PgSessionStore::new(db.clone()).of_user(user_id).await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, data)| {
            let id = id.parse::<Id>().ok()?;
            let read = |key: &str| data.get(key).and_then(serde_json::Value::as_i64).unwrap_or(0);
            let user_agent = data.get(DEVICE).and_then(serde_json::Value::as_str).map(str::to_string);
            Some(SignedIn {
                id,
                user_agent,
                login_at_ms: read(LOGIN_AT),
                seen_ms: read(RENEWED_AT).max(read(LOGIN_AT)),
            })
        })
        .collect())
}

/// Ends every session of `user_id` but `keep` (the one asking, if any), everywhere at once: Redis, each
/// instance's copy and the record. Answers how many ended.
pub async fn end_sessions(
    state: &crate::web::state::AppState,
    user_id: i64,
    keep: Option<Id>,
) -> Result<usize, SessionError> {
    let unreachable = |e: session_store::Error| SessionError(tower_sessions::session::Error::Store(e));
    let live =
        sessions_of(&state.db, user_id).await.map_err(|e| unreachable(session_store::Error::Backend(e.to_string())))?;
    let store = durable_uncached(state);
    let mut ended = 0;
    for s in live.into_iter().filter(|s| Some(s.id) != keep) {
        store.delete(&s.id).await.map_err(unreachable)?;
        ended += 1;
    }
    Ok(ended)
}

/// Logs out: the whole record is deleted and the cookie cleared.
pub async fn sign_out(session: &Session) -> Result<(), SessionError> {
    session.flush().await?;
    Ok(())
}

/// The logged-in user id, if any — and activity: the session's expiry is pushed back (a save, at most
/// four times per TTL, since tower-sessions saves only a changed session), until `max_age` after the
/// login, when the session ends.
pub async fn user_id(session: &Session, policy: &SessionPolicy) -> Result<Option<i64>, SessionError> {
    let Some(user_id) = session.get::<i64>(USER_ID).await? else { return Ok(None) };
    let now = now_ms();
    let login_at = match session.get::<i64>(LOGIN_AT).await? {
        Some(t) => t,
        None => {
            // A session from before the cap existed: its age counts from now.
            session.insert(LOGIN_AT, now).await?;
            now
        }
    };
    if now - login_at >= policy.max_age.as_millis() as i64 {
        session.flush().await?;
        return Ok(None);
    }
    let renewed_at = session.get::<i64>(RENEWED_AT).await?.unwrap_or(0);
    if now - renewed_at >= (policy.ttl / 4).as_millis() as i64 {
        session.insert(RENEWED_AT, now).await?;
    }
    Ok(Some(user_id))
}

/// The shopper whose session `id` is, when this instance's copy of it says everything the session layer
/// would find and nothing it would write: logged in, not an operator, within its absolute lifetime and
/// renewed within the last quarter of its idle one (so [`user_id`] would neither renew nor end it). `None`
/// means "ask the session layer": no copy (not read here lately, or the instance is not listening for
/// changes), someone else, or a session due a write.
pub async fn settled_shopper(cache: &SessionCache, id: &Id, policy: &SessionPolicy) -> Option<i64> {
    settled(&*copy(cache, id).await?, policy)
}

/// This instance's copy of session `id`, when it holds one it may use: reading the store again would find
/// the same record (every change drops the copies).
pub async fn copy(cache: &SessionCache, id: &Id) -> Option<Arc<Record>> {
    cache.get(id).await
}

/// [`settled_shopper`] for a session this instance holds no copy of — the page was served by another
/// instance, or the copy aged out — read through `state`'s store as the session layer would read it
/// (Redis, then Postgres), which leaves a copy here for the shopper's next call. `Ok(None)`: no such
/// session, or one the session layer must renew or end. A store that did not answer is the session
/// layer's error, noted against the Redis breaker of the request around it.
pub async fn read_settled_shopper(
    state: &crate::web::state::AppState,
    id: &Id,
    policy: &SessionPolicy,
) -> Result<Option<i64>, SessionError> {
    let record = durable(state).load(id).await.map_err(|e| SessionError(e.into()))?;
    Ok(record.and_then(|record| settled(&record, policy)))
}

/// The shopper of a session `record` the session layer would leave as it is (see [`settled_shopper`]).
pub fn settled(record: &Record, policy: &SessionPolicy) -> Option<i64> {
    if record.expiry_date <= OffsetDateTime::now_utc() || record.data.contains_key(STAFF) {
        return None;
    }
    let read = |key: &str| record.data.get(key).and_then(serde_json::Value::as_i64);
    let (user_id, login_at, renewed_at) = (read(USER_ID)?, read(LOGIN_AT)?, read(RENEWED_AT)?);
    let now = now_ms();
    let lived = now - login_at < policy.max_age.as_millis() as i64;
    let fresh = now - renewed_at < (policy.ttl / 4).as_millis() as i64;
    (lived && fresh).then_some(user_id)
}

/// Whether the session is an operator's (see [`sign_in`]).
pub async fn is_staff(session: &Session) -> Result<bool, SessionError> {
    Ok(session.get::<bool>(STAFF).await?.unwrap_or(false))
}

/// Mints a logged-in session for `user_id` directly in `store` and returns the cookie value. For load
/// generators: logging 10,000 users in over HTTP would spend minutes in argon2 before measuring anything.
pub async fn mint(store: &impl SessionStore, user_id: i64, ttl: time::Duration) -> Result<String, SessionError> {
    mint_as(store, user_id, false, ttl).await
}

/// [`mint`] for an operator (`staff`) or anyone else.
pub async fn mint_as(
    store: &impl SessionStore,
    user_id: i64,
    staff: bool,
    ttl: time::Duration,
) -> Result<String, SessionError> {
    let mut data = std::collections::HashMap::new();
    data.insert(USER_ID.to_string(), serde_json::Value::from(user_id));
    if staff {
        data.insert(STAFF.to_string(), serde_json::Value::from(true));
    }
    data.insert(LOGIN_AT.to_string(), serde_json::Value::from(now_ms()));
    data.insert(RENEWED_AT.to_string(), serde_json::Value::from(now_ms()));
    let mut record = tower_sessions::session::Record {
        id: tower_sessions::session::Id::default(),
        data,
        expiry_date: time::OffsetDateTime::now_utc() + ttl,
    };
    store.create(&mut record).await.map_err(tower_sessions::session::Error::from)?;
    Ok(record.id.to_string())
}

#[cfg(test)]
mod tests {
    use super::{DeviceKind, device_kind};

    #[test]
    fn devices_are_named_as_people_know_them() {
        let kind = |browser, system| DeviceKind { browser, system };
        let cases = [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36",
                kind(Some("Chrome"), Some("Android")),
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1",
                kind(Some("Safari"), Some("iPhone")),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0",
                kind(Some("Edge"), Some("Windows")),
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.50",
                kind(Some("WeChat"), Some("iPhone")),
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5; rv:128.0) Gecko/20100101 Firefox/128.0",
                kind(Some("Firefox"), Some("macOS")),
            ),
            ("curl/8.5.0", kind(None, None)),
            ("", kind(None, None)),
        ];
        for (ua, expected) in cases {
            assert_eq!(device_kind(ua), expected, "{ua}");
        }
    }
}
