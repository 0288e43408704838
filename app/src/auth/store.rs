//! All SQL and Redis commands of the auth capability.

use redis::aio::ConnectionManager;
use sqlx::PgPool;

use super::model::{Account, CurrentUser, Role};

/// A user row as the service needs it (with the hash, which never leaves the server).
#[derive(Debug, sqlx::FromRow)]
pub struct UserRow {
    /// Primary key.
    pub id: i64,
    /// Mobile number, if registered with one.
    pub phone: Option<String>,
    /// E-mail, if registered with one.
    pub email: Option<String>,
    /// Display name.
    pub nickname: String,
    /// PHC-format argon2id hash.
    pub password_hash: String,
    /// `shopper` or `merchant`.
    pub role: String,
}

impl UserRow {
    /// The page-facing view of this user.
    pub fn to_current(&self) -> CurrentUser {
        let account = match (&self.phone, &self.email) {
            (Some(p), _) => Account::Phone(p.clone()),
            (None, Some(e)) => Account::Email(e.clone()),
            (None, None) => Account::Email(String::new()),
        };
        CurrentUser {
            id: self.id,
            nickname: self.nickname.clone(),
            role: Role::from_db(&self.role),
            masked_account: account.masked(),
        }
    }
}

const USER_COLUMNS: &str = "id, phone, email, nickname, password_hash, role";

/// Inserts a user; `Ok(None)` when the phone or e-mail is already registered.
pub async fn insert_user(
    db: &PgPool,
    account: &Account,
    nickname: &str,
    password_hash: &str,
    role: Role,
) -> Result<Option<UserRow>, sqlx::Error> {
    let (phone, email) = match account {
        Account::Phone(p) => (Some(p.as_str()), None),
        Account::Email(e) => (None, Some(e.as_str())),
    };
    let sql = format!(
        "INSERT INTO users (phone, email, nickname, password_hash, role) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING {USER_COLUMNS}"
    );
    sqlx::query_as::<_, UserRow>(&sql)
        .bind(phone)
        .bind(email)
        .bind(nickname)
        .bind(password_hash)
        .bind(role.as_str())
        .fetch_optional(db)
        .await
}

/// Finds a user by login identifier.
pub async fn find_by_account(db: &PgPool, account: &Account) -> Result<Option<UserRow>, sqlx::Error> {
    let column = match account {
        Account::Phone(_) => "phone",
        Account::Email(_) => "email",
    };
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE {column} = $1");
    sqlx::query_as::<_, UserRow>(&sql).bind(account.as_str()).fetch_optional(db).await
}

/// Finds a user by id.
pub async fn find_by_id(db: &PgPool, id: i64) -> Result<Option<UserRow>, sqlx::Error> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
    sqlx::query_as::<_, UserRow>(&sql).bind(id).fetch_optional(db).await
}

/// Remaining lock time in seconds for each key whose failure count reached its limit (0 if none is locked).
pub async fn lock_remaining(redis: &ConnectionManager, limits: &[(&str, u32)]) -> Result<u64, redis::RedisError> {
    let mut pipe = redis::pipe();
    for (key, _) in limits {
        pipe.cmd("GET").arg(*key).cmd("TTL").arg(*key);
    }
    // A flat GET/TTL/GET/TTL… reply parses pairwise into tuples.
    let replies: Vec<(Option<u32>, i64)> = pipe.query_async(&mut redis.clone()).await?;
    Ok(limits
        .iter()
        .zip(replies)
        .filter(|((_, max), (count, _))| count.is_some_and(|c| c >= *max))
        .map(|(_, (_, ttl))| ttl.max(1) as u64)
        .max()
        .unwrap_or(0))
}

/// Counts one failure on each key; the window starts at the first failure. Returns the new counts.
pub async fn record_failure(
    redis: &ConnectionManager,
    keys: &[&str],
    window_secs: u64,
) -> Result<Vec<u32>, redis::RedisError> {
    let mut pipe = redis::pipe();
    pipe.atomic();
    for key in keys {
        pipe.cmd("INCR").arg(*key);
        pipe.cmd("EXPIRE").arg(*key).arg(window_secs).arg("NX").ignore();
    }
    pipe.query_async(&mut redis.clone()).await
}

/// Forgets the failures on `key` (after a successful login).
pub async fn clear_failures(redis: &ConnectionManager, key: &str) -> Result<(), redis::RedisError> {
    redis::cmd("DEL").arg(key).query_async(&mut redis.clone()).await
}
