//! All SQL and Redis commands of the auth capability.

use std::sync::LazyLock;
use std::time::Duration;

use crate::platform::redis_conn::Redis;
use redis::Script;
use sqlx::PgPool;

use super::model::{Account, CurrentUser, Role};
use crate::platform::keys::Keys;

/// A user row as the service needs it (with the hash, which never leaves the server).
#[derive(Debug)]
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
    /// `shopper`, `merchant` or `operator`.
    pub role: String,
}

impl UserRow {
    /// Whether a password logs this account in (one made with a texted code has none until it sets one).
    pub fn has_password(&self) -> bool {
        argon2::password_hash::PasswordHash::new(&self.password_hash).is_ok()
    }

    /// The identifier it logs in with (what the log-in gate counts attempts on).
    pub fn account(&self) -> Account {
        match (&self.phone, &self.email) {
            (Some(p), _) => Account::Phone(p.clone()),
            (None, Some(e)) => Account::Email(e.clone()),
            (None, None) => Account::Email(String::new()),
        }
    }

    /// The page-facing view of this user.
    pub fn to_current(&self) -> CurrentUser {
        CurrentUser {
            id: self.id,
            nickname: self.nickname.clone(),
            role: Role::from_db(&self.role),
            masked_account: self.account().masked(),
        }
    }
}

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
    sqlx::query_as!(
        UserRow,
        "INSERT INTO users (phone, email, nickname, password_hash, role) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING id, phone, email, nickname, password_hash, role",
        phone,
        email,
        nickname,
        password_hash,
        role.as_str(),
    )
    .fetch_optional(db)
    .await
}

