//! Every Redis key the project writes, in one place (the table in ARCHITECTURE.md).
//!
//! Keys of one flash sale share the `{voucher}` hash tag so multi-key scripts stay valid on Redis Cluster.

/// Builds keys under an optional namespace prefix (empty in production, unique per test).
#[derive(Debug, Clone, Default)]
pub struct Keys {
    prefix: String,
}

/// The start of every key of one sale (see `Keys::sale_stem`), which each of its keys' names copies.
struct SaleStem(String);

impl SaleStem {
    /// The stem followed by `tail`.
    fn key(&self, tail: &str) -> String {
        self.key2(tail, "")
    }

    /// The stem followed by `tail` and `more`.
    fn key2(&self, tail: &str, more: &str) -> String {
        let mut key = String::with_capacity(self.0.len() + tail.len() + more.len());
        key.push_str(&self.0);
        key.push_str(tail);
        key.push_str(more);
        key
    }

    /// `tries:{user}`: one buyer's attempts on the sale.
    fn tries(&self, user_id: i64) -> String {
        self.key2("tries:", &user_id.to_string())
    }
}

/// The seven keys of one grab's `lua/seckill.lua` call, in its `KEYS` order, written straight into the
/// command as its arguments through one buffer: a `String` of its own for each name, copied again into
/// the command, was 2,500 instructions of every grab.
pub struct GrabKeys<'a> {
    sale: SaleStem,
    user_id: i64,
    pass: &'a str,
}

/// What follows the sale's stem in one of a grab's key names.
enum Tail<'a> {
    /// A fixed name.
    Name(&'static str),
    /// A name and a buyer's id.
    User(&'static str, i64),
    /// A name and a token.
    Token(&'static str, &'a str),
}

impl GrabKeys<'_> {
    /// The tails, in the script's `KEYS` order.
    fn tails(&self) -> [Tail<'_>; 7] {
        [
            Tail::Name("stock"),
            Tail::Name("buyers"),
            Tail::Name("window"),
            Tail::Name("grabs"),
            Tail::User("tries:", self.user_id),
            Tail::Token("pass:", self.pass),
            Tail::Name("announced"),
        ]
    }

    /// The names as strings (tests and logs; the grab itself writes them into its command).
    pub fn names(&self) -> Vec<String> {
        self.tails()
            .iter()
            .map(|tail| {
                let mut name = String::new();
                self.write_name(tail, &mut name);
                name
            })
            .collect()
    }

    /// Writes the name the sale's stem and `tail` make into `name`, in place of what it held.
    fn write_name(&self, tail: &Tail<'_>, name: &mut String) {
        use std::fmt::Write;
        name.clear();
        name.push_str(&self.sale.0);
        match tail {
            Tail::Name(tail) => name.push_str(tail),
            Tail::User(tail, id) => {
                name.push_str(tail);
                // Writing into a `String` cannot fail.
                let _ = write!(name, "{id}");
            }
            Tail::Token(tail, token) => {
                name.push_str(tail);
                name.push_str(token);
            }
        }
    }
}

impl redis::ToRedisArgs for GrabKeys<'_> {
    fn write_redis_args<W>(&self, out: &mut W)
    where
        W: ?Sized + redis::RedisWrite,
    {
        // One buffer for the seven names, each written whole into the command.
        let mut name = String::with_capacity(self.sale.0.len() + 48);
        for tail in self.tails() {
            self.write_name(&tail, &mut name);
            out.write_arg(name.as_bytes());
        }
    }

    fn num_of_args(&self) -> usize {
        7
    }
}

impl Keys {
    /// Keys under `prefix` (e.g. `"test:8f2c:"`).
    pub fn new(prefix: impl Into<String>) -> Self {
        Self { prefix: prefix.into() }
    }

    /// `session:{id}`: one tower-sessions record.
    pub fn session(&self, id: &str) -> String {
        format!("{}session:{id}", self.prefix)
    }

    /// `session:changed`: the channel every session save and delete is announced on (payload: the id), so
    /// instances drop their cached copy.
    pub fn session_changed(&self) -> String {
        format!("{}session:changed", self.prefix)
    }

