//! The one Redis handle every capability uses: a single node or a Redis Cluster, chosen by `REDIS_URL`.
//!
//! `REDIS_URL` names one node (`redis://127.0.0.1:6379/0`) or, comma-separated, several nodes of one
//! cluster (`redis://127.0.0.1:7000,redis://127.0.0.1:7001,redis://127.0.0.1:7002`; any reachable one is
//! enough, the client learns the rest). `redis+cluster://host:port` also means a cluster reached through
//! one node. Commands, pipelines and scripts go through [`Redis`] either way, so callers never branch: a
//! pipeline or script must keep its keys in one hash slot (`keys.rs` builds them so and its tests check
//! it; multi-key pipelines go through [`per_slot`]), or the cluster refuses it with CROSSSLOT.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
use redis::{Cmd, Pipeline, RedisFuture, Value};

/// Where Redis is: one node, or the seed nodes of a cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisTarget {
    /// One server (its URL, database included).
    Single(String),
    /// Seed nodes of a Redis Cluster (`redis://host:port` each).
    Cluster(Vec<String>),
}

impl RedisTarget {
    /// Reads `REDIS_URL`'s forms (see the module doc).
    pub fn parse(url: &str) -> Self {
        let nodes: Vec<String> = url.split(',').map(str::trim).filter(|n| !n.is_empty()).map(String::from).collect();
        match nodes.as_slice() {
            [one] if one.starts_with("redis+cluster://") => {
                Self::Cluster(vec![one.replacen("redis+cluster://", "redis://", 1)])
            }
            [one] => Self::Single(one.clone()),
            _ => Self::Cluster(nodes),
        }
    }

    /// The node a pub/sub listener connects to on its `attempt`-th try. On a cluster a plain `SUBSCRIBE`
    /// on any node hears every `PUBLISH` (the cluster forwards them to all nodes), so a listener whose node
    /// dies moves on to the next.
    pub fn pubsub_node(&self, attempt: usize) -> &str {
        match self {
            Self::Single(url) => url,
            Self::Cluster(nodes) => &nodes[attempt % nodes.len()],
        }
    }
}

/// Whether Redis failed to answer (rather than refusing a command). On a cluster that includes the
/// answers of a failover or a slot move the client could not ride out (CLUSTERDOWN, TRYAGAIN, MOVED/ASK
/// still bouncing, MASTERDOWN, a write reaching a just-demoted replica, a node still loading).
pub fn is_outage(e: &redis::RedisError) -> bool {
    use redis::{ErrorKind, ServerErrorKind};
    e.is_io_error()
        || e.is_timeout()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_cluster_error()
        || matches!(
            e.kind(),
            ErrorKind::ClusterConnectionNotFound
                | ErrorKind::Server(
                    ServerErrorKind::MasterDown | ServerErrorKind::ReadOnly | ServerErrorKind::BusyLoading
                )
        )
}

/// A cluster connection for shard channels (`SSUBSCRIBE`): RESP3, every push (messages, subscription
/// confirmations, dropped connections) sent to `pushes`. redis-rs subscribes its channels again on
/// whichever node serves their slot after a reconnection or a failover.
pub async fn shard_subscriber(
    nodes: &[String],
    pushes: tokio::sync::mpsc::UnboundedSender<redis::PushInfo>,
) -> Result<ClusterConnection, redis::RedisError> {
    redis::cluster::ClusterClientBuilder::new(nodes.to_vec())
        .use_protocol(redis::ProtocolVersion::RESP3)
        .push_sender(pushes)
        .connection_timeout(Duration::from_secs(1))
        .response_timeout(Duration::from_secs(5))
        .retries(4)
        .build()?
        .get_async_connection()
        .await
}

/// A self-reconnecting, multiplexed Redis connection: cheap to clone, one per use.
#[derive(Clone)]
pub enum Redis {
    /// One node, through redis-rs' `ConnectionManager`.
    Single(SingleNode),
    /// A cluster, through redis-rs' async cluster client (it follows MOVED/ASK and failovers).
    Cluster(HealingCluster),
}

