//! Each instance's live view of flash-sale stock, fed by Redis: the sale scripts publish the stock left
//! on the sale's channel after every grab and give-back, one subscriber per instance hears every sale,
//! and from it the shop pages' live streams are served and a sold-out sale is refused without asking Redis.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::watch;

/// The stock each sale last announced, and a watch per sale that some page is following.
#[derive(Debug, Default)]
pub struct LiveStock {
    sales: Mutex<HashMap<i64, watch::Sender<Option<i64>>>>,
}

impl LiveStock {
    /// Follows sale `voucher_id`: the receiver sees every announced stock (the latest one at least).
    pub fn watch(&self, voucher_id: i64) -> watch::Receiver<Option<i64>> {
        let Ok(mut sales) = self.sales.lock() else { return watch::channel(None).1 };
        sales.entry(voucher_id).or_insert_with(|| watch::channel(None).0).subscribe()
    }

    /// The stock sale `voucher_id` last announced, if this instance heard one since it (re)subscribed.
    pub fn latest(&self, voucher_id: i64) -> Option<i64> {
        self.sales.lock().ok().and_then(|sales| sales.get(&voucher_id).and_then(|tx| *tx.borrow()))
    }

    /// Whether the sale is known to be sold out right now (an announced 0; a give-back announces again).
    pub fn is_sold_out(&self, voucher_id: i64) -> bool {
        self.latest(voucher_id).is_some_and(|stock| stock <= 0)
    }

    /// Records an announcement.
    pub fn announce(&self, voucher_id: i64, stock: i64) {
        if let Ok(mut sales) = self.sales.lock() {
            sales.entry(voucher_id).or_insert_with(|| watch::channel(None).0).send_replace(Some(stock));
        }
    }

    /// Forgets everything heard: after a lost subscription, what was heard may be stale.
    fn forget(&self) {
        if let Ok(mut sales) = self.sales.lock() {
            // Followed sales keep their watch (its followers stay subscribed) but lose the value.
            sales.retain(|_, tx| tx.receiver_count() > 0);
            sales.values().for_each(|tx| {
                tx.send_replace(None);
            });
        }
    }

    /// Listens to every sale's channel (`{prefix}seckill:{vid}:stock:live`) for the life of the process,
    /// re-subscribing with a backoff when the connection drops.
    pub fn spawn_listener(self: &Arc<Self>, redis_url: String, prefix: String) -> tokio::task::JoinHandle<()> {
        let live = self.clone();
        tokio::spawn(async move {
            let pattern = format!("{prefix}seckill:*:stock:live");
            let mut backoff = Duration::from_millis(100);
            let mut attempt = 0;
            loop {
                match subscribe(&redis_url, &pattern, attempt).await {
                    Ok(mut pubsub) => {
                        backoff = Duration::from_millis(100);
                        live.forget();
                        let mut messages = pubsub.on_message();
                        while let Some(msg) = messages.next().await {
                            match (sale_of_channel(msg.get_channel_name()), msg.get_payload::<i64>()) {
                                (Some(voucher_id), Ok(stock)) => live.announce(voucher_id, stock),
                                _ => tracing::warn!(channel = msg.get_channel_name(), "bad stock announcement"),
                            }
                        }
                        tracing::warn!("live stock subscription ended; re-subscribing");
                    }
                    Err(e) => tracing::warn!("cannot subscribe to {pattern}: {e}"),
                }
                live.forget();
                attempt += 1; // the next try goes to the next seed node of a cluster
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        })
    }
}

/// The sale id in `…seckill:{42}:stock:live`.
fn sale_of_channel(channel: &str) -> Option<i64> {
    let start = channel.find("seckill:{")? + "seckill:{".len();
    let end = start + channel[start..].find('}')?;
    channel[start..end].parse().ok()
}

async fn subscribe(url: &str, pattern: &str, attempt: usize) -> Result<redis::aio::PubSub, redis::RedisError> {
    let mut pubsub = crate::redis_conn::pubsub(url, attempt).await?;
    pubsub.psubscribe(pattern).await?;
    Ok(pubsub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announcements_reach_followers_and_answer_sold_out() {
        let live = LiveStock::default();
        let rx = live.watch(7);
        assert_eq!(*rx.borrow(), None);
        assert!(!live.is_sold_out(7), "nothing heard: ask Redis");
        live.announce(7, 3);
        assert_eq!(*rx.borrow(), Some(3));
        live.announce(7, 0);
        assert!(live.is_sold_out(7));
        live.announce(7, 1);
        assert!(!live.is_sold_out(7), "a give-back reopens it");
        live.forget();
        assert_eq!(live.latest(7), None, "after a lost subscription nothing is trusted");
        assert_eq!(sale_of_channel("hd:seckill:{42}:stock:live"), Some(42));
        assert_eq!(sale_of_channel("hd:seckill:42:stock:live"), None);
    }
}
