//! Each instance's live view of flash-sale stock, fed by Redis: the sale scripts announce the stock left
//! on the sale's channel — after every give-back, and after grabs at most once per `LIVE_STOCK_QUIET_MS`
//! (always at the last coupon; the figure a burst leaves follows a spell later) — each instance listens,
//! and from what it hears the shop pages' live streams are served and a sold-out sale is refused without
//! asking Redis.
//!
//! On one Redis node the scripts `PUBLISH` and one pattern subscription hears every sale. On a cluster
//! they `SPUBLISH` on the sale's shard channel (it shares the sale's hash tag, so only the shard that
//! holds the sale carries it, instead of every node relaying every grab), and each instance subscribes
//! (`SSUBSCRIBE`) to a sale's channel the first time it serves or shows that sale.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, watch};

use crate::platform::channel::{Heard, Topic};
use crate::platform::redis_conn::RedisTarget;

/// The stock each sale last announced, and a watch per sale that some page is following.
#[derive(Debug, Default)]
pub struct LiveStock {
    sales: Mutex<HashMap<i64, watch::Sender<Option<i64>>>>,
    /// On a cluster: the sales this instance has asked to hear, and where to ask for the next one (the
    /// shard subscriptions' sender and the key prefix its channels carry).
    followed: Mutex<HashSet<i64>>,
    follow: Mutex<Option<(mpsc::UnboundedSender<String>, String)>>,
    /// Sales this instance owes an announcement of their stock: a grab here took a coupon without
    /// announcing (the sale script spaces a burst's announcements), and none was sent for it since.
    owed: Mutex<HashSet<i64>>,
}

impl LiveStock {
    /// Follows sale `voucher_id`, which Redis has just said exists (an id anyone typed would leave an
    /// entry, and on a cluster a subscription, behind for the life of the process): the receiver sees
    /// every announced stock (the latest one at least).
    pub fn watch(&self, voucher_id: i64) -> watch::Receiver<Option<i64>> {
        self.follow(voucher_id);
        let Ok(mut sales) = self.sales.lock() else { return watch::channel(None).1 };
        // Views nobody follows any more and that hold nothing go with the next new follower.
        sales.retain(|_, tx| tx.receiver_count() > 0 || tx.borrow().is_some());
        sales.entry(voucher_id).or_insert_with(|| watch::channel(None).0).subscribe()
    }

    /// How many sales this instance keeps a view of (a gauge on `/metrics`: it grows with real sales only).
    pub fn sales_held(&self) -> usize {
        self.sales.lock().map(|sales| sales.len()).unwrap_or(0)
    }

    /// On a cluster, starts hearing sale `voucher_id` (once; the subscription outlives reconnections),
    /// which Redis has just said exists. On one node every sale is heard already.
    pub fn follow(&self, voucher_id: i64) {
        let Ok(follow) = self.follow.lock() else { return };
        let Some((more, prefix)) = follow.as_ref() else { return };
        if self.followed.lock().is_ok_and(|mut followed| followed.insert(voucher_id)) {
            let _ = more.send(format!("{prefix}seckill:{{{voucher_id}}}:stock:live"));
        }
    }

    /// The stock sale `voucher_id` last announced, if this instance heard one since it (re)subscribed.
    pub fn latest(&self, voucher_id: i64) -> Option<i64> {
        self.sales.lock().ok().and_then(|sales| sales.get(&voucher_id).and_then(|tx| *tx.borrow()))
    }

    /// Whether the sale is known to be sold out right now (an announced 0; a give-back announces again).
    /// A grab asks this first; the grab follows the sale once its script has found it.
    pub fn is_sold_out(&self, voucher_id: i64) -> bool {
        self.latest(voucher_id).is_some_and(|stock| stock <= 0)
    }

    /// Notes that sale `voucher_id` is owed an announcement; true if none was owed yet (the caller then
    /// sends it, after the sale's quiet spell, and [`settle`](Self::settle)s it first).
    pub fn owe(&self, voucher_id: i64) -> bool {
        self.owed.lock().is_ok_and(|mut owed| owed.insert(voucher_id))
    }

