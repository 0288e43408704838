//! The infrastructure floor (server only): Redis, Kafka, notice channels, locks, circuit breakers, metrics,
//! work that outlives its request, order ids, Redis keys, settings, the client's address, the state marker, the read replica's route, the SMS sender, the operators'
//! audit log, the read-through cache and the one backend error. It knows no capability and no web request; it may use `shared`.

pub mod audit;
pub mod backend;
pub mod breaker;
pub mod cache;
pub mod channel;
pub mod client_addr;
pub mod config;
pub mod finish;
pub mod ids;
pub mod kafka;
pub mod keys;
pub mod lock;
pub mod marker;
pub mod metrics;
pub mod redis_conn;
pub mod replica;
pub mod sms;
