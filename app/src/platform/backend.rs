//! The one infrastructure error: Postgres, Redis or Kafka failed, or a breaker refused to try. Every
//! capability error wraps it, and the web edge turns it into a 503 the user can act on.

/// A backing service failed: the one infrastructure error every capability error wraps (`#[from]`), so
/// `?` on a sqlx, redis or Kafka call works in every service and the user always hears the same thing.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// Postgres failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// Redis failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// Kafka failed.
    #[error("kafka: {0}")]
    Kafka(#[from] rdkafka::error::KafkaError),
    /// Not tried: the service's circuit breaker is open.
    #[error(transparent)]
    Open(#[from] crate::platform::breaker::Open),
}

impl BackendError {
    /// Which service is not answering, when this is an outage (the service away, not a refused query).
    pub fn outage(&self) -> Option<crate::platform::breaker::Service> {
        use crate::platform::breaker::Service;
        match self {
            Self::Db(e) => matches!(
                e,
                sqlx::Error::Io(_)
                    | sqlx::Error::Tls(_)
                    | sqlx::Error::PoolTimedOut
                    | sqlx::Error::PoolClosed
                    | sqlx::Error::WorkerCrashed
                    | sqlx::Error::Protocol(_)
            )
            .then_some(Service::Postgres),
            Self::Redis(e) => crate::platform::redis_conn::is_outage(e).then_some(Service::Redis),
            Self::Kafka(_) => Some(Service::Kafka),
            Self::Open(open) => Some(open.service),
        }
    }
}

impl From<BackendError> for crate::shared::error::AppError {
    /// An outage becomes a 503 the user can act on (and counts against its circuit breaker); anything
    /// else is our fault and is logged.
    fn from(e: BackendError) -> Self {
        match (&e, e.outage()) {
            (BackendError::Open(open), _) => {
                crate::platform::breaker::note_refusal(open);
                crate::shared::error::AppError::Unavailable(UNAVAILABLE.into())
            }
            (_, Some(service)) => {
                tracing::warn!(error = %e, "backing service not answering");
                crate::platform::breaker::note_failure(service);
                crate::shared::error::AppError::Unavailable(UNAVAILABLE.into())
            }
            (_, None) => crate::shared::error::AppError::internal(e),
        }
    }
}

/// What a user hears while Postgres, Redis or the broker is away.
const UNAVAILABLE: &str = "Part of Haodian is not answering right now. Please try again in a few seconds.";

/// Lets `?` turn a sqlx, redis or Kafka error straight into `$error::Backend`, for a capability error
/// enum whose `Backend` variant wraps [`BackendError`].
#[macro_export]
macro_rules! backend_errors {
    ($error:ty) => {
        impl From<sqlx::Error> for $error {
            fn from(e: sqlx::Error) -> Self {
                Self::Backend(e.into())
            }
        }
        impl From<redis::RedisError> for $error {
            fn from(e: redis::RedisError) -> Self {
                Self::Backend(e.into())
            }
        }
        impl From<rdkafka::error::KafkaError> for $error {
            fn from(e: rdkafka::error::KafkaError) -> Self {
                Self::Backend(e.into())
            }
        }
        impl From<$crate::platform::breaker::Open> for $error {
            fn from(e: $crate::platform::breaker::Open) -> Self {
                Self::Backend(e.into())
            }
        }
    };
}