    /// `login:{a:account}:from:{ip}`: log-in attempts on one account from one address (the account's hash
    /// tag, never empty whatever the account: its gate script touches this key and the next one).
    pub fn login_pair(&self, account: &str, ip: &str) -> String {
        format!("{}login:{{a:{account}}}:from:{ip}", self.prefix)
    }

    /// `login:{a:account}:all`: log-in attempts on one account from anywhere, and when the last one was.
    pub fn login_account(&self, account: &str) -> String {
        format!("{}login:{{a:{account}}}:all", self.prefix)
    }

    /// `login:{p:phone}:code`: the phone's live log-in code and the attempts at it (the phone's hash tag, as
    /// the two keys below).
    pub fn login_code(&self, phone: &str) -> String {
        format!("{}login:{{p:{phone}}}:code", self.prefix)
    }

    /// `login:{p:phone}:code:cooldown`: exists while the phone must wait for another code.
    pub fn login_code_cooldown(&self, phone: &str) -> String {
        format!("{}login:{{p:{phone}}}:code:cooldown", self.prefix)
    }

    /// `login:{p:phone}:code:day`: codes sent to the phone in the last day.
    pub fn login_code_day(&self, phone: &str) -> String {
        format!("{}login:{{p:{phone}}}:code:day", self.prefix)
    }

    /// `login:{p:phone}:code:day:dev:{device}`: codes sent to the phone in the last day when asked for from
    /// one of its account's known devices (an allowance of its own, beside everyone else's).
    pub fn login_code_day_on(&self, phone: &str, device: &str) -> String {
        format!("{}login:{{p:{phone}}}:code:day:dev:{device}", self.prefix)
    }

    /// `sms:outbox`: the local text-message outbox (newest first).
    pub fn sms_outbox(&self) -> String {
        format!("{}sms:outbox", self.prefix)
    }

    /// `login:addr:{ip}`: log-in attempts from one client address, whatever the accounts.
    pub fn login_addr(&self, ip: &str) -> String {
        format!("{}login:addr:{ip}", self.prefix)
    }

    /// SCAN patterns of every key family the project writes (for a demo reset, which must not touch
    /// keys of other applications sharing the Redis database).
    pub fn families(&self) -> Vec<String> {
        [
            "session:*",
            "login:*",
            "shop:*",
            "lock:shop:*",
            "seckill:*",
            "rl:*",
            "geo:*",
            "likes:*",
            "follows:*",
            "feed:*",
            "checkin:*",
            "uv:*",
            "state:*",
            "lock:state:*",
        ]
        .iter()
        .map(|f| format!("{}{f}", self.prefix))
        .collect()
    }

    /// `state:marker`: present while Redis holds the state rebuilt from Postgres (see `marker.rs`).
    pub fn state_marker(&self) -> String {
        format!("{}state:marker", self.prefix)
    }

    /// `lock:state:rebuild`: held by the one instance rebuilding Redis' state from Postgres.
    pub fn state_rebuild_lock(&self) -> String {
        format!("{}lock:state:rebuild", self.prefix)
    }

    /// `shop:{id}`: L2 shop cache entry `{data, expires_at}` or a null marker (the `{id}` hash tag keeps
    /// the entry, its lock and its edit epoch on one slot).
    pub fn shop(&self, id: i64) -> String {
        format!("{}shop:{{{id}}}", self.prefix)
    }

    /// `lock:shop:{id}`: rebuild mutex of one shop entry.
    pub fn shop_lock(&self, id: i64) -> String {
        format!("{}lock:shop:{{{id}}}", self.prefix)
    }

    /// `shop:{id}:epoch`: the shop's edit epoch, moved on by every invalidation; a cache load writes the
    /// entry only if it has not moved since the load began (`lua/cache_fill.lua`).
    pub fn shop_epoch(&self, id: i64) -> String {
        format!("{}shop:{{{id}}}:epoch", self.prefix)
    }

    /// `chan:inbox`: the channel a reader's id is announced on when their unread count may have changed, so
    /// the instance holding their open pages' streams tells them.
    pub fn inbox_channel(&self) -> String {
        format!("{}chan:inbox", self.prefix)
    }

