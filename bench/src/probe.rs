//! The counters a benchmark reads around a run: Redis' `INFO` (commands by name, and in all), the server
//! process' CPU time and peak memory from `/proc`, and the size of the hydrate bundle as a browser
//! downloads it.

use std::collections::BTreeMap;
use std::path::Path;

/// Redis' command counters at one moment. Both count the commands a script runs as well as the script
/// call itself (`total_commands_processed` included: checked against Redis 7.0, an `EVAL` of a script
/// making three calls adds four).
#[derive(Debug, Clone, Default)]
pub struct RedisCounters {
    /// `total_commands_processed`.
    pub total: u64,
    /// Calls per command (`cmdstat_evalsha` → `evalsha`).
    pub calls: BTreeMap<String, u64>,
}

impl RedisCounters {
    /// Reads them (one `INFO stats commandstats`).
    pub async fn read(conn: &mut app::platform::redis_conn::Redis) -> Result<Self, String> {
        let text: String =
            redis::cmd("INFO").arg("stats").arg("commandstats").query_async(conn).await.map_err(|e| e.to_string())?;
        Ok(Self::parse(&text))
    }

    /// Reads the counters out of `INFO` text.
    pub fn parse(text: &str) -> Self {
        let mut out = Self::default();
        for line in text.lines() {
            if let Some(n) = line.strip_prefix("total_commands_processed:") {
                out.total = n.trim().parse().unwrap_or(0);
            } else if let Some((name, rest)) = line.strip_prefix("cmdstat_").and_then(|l| l.split_once(':')) {
                let calls = rest.split(',').find_map(|kv| kv.strip_prefix("calls=")?.parse().ok()).unwrap_or(0);
                out.calls.insert(name.to_string(), calls);
            }
        }
        out
    }

    /// What happened between `before` and `self`.
    pub fn since(&self, before: &Self) -> Self {
        let calls = self
            .calls
            .iter()
            .map(|(k, v)| (k.clone(), v.saturating_sub(before.calls.get(k).copied().unwrap_or(0))))
            .filter(|(_, v)| *v > 0)
            .collect();
        Self { total: self.total.saturating_sub(before.total), calls }
    }

    /// Calls of `name` (lower case).
    pub fn of(&self, name: &str) -> u64 {
        self.calls.get(name).copied().unwrap_or(0)
    }
}

/// Of a delta over grabs only: the commands `lua/seckill.lua` ran inside Redis, counted from the calls
/// only the script makes on the grab path. Every execution that gets past the attempt limit runs `HMGET`
/// then `GET` on the stock, and every one that takes a coupon runs `DECR` then announces (`PUBLISH`)
/// unless its `PTTL` found an announcement less than a quiet spell old — those set the spell again with
/// `PSETEX` instead — and the last coupon's always does; the other commands it uses no client sends during
/// a grab load (the session store sends `GET`, `SET` and `PUBLISH`, which is why those two are inferred
/// rather than read). What the trailing announcement (`lua/announce.lua`) runs counts as the clients'.
pub fn script_inner(d: &RedisCounters) -> u64 {
    let announced = d.of("decr").saturating_sub(d.of("pttl").saturating_sub(d.of("psetex")));
    ONLY_THE_SCRIPT.iter().map(|c| d.of(c)).sum::<u64>() + d.of("hmget") + announced
}

/// The commands `lua/seckill.lua` runs that no client sends during a grab load.
const ONLY_THE_SCRIPT: [&str; 17] = [
    "time",
    "hmget",
    "hget",
    "sismember",
    "decr",
    "sadd",
    "hset",
    "scard",
    "hlen",
    "pexpire",
    "zremrangebyscore",
    "zcard",
    "zrange",
    "zadd",
    "pexpiretime",
    "pttl",
    "psetex",
];

/// `/proc/<pid>/stat`'s numeric fields `wanted` (numbered as proc(5) numbers them, from 3 on).
fn stat_fields<const N: usize>(pid: u32, wanted: [usize; N]) -> Result<[u64; N], String> {
    stat_fields_at(&format!("/proc/{pid}/stat"), wanted)
}