/// redis-rs' async cluster connection, replaced by a fresh one when it keeps failing. After a primary
/// is killed, the client can refresh its slot map while the replica is still being promoted, keep the
/// dead node's address, and time out every command from then on (seen in `scripts/cluster.sh sale`);
/// a new connection asks a live seed node for the slots and serves again.
#[derive(Clone)]
pub struct HealingCluster {
    nodes: Arc<Vec<String>>,
    current: Arc<std::sync::RwLock<ClusterConnection>>,
    /// When the connection was last replaced (or a replacement started): at most one every few seconds.
    renewed: Arc<std::sync::Mutex<std::time::Instant>>,
}

/// redis-rs' `ConnectionManager`, which after an outage would fail the first command with the dead
/// connection it still holds. It replaces a lost connection only when a command fails on it, and its
/// replacement, tried while Redis was still away, fails and stays until the next command; so the first
/// command after Redis is back — the Redis breaker's probe — failed and kept the breaker open another
/// cool-down. After a command failed for want of a connection, the next one is preceded by a `PING`, which
/// takes that hit (and starts a fresh connection) in its place.
#[derive(Clone)]
pub struct SingleNode {
    manager: ConnectionManager,
    /// The last command failed for want of a connection.
    broken: Arc<std::sync::atomic::AtomicBool>,
}

impl SingleNode {
    /// Before a command: after a lost connection, a `PING` to bring the manager a live one (harmless when
    /// Redis is still away: the command then fails as it would have).
    async fn ready(&mut self) {
        if self.broken.load(std::sync::atomic::Ordering::Acquire)
            && self.manager.send_packed_command(&redis::cmd("PING")).await.is_ok()
        {
            self.broken.store(false, std::sync::atomic::Ordering::Release);
        }
    }

    /// After a command: notes whether it failed for want of a connection. Not after a timeout: against a
    /// hung Redis a `PING` would only double each command's wait.
    fn after<T>(&self, result: &redis::RedisResult<T>) {
        if let Err(e) = result
            && !e.is_timeout()
            && (e.is_io_error() || e.is_unrecoverable_error())
        {
            self.broken.store(true, std::sync::atomic::Ordering::Release);
        }
    }
}

/// How long a failing cluster connection is kept before a fresh one replaces it.
const RENEW_AFTER: Duration = Duration::from_secs(3);