    /// Pub/sub channel on which shop ids are announced after an edit, so every instance drops its L1 copy.
    pub fn shop_invalidation_channel(&self) -> String {
        format!("{}chan:shop:invalidate", self.prefix)
    }

    /// `uv:shop:{id}:{yyyymmdd}`: HyperLogLog of one shop's visitors on one day.
    pub fn uv_shop(&self, id: i64, day: &str) -> String {
        self.uv(&format!("shop:{id}"), day)
    }

    /// `uv:site:{yyyymmdd}`: HyperLogLog of the whole site's visitors on one day.
    pub fn uv_site(&self, day: &str) -> String {
        self.uv("site", day)
    }

    /// `uv:{scope}:{yyyymmdd}`: the visitors of `scope` (`site` or `shop:{id}`, as Postgres' snapshots name
    /// it) on one day.
    pub fn uv(&self, scope: &str, day: &str) -> String {
        format!("{}uv:{scope}:{day}", self.prefix)
    }

    /// `uv:touched:{yyyymmdd}`: the scopes visited since their last snapshot to Postgres.
    pub fn uv_touched(&self, day: &str) -> String {
        format!("{}uv:touched:{day}", self.prefix)
    }

    /// `lua/uv_restore.lua`'s keys: the day's HyperLogLog and a scratch key in its slot (the first key,
    /// which has no hash tag, is the scratch key's tag, so both hash alike).
    pub fn uv_restore_script(&self, scope: &str, day: &str) -> [String; 2] {
        let key = self.uv(scope, day);
        let scratch = format!("{{{key}}}:restoring");
        [key, scratch]
    }

    /// The stem every key of sale `voucher_id` starts with, `seckill:{vid}:` (the `{vid}` hash tag keeps a
    /// sale on one slot).
    fn sale_stem(&self, voucher_id: i64) -> SaleStem {
        SaleStem(format!("{}seckill:{{{voucher_id}}}:", self.prefix))
    }

    /// `seckill:{vid}:stock`: remaining stock of one sale (the `{vid}` hash tag keeps a sale on one slot).
    pub fn seckill_stock(&self, voucher_id: i64) -> String {
        self.sale_stem(voucher_id).key("stock")
    }

    /// `seckill:{vid}:buyers`: users who hold one of the sale's coupons.
    pub fn seckill_buyers(&self, voucher_id: i64) -> String {
        self.sale_stem(voucher_id).key("buyers")
    }

    /// `seckill:{vid}:window`: hash with `begin` and `end` in unix ms.
    pub fn seckill_window(&self, voucher_id: i64) -> String {
        self.sale_stem(voucher_id).key("window")
    }

    /// `seckill:{vid}:grabs`: hash of buyer → `<order id>:<ms>`, the grab that recorded them and when it ran.
    pub fn seckill_grabs(&self, voucher_id: i64) -> String {
        self.sale_stem(voucher_id).key("grabs")
    }

    /// `seckill:{vid}:tries:{user}`: one buyer's recent grab attempts on a sale (the attempt limit's window,
    /// kept under the sale's tag so the sale script can check it in the same call).
    pub fn seckill_tries(&self, voucher_id: i64, user_id: i64) -> String {
        self.sale_stem(voucher_id).tries(user_id)
    }

    /// `seckill:{vid}:pass:{token}`: a solved slider puzzle, good for one grab by the user it holds.
    pub fn seckill_pass(&self, voucher_id: i64, token: &str) -> String {
        self.sale_stem(voucher_id).key2("pass:", token)
    }

    /// `seckill:{vid}:puzzle:{nonce}`: a slider puzzle that was answered (each is answered once).
    pub fn seckill_puzzle(&self, voucher_id: i64, nonce: &str) -> String {
        self.sale_stem(voucher_id).key2("puzzle:", nonce)
    }

    /// `seckill:{vid}:released`: order ids whose grab was already given back (release once only).
    pub fn seckill_released(&self, voucher_id: i64) -> String {
        self.sale_stem(voucher_id).key("released")
    }

