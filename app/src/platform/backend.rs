//! The one infrastructure error: Postgres, Redis or Kafka failed, or a breaker refused to try. Every
//! capability error wraps it, and the web edge turns it into a 503 the user can act on.

use crate::platform::breaker::{Open, Service};

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
    Open(#[from] Open),
}

impl BackendError {
    /// Which service is not answering, when this is an outage (the service away, not a refused query).
    pub fn outage(&self) -> Option<Service> {
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
    /// An outage becomes a 503 the user can act on; anything else is our fault and is logged. The
    /// breakers hear of an outage from the web edge, which reads it off the error ([`Backed`]).
    fn from(e: BackendError) -> Self {
        match e.outage() {
            Some(_) => {
                if !matches!(e, BackendError::Open(_)) {
                    tracing::warn!(error = %e, "backing service not answering");
                }
                crate::shared::error::AppError::Unavailable(
                    crate::shared::i18n::td_string!(crate::shared::i18n::locale(), common.err_backend_unavailable)
                        .into(),
                )
            }
            None => crate::shared::error::AppError::internal(e),
        }
    }
}

/// How a backing service let a request down, for its circuit breaker.
#[derive(Clone, Copy, Debug)]
pub enum Outage {
    /// The service did not answer.
    Failed(Service),
    /// The service's breaker is open, so nothing was tried.
    Refused(Open),
}

/// An error that may carry a [`BackendError`]: every capability error, through its `Backend` variant or the
/// capability errors it wraps. The web edge asks it which service failed.
pub trait Backed {
    /// The backend failure inside, if there is one.
    fn backend(&self) -> Option<&BackendError>;

    /// The outage inside, if there is one.
    fn outage(&self) -> Option<Outage> {
        match self.backend()? {
            BackendError::Open(open) => Some(Outage::Refused(*open)),
            e => e.outage().map(Outage::Failed),
        }
    }
}

impl Backed for BackendError {
    fn backend(&self) -> Option<&BackendError> {
        Some(self)
    }
}

/// A failure shared by every caller that waited on it (the shop cache's one load per key).
impl<T: Backed> Backed for std::sync::Arc<T> {
    fn backend(&self) -> Option<&BackendError> {
        T::backend(self)
    }
}

/// Lets `?` turn a sqlx, redis or Kafka error straight into `$error::Backend`, for a capability error
/// enum whose `Backend` variant wraps [`BackendError`], and implements [`Backed`] for it — looking also
/// inside the listed variants, which wrap other capabilities' errors.
#[macro_export]
macro_rules! backend_errors {
    ($error:ident $(, $nested:ident)*) => {
        impl $crate::platform::backend::Backed for $error {
            fn backend(&self) -> Option<&$crate::platform::backend::BackendError> {
                match self {
                    Self::Backend(e) => Some(e),
                    $(Self::$nested(e) => $crate::platform::backend::Backed::backend(e),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }
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