/// [`stat_fields`] of the `stat` file at `path` (a process' or one of its threads').
fn stat_fields_at<const N: usize>(path: &str, wanted: [usize; N]) -> Result<[u64; N], String> {
    let stat = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    let after = stat.rsplit_once(')').map(|(_, r)| r).ok_or("malformed /proc stat")?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let mut out = [0; N];
    for (slot, n) in out.iter_mut().zip(wanted) {
        // `after` starts at field 3 (state).
        *slot = fields.get(n - 3).and_then(|f| f.parse::<u64>().ok()).ok_or("malformed /proc stat")?;
    }
    Ok(out)
}

/// A process' CPU time by kind of thread, user and system apart, in clock ticks: where a request's time
/// goes (tokio's workers, librdkafka's threads, the kernel on their behalf) when the total alone does not
/// say. Threads are grouped by name with a trailing number dropped (`rdk:broker12` is an `rdk:broker`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadCpu {
    /// (user, system) by kind of thread, of the threads alive when read.
    pub kinds: BTreeMap<String, (u64, u64)>,
    /// (user, system) of the whole process, threads that have ended included.
    pub total: (u64, u64),
}

impl ThreadCpu {
    /// Reads `/proc/<pid>/stat` and each `/proc/<pid>/task/*/stat`.
    pub fn read(pid: u32) -> Result<Self, String> {
        let [user, system] = stat_fields(pid, [14, 15])?;
        let mut kinds = BTreeMap::new();
        let dir = format!("/proc/{pid}/task");
        for entry in std::fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))?.flatten() {
            let path = entry.path().join("stat");
            // A thread that ended since the listing is counted in the process' total only.
            let (Ok(comm), Ok([u, s])) =
                (std::fs::read_to_string(entry.path().join("comm")), stat_fields_at(&path.to_string_lossy(), [14, 15]))
            else {
                continue;
            };
            let kind = comm.trim().trim_end_matches(|c: char| c.is_ascii_digit() || c == '-').to_string();
            let slot: &mut (u64, u64) = kinds.entry(kind).or_default();
            *slot = (slot.0 + u, slot.1 + s);
        }
        Ok(Self { kinds, total: (user, system) })
    }

    /// What was spent between `before` and `self`; threads that ended in between are `(ended)`.
    pub fn since(&self, before: &Self) -> Self {
        let mut kinds = BTreeMap::new();
        for (kind, &(u, s)) in &self.kinds {
            let (bu, bs) = before.kinds.get(kind).copied().unwrap_or_default();
            kinds.insert(kind.clone(), (u.saturating_sub(bu), s.saturating_sub(bs)));
        }
        let total = (self.total.0.saturating_sub(before.total.0), self.total.1.saturating_sub(before.total.1));
        let (seen_u, seen_s) = kinds.values().fold((0, 0), |(a, b), &(u, s)| (a + u, b + s));
        let ended = (total.0.saturating_sub(seen_u), total.1.saturating_sub(seen_s));
        if ended != (0, 0) {
            kinds.insert("(ended)".to_string(), ended);
        }
        kinds.retain(|_, &mut (u, s)| u + s > 0);
        Self { kinds, total }
    }

    /// One line per kind of thread (and the total): µs of user and system time per request of `requests`.
    pub fn per_request(&self, requests: f64) -> Vec<String> {
        let tick = micros_per_tick();
        let us = |ticks: u64| ticks as f64 * tick / requests.max(1.0);
        let line = |name: &str, (u, s): (u64, u64)| {
            format!("{name:<20} {:>7.1} µs  (user {:>6.1}, system {:>6.1})", us(u + s), us(u), us(s))
        };
        let mut lines = vec![line("all threads", self.total)];
        lines.extend(self.kinds.iter().map(|(kind, &t)| line(&format!("  {kind}"), t)));
        lines
    }
}

/// `/proc/<pid>/stat`'s utime + stime, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let [utime, stime] = stat_fields(pid, [14, 15])?;
    Ok(utime + stime)
}

/// The whole machine's CPU from `/proc/stat`'s first line, in clock ticks summed over its cores: time
/// busy (everything but idle and I/O wait) and time in all.
#[derive(Debug, Clone, Copy, Default)]
pub struct MachineCpu {
    /// Ticks spent running anything.
    pub busy: u64,
    /// Ticks in all, idle included.
    pub total: u64,
}

