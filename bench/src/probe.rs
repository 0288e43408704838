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
    pub async fn read(conn: &mut app::redis_conn::Redis) -> Result<Self, String> {
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
/// then `GET` on the stock, and every one that takes a coupon runs `DECR` then `PUBLISH`; the other
/// commands it uses no client sends during a grab load (the session store sends `GET`, `SET` and
/// `PUBLISH`, which is why those two are inferred rather than read).
pub fn script_inner(d: &RedisCounters) -> u64 {
    const ONLY_THE_SCRIPT: [&str; 14] = [
        "time",
        "hmget",
        "sismember",
        "decr",
        "sadd",
        "hset",
        "pttl",
        "scard",
        "hlen",
        "pexpire",
        "zremrangebyscore",
        "zcard",
        "zrange",
        "zadd",
    ];
    ONLY_THE_SCRIPT.iter().map(|c| d.of(c)).sum::<u64>() + d.of("hmget") + d.of("decr")
}

/// `/proc/<pid>/stat`'s utime + stime, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    let after = stat.rsplit_once(')').map(|(_, r)| r).ok_or("malformed /proc stat")?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // `after` starts at field 3 (state): utime is field 14, stime 15.
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok()).ok_or("malformed /proc stat");
    Ok(field(14)? + field(15)?)
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

/// Each `.wasm` and `.js` file of the site's package directory: (name, bytes, bytes after `gzip -9`).
pub fn bundle(pkg_dir: &Path) -> Result<Vec<(String, u64, u64)>, String> {
    let mut out = Vec::new();
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
        out.push((name, raw, gz));
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn reads_this_process() {
        let pid = std::process::id();
        assert!(status_kb(pid, "VmHWM").unwrap() > 0);
        cpu_ticks(pid).unwrap();
    }
}
