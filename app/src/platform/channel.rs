//! Following one Redis notice channel for the life of the process, on one node or on a cluster.
//!
//! On one node a plain `SUBSCRIBE` (or `PSUBSCRIBE` for a pattern) hears the channel; a dropped
//! connection is subscribed again with a backoff. On a cluster the channel is a shard channel: the
//! announcer sends `SPUBLISH` ([`crate::platform::redis_conn::Redis::announce_command`]), only the shard that owns
//! the channel's slot carries it (a classic `PUBLISH` would be relayed to every node of the cluster), and
//! one RESP3 cluster connection `SSUBSCRIBE`s it; redis-rs subscribes again on whichever node serves the
//! slot after a reconnection or a failover, and confirms each time with a push.
//!
//! Either way the follower sees [`Heard::Subscribed`] each time it starts hearing (again) — notices sent
//! before may have been missed, so whatever it derived from them is stale — and [`Heard::Lost`] when it
//! stops.

use std::time::Duration;

use futures::StreamExt;
use redis::{PushInfo, PushKind, Value};
use tokio::sync::mpsc;

use crate::platform::redis_conn::RedisTarget;

/// What a follower of a channel hears, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// Subscribed, first or again, to one channel (`Some`) or to everything followed (`None`): notices
    /// sent before this may have been missed.
    Subscribed(Option<String>),
    /// One notice: the channel it came on and its payload.
    Notice { channel: String, payload: String },
    /// One channel's subscription (`Some`) or all of them (`None`) gone until the next `Subscribed`.
    Lost(Option<String>),
}

/// What to follow on one node.
#[derive(Debug, Clone)]
pub enum Topic {
    /// One channel (on a cluster: one shard channel).
    Channel(String),
    /// Every channel matching a glob pattern (one node only: shard channels have no patterns).
    Pattern(String),
}

/// Follows `topic` at `redis_url` until the receiver is dropped.
pub fn follow(redis_url: &str, topic: Topic) -> mpsc::UnboundedReceiver<Heard> {
    match (RedisTarget::parse(redis_url), topic) {
        (RedisTarget::Cluster(nodes), Topic::Channel(channel)) => {
            let (more, heard) = follow_shards(nodes);
            let _ = more.send(channel);
            heard
        }
        (target, topic) => {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(follow_classic(target, topic, tx));
            rx
        }
    }
}

/// Follows shard channels on the cluster whose seed nodes are `nodes`: each channel sent on the returned
/// sender is subscribed from then on (one that cannot be subscribed now is asked again a second later),
/// and everything heard on any of them arrives on the returned receiver.
pub fn follow_shards(nodes: Vec<String>) -> (mpsc::UnboundedSender<String>, mpsc::UnboundedReceiver<Heard>) {
    let (more, wanted) = mpsc::unbounded_channel();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(follow_shard_channels(nodes, more.clone(), wanted, tx));
    (more, rx)
}

/// The one-node loop: subscribe, forward, and on a drop try again (the next seed node, on a cluster
/// followed by pattern) after a backoff.
async fn follow_classic(target: RedisTarget, topic: Topic, tx: mpsc::UnboundedSender<Heard>) {
    let mut backoff = Duration::from_millis(100);
    let mut attempt = 0;
    while !tx.is_closed() {
        let subscribed = async {
            let client = redis::Client::open(target.pubsub_node(attempt))?;
            let mut pubsub = client.get_async_pubsub().await?;
            match &topic {
                Topic::Channel(channel) => pubsub.subscribe(channel).await?,
                Topic::Pattern(pattern) => pubsub.psubscribe(pattern).await?,
            }
            Ok::<_, redis::RedisError>(pubsub)
        };
        match subscribed.await {
            Ok(mut pubsub) => {
                backoff = Duration::from_millis(100);
                let _ = tx.send(Heard::Subscribed(None));
                let mut messages = pubsub.on_message();
                while let Some(msg) = messages.next().await {
                    let payload = msg.get_payload::<String>().unwrap_or_default();
                    let notice = Heard::Notice { channel: msg.get_channel_name().to_owned(), payload };
                    if tx.send(notice).is_err() {
                        return;
                    }
                }
                tracing::warn!(?topic, "subscription ended; subscribing again");
                let _ = tx.send(Heard::Lost(None));
            }
            Err(e) => tracing::warn!(?topic, "cannot subscribe: {e}"),
        }
        attempt += 1; // the next try goes to the next seed node of a cluster
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// The cluster loop: one RESP3 cluster connection, an `SSUBSCRIBE` per wanted channel, its pushes
/// forwarded. `again` feeds `wanted`: a refused subscription goes back on it after a second.
async fn follow_shard_channels(
    nodes: Vec<String>,
    again: mpsc::UnboundedSender<String>,
    mut wanted: mpsc::UnboundedReceiver<String>,
    tx: mpsc::UnboundedSender<Heard>,
) {
    let (push_tx, mut pushes) = mpsc::unbounded_channel();
    let mut backoff = Duration::from_millis(100);
    let mut conn = loop {
        match crate::platform::redis_conn::shard_subscriber(&nodes, push_tx.clone()).await {
            Ok(conn) => break conn,
            Err(e) => {
                tracing::warn!("cannot open the shard subscription connection: {e}");
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    };
    loop {
        tokio::select! {
            Some(channel) = wanted.recv() => {
                if let Err(e) = conn.ssubscribe(&channel).await {
                    tracing::warn!(%channel, "cannot subscribe to the shard channel: {e}");
                    let again = again.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        let _ = again.send(channel);
                    });
                }
            }
            Some(push) = pushes.recv() => {
                if let Some(heard) = shard_push(push)
                    && tx.send(heard).is_err()
                {
                    return;
                }
            }
        }
    }
}

/// What one push of a shard-subscribed cluster connection means to a follower.
pub fn shard_push(push: PushInfo) -> Option<Heard> {
    let text = |v: Option<&Value>| match v {
        Some(Value::BulkString(b)) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    };
    match push.kind {
        PushKind::SMessage => {
            Some(Heard::Notice { channel: text(push.data.first())?, payload: text(push.data.get(1))? })
        }
        PushKind::SSubscribe => Some(Heard::Subscribed(text(push.data.first()))),
        // The slot moved away, or the connection dropped: redis-rs subscribes again and says so.
        PushKind::SUnsubscribe => Some(Heard::Lost(text(push.data.first()))),
        PushKind::Disconnection => Some(Heard::Lost(None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(kind: PushKind, data: &[&str]) -> PushInfo {
        PushInfo { kind, data: data.iter().map(|d| Value::BulkString(d.as_bytes().to_vec())).collect() }
    }

    #[test]
    fn shard_pushes_become_notices_and_subscription_changes() {
        assert_eq!(
            shard_push(push(PushKind::SMessage, &["hd:chan", "42"])),
            Some(Heard::Notice { channel: "hd:chan".into(), payload: "42".into() })
        );
        let chan = Some("hd:chan".to_owned());
        assert_eq!(shard_push(push(PushKind::SSubscribe, &["hd:chan"])), Some(Heard::Subscribed(chan.clone())));
        assert_eq!(shard_push(push(PushKind::SUnsubscribe, &["hd:chan"])), Some(Heard::Lost(chan)));
        assert_eq!(shard_push(push(PushKind::Disconnection, &[])), Some(Heard::Lost(None)));
        assert_eq!(shard_push(push(PushKind::SMessage, &["hd:chan"])), None, "a notice without payload");
    }
}
