//! Logging: `tracing` with an env filter (`RUST_LOG`, default `info`).

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls (tests) are no-ops.
pub fn init() {
    // tower_sessions_core opens a span for every session read and logs each failed one as an error, which
    // the session store logs once already (`web::session`): a line per request while Redis is away.
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,rdkafka=warn,tower_sessions=warn,tower_sessions_core=off"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_target(false).try_init();
}
