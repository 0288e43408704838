//! Scale-out through the real broker: with three instances running, the order writer's and the closer's
//! consumer groups spread their partitions over all three — each partition read by exactly one instance,
//! none left unread — as each instance's own rebalance callbacks report them.

use std::collections::BTreeMap;
use std::time::Duration;

use app::platform::kafka::{self, ORDERS_CLOSE_DELAY, ORDERS_CREATED};
use app::testing::test_instances;
use app::web::state::AppState;
use sqlx::PgPool;

const PARTITIONS: i32 = 6;

/// Which instance reads each partition of `topic` in `group`; `None` while some partition is read by two
/// instances (mid-rebalance).
fn owners(states: &[AppState], group: &str, topic: &str) -> Option<BTreeMap<i32, usize>> {
    let mut owners = BTreeMap::new();
    for (i, state) in states.iter().enumerate() {
        for (t, p) in state.metrics.assigned_partitions(group) {
            if t == topic && owners.insert(p, i).is_some() {
                return None;
            }
        }
    }
    Some(owners)
}

/// Waits until every partition of `topic` has one reader and every instance reads some.
async fn wait_for_spread(states: &[AppState], group: &str, topic: &str) -> BTreeMap<i32, usize> {
    let mut last = None;
    for _ in 0..600 {
        last = owners(states, group, topic);
        if let Some(o) = &last {
            let everyone = (0..states.len()).all(|i| o.values().any(|&owner| owner == i));
            if o.len() == PARTITIONS as usize && everyone {
                return o.clone();
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{group} did not spread {topic}'s {PARTITIONS} partitions over {} instances: {last:?}", states.len());
}

#[sqlx::test(migrator = "app::start::MIGRATOR")]
async fn writer_and_closer_groups_spread_over_three_instances(db: PgPool) {
    let partitions = PARTITIONS.to_string();
    let states = test_instances(db, 3, &[("KAFKA_PARTITIONS", partitions.as_str())]).await;
    kafka::ensure_topics(&states[0].config).await.unwrap();
    let mut workers = Vec::new();
    for state in &states {
        workers.push(app::orders::writer::spawn(state.clone()));
        workers.push(app::orders::closer::spawn(state.clone()));
    }
    let config = &states[0].config;
    let writer =
        wait_for_spread(&states, &app::orders::writer::group(config), &kafka::topic(config, ORDERS_CREATED)).await;
    let closer_group = format!("{}{}", config.kafka_topic_prefix, app::orders::closer::GROUP);
    let closer = wait_for_spread(&states, &closer_group, &kafka::topic(config, ORDERS_CLOSE_DELAY)).await;
    for (name, owners) in [("writer", writer), ("closer", closer)] {
        let mut per_instance = [0; 3];
        owners.values().for_each(|&i| per_instance[i] += 1);
        // Kafka's range and round-robin assignors both give 6 partitions over 3 members as 2 each.
        assert_eq!(per_instance, [2, 2, 2], "{name}: partitions per instance");
    }
    workers.iter().for_each(|w| w.abort());
}