impl MachineCpu {
    /// Reads them now.
    pub fn read() -> Result<Self, String> {
        let stat = std::fs::read_to_string("/proc/stat").map_err(|e| format!("/proc/stat: {e}"))?;
        let ticks: Vec<u64> = stat
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("cpu "))
            .ok_or("/proc/stat: no cpu line")?
            .split_whitespace()
            .map(|t| t.parse().map_err(|e| format!("/proc/stat: {t}: {e}")))
            .collect::<Result<_, String>>()?;
        // user nice system idle iowait irq softirq steal …
        let idle = ticks.get(3).copied().unwrap_or(0) + ticks.get(4).copied().unwrap_or(0);
        let total = ticks.iter().take(8).sum::<u64>();
        Ok(Self { busy: total.saturating_sub(idle), total })
    }

    /// What happened between `before` and `self`.
    pub fn since(&self, before: &Self) -> Self {
        Self { busy: self.busy.saturating_sub(before.busy), total: self.total.saturating_sub(before.total) }
    }
}

/// Every live process' CPU (utime + stime, clock ticks) summed by program (see [`program_of`]): who else
/// the machine ran while a phase ran. A process that ended between two readings drops out of the later one.
pub fn cpu_by_program() -> Result<BTreeMap<String, u64>, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").map_err(|e| format!("/proc: {e}"))?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let Ok([utime, stime]) = stat_fields(pid, [14, 15]) else { continue };
        let comm = &stat[open + 1..close];
        let title = if comm == "postgres" {
            std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()
        } else {
            Vec::new()
        };
        *out.entry(program_of(comm, &String::from_utf8_lossy(&title))).or_default() += utime + stime;
    }
    Ok(out)
}

/// The program a process counts under in [`cpu_by_program`]: its command name (`server`, `bench-seckill`,
/// `redis-server`, the broker), except for two kinds whose name alone misleads. A Postgres backend counts
/// under its database (`postgres haodian_bench`, from its process `title`), so our orders and the broker's
/// storage on the same server are told apart; Postgres' own processes (checkpointer, WAL writer) count as
/// `postgres`. The kernel's workers count together as `kernel workers`: a worker's name changes with the
/// work it runs (`kworker/u8:0-ext4-rsv-conversion`), so keyed by name, its whole lifetime's time would
/// land in a phase it was renamed in.
pub fn program_of(comm: &str, title: &str) -> String {
    if comm.starts_with("kworker/") {
        return "kernel workers".into();
    }
    if comm != "postgres" {
        return comm.into();
    }
    // "postgres: 15/main: postgres haodian_bench 127.0.0.1(41234) idle" (Debian's cluster name may be
    // absent elsewhere: "postgres: postgres haodian_bench [local] idle"); a backend's client address
    // follows its user and database, which Postgres' own processes do not have.
    let words: Vec<&str> = title.split_whitespace().collect();
    let client = words.iter().position(|w| w.contains('(') || *w == "[local]");
    match client {
        Some(i) if i >= 2 => format!("postgres {}", words[i - 1]),
        _ => "postgres".into(),
    }
}

/// The CPU, in clock ticks, that the live backends of the Postgres server whose postmaster is `postmaster`
/// have spent serving database `database` (each backend's process title names its database, so the broker's
/// storage and other databases on the same server are left out). An application's pool keeps its
/// connections, so its backends live through a run.
pub fn backends_cpu_ticks(postmaster: u32, database: &str) -> Result<u64, String> {
    let mut total = 0;
    for entry in std::fs::read_dir("/proc").map_err(|e| format!("/proc: {e}"))?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        // A process that ended since the listing is skipped, as is anything not the postmaster's child.
        let Ok([ppid, utime, stime]) = stat_fields(pid, [4, 14, 15]) else { continue };
        if ppid != u64::from(postmaster) {
            continue;
        }
        // "postgres: 15/main: postgres haodian_city 127.0.0.1(5432) idle"
        let title = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&title).split_whitespace().any(|w| w == database) {
            total += utime + stime;
        }
    }
    Ok(total)
}