    /// `seckill:{vid}:announced`: present for a quiet spell after the sale's stock was announced (the
    /// sale's burst announces at most once per spell).
    pub fn seckill_announced(&self, voucher_id: i64) -> String {
        self.sale_stem(voucher_id).key("announced")
    }

    /// `rl:{scope}:{who}`: sliding-window rate-limit log.
    pub fn rate_limit(&self, scope: &str, who: &str) -> String {
        format!("{}rl:{scope}:{who}", self.prefix)
    }

    /// `geo:shops:{type}`: positions of one type's shops.
    pub fn geo_shops(&self, type_id: i64) -> String {
        format!("{}geo:shops:{type_id}", self.prefix)
    }

    /// `likes:{note}`: who liked a note, scored by when (ms).
    pub fn likes(&self, note_id: i64) -> String {
        format!("{}likes:{note_id}", self.prefix)
    }

    /// SCAN pattern of every note's likers.
    pub fn likes_pattern(&self) -> String {
        format!("{}likes:*", self.prefix)
    }

    /// `follows:{user}`: whom a user follows.
    pub fn follows(&self, user_id: i64) -> String {
        format!("{}follows:{user_id}", self.prefix)
    }

    /// SCAN pattern of every follow set.
    pub fn follows_pattern(&self) -> String {
        format!("{}follows:*", self.prefix)
    }

    /// `feed:{user}`: a user's inbox of notes by people they follow, scored by the note's time (ms).
    pub fn feed(&self, user_id: i64) -> String {
        format!("{}feed:{user_id}", self.prefix)
    }

    /// `checkin:{user}:{yyyymm}`: one bit per day of the month (bit 0 = the 1st).
    pub fn checkin(&self, user_id: i64, yyyymm: &str) -> String {
        format!("{}checkin:{user_id}:{yyyymm}", self.prefix)
    }
}

/// The keys each Lua script receives, in its `KEYS` order. A script's keys share one hash tag, so the
/// script runs on one Redis Cluster slot (`tests::every_script_stays_in_one_slot` checks each).
impl Keys {
    /// `lua/seckill.lua`: stock, buyers, window, grabs, this buyer's tries, the human-check pass, the
    /// announcement's quiet spell.
    pub fn grab_script<'a>(&self, voucher_id: i64, user_id: i64, pass: &'a str) -> GrabKeys<'a> {
        GrabKeys { sale: self.sale_stem(voucher_id), user_id, pass }
    }

    /// `lua/announce.lua`: stock, the announcement's quiet spell.
    pub fn announce_script(&self, voucher_id: i64) -> [String; 2] {
        [self.seckill_stock(voucher_id), self.seckill_announced(voucher_id)]
    }

    /// `lua/human_pass.lua`: the puzzle's spent marker, the pass it may mint.
    pub fn pass_script(&self, voucher_id: i64, nonce: &str, token: &str) -> [String; 2] {
        [self.seckill_puzzle(voucher_id, nonce), self.seckill_pass(voucher_id, token)]
    }

    /// `lua/release.lua`: stock, buyers, released orders.
    pub fn release_script(&self, voucher_id: i64) -> [String; 3] {
        [self.seckill_stock(voucher_id), self.seckill_buyers(voucher_id), self.seckill_released(voucher_id)]
    }

    /// `lua/restore_sale.lua`: stock, buyers, window, released orders.
    pub fn restore_script(&self, voucher_id: i64) -> [String; 4] {
        [
            self.seckill_stock(voucher_id),
            self.seckill_buyers(voucher_id),
            self.seckill_window(voucher_id),
            self.seckill_released(voucher_id),
        ]
    }

    /// Every key of one sale (its load and removal, and the grab audit's reads).
    pub fn sale(&self, voucher_id: i64) -> [String; 5] {
        [
            self.seckill_stock(voucher_id),
            self.seckill_buyers(voucher_id),
            self.seckill_window(voucher_id),
            self.seckill_released(voucher_id),
            self.seckill_grabs(voucher_id),
        ]
    }

    /// `lua/login_gate.lua`: the account's attempts from this address, and from anywhere.
    pub fn login_gate_script(&self, account: &str, ip: &str) -> [String; 2] {
        [self.login_pair(account, ip), self.login_account(account)]
    }

    /// `lua/code_send.lua`: the phone's code, its cool-down, and the day's count it is asked under (the phone's, or a
    /// known device's own).
    pub fn code_send_script(&self, phone: &str, device: Option<&str>) -> [String; 3] {
        let day = match device {
            Some(device) => self.login_code_day_on(phone, device),
            None => self.login_code_day(phone),
        };
        [self.login_code(phone), self.login_code_cooldown(phone), day]
    }
}