/// Records a browser that logged in to `user_id` by the hash of its token, keeping the user's newest
/// `keep` devices.
pub async fn remember_device(db: &PgPool, user_id: i64, token_hash: &[u8], keep: i64) -> Result<(), sqlx::Error> {
    let mut tx = db.begin().await?;
    sqlx::query!("INSERT INTO known_devices (token_hash, user_id) VALUES ($1, $2)", token_hash, user_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "DELETE FROM known_devices WHERE user_id = $1 AND token_hash NOT IN
           (SELECT token_hash FROM known_devices WHERE user_id = $1 ORDER BY created_at DESC, token_hash LIMIT $2)",
        user_id,
        keep,
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// The phone of the account a known device (by its token's hash) logged in to, if any.
pub async fn device_phone(db: &PgPool, token_hash: &[u8]) -> Result<Option<String>, sqlx::Error> {
    Ok(sqlx::query_scalar!(
        "SELECT u.phone FROM known_devices d JOIN users u ON u.id = d.user_id WHERE d.token_hash = $1",
        token_hash
    )
    .fetch_optional(db)
    .await?
    .flatten())
}

/// Whether a known device (by its token's hash) belongs to `user_id`.
pub async fn device_of(db: &PgPool, token_hash: &[u8], user_id: i64) -> Result<bool, sqlx::Error> {
    Ok(sqlx::query_scalar!(
        "SELECT EXISTS (SELECT 1 FROM known_devices WHERE token_hash = $1 AND user_id = $2)",
        token_hash,
        user_id
    )
    .fetch_one(db)
    .await?
    .unwrap_or(false))
}

/// Finds a user by login identifier.
pub async fn find_by_account(db: &PgPool, account: &Account) -> Result<Option<UserRow>, sqlx::Error> {
    match account {
        Account::Phone(phone) => {
            sqlx::query_as!(
                UserRow,
                "SELECT id, phone, email, nickname, password_hash, role FROM users WHERE phone = $1",
                phone.as_str(),
            )
            .fetch_optional(db)
            .await
        }
        Account::Email(email) => {
            sqlx::query_as!(
                UserRow,
                "SELECT id, phone, email, nickname, password_hash, role FROM users WHERE email = $1",
                email.as_str(),
            )
            .fetch_optional(db)
            .await
        }
    }
}

/// Finds a user by id.
pub async fn find_by_id(db: &PgPool, id: i64) -> Result<Option<UserRow>, sqlx::Error> {
    sqlx::query_as!(
        UserRow,
        "SELECT id, phone, email, nickname, password_hash, role FROM users WHERE id = $1 AND closed_at IS NULL",
        id
    )
    .fetch_optional(db)
    .await
}

/// The picture `user_id` chose, if any.
pub async fn avatar(db: &PgPool, user_id: i64) -> Result<Option<String>, sqlx::Error> {
    Ok(sqlx::query_scalar!("SELECT avatar_url FROM users WHERE id = $1", user_id).fetch_optional(db).await?.flatten())
}

/// Sets the name and picture others see; the row, or `None` for a closed or unknown account.
pub async fn set_profile(
    db: &PgPool,
    user_id: i64,
    nickname: &str,
    avatar: Option<&str>,
) -> Result<Option<UserRow>, sqlx::Error> {
    sqlx::query_as!(
        UserRow,
        "UPDATE users SET nickname = $2, avatar_url = $3, updated_at = now() WHERE id = $1 AND closed_at IS NULL
         RETURNING id, phone, email, nickname, password_hash, role",
        user_id,
        nickname,
        avatar,
    )
    .fetch_optional(db)
    .await
}

/// Replaces the password's hash; false for a closed or unknown account.
pub async fn set_password(db: &PgPool, user_id: i64, password_hash: &str) -> Result<bool, sqlx::Error> {
    let done = sqlx::query!(
        "UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1 AND closed_at IS NULL",
        user_id,
        password_hash
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Closes the account: nothing personal stays in its row (orders, notes and reviews still point at it),
/// and the browsers it knew are forgotten. Closing a closed account changes nothing.
pub async fn close(db: &PgPool, user_id: i64, stand_in: &str) -> Result<(), sqlx::Error> {
    let mut tx = db.begin().await?;
    sqlx::query!(
        "UPDATE users SET phone = NULL, email = NULL, nickname = $2, avatar_url = NULL, password_hash = '!',
                          closed_at = now(), updated_at = now()
         WHERE id = $1 AND closed_at IS NULL",
        user_id,
        stand_in
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!("DELETE FROM known_devices WHERE user_id = $1", user_id).execute(&mut *tx).await?;
    tx.commit().await
}

/// How many log-in attempts go through, and how fast.
#[derive(Debug, Clone, Copy)]
pub struct GateLimits {
    /// Attempts per account and address in the window (then that address is locked out of that account).
    pub per_pair: u32,
    /// Attempts per address in the window, whatever the accounts.
    pub per_address: u32,
    /// The window.
    pub window: Duration,
    /// Attempts on an account (from anywhere) before each further one must wait.
    pub free: u32,
    /// The first wait; it doubles per attempt.
    pub first_wait: Duration,
    /// The longest wait: an account is slowed down, never locked for everyone.
    pub longest_wait: Duration,
}

/// What the log-in gate said to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Let through and counted: this is attempt `on_account` on the account from this address and
    /// `from_address` from this address overall.
    Open { on_account: u32, from_address: u32 },
    /// This address may not try (this account, or any) for this long.
    LockedOut(Duration),
    /// The account is being slowed down: wait this long.
    Slowed(Duration),
}

static LOGIN_GATE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/login_gate.lua")));
static ADDR_GATE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/addr_gate.lua")));

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// Asks the gate to let one attempt on `account` from `ip` through: checked and counted atomically, per
/// address (any account) and then per account (per address, and the account's slow-down).
pub async fn pass_gate(
    redis: &Redis,
    keys: &Keys,
    account: &str,
    ip: &str,
    l: &GateLimits,
) -> Result<Gate, redis::RedisError> {
    let addr_key = keys.login_addr(ip);
    let (refused, value): (i64, i64) = ADDR_GATE
        .key(&addr_key)
        .arg(l.per_address)
        .arg(ms(l.window))
        .arg("take")
        .invoke_async(&mut redis.clone())
        .await?;
    if refused == 1 {
        return Ok(Gate::LockedOut(Duration::from_millis(value as u64)));
    }
    let from_address = value as u32;
    let (code, value): (i64, i64) = LOGIN_GATE
        .key(&keys.login_gate_script(account, ip))
        .arg(l.per_pair)
        .arg(ms(l.window))
        .arg(l.free)
        .arg(ms(l.first_wait))
        .arg(ms(l.longest_wait))
        .invoke_async(&mut redis.clone())
        .await?;
    if code != 0 {
        // Not attempted after all: it does not count against the address.
        give_back_address(redis, &addr_key, l).await?;
    }
    let wait = Duration::from_millis(value.max(1) as u64);
    Ok(match code {
        0 => Gate::Open { on_account: value as u32, from_address },
        1 => Gate::LockedOut(wait),
        _ => Gate::Slowed(wait),
    })
}

async fn give_back_address(redis: &Redis, addr_key: &str, l: &GateLimits) -> Result<(), redis::RedisError> {
    let _: (i64, i64) = ADDR_GATE
        .key(addr_key)
        .arg(l.per_address)
        .arg(ms(l.window))
        .arg("give")
        .invoke_async(&mut redis.clone())
        .await?;
    Ok(())
}

/// After a successful log-in: the attempt does not count against the address, and the account's
/// counters start over (its owner proved who they are).
pub async fn gate_success(
    redis: &Redis,
    keys: &Keys,
    account: &str,
    ip: &str,
    l: &GateLimits,
) -> Result<(), redis::RedisError> {
    give_back_address(redis, &keys.login_addr(ip), l).await?;
    redis::cmd("DEL").arg(&keys.login_gate_script(account, ip)).query_async(&mut redis.clone()).await
}

/// What issuing a log-in code came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeIssue {
    /// Issued (replacing any earlier code).
    Issued,
    /// The phone must wait this long for another.
    TooSoon(Duration),
    /// The phone has had its codes for today; the count resets after this long.
    DailyLimit(Duration),
}

static CODE_SEND: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/code_send.lua")));
static CODE_TAKE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/code_take.lua")));

/// Stores `code` under `script_keys` (`Keys::code_send_script`: the phone's, counted against its day or a known
/// device's) if the phone may have one now (`lua/code_send.lua`).
pub async fn issue_code(
    redis: &Redis,
    script_keys: &[String; 3],
    code: &str,
    valid: Duration,
    cooldown: Duration,
    per_day: u32,
) -> Result<CodeIssue, redis::RedisError> {
    let (status, wait): (i64, i64) = CODE_SEND
        .key(script_keys)
        .arg(code)
        .arg(ms(valid))
        .arg(ms(cooldown))
        .arg(per_day)
        .invoke_async(&mut redis.clone())
        .await?;
    let wait = Duration::from_millis(wait.max(1) as u64);
    Ok(match status {
        0 => CodeIssue::Issued,
        1 => CodeIssue::TooSoon(wait),
        _ => CodeIssue::DailyLimit(wait),
    })
}

/// Counts one attempt at `phone`'s code and hands it over for comparing: `(code, attempts used)`, or
/// `None` when no code is live (never sent, expired, or burned).
pub async fn take_code_attempt(
    redis: &Redis,
    keys: &Keys,
    phone: &str,
    attempts: u32,
) -> Result<Option<(String, u32)>, redis::RedisError> {
    let (code, used): (Option<String>, i64) =
        CODE_TAKE.key(keys.login_code(phone)).arg(attempts).invoke_async(&mut redis.clone()).await?;
    Ok(code.map(|c| (c, used as u32)))
}

/// Burns `phone`'s code (used, or out of attempts).
pub async fn burn_code(redis: &Redis, keys: &Keys, phone: &str) -> Result<(), redis::RedisError> {
    redis::cmd("DEL").arg(keys.login_code(phone)).query_async(&mut redis.clone()).await
}

/// Accounts made on each business day from `since_ms` on, as `(YYYY-MM-DD, count)`; days without any are
/// absent.
pub async fn accounts_per_day(db: &PgPool, since_ms: i64) -> Result<Vec<(String, i64)>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"SELECT to_char(created_at AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM-DD') AS "day!", count(*) AS "n!"
           FROM users WHERE created_at >= to_timestamp($1::BIGINT / 1000.0) GROUP BY 1 ORDER BY 1"#,
        since_ms,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.day, r.n)).collect())
}
