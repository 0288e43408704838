//! A tower-sessions store over the project's own redis-rs connection (one Redis client, not two).

use async_trait::async_trait;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use time::OffsetDateTime;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

use crate::keys::Keys;

/// Stores each session as JSON at `session:{id}` with a Redis TTL equal to its expiry.
#[derive(Clone)]
pub struct RedisSessionStore {
    redis: ConnectionManager,
    keys: Keys,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore").field("keys", &self.keys).finish()
    }
}

impl RedisSessionStore {
    /// A store writing under `keys`' namespace.
    pub fn new(redis: ConnectionManager, keys: Keys) -> Self {
        Self { redis, keys }
    }

    async fn write(&self, record: &Record, only_if_new: bool) -> session_store::Result<bool> {
        let ttl = (record.expiry_date - OffsetDateTime::now_utc()).whole_seconds();
        if ttl <= 0 {
            return Ok(true);
        }
        let json = serde_json::to_string(record).map_err(|e| session_store::Error::Encode(e.to_string()))?;
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.keys.session(&record.id.to_string())).arg(json).arg("EX").arg(ttl);
        if only_if_new {
            cmd.arg("NX");
        }
        let reply: Option<String> = cmd.query_async(&mut self.redis.clone()).await.map_err(backend)?;
        Ok(reply.is_some())
    }
}

fn backend(e: redis::RedisError) -> session_store::Error {
    session_store::Error::Backend(e.to_string())
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
        let raw: Option<String> = self.redis.clone().get(self.keys.session(&id.to_string())).await.map_err(backend)?;
        raw.map(|s| serde_json::from_str(&s).map_err(|e| session_store::Error::Decode(e.to_string()))).transpose()
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        let _: () = self.redis.clone().del(self.keys.session(&id.to_string())).await.map_err(backend)?;
        Ok(())
    }
}