/// The postmaster of the Postgres server `db` connects to, and the database's name: the parent of one of
/// the pool's backends.
pub async fn postmaster_of(db: &sqlx::PgPool) -> Result<(u32, String), String> {
    let (backend, database): (i32, String) = sqlx::query_as("SELECT pg_backend_pid(), current_database()")
        .fetch_one(db)
        .await
        .map_err(|e| format!("the backend's pid: {e}"))?;
    let [ppid] = stat_fields(backend as u32, [4])?;
    Ok((ppid as u32, database))
}

/// Microseconds per clock tick (`getconf CLK_TCK`; 100 Hz if that cannot be asked).
pub fn micros_per_tick() -> f64 {
    let hz = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<f64>().ok())
        .unwrap_or(100.0);
    1e6 / hz
}

/// A `/proc/<pid>/status` figure in kB (`VmHWM`: peak resident set; `VmRSS`: now).
pub fn status_kb(pid: u32, field: &str) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':')?.trim().strip_suffix("kB")?.trim().parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

/// The hydrate bundle as `cargo leptos build --split` leaves it: the shell every page loads first (the
/// runtime and the islands compiled into it), and per lazily loaded island (`#[island(lazy)]`, a split
/// named `{island}_loader`) the files it loads beyond the shell, as named by `__wasm_split_manifest.json`.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Bundle {
    /// Every `.wasm` and `.js` file of the package directory: name → (bytes, bytes after `gzip -9`).
    pub files: BTreeMap<String, (u64, u64)>,
    /// Split → the wasm files it loads beyond the shell (its own and the chunks it shares).
    pub splits: BTreeMap<String, Vec<String>>,
}

/// The islands a page's HTML holds, by component name (`FlashSaleCard`), each once.
pub fn islands_in(html: &str) -> Vec<String> {
    let mut found: Vec<String> = html
        .split("<leptos-island data-component=\"")
        .skip(1)
        .filter_map(|rest| {
            let id = rest.split('"').next()?;
            // `FlashSaleCard_1234…`: the name, then a hash of the island's source.
            Some(id.rsplit_once('_').map_or(id, |(name, _)| name).to_owned())
        })
        .collect();
    found.sort();
    found.dedup();
    found
}

/// `FlashSaleCard` → `flash_sale_card_loader`, the split a lazy island's code is in.
fn split_of(island: &str) -> String {
    let mut snake = String::new();
    for (i, c) in island.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake + "_loader"
}

