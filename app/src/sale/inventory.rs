//! A flash sale's stock as Redis holds it: the atomic scripts that grab, give back and restore it, and
//! each instance's in-process view of what is sold out. Used by `seckill` (grabs, sales), `orders` (a
//! closed or refused order gives its coupon back) and `storefront` (live stock on the shop page).
//!
//! Keys of one sale share the `{voucher}` hash tag, so every script stays valid on Redis Cluster.

use serde::{Deserialize, Serialize};

/// The answer of `lua/seckill.lua`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GrabCode {
    /// Stock deducted and the buyer recorded.
    Ok,
    /// The sale's state is not in Redis (unknown voucher, or not a flash sale).
    NoSuchSale,
    /// Before the sale window.
    NotStarted,
    /// After the sale window.
    Ended,
    /// No stock left.
    SoldOut,
    /// This user already holds one.
    AlreadyBought,
    /// Too many attempts by this user on this sale just now.
    RateLimited,
    /// The sale asks for a solved slider puzzle and none came (missing, used, expired or someone else's).
    NeedsPuzzle,
}

impl GrabCode {
    /// Every code, in the script's numbering.
    pub const ALL: [GrabCode; 8] = [
        Self::Ok,
        Self::NoSuchSale,
        Self::NotStarted,
        Self::Ended,
        Self::SoldOut,
        Self::AlreadyBought,
        Self::RateLimited,
        Self::NeedsPuzzle,
    ];

    /// Maps the script's integer; an unknown code is treated as "no such sale" (nothing was deducted).
    pub fn from_script(code: i64) -> Self {
        match code {
            0 => Self::Ok,
            2 => Self::NotStarted,
            3 => Self::Ended,
            4 => Self::SoldOut,
            5 => Self::AlreadyBought,
            6 => Self::RateLimited,
            7 => Self::NeedsPuzzle,
            _ => Self::NoSuchSale,
        }
    }

    /// Position in [`GrabCode::ALL`] (for per-outcome counters).
    pub fn index(self) -> usize {
        Self::ALL.iter().position(|c| *c == self).unwrap_or(1)
    }

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::NoSuchSale => "no_such_sale",
            Self::NotStarted => "not_started",
            Self::Ended => "ended",
            Self::SoldOut => "sold_out",
            Self::AlreadyBought => "already_bought",
            Self::RateLimited => "rate_limited",
            Self::NeedsPuzzle => "needs_puzzle",
        }
    }

    /// The sentence shown next to the button.
    pub fn message(self) -> &'static str {
        use crate::shared::i18n::{locale, td_string};
        let locale = locale();
        match self {
            Self::Ok => td_string!(locale, seckill.grab_ok),
            Self::NoSuchSale => td_string!(locale, seckill.err_no_such_sale),
            Self::NotStarted => td_string!(locale, seckill.err_not_started),
            Self::Ended => td_string!(locale, seckill.err_ended),
            Self::SoldOut => td_string!(locale, seckill.err_sold_out),
            Self::AlreadyBought => td_string!(locale, seckill.err_already_bought),
            Self::RateLimited => td_string!(locale, seckill.err_rate_limited),
            Self::NeedsPuzzle => td_string!(locale, seckill.err_needs_puzzle),
        }
    }
}

#[cfg(feature = "ssr")]
pub use redis_state::*;

#[cfg(feature = "ssr")]
mod redis_state {
    use std::sync::LazyLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use crate::platform::redis_conn::Redis;
    use redis::Script;

    use super::GrabCode;
    use crate::platform::keys::Keys;