impl HealingCluster {
    async fn open(nodes: &[String]) -> Result<ClusterConnection, redis::RedisError> {
        // Retries cover a primary's failover (its replica takes over within a few seconds).
        let client = redis::cluster::ClusterClientBuilder::new(nodes.to_vec())
            .connection_timeout(Duration::from_secs(1))
            .response_timeout(Duration::from_secs(5))
            .retries(4)
            .build()?;
        // Connecting can hang on a half-dead cluster; the caller retries.
        tokio::time::timeout(Duration::from_secs(5), client.get_async_connection())
            .await
            .map_err(|_| redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut)))?
    }

    async fn connect(nodes: &[String]) -> Result<Self, redis::RedisError> {
        Ok(Self {
            nodes: Arc::new(nodes.to_vec()),
            current: Arc::new(std::sync::RwLock::new(Self::open(nodes).await?)),
            renewed: Arc::new(std::sync::Mutex::new(std::time::Instant::now())),
        })
    }

    /// The connection to use now.
    fn get(&self) -> ClusterConnection {
        match self.current.read() {
            Ok(c) => c.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Called with each failed command: an outage ([`is_outage`]: no answer, or a failover the client did
    /// not ride out) starts a replacement in the background, unless one started in the last [`RENEW_AFTER`].
    fn failed(&self, e: &redis::RedisError) {
        if !is_outage(e) {
            return;
        }
        {
            let Ok(mut renewed) = self.renewed.lock() else { return };
            if renewed.elapsed() < RENEW_AFTER {
                return;
            }
            *renewed = std::time::Instant::now();
        }
        let this = self.clone();
        tokio::spawn(async move {
            match Self::open(&this.nodes).await {
                Ok(fresh) => {
                    if let Ok(mut current) = this.current.write() {
                        *current = fresh;
                    }
                    tracing::warn!("the Redis Cluster kept failing: reconnected with a fresh slot map");
                }
                Err(e) => tracing::warn!("the Redis Cluster is still unreachable: {e}"),
            }
        });
    }
}

impl Redis {
    /// Connects so that callers fail fast while Redis is away: one reconnect attempt, a second to connect
    /// and five to answer, so they fall back (the shop page to Postgres) or answer "try again" within
    /// seconds instead of queueing behind a dead server (the default waits ~15 s).
    pub async fn connect(target: &RedisTarget) -> Result<Self, redis::RedisError> {
        match target {
            RedisTarget::Single(url) => {
                let config = redis::aio::ConnectionManagerConfig::new()
                    .set_number_of_retries(1)
                    .set_connection_timeout(Some(Duration::from_secs(1)))
                    .set_response_timeout(Some(Duration::from_secs(5)));
                let manager = ConnectionManager::new_with_config(redis::Client::open(url.as_str())?, config).await?;
                Ok(Self::Single(SingleNode { manager, broken: Arc::default() }))
            }
            RedisTarget::Cluster(nodes) => Ok(Self::Cluster(HealingCluster::connect(nodes).await?)),
        }
    }

    /// True for a cluster connection.
    pub fn is_cluster(&self) -> bool {
        matches!(self, Self::Cluster(_))
    }

    /// The command a script announces on a channel that shares its keys' hash tag: `SPUBLISH` on a
    /// cluster (only the nodes of that shard carry it, where `PUBLISH` would cross every node), `PUBLISH`
    /// on one node (where a pattern subscription hears every channel).
    pub fn announce_command(&self) -> &'static str {
        if self.is_cluster() { "SPUBLISH" } else { "PUBLISH" }
    }

    /// Every key matching `pattern`, SCANned in batches (never `KEYS`, which blocks Redis) on every
    /// primary of a cluster, each batch handed to `each`.
    pub async fn scan_match<F, Fut>(&self, pattern: &str, mut each: F) -> Result<(), redis::RedisError>
    where
        F: FnMut(Vec<String>) -> Fut,
        Fut: Future<Output = Result<(), redis::RedisError>>,
    {
        let nodes = match self {
            Self::Single(_) => vec![None],
            Self::Cluster(_) => self.primaries().await?.into_iter().map(Some).collect(),
        };
        for node in nodes {
            let mut cursor: u64 = 0;
            loop {
                let mut scan = redis::cmd("SCAN");
                scan.arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(1000);
                let reply = match (self, &node) {
                    (Self::Cluster(con), Some((host, port))) => {
                        let to = SingleNodeRoutingInfo::ByAddress { host: host.clone(), port: *port };
                        con.get()
                            .route_command(scan, RoutingInfo::SingleNode(to))
                            .await
                            .inspect_err(|e| con.failed(e))?
                    }
                    _ => scan.query_async(&mut self.clone()).await?,
                };
                let (next, batch): (u64, Vec<String>) = redis::from_redis_value(reply)?;
                if !batch.is_empty() {
                    each(batch).await?;
                }
                if next == 0 {
                    break;
                }
                cursor = next;
            }
        }
        Ok(())
    }

    /// A cluster's primaries (host, port), from `CLUSTER SLOTS`.
    async fn primaries(&self) -> Result<Vec<(String, u16)>, redis::RedisError> {
        let slots: Vec<Value> = redis::cmd("CLUSTER").arg("SLOTS").query_async(&mut self.clone()).await?;
        let mut primaries: Vec<(String, u16)> = slots
            .into_iter()
            .filter_map(|range| {
                let Value::Array(parts) = range else { return None };
                let Some(Value::Array(node)) = parts.into_iter().nth(2) else { return None };
                match (node.first(), node.get(1)) {
                    (Some(Value::BulkString(host)), Some(Value::Int(port))) => {
                        Some((String::from_utf8_lossy(host).into_owned(), u16::try_from(*port).ok()?))
                    }
                    _ => None,
                }
            })
            .collect();
        primaries.sort();
        primaries.dedup();
        Ok(primaries)
    }
}

/// The part of `key` that picks its hash slot: the first non-empty `{…}`, else the whole key (the Redis
/// Cluster rule, so keys sharing a tag share a slot).
pub fn hash_tag(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{')
        && let Some(len) = key[open + 1..].iter().position(|&b| b == b'}')
        && len > 0
    {
        return &key[open + 1..open + 1 + len];
    }
    key
}

/// Redis Cluster's hash slot of `key`: CRC16 (XMODEM) of its hash tag, modulo 16,384.
pub fn slot(key: &[u8]) -> u16 {
    crc16::State::<crc16::XMODEM>::calculate(hash_tag(key)) % 16_384
}

/// The slot of `cmd`'s first key (its first argument after the command name); `None` for keyless ones.
fn slot_of(cmd: &Cmd) -> Option<u16> {
    match cmd.args_iter().nth(1)? {
        redis::Arg::Simple(key) => Some(slot(key)),
        _ => None,
    }
}

/// Runs single-key commands (each may touch one slot) and answers their replies in order: one pipeline on
/// one node; on a cluster one pipeline per hash slot, all at once (a cluster refuses a pipeline across
/// slots). With `atomic`, each pipeline is a `MULTI`/`EXEC`: all-or-nothing per slot, not across slots.
pub async fn per_slot(redis: &Redis, cmds: Vec<Cmd>, atomic: bool) -> Result<Vec<Value>, redis::RedisError> {
    if cmds.is_empty() {
        return Ok(Vec::new()); // Redis refuses an empty pipeline
    }
    let pipeline = |cmds: &mut dyn Iterator<Item = Cmd>| {
        let mut pipe = redis::pipe();
        if atomic {
            pipe.atomic();
        }
        cmds.for_each(|c| {
            pipe.add_command(c);
        });
        pipe
    };
    if !redis.is_cluster() {
        return pipeline(&mut cmds.into_iter()).query_async(&mut redis.clone()).await;
    }
    let mut groups: std::collections::BTreeMap<Option<u16>, Vec<(usize, Cmd)>> = Default::default();
    for (i, cmd) in cmds.into_iter().enumerate() {
        groups.entry(slot_of(&cmd)).or_default().push((i, cmd));
    }
    let runs = groups.into_values().map(|group| async move {
        let order: Vec<usize> = group.iter().map(|(i, _)| *i).collect();
        let pipe = pipeline(&mut group.into_iter().map(|(_, c)| c));
        let values: Vec<Value> = pipe.query_async(&mut redis.clone()).await?;
        Ok::<_, redis::RedisError>(order.into_iter().zip(values))
    });
    let mut replies: Vec<(usize, Value)> = futures::future::try_join_all(runs).await?.into_iter().flatten().collect();
    replies.sort_by_key(|(i, _)| *i);
    Ok(replies.into_iter().map(|(_, v)| v).collect())
}

impl ConnectionLike for Redis {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Single(c) => Box::pin(async move {
                c.ready().await;
                let result = c.manager.req_packed_command(cmd).await;
                c.after(&result);
                result
            }),
            Self::Cluster(c) => Box::pin(async move {
                let mut conn = c.get();
                conn.req_packed_command(cmd).await.inspect_err(|e| c.failed(e))
            }),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Single(c) => Box::pin(async move {
                c.ready().await;
                let result = c.manager.req_packed_commands(cmd, offset, count).await;
                c.after(&result);
                result
            }),
            Self::Cluster(c) => Box::pin(async move {
                let mut conn = c.get();
                conn.req_packed_commands(cmd, offset, count).await.inspect_err(|e| c.failed(e))
            }),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(c) => c.manager.get_db(),
            Self::Cluster(c) => c.get().get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_the_cluster_rule() {
        // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
        assert_eq!(slot(b"123456789"), 0x31C3);
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"{user1000}.following"), slot(b"{user1000}.followers"));
        assert_eq!(hash_tag(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(hash_tag(b"foo{{bar}}zap"), b"{bar");
        assert_eq!(hash_tag(b"foo{bar}{zap}"), b"bar");
    }

    #[test]
    fn one_url_is_one_node_and_a_list_is_a_cluster() {
        assert_eq!(
            RedisTarget::parse("redis://127.0.0.1:6379/0"),
            RedisTarget::Single("redis://127.0.0.1:6379/0".into())
        );
        assert_eq!(
            RedisTarget::parse("redis://a:7000, redis://b:7001,"),
            RedisTarget::Cluster(vec!["redis://a:7000".into(), "redis://b:7001".into()])
        );
        assert_eq!(RedisTarget::parse("redis+cluster://a:7000"), RedisTarget::Cluster(vec!["redis://a:7000".into()]));
        let cluster = RedisTarget::parse("redis://a:7000,redis://b:7001");
        assert_eq!(
            (cluster.pubsub_node(0), cluster.pubsub_node(1), cluster.pubsub_node(2)),
            ("redis://a:7000", "redis://b:7001", "redis://a:7000")
        );
    }
}