/// Unlinks every key matching `pattern` (on every primary of a cluster), a SCAN batch at a time.
pub async fn unlink_matching(
    redis: &crate::platform::redis_conn::Redis,
    pattern: &str,
) -> Result<(), redis::RedisError> {
    redis
        .scan_match(pattern, |batch| async move {
            let unlinks = batch.iter().map(|k| redis::cmd("UNLINK").arg(k).to_owned()).collect();
            crate::platform::redis_conn::per_slot(redis, unlinks, false).await.map(drop)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::redis_conn::slot;

    fn one_slot(keys: &[String]) -> bool {
        keys.windows(2).all(|w| slot(w[0].as_bytes()) == slot(w[1].as_bytes()))
    }

    #[test]
    fn a_grab_writes_its_key_names_into_the_command() {
        let k = Keys::new("test:8f2c:");
        let pass = "0123456789abcdef0123456789abcdef";
        let keys = k.grab_script(42, 13_800_000_002, pass);
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(&keys);
        let written: Vec<String> = cmd
            .args_iter()
            .skip(1)
            .filter_map(|arg| match arg {
                redis::Arg::Simple(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(written, keys.names());
        assert_eq!(written[0], "test:8f2c:seckill:{42}:stock");
        assert_eq!(written[4], "test:8f2c:seckill:{42}:tries:13800000002");
        assert_eq!(written[5], "test:8f2c:seckill:{42}:pass:0123456789abcdef0123456789abcdef");
        // The script's keys are the very keys the rest of the sale reads and writes (release, restore, audit).
        let each = [
            k.seckill_stock(42),
            k.seckill_buyers(42),
            k.seckill_window(42),
            k.seckill_grabs(42),
            k.seckill_tries(42, 13_800_000_002),
            k.seckill_pass(42, pass),
            k.seckill_announced(42),
        ];
        assert_eq!(written, each);
    }

    #[test]
    fn every_script_stays_in_one_slot() {
        for prefix in ["", "test:8f2c:", "e2e:"] {
            let k = Keys::new(prefix);
            for id in [1, 42, 9_007_199_254_740_993] {
                assert!(one_slot(&k.grab_script(id, 7, "-").names()), "grab {prefix}{id}");
                assert!(one_slot(&k.grab_script(id, 8, "0123456789abcdef0123456789abcdef").names()), "grab {id}");
                assert!(one_slot(&k.pass_script(id, "n0nce", "t0ken")), "pass {id}");
                assert!(one_slot(&k.release_script(id)), "release {id}");
                assert!(one_slot(&k.announce_script(id)), "announce {id}");
                assert!(one_slot(&k.restore_script(id)), "restore {id}");
                assert!(one_slot(&k.sale(id)), "sale {id}");
                assert!(one_slot(&k.uv_restore_script(&format!("shop:{id}"), "20261203")), "uv {id}");
                assert!(one_slot(&[k.shop(id), k.shop_epoch(id), k.shop_lock(id)]), "shop cache {id}");
            }
            assert!(one_slot(&k.uv_restore_script("site", "20261203")), "uv site");
            // Accounts and phones are user input: odd characters must not split a script's keys.
            for who in ["alice", "13800138000", "a}b", "{x", "}{", ""] {
                assert!(one_slot(&k.login_gate_script(who, "203.0.113.9")), "login gate {who:?}");
                assert!(one_slot(&k.login_gate_script(who, "2001:db8::1")), "login gate {who:?}");
                assert!(one_slot(&k.code_send_script(who, None)), "code {who:?}");
                assert!(one_slot(&k.code_send_script(who, Some("0a1b2c3d"))), "a device's code {who:?}");
            }
        }
    }
}
