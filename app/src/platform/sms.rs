//! Text messages to phones. Production plugs a gateway in behind [`SmsSender`]; here the local sender
//! writes each message to the log and to a short outbox in Redis, which the developer can read (the
//! `/dev/outbox` page, shown only with `DEV_OUTBOX=true`).

use crate::platform::redis_conn::Redis;

use crate::platform::keys::Keys;

/// A text message as the local outbox keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SentSms {
    /// The phone it went to.
    pub phone: String,
    /// What it said.
    pub text: String,
    /// When, unix ms.
    pub at_ms: i64,
}

/// Sending failed; the caller says "try again".
#[derive(Debug, thiserror::Error)]
pub enum SmsError {
    /// The message could not be encoded for the outbox.
    #[error("text message not encoded: {0}")]
    Encode(#[from] serde_json::Error),
    /// The outbox did not take it.
    #[error("text message not sent: {0}")]
    Outbox(#[from] redis::RedisError),
}

/// Something that delivers text messages.
#[async_trait::async_trait]
pub trait SmsSender: Send + Sync {
    /// Sends `text` to `phone`.
    async fn send(&self, phone: &str, text: &str) -> Result<(), SmsError>;
}

/// The local sender: the log, and the newest 50 messages at `sms:outbox`.
pub struct OutboxSms {
    redis: Redis,
    keys: Keys,
}

impl OutboxSms {
    /// An outbox under `keys`' namespace.
    pub fn new(redis: Redis, keys: Keys) -> Self {
        Self { redis, keys }
    }
}

#[async_trait::async_trait]
impl SmsSender for OutboxSms {
    async fn send(&self, phone: &str, text: &str) -> Result<(), SmsError> {
        // The text may hold a log-in code, and logs travel further than the phone does: name the phone
        // only by its ends and leave the words out.
        tracing::info!(phone = %crate::shared::text::masked_phone(phone), chars = text.chars().count(), "text message (local outbox)");
        let sms = SentSms { phone: phone.to_string(), text: text.to_string(), at_ms: crate::shared::clock::now_ms() };
        let json = serde_json::to_string(&sms)?;
        redis::pipe()
            .cmd("LPUSH")
            .arg(self.keys.sms_outbox())
            .arg(json)
            .ignore()
            .cmd("LTRIM")
            .arg(self.keys.sms_outbox())
            .arg(0)
            .arg(49)
            .ignore()
            .query_async::<()>(&mut self.redis.clone())
            .await
            .map_err(SmsError::from)
    }
}

/// The newest messages in the local outbox, newest first.
pub async fn outbox(redis: &Redis, keys: &Keys) -> Result<Vec<SentSms>, redis::RedisError> {
    let raw: Vec<String> =
        redis::cmd("LRANGE").arg(keys.sms_outbox()).arg(0).arg(49).query_async(&mut redis.clone()).await?;
    Ok(raw.iter().filter_map(|s| serde_json::from_str(s).ok()).collect())
}