impl Bundle {
    /// Reads the package directory (the files and, when the build was split, its manifest).
    pub fn read(pkg_dir: &Path) -> Result<Self, String> {
        let mut bundle = Bundle::default();
        let entries = std::fs::read_dir(pkg_dir).map_err(|e| format!("{}: {e}", pkg_dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !(name.ends_with(".wasm") || name.ends_with(".js")) {
                continue;
            }
            let raw = entry.metadata().map_err(|e| e.to_string())?.len();
            let gz = std::process::Command::new("gzip")
                .args(["-9", "-c"])
                .arg(&path)
                .output()
                .map_err(|e| format!("gzip: {e}"))?
                .stdout
                .len() as u64;
            bundle.files.insert(name, (raw, gz));
        }
        if let Ok(manifest) = std::fs::read_to_string(pkg_dir.join("__wasm_split_manifest.json")) {
            let splits: BTreeMap<String, Vec<String>> =
                serde_json::from_str(&manifest).map_err(|e| format!("__wasm_split_manifest.json: {e}"))?;
            bundle.splits = Self::splits_of(splits);
        }
        Ok(bundle)
    }

    /// The manifest's splits by name (`shop_page_2763…` → `shop_page`), each with its files.
    fn splits_of(manifest: BTreeMap<String, Vec<String>>) -> BTreeMap<String, Vec<String>> {
        manifest
            .into_iter()
            .map(|(key, modules)| {
                let name = key.rsplit_once('_').map_or(key.as_str(), |(name, _hash)| name).to_owned();
                (name, modules.iter().map(|m| format!("{m}.wasm")).collect())
            })
            .collect()
    }

    /// The files every page loads before its own: the wasm-bindgen module, its wasm and the split loader
    /// (every file but the split-off modules, which are named `split_…` and `chunk_…`).
    pub fn shell(&self) -> Vec<&str> {
        self.files
            .keys()
            .map(String::as_str)
            .filter(|f| !(f.ends_with(".wasm") && (f.starts_with("split_") || f.starts_with("chunk_"))))
            .collect()
    }

    /// Gzipped bytes of these files.
    pub fn gz(&self, files: &[&str]) -> u64 {
        files.iter().filter_map(|f| self.files.get(*f)).map(|(_, gz)| gz).sum()
    }

    /// Gzipped bytes a first visit to a page with these islands downloads: the shell, and the files of
    /// each lazy island's split (an island compiled into the shell adds nothing).
    pub fn first_load(&self, islands: &[String]) -> u64 {
        let mut files = self.shell();
        for island in islands {
            if let Some(split) = self.splits.get(&split_of(island)) {
                files.extend(split.iter().map(String::as_str));
            }
        }
        files.sort_unstable();
        files.dedup();
        self.gz(&files)
    }

    /// Gzipped bytes of every file: what a visitor of every page ends up with.
    pub fn total(&self) -> u64 {
        self.files.values().map(|(_, gz)| gz).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_s_time_is_counted_under_its_kind() {
        let before = ThreadCpu::read(std::process::id()).unwrap();
        let during_before = before.clone();
        std::thread::Builder::new()
            .name("spinner-7".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                let mut x = 0u64;
                while started.elapsed() < std::time::Duration::from_millis(150) {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                }
                // Read while the thread lives, so its time is its kind's, not "(ended)".
                let during = ThreadCpu::read(std::process::id()).unwrap().since(&during_before);
                let (user, system) = during.kinds.get("spinner").copied().unwrap_or_default();
                assert!(user >= 5, "150 ms spun, {user} ticks counted: {during:?}");
                // The kernel splits the process' run time between user and system by its own samples of
                // every thread, so only the sum covers the thread's; each of the four readings rounds down
                // to a tick, which the difference can lose twice.
                assert!(during.total.0 + during.total.1 + 2 >= user + system, "{during:?}");
            })
            .unwrap()
            .join()
            .unwrap();
        let after = ThreadCpu::read(std::process::id()).unwrap().since(&before);
        assert!(after.kinds.get("(ended)").is_some_and(|&(u, _)| u >= 5), "{after:?}");
    }

    #[test]
    fn postgres_backends_count_under_their_database_and_kernel_workers_together() {
        let debian = "postgres: 15/main: postgres haodian_bench 127.0.0.1(41234) idle";
        assert_eq!(program_of("postgres", debian), "postgres haodian_bench");
        assert_eq!(program_of("postgres", "postgres: postgres nisshi_bench [local] INSERT"), "postgres nisshi_bench");
        assert_eq!(program_of("postgres", "postgres: 15/main: checkpointer "), "postgres");
        assert_eq!(program_of("postgres", "postgres: 15/main: walwriter "), "postgres");
        assert_eq!(program_of("postgres", "/usr/lib/postgresql/15/bin/postgres -D /var/lib/x"), "postgres");
        assert_eq!(program_of("kworker/u8:0-ext4-rsv-conversion", ""), "kernel workers");
        assert_eq!(program_of("kworker/1:1-events", ""), "kernel workers");
        assert_eq!(program_of("redis-server", ""), "redis-server");
    }

    #[test]
    fn reads_info_counters_and_their_difference() {
        let before = RedisCounters::parse(
            "# Stats\r\ntotal_commands_processed:10\r\n# Commandstats\r\ncmdstat_evalsha:calls=2,usec=9,usec_per_call=4.50,rejected_calls=0,failed_calls=0\r\n",
        );
        let after = RedisCounters::parse(
            "total_commands_processed:31\r\ncmdstat_evalsha:calls=5,usec=20\r\ncmdstat_time:calls=3,usec=1\r\ncmdstat_client|list:calls=1,usec=1\r\n",
        );
        let d = after.since(&before);
        assert_eq!((d.total, d.of("evalsha"), d.of("time"), d.of("client|list"), d.of("get")), (21, 3, 3, 1, 0));
    }

    #[test]
    fn script_commands_count_get_and_publish_once_per_hmget_and_decr() {
        let d = RedisCounters::parse(
            "cmdstat_time:calls=4\ncmdstat_hmget:calls=4\ncmdstat_get:calls=9\ncmdstat_decr:calls=3\ncmdstat_publish:calls=8\n",
        );
        assert_eq!(script_inner(&d), 4 + 4 + 4 + 3 + 3);
    }

    #[test]
    fn the_script_only_list_is_exactly_the_sale_scripts_commands() {
        let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../lua/seckill.lua")).unwrap();
        let called: std::collections::BTreeSet<String> = script
            .split("redis.call(")
            .skip(1)
            // A command named by a literal: `redis.call('DECR', …)`.
            .filter_map(|call| Some(call.strip_prefix(['\'', '"'])?.split(['\'', '"']).next()?.to_lowercase()))
            .collect();
        assert!(called.len() > 10, "found only {called:?} in lua/seckill.lua");
        // GET is inferred (the session store sends it too); DEL and PEXPIREAT run only when a sale is set up.
        let elsewhere = ["get", "del", "pexpireat"];
        for command in &called {
            assert!(
                ONLY_THE_SCRIPT.contains(&command.as_str()) || elsewhere.contains(&command.as_str()),
                "lua/seckill.lua runs {command}, which script_inner does not count"
            );
        }
        for command in ONLY_THE_SCRIPT {
            assert!(called.contains(command), "script_inner counts {command}, which lua/seckill.lua never runs");
        }
    }

    #[test]
    fn reads_this_process() {
        let pid = std::process::id();
        assert!(status_kb(pid, "VmHWM").unwrap() > 0);
        cpu_ticks(pid).unwrap();
    }

    #[test]
    fn a_page_loads_the_shell_and_its_lazy_islands_files_only() {
        let dir = std::env::temp_dir().join(format!("bench-bundle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, bytes: usize| std::fs::write(dir.join(name), vec![b'a'; bytes]).unwrap();
        for (name, bytes) in [
            ("haodian.js", 10),
            ("haodian.wasm", 20),
            ("__wasm_split.______________________.js", 5),
            ("chunk_1.wasm", 1000),
            ("chunk_2.wasm", 2000),
            ("split_note_view_loader_42.wasm", 300),
            ("split_coupons_console_loader_42.wasm", 400),
        ] {
            write(name, bytes);
        }
        std::fs::write(dir.join("haodian.css"), "body{}").unwrap();
        std::fs::write(
            dir.join("__wasm_split_manifest.json"),
            r#"{"note_view_loader_42":["chunk_1","split_note_view_loader_42"],
                "coupons_console_loader_42":["chunk_1","chunk_2","split_coupons_console_loader_42"]}"#,
        )
        .unwrap();
        let bundle = Bundle::read(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();

        assert_eq!(bundle.splits.keys().collect::<Vec<_>>(), ["coupons_console_loader", "note_view_loader"]);
        assert_eq!(bundle.shell(), ["__wasm_split.______________________.js", "haodian.js", "haodian.wasm"]);
        let shell = bundle.gz(&bundle.shell());
        let page = |html: &str| bundle.first_load(&islands_in(html));
        // Islands in the shell cost nothing more; a lazy one adds its split; shared chunks count once.
        assert_eq!(page(r#"<p>static</p><leptos-island data-component="UserMenu_99" data-props="{}">"#), shell);
        assert_eq!(
            page(
                r#"<leptos-island data-component="NoteView_1"></leptos-island><leptos-island data-component="NoteView_1">"#
            ),
            shell + bundle.gz(&["chunk_1.wasm", "split_note_view_loader_42.wasm"])
        );
        assert_eq!(
            page(r#"<leptos-island data-component="NoteView_1"><leptos-island data-component="CouponsConsole_7">"#),
            shell
                + bundle.gz(&[
                    "chunk_1.wasm",
                    "chunk_2.wasm",
                    "split_note_view_loader_42.wasm",
                    "split_coupons_console_loader_42.wasm"
                ])
        );
        // Every wasm and JS file, the stylesheet not.
        assert_eq!(bundle.files.len(), 7);
        assert_eq!(
            bundle.total(),
            page(r#"<leptos-island data-component="NoteView_1"><leptos-island data-component="CouponsConsole_7">"#)
        );
    }
}
