//! Test support shared by the `app` and `server` test suites: an `AppState` on a per-test database
//! with a unique Redis key prefix and Kafka topic prefix, so tests never see each other's data.

use leptos::prelude::LeptosOptions;
use sqlx::PgPool;

use crate::config::Config;
use crate::state::AppState;

/// A short random token for namespacing one test's keys and topics.
pub fn unique_token() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// Settings from the environment, with this test's own namespaces and `overrides` applied on top.
pub fn test_config(overrides: &[(&str, &str)]) -> Config {
    let token = unique_token();
    let redis_prefix = format!("test:{token}:");
    let topic_prefix = format!("test.{token}.");
    Config::from_lookup(|name| {
        if let Some((_, v)) = overrides.iter().find(|(k, _)| *k == name) {
            return Some((*v).to_string());
        }
        match name {
            "REDIS_KEY_PREFIX" => Some(redis_prefix.clone()),
            "KAFKA_TOPIC_PREFIX" => Some(topic_prefix.clone()),
            "KAFKA_PARTITIONS" => Some("2".to_string()),
            _ => std::env::var(name).ok(),
        }
    })
    .expect("test configuration parses")
}

/// An `AppState` around `db` (a `#[sqlx::test]` database) with fresh namespaces.
pub async fn test_state(db: PgPool, overrides: &[(&str, &str)]) -> AppState {
    test_instances(db, 1, overrides).await.remove(0)
}

/// `n` "server instances" sharing one database, Redis namespace and topics, each with its own L1 cache
/// and invalidation listener — the scale-out shape in one process.
pub async fn test_instances(db: PgPool, n: usize, overrides: &[(&str, &str)]) -> Vec<AppState> {
    let config = test_config(overrides);
    let mut states = Vec::with_capacity(n);
    for _ in 0..n {
        let options = LeptosOptions::builder().output_name("haodian").build();
        states.push(AppState::with_db(config.clone(), options, db.clone()).await.expect("Redis and Kafka reachable"));
    }
    states
}
