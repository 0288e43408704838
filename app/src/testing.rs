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
    let options = LeptosOptions::builder().output_name("haodian").build();
    AppState::with_db(test_config(overrides), options, db).await.expect("Redis and Kafka reachable")
}