    /// The owed announcement of sale `voucher_id` is being sent: grabs from now on owe a new one.
    pub fn settle(&self, voucher_id: i64) {
        if let Ok(mut owed) = self.owed.lock() {
            owed.remove(&voucher_id);
        }
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

    /// Listens to the sales' channels (`{prefix}seckill:{vid}:stock:live`) for the life of the process:
    /// on one node one pattern subscription; on a cluster a shard subscription per sale, added as sales are
    /// followed (redis-rs renews them on the new primary after a failover, and says so with a push).
    pub fn spawn_listener(self: &Arc<Self>, redis_url: String, prefix: String) -> tokio::task::JoinHandle<()> {
        let mut heard = match RedisTarget::parse(&redis_url) {
            RedisTarget::Cluster(nodes) => {
                let (more, heard) = crate::platform::channel::follow_shards(nodes);
                if let Ok(mut follow) = self.follow.lock() {
                    *follow = Some((more, prefix));
                }
                heard
            }
            RedisTarget::Single(_) => {
                crate::platform::channel::follow(&redis_url, Topic::Pattern(format!("{prefix}seckill:*:stock:live")))
            }
        };
        let live = self.clone();
        tokio::spawn(async move {
            while let Some(notice) = heard.recv().await {
                live.hear(notice);
            }
        })
    }

    /// One thing heard on the sales' channels. A (re)subscription or a lost one means announcements may
    /// have been missed: what was heard of that sale (or of all, on one node) may be stale.
    fn hear(&self, notice: Heard) {
        match notice {
            Heard::Notice { channel, payload } => match (sale_of_channel(&channel), payload.parse()) {
                (Some(voucher_id), Ok(stock)) => self.announce(voucher_id, stock),
                _ => tracing::warn!(%channel, %payload, "bad stock announcement"),
            },
            Heard::Subscribed(Some(channel)) | Heard::Lost(Some(channel)) => {
                if let Some(voucher_id) = sale_of_channel(&channel) {
                    self.forget_sale(voucher_id);
                }
            }
            Heard::Subscribed(None) | Heard::Lost(None) => self.forget(),
        }
    }

    /// Forgets what was heard of one sale.
    fn forget_sale(&self, voucher_id: i64) {
        if let Ok(sales) = self.sales.lock()
            && let Some(tx) = sales.get(&voucher_id)
        {
            tx.send_replace(None);
        }
    }
}

/// The sale id in `…seckill:{42}:stock:live`.
fn sale_of_channel(channel: &str) -> Option<i64> {
    let start = channel.find("seckill:{")? + "seckill:{".len();
    let end = start + channel[start..].find('}')?;
    channel[start..end].parse().ok()
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

    #[test]
    fn a_shard_message_announces_and_a_renewed_subscription_forgets() {
        use redis::{PushInfo, PushKind, Value};
        let live = LiveStock::default();
        let push = |kind, data: &[&str]| {
            let push = PushInfo { kind, data: data.iter().map(|d| Value::BulkString(d.as_bytes().to_vec())).collect() };
            crate::platform::channel::shard_push(push).expect("a push a follower hears")
        };
        let channel = "hd:seckill:{7}:stock:live";
        live.hear(push(PushKind::SMessage, &[channel, "0"]));
        assert!(live.is_sold_out(7));
        // redis-rs subscribed again after a failover: announcements may have been missed meanwhile, so a
        // "sold out" heard before must not keep refusing grabs.
        live.hear(push(PushKind::SSubscribe, &[channel]));
        assert_eq!(live.latest(7), None);
        live.hear(push(PushKind::SMessage, &[channel, "3"]));
        assert_eq!(live.latest(7), Some(3));
        live.hear(push(PushKind::SMessage, &["hd:seckill:{7}:stock:live", "three"]));
        assert_eq!(live.latest(7), Some(3), "a garbled announcement changes nothing");
        live.hear(push(PushKind::Disconnection, &[]));
        assert_eq!(live.latest(7), None);
    }
}
