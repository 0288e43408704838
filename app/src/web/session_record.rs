//! The durable record of sessions in Postgres, under the Redis store: Redis (and each instance's memory)
//! answers, this keeps a session through a Redis restart. Composed with tower-sessions'
//! `CachingSessionStore` in [`crate::web::session::durable`].

use async_trait::async_trait;
use sqlx::PgPool;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

/// Stores each session as a row of `sessions` (its map as JSON, its expiry).
#[derive(Debug, Clone)]
pub struct PgSessionStore {
    db: PgPool,
}

impl PgSessionStore {
    /// A store over `db`.
    pub fn new(db: PgPool) -> Self {
        Self { db }
    }

    /// Deletes sessions past their expiry; returns how many (their Redis copies expired by TTL already).
    pub async fn delete_expired(&self) -> Result<u64, sqlx::Error> {
        Ok(sqlx::query!("DELETE FROM sessions WHERE expires_at <= now()").execute(&self.db).await?.rows_affected())
    }

    /// `user_id`'s live sessions (id and map), the most recently active first.
    pub async fn of_user(&self, user_id: i64) -> Result<Vec<(String, serde_json::Value)>, sqlx::Error> {
        let rows = sqlx::query!(
            "SELECT id, data FROM sessions WHERE user_id = $1 AND expires_at > now()
             ORDER BY (data ->> 'renewed_at')::BIGINT DESC NULLS LAST, id",
            user_id
        )
        .fetch_all(&self.db)
        .await?;
        Ok(rows.into_iter().map(|r| (r.id, r.data)).collect())
    }

    async fn write(&self, record: &Record, only_if_new: bool) -> session_store::Result<bool> {
        let data = serde_json::to_value(&record.data).map_err(|e| session_store::Error::Encode(e.to_string()))?;
        let id = record.id.to_string();
        let written = if only_if_new {
            sqlx::query!(
                "INSERT INTO sessions (id, data, expires_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
                id,
                data,
                record.expiry_date
            )
            .execute(&self.db)
            .await
        } else {
            sqlx::query!(
                "INSERT INTO sessions (id, data, expires_at) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at",
                id,
                data,
                record.expiry_date
            )
            .execute(&self.db)
            .await
        };
        Ok(written.map_err(backend)?.rows_affected() == 1)
    }
}

fn backend(e: sqlx::Error) -> session_store::Error {
    session_store::Error::Backend(e.to_string())
}

#[async_trait]
impl SessionStore for PgSessionStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        // Ids are 128 random bits, but a collision must never hand one user another's session.
        while !self.write(record, true).await? {
            record.id = Id::default();
        }
        Ok(())
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        self.write(record, false).await.map(drop)
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let row =
            sqlx::query!("SELECT data, expires_at FROM sessions WHERE id = $1 AND expires_at > now()", id.to_string())
                .fetch_optional(&self.db)
                .await
                .map_err(backend)?;
        let Some(row) = row else { return Ok(None) };
        let data = serde_json::from_value(row.data).map_err(|e| session_store::Error::Decode(e.to_string()))?;
        Ok(Some(Record { id: *id, data, expiry_date: row.expires_at }))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        sqlx::query!("DELETE FROM sessions WHERE id = $1", id.to_string()).execute(&self.db).await.map_err(backend)?;
        Ok(())
    }
}