    /// A grab as `lua/seckill.lua` recorded it in the sale's grabs hash.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RecordedGrab {
        /// The buyer.
        pub user_id: i64,
        /// The order the grab produces.
        pub order_id: i64,
        /// When the script ran, unix ms by Redis' clock. Not the order id's time: the id is minted before
        /// the call, which may wait out a failover, so an id can be old while its grab is new.
        pub at_ms: i64,
    }

    impl RecordedGrab {
        /// Reads a grabs-hash value, `<order id>:<ms>`; a bare order id (written before the time was
        /// recorded) counts from the id's own time.
        pub fn parse(user_id: i64, value: &str) -> Option<Self> {
            let (order, at) = value.split_once(':').unwrap_or((value, ""));
            let order_id: i64 = order.parse().ok()?;
            let at_ms = match at {
                "" => crate::platform::ids::IdGenerator::timestamp_ms(order_id) as i64,
                at => at.parse().ok()?,
            };
            Some(Self { user_id, order_id, at_ms })
        }
    }

    static SECKILL: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/seckill.lua")));
    static RELEASE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/release.lua")));
    static RESTORE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/restore_sale.lua")));
    static STOCK_CAP: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/stock_cap.lua")));
    static STOCK_SET: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/stock_set.lua")));
    static HUMAN_PASS: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/human_pass.lua")));
    static ANNOUNCE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("../../../lua/announce.lua")));

    /// How long Redis keeps a sale after the last of its unpaid orders could have closed: a late grab still
    /// hears "ended" and the audit still sees it, yet old buyer sets do not pile up in memory for ever.
    const SALE_STATE_GRACE: Duration = Duration::from_secs(24 * 3600);

    /// How long after its end Redis keeps a sale, given how long orders stay unpaid.
    pub fn kept_after_end(pay_timeout: Duration) -> Duration {
        pay_timeout + SALE_STATE_GRACE
    }

    /// When Redis may forget a sale that ends at `end_ms` (unix ms), given how long orders stay unpaid.
    pub fn forget_at_ms(pay_timeout: Duration, end_ms: i64) -> i64 {
        end_ms.saturating_add(kept_after_end(pay_timeout).as_millis() as i64)
    }

    /// A sale as Postgres records it, with the users holding a live order: what Redis is rebuilt from.
    #[derive(Debug, Clone)]
    pub struct SaleSnapshot {
        /// Voucher id.
        pub voucher_id: i64,
        /// Stock left in Postgres.
        pub stock: i32,
        /// Sale start, unix ms.
        pub begin_ms: i64,
        /// Sale end, unix ms.
        pub end_ms: i64,
        /// Users with an unpaid or paid order.
        pub buyers: Vec<i64>,
        /// Whether buyers must solve the slider puzzle first.
        pub human_check: bool,
    }

    /// Writes a sale's state: stock and window (with whether it asks for a solved puzzle) replaced, buyers
    /// and release markers cleared (a new sale).
    /// Redis forgets all of it at `forget_at_ms` (unix ms); the scripts carry that lifetime to the sets they
    /// create later, so an old sale leaves nothing behind.
    pub async fn load_sale(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        stock: i64,
        window: (i64, i64),
        human_check: bool,
        forget_at_ms: i64,
    ) -> Result<(), redis::RedisError> {
        let (begin_ms, end_ms) = window;
        redis::pipe()
            .atomic()
            .cmd("SET")
            .arg(keys.seckill_stock(voucher_id))
            .arg(stock)
            .arg("PXAT")
            .arg(forget_at_ms)
            .ignore()
            .cmd("DEL")
            .arg(keys.seckill_buyers(voucher_id))
            .arg(keys.seckill_released(voucher_id))
            .arg(keys.seckill_grabs(voucher_id))
            .ignore()
            .cmd("HSET")
            .arg(keys.seckill_window(voucher_id))
            .arg("begin")
            .arg(begin_ms)
            .arg("end")
            .arg(end_ms)
            .arg("check")
            .arg(u8::from(human_check))
            .ignore()
            .cmd("PEXPIREAT")
            .arg(keys.seckill_window(voucher_id))
            .arg(forget_at_ms)
            .ignore()
            .query_async(&mut redis.clone())
            .await
    }

    /// How many grab attempts one buyer may make on one sale per window (`SECKILL_RATE_LIMIT` per
    /// `SECKILL_RATE_WINDOW_SECS`); checked inside the sale script, so it costs no round trip of its own.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct AttemptLimit {
        /// Attempts allowed per window (0: no limit).
        pub limit: u32,
        /// The sliding window, ms.
        pub window_ms: u64,
    }

    /// Runs `lua/seckill.lua` for one user with no attempt limit (tests); see [`try_grab_limited`].
    #[cfg(feature = "testing")]
    pub async fn try_grab(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
    ) -> Result<GrabCode, redis::RedisError> {
        // No attempt limit, and every grab announces the stock left.
        let rules = GrabRules { attempts: AttemptLimit { limit: 0, window_ms: 0 }, quiet: Duration::ZERO };
        Ok(try_grab_limited(redis, keys, voucher_id, user_id, order_id, None, rules).await?.code)
    }

    /// How the sale script treats every grab of an instance: the buyer's attempt limit, and the quiet spell
    /// between two announcements of the stock left (`LIVE_STOCK_QUIET_MS`; zero: every grab announces).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct GrabRules {
        /// Attempts one buyer may make per window.
        pub attempts: AttemptLimit,
        /// The least time between two of the script's announcements of a sale's stock.
        pub quiet: Duration,
    }

    /// What one run of the sale script answered.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Grabbed {
        /// The outcome.
        pub code: GrabCode,
        /// For [`GrabCode::RateLimited`], the ms until another attempt is allowed; else 0.
        pub wait_ms: u64,
        /// A grab that took a coupon without announcing the stock left (one came less than a quiet spell
        /// before): its instance owes the sale an [`announce`] a spell later.
        pub owes_announcement: bool,
    }

    /// Runs `lua/seckill.lua` for one user (EVALSHA, re-loading the script if Redis lost it) — the attempt
    /// limit, the window, one per user and the stock in one round trip; a grab that succeeds is recorded
    /// under `order_id`, the id of the order it will produce. A sale with the human check takes the
    /// buyer's puzzle `pass` in the same call. The stock left is announced at most once per quiet spell
    /// of the `rules` (and always at 0).
    pub async fn try_grab_limited(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
        pass: Option<&str>,
        rules: GrabRules,
    ) -> Result<Grabbed, redis::RedisError> {
        let GrabRules { attempts, quiet } = rules;
        // Only what [`record_solution`] mints can name a pass; anything else names none.
        let pass = pass.filter(|p| p.len() == 32 && p.bytes().all(|b| b.is_ascii_hexdigit())).unwrap_or("-");
        let script_keys = keys.grab_script(voucher_id, user_id, pass);
        let key_count = redis::ToRedisArgs::num_of_args(&script_keys);
        // The command written once, keys and arguments straight into it: a `ScriptInvocation` copies each
        // into a buffer of its own first, 1,500 instructions of every grab.
        let mut call = redis::Cmd::with_capacity(3 + key_count + 7, 512);
        call.arg("EVALSHA").arg(SECKILL.get_hash()).arg(key_count).arg(&script_keys);
        call.arg(user_id)
            .arg(order_id)
            .arg(attempts.window_ms)
            .arg(attempts.limit)
            .arg(order_id)
            .arg(redis.announce_command())
            .arg(quiet.as_millis() as u64);
        let answer: Vec<i64> = eval_loaded(redis, &SECKILL, &SECKILL_LOADS, &call).await?;
        let &[code, wait, ref announced @ ..] = answer.as_slice() else {
            let what = format!("{answer:?}");
            return Err(
                (redis::ErrorKind::UnexpectedReturnType, "the sale script answered no {code, wait}", what).into()
            );
        };
        Ok(Grabbed {
            code: GrabCode::from_script(code),
            wait_ms: wait.max(0) as u64,
            owes_announcement: announced.first() == Some(&0),
        })
    }

    /// The loads of the sale script after a `NOSCRIPT`, one at a time in this process. A Redis that lost
    /// its scripts (restarted, or a failover to a node that never ran this one) answers `NOSCRIPT` to every
    /// grab in flight at once, as the site recovers; one load then serves them all, where each grab used to
    /// send its own (a thousand grabs in flight: a thousand loads of the script's text, and as many more
    /// round trips).
    static SECKILL_LOADS: ScriptLoads = ScriptLoads::new();

    /// How many loads of one script this process has tried, and the one under way.
    struct ScriptLoads {
        tried: AtomicU64,
        under_way: tokio::sync::Mutex<()>,
    }

    impl ScriptLoads {
        const fn new() -> Self {
            Self { tried: AtomicU64::new(0), under_way: tokio::sync::Mutex::const_new(()) }
        }
    }

    /// Whether Redis answered that it does not hold the script called.
    fn no_script(e: &redis::RedisError) -> bool {
        e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
    }

    /// Sends `call`, an `EVALSHA` of `script`, loading the script first if Redis answers that it has none.
    /// Of the calls that meet `NOSCRIPT` together, the first loads it and the others send again once that
    /// load has been tried; a call counts only the loads tried after it was sent, since an earlier one
    /// did not save it from `NOSCRIPT`. A call that meets `NOSCRIPT` again (a cluster's other node, Redis
    /// lost it once more, or the shared load failed) loads it itself, as redis-rs' own invocation does, so
    /// a load that times out holds the others back once, not once each.
    async fn eval_loaded<T: redis::FromRedisValue>(
        redis: &Redis,
        script: &Script,
        loads: &ScriptLoads,
        call: &redis::Cmd,
    ) -> Result<T, redis::RedisError> {
        let mut con = redis.clone();
        let seen = loads.tried.load(Ordering::Acquire);
        match call.query_async(&mut con).await {
            Err(e) if no_script(&e) => {}
            answered => return answered,
        }
        {
            let _one = loads.under_way.lock().await;
            if loads.tried.load(Ordering::Acquire) == seen {
                let loaded = script.load_async(&mut con).await;
                loads.tried.fetch_add(1, Ordering::Release);
                loaded?;
            }
        }
        match call.query_async(&mut con).await {
            Err(e) if no_script(&e) => {
                script.load_async(&mut con).await?;
                call.query_async(&mut con).await
            }
            answered => answered,
        }
    }

    /// Announces sale `voucher_id`'s stock as Redis holds it now (`lua/announce.lua`): what a grab that
    /// did not announce owes, a `quiet` spell after it. Answers whether Redis still holds the sale.
    pub async fn announce(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        quiet: Duration,
    ) -> Result<bool, redis::RedisError> {
        ANNOUNCE
            .key(&keys.announce_script(voucher_id))
            .arg(redis.announce_command())
            .arg(quiet.as_millis().max(1) as u64)
            .invoke_async(&mut redis.clone())
            .await
    }

    /// Whether a grab is safe to acknowledge once Redis replicas were asked to hold it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Replication {
        /// At least the replicas asked for hold the grab: a failover to one of them keeps it.
        Held,
        /// The primary holds the grab but fewer replicas confirmed it in time (this many).
        Unconfirmed(i64),
        /// The node serving the sale now has no such grab: it was lost in a failover before it reached
        /// the replica that took over.
        Lost,
    }

    /// Waits (`WAIT`) until `replicas` replicas of the sale's primary hold every write this connection made
    /// — the grab of `order_id` among them — for at most `timeout`, then reads the grab back, in one round
    /// trip to the node serving the sale. On a cluster a client that lost its node re-sends the whole
    /// pipeline to the node serving the slot now; the read then tells whether the grab survived there.
    /// Must run on the connection that ran the grab.
    pub async fn await_replicas(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        (user_id, order_id): (i64, i64),
        replicas: u32,
        timeout: Duration,
    ) -> Result<Replication, redis::RedisError> {
        let mut pipe = redis::pipe();
        pipe.cmd("WAIT").arg(replicas).arg(timeout.as_millis() as u64);
        let (acked, recorded, buyer): (i64, Option<String>, bool) =
            read_grab(&mut pipe, keys, voucher_id, user_id).query_async(&mut redis.clone()).await?;
        Ok(match (grab_holds(user_id, order_id, recorded, buyer), acked >= i64::from(replicas)) {
            (false, _) => Replication::Lost,
            (true, true) => Replication::Held,
            (true, false) => Replication::Unconfirmed(acked),
        })
    }

    /// How an answer to a slider puzzle was recorded.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Solution {
        /// Right: this pass is good for one grab by the user, for `lifetime`.
        Passed(String),
        /// Wrong: the puzzle is spent.
        Missed,
        /// The puzzle had been answered before.
        Reused,
    }

    /// Spends puzzle `nonce` of sale `voucher_id` and, if it was solved (`hit`), leaves a pass for one grab
    /// by `user_id` (`lua/human_pass.lua`, one round trip); both last `lifetime`.
    pub async fn record_solution(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        nonce: &str,
        hit: bool,
        lifetime: Duration,
    ) -> Result<Solution, redis::RedisError> {
        let token = hex_token();
        let answer: i64 = HUMAN_PASS
            .key(&keys.pass_script(voucher_id, nonce, &token))
            .arg(user_id)
            .arg(lifetime.as_millis() as u64)
            .arg(u8::from(hit))
            .invoke_async(&mut redis.clone())
            .await?;
        Ok(match answer {
            1 => Solution::Passed(token),
            0 => Solution::Reused,
            _ => Solution::Missed,
        })
    }

    /// 128 random bits from the OS-seeded generator, as 32 hex digits (a pass nobody can guess).
    fn hex_token() -> String {
        hex::encode(rand::random::<[u8; 16]>())
    }

    /// Whether the grab that would produce `order_id` happened (for a caller whose script call timed out:
    /// it checks rather than guesses).
    pub async fn grab_recorded(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
    ) -> Result<bool, redis::RedisError> {
        let (recorded, buyer): (Option<String>, bool) =
            read_grab(&mut redis::pipe(), keys, voucher_id, user_id).query_async(&mut redis.clone()).await?;
        Ok(grab_holds(user_id, order_id, recorded, buyer))
    }

    /// Adds to `pipe` the reads of `user_id`'s recorded grab of the sale and of whether they are a buyer.
    fn read_grab<'p>(
        pipe: &'p mut redis::Pipeline,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
    ) -> &'p mut redis::Pipeline {
        pipe.cmd("HGET").arg(keys.seckill_grabs(voucher_id)).arg(user_id);
        pipe.cmd("SISMEMBER").arg(keys.seckill_buyers(voucher_id)).arg(user_id)
    }

    /// Whether what [`read_grab`] read is the grab of `order_id`, still standing: the buyer is still in too
    /// (a grab given back since, by the stranded-grab sweeper, no longer counts).
    fn grab_holds(user_id: i64, order_id: i64, recorded: Option<String>, buyer: bool) -> bool {
        buyer && recorded.and_then(|r| RecordedGrab::parse(user_id, &r)).is_some_and(|g| g.order_id == order_id)
    }

    /// One step of a walk through every grab a sale recorded, at most about `count` a step (`HSCAN`): the
    /// cursor to pass next (0 when the walk is over) and the grabs of this step. A walk holds one step's
    /// grabs at a time, however many the sale has; a grab may come twice, and one given back since still
    /// comes (its buyer is out: [`release`] finds nothing to give back).
    pub async fn recorded_grabs_step(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        cursor: u64,
        count: usize,
    ) -> Result<(u64, Vec<RecordedGrab>), redis::RedisError> {
        let (next, flat): (u64, Vec<String>) = redis::cmd("HSCAN")
            .arg(keys.seckill_grabs(voucher_id))
            .arg(cursor)
            .arg("COUNT")
            .arg(count)
            .query_async(&mut redis.clone())
            .await?;
        let grabs =
            flat.chunks_exact(2).filter_map(|pair| RecordedGrab::parse(pair[0].parse().ok()?, &pair[1])).collect();
        Ok((next, grabs))
    }

    /// Gives a grab back once per order (`lua/release.lua`); true if stock was returned now.
    pub async fn release(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
    ) -> Result<bool, redis::RedisError> {
        Ok(run_release(redis, keys, voucher_id, user_id, order_id, "give_back").await? == 1)
    }

    /// Lets the buyer of an order Postgres refused as sold out go (once per order) and sets the sale's
    /// Redis stock to 0: Postgres, the truth, has none left, so Redis must not keep selling what it
    /// thought it had (`lua/release.lua` with `sold_out`).
    pub async fn settle_sold_out(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
    ) -> Result<(), redis::RedisError> {
        run_release(redis, keys, voucher_id, user_id, order_id, "sold_out").await.map(drop)
    }

    /// Lets the buyer of a coupon refunded after its sale ended go (once per order) without selling the
    /// coupon again: Postgres does not take it back either (`lua/release.lua` with `forget`).
    pub async fn forget_buyer(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
    ) -> Result<(), redis::RedisError> {
        run_release(redis, keys, voucher_id, user_id, order_id, "forget").await.map(drop)
    }

    /// `lua/release.lua` for one order in `mode` (`give_back`, `sold_out` or `forget`); its reply.
    async fn run_release(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        user_id: i64,
        order_id: i64,
        mode: &str,
    ) -> Result<i64, redis::RedisError> {
        RELEASE
            .key(&keys.release_script(voucher_id))
            .arg(user_id)
            .arg(order_id)
            .arg(redis.announce_command())
            .arg(mode)
            .invoke_async(&mut redis.clone())
            .await
    }

    /// Remaining stock and buyer count of a sale (for reconciliation and tests).
    pub async fn sale_state(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
    ) -> Result<(Option<i64>, u64), redis::RedisError> {
        redis::pipe()
            .cmd("GET")
            .arg(keys.seckill_stock(voucher_id))
            .cmd("SCARD")
            .arg(keys.seckill_buyers(voucher_id))
            .query_async(&mut redis.clone())
            .await
    }

    /// Writes `sale` into Redis unless Redis already has it (`lua/restore_sale.lua`), to be forgotten at
    /// `forget_at_ms`; true if written now. A sale Redis has without a lifetime (loaded by an older version)
    /// only gets the lifetime.
    pub async fn restore_sale(
        redis: &Redis,
        keys: &Keys,
        sale: &SaleSnapshot,
        forget_at_ms: i64,
    ) -> Result<bool, redis::RedisError> {
        let mut inv = RESTORE.prepare_invoke();
        inv.key(&keys.restore_script(sale.voucher_id))
            .arg(sale.stock)
            .arg(sale.begin_ms)
            .arg(sale.end_ms)
            .arg(forget_at_ms)
            .arg(u8::from(sale.human_check));
        for b in &sale.buyers {
            inv.arg(*b);
        }
        let written: i64 = inv.invoke_async(&mut redis.clone()).await?;
        Ok(written == 1)
    }

    /// Lowers a sale's Redis stock to `cap` if it is higher (`lua/stock_cap.lua`); answers by how much
    /// (0: it was not ahead, or Redis does not hold the sale).
    pub async fn cap_stock(redis: &Redis, keys: &Keys, voucher_id: i64, cap: i32) -> Result<i64, redis::RedisError> {
        let excess: i64 = STOCK_CAP
            .key(keys.seckill_stock(voucher_id))
            .arg(cap)
            .arg(redis.announce_command())
            .invoke_async(&mut redis.clone())
            .await?;
        Ok(excess.max(0))
    }

    /// What [`set_stock`] did.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum StockSet {
        /// The new stock is in place.
        Set,
        /// The sale had started by Redis' clock, or holds grabs: nothing changed.
        Refused,
        /// Redis does not hold the sale (it lost its state; the rebuild reads Postgres).
        Absent,
    }

    /// Sets the stock of a sale that has not started by Redis' clock and holds no grab, keeping its
    /// lifetime (`lua/stock_set.lua`).
    pub async fn set_stock(
        redis: &Redis,
        keys: &Keys,
        voucher_id: i64,
        stock: i32,
    ) -> Result<StockSet, redis::RedisError> {
        let done: i64 = STOCK_SET
            .key(keys.seckill_stock(voucher_id))
            .key(keys.seckill_window(voucher_id))
            .key(keys.seckill_grabs(voucher_id))
            .arg(stock)
            .invoke_async(&mut redis.clone())
            .await?;
        Ok(match done {
            1 => StockSet::Set,
            0 => StockSet::Refused,
            _ => StockSet::Absent,
        })
    }

    /// Removes a sale's state (undoing a creation whose database commit failed).
    pub async fn forget_sale(redis: &Redis, keys: &Keys, voucher_id: i64) -> Result<(), redis::RedisError> {
        redis::cmd("DEL").arg(&keys.sale(voucher_id)).query_async(&mut redis.clone()).await
    }

    /// Redis' clock (unix ms) and the remaining stock of each sale in `voucher_ids`, in one round trip.
    pub async fn live_stocks(
        redis: &Redis,
        keys: &Keys,
        voucher_ids: &[i64],
    ) -> Result<(i64, Vec<(i64, Option<i64>)>), redis::RedisError> {
        let mut cmds = vec![redis::cmd("TIME")];
        cmds.extend(voucher_ids.iter().map(|id| redis::cmd("GET").arg(keys.seckill_stock(*id)).to_owned()));
        let mut values = crate::platform::redis_conn::per_slot(redis, cmds, false).await?;
        let stocks =
            values.split_off(1).into_iter().map(redis::from_redis_value).collect::<Result<Vec<Option<i64>>, _>>()?;
        let time: (i64, i64) = redis::from_redis_value(values.pop().unwrap_or(redis::Value::Nil))?;
        Ok((time.0 * 1000 + time.1 / 1000, voucher_ids.iter().copied().zip(stocks).collect()))
    }

    /// How long an instance remembers "sold out" without asking Redis. Short, because closed orders give
    /// stock back; the flag only ever skips work Redis would refuse anyway.
    const SOLD_OUT_FLAG_TTL: Duration = Duration::from_millis(500);

    /// This instance's view of which sales are sold out, so a flood on a finished sale never reaches Redis.
    pub struct SoldOutFlags(moka::future::Cache<i64, ()>);

    impl Default for SoldOutFlags {
        fn default() -> Self {
            Self(moka::future::Cache::builder().time_to_live(SOLD_OUT_FLAG_TTL).build())
        }
    }

    impl SoldOutFlags {
        /// Whether Redis answered "sold out" for this sale a moment ago.
        pub fn is_sold_out(&self, voucher_id: i64) -> bool {
            self.0.contains_key(&voucher_id)
        }

        /// Remembers Redis' "sold out" for a moment.
        pub async fn mark_sold_out(&self, voucher_id: i64) {
            self.0.insert(voucher_id, ()).await;
        }
    }
}
