#!/usr/bin/env bash
# README command 2: every test — Rust unit and integration tests against real Postgres, Redis and Kafka,
# then Playwright in Debian Chromium against a freshly built and seeded server, then the fault suites.
#
#   scripts/test.sh         everything, as CI runs it (.ci/run)
#   scripts/test.sh rust    the lints and the Rust suites (single Redis, then a Redis Cluster)
#   scripts/test.sh e2e     builds the site, seeds a fresh database, starts a server and runs Playwright alone
#
# Each part says what it runs; every step logs its time, and a summary of them closes the run.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

MODE="${1:-all}"
case "$MODE" in
  all) log "scripts/test.sh: lints, Rust suites (single Redis and Redis Cluster), Playwright, chaos, cluster sale" ;;
  rust) log "scripts/test.sh rust: lints, then the app, server and bench suites on one Redis and on a Redis Cluster" ;;
  e2e) log "scripts/test.sh e2e: builds the site, seeds haodian_e2e, serves it on :3300, runs Playwright" ;;
  *) die "usage: scripts/test.sh [rust|e2e] (no argument: everything, as CI runs it)" ;;
esac
RUN_START=$SECONDS
trap 'log_summary' EXIT

if [ "$MODE" = e2e ]; then bash scripts/setup.sh build broker browser; else bash scripts/setup.sh; fi
bash scripts/services.sh
ensure_disk

# Lints first, as they fail fastest: one format, clippy clean on the server side and the wasm side, and the
# query metadata every build reads (.sqlx/, SQLX_OFFLINE in .cargo/config.toml) still what the migrations
# make of each query. The server-side clippy does both: its query macros ask a scratch database built from
# migrations/ (SQLX_OFFLINE=false) and write what they learn to a directory of their own
# (SQLX_OFFLINE_DIR, as `cargo sqlx prepare --check` has them do in a check build of its own), which must
# equal .sqlx/ file for file. On a difference run `cargo sqlx prepare` (README) and commit .sqlx/.
lints() {
  timed "cargo fmt --check" cargo fmt --all --check
  local sqlx_db="postgres://postgres@127.0.0.1:5432/haodian_sqlx"
  timed "sqlx scratch database" sqlx database reset -y -f --source migrations --database-url "$sqlx_db"
  local described="$TARGET/tmp/sqlx-described"
  rm -rf "$described" && mkdir -p "$described"
  # Macros run only when their crate is compiled: a newer lib.rs has every crate that uses app (all the
  # ones with queries) checked again, as `cargo sqlx prepare` does by touching them.
  touch app/src/lib.rs
  SQLX_OFFLINE=false SQLX_OFFLINE_DIR="$described" DATABASE_URL="$sqlx_db" timed "clippy (ssr), describing every query" \
    cargo clippy -p app -p server -p bench --all-targets --features app/ssr -- -D warnings
  timed "query metadata = .sqlx/" diff -r --brief .sqlx "$described" \
    || die ".sqlx/ differs from what the migrations make of the queries: run cargo sqlx prepare (README) and commit .sqlx/"
  timed "clippy (hydrate)" cargo clippy -p app -p frontend --features app/hydrate --target wasm32-unknown-unknown -- -D warnings
}

# The Rust suites, on one Redis and then on a Redis Cluster. sqlx::test creates a throw-away database per
# test from this server; Redis keys and Kafka topics get a unique prefix per test, so tests run in any
# order and in parallel: cargo-nextest runs every test in a process of its own, several at once
# (.config/nextest.toml says how many), so the tests' waits on timers and brokers overlap.
rust_suites() {
  local DATABASE_URL="postgres://postgres@127.0.0.1:5432/haodian_test"
  local REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
  local KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:9092}"
  export DATABASE_URL REDIS_URL KAFKA_BROKERS
  psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='haodian_test'" | grep -q 1 \
    || psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE haodian_test'

  # The hot standby the read-replica test reads from (scripts/cluster.sh replica: :5433, streaming from
  # :5432); the other tests read and write the primary alone.
  local replica_url
  replica_url="$(bash scripts/cluster.sh replica)"
  export TEST_REPLICA_URL="$replica_url"
  trap 'bash scripts/cluster.sh stop; log_summary' EXIT

  # One build and one pool of tests for the three crates (the bench crate's are the benchmarks' own
  # arithmetic: Redis counters, the bundle's files per split); built alone, bench resolved its dependencies'
  # features apart and compiled app a second time.
  timed "cargo nextest run -p app -p server -p bench" cargo nextest run -p app -p server -p bench --features app/ssr
  # What the fuzz harness sent each server function and route (server/tests/fuzz.rs writes a table per shard).
  cat "$TARGET"/tmp/fuzz-report-*.md 2>/dev/null || true

  # The same suites against a local Redis Cluster (6 nodes, scripts/cluster.sh): every script and pipeline
  # must keep to one hash slot, SCAN must visit every primary, pub/sub must reach every instance. The fuzz
  # harness's thousand inputs per function ran above; here a fifth of them, through the cluster.
  local cluster_url
  cluster_url="$(bash scripts/cluster.sh redis)"
  trap 'bash scripts/cluster.sh stop; log_summary' EXIT
  REDIS_URL="$cluster_url" FUZZ_CASES=200 timed "cargo nextest run -p app -p server -p bench (Redis Cluster)" \
    cargo nextest run -p app -p server -p bench --features app/ssr
  bash scripts/cluster.sh stop
  trap 'log_summary' EXIT
}

# End-to-end: the site built as the demo serves it, a dedicated database and key/topic namespace reset to
# the demo state, a server of its own, and the Playwright suite in Debian Chromium.
e2e() {
  build_for_runs
  local E2E_DB="haodian_e2e"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $E2E_DB WITH (FORCE)"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $E2E_DB"
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$E2E_DB"
  export REDIS_KEY_PREFIX="e2e:"
  export KAFKA_TOPIC_PREFIX="e2e."
  # Ports of its own (3300, operators' 3301; the chaos suite takes 32xx and 42xx), so QA can run the
  # tests while the demo site is up on 3000.
  export LISTEN_ADDR="127.0.0.1:3300" ADMIN_ADDR="127.0.0.1:3301"
  # Short enough for the browser tests to watch an unpaid order close, long enough to pay one by hand.
  export PAY_TIMEOUT_SECS=8
  # Every browser-test user comes from 127.0.0.1: one address's budgets (5 new accounts an hour…) would
  # measure the budget, not the pages. server/tests/security.rs checks the budgets at their real size.
  export ABUSE_LIMIT_FACTOR=50
  # The code-login test reads the texted code where a developer would: the local outbox page.
  export DEV_OUTBOX=true
  # The slider puzzle's gap is in its pixels only; the browser tests know where from this switch.
  export HUMAN_CHECK_FIXED_GAP=150
  port_open 3300 && die "port 3300 is taken: is another test run going on?"
  timed "seed" "$TARGET"/debug/server seed --reset
  "$TARGET"/debug/server serve >"$RUN_DIR/e2e-server.log" 2>&1 &
  SERVER_PID=$!
  trap 'kill $SERVER_PID 2>/dev/null || true; wait $SERVER_PID 2>/dev/null || true; log_summary' EXIT
  wait_port 3300 60 || { tail -n 40 "$RUN_DIR/e2e-server.log" >&2; die "server did not start"; }
  log "the server's log: $RUN_DIR/e2e-server.log; Playwright's screenshots: end2end/test-results/"
  timed "playwright" env -C end2end BASE_URL="http://127.0.0.1:3300" npx playwright test
  kill $SERVER_PID 2>/dev/null || true; wait $SERVER_PID 2>/dev/null || true
  trap 'log_summary' EXIT
}

# Faults: a real sale on two instances through a broker kill, an instance kill, Redis and Postgres
# restarts and a writer dying mid-commit; prints its table and fails on any broken promise. Then scale-out
# under faults: 5,000 shoppers through nginx and three instances on a Redis Cluster, with the sale's Redis
# primary and one instance killed mid-sale.
faults() {
  timed "chaos suite" bash scripts/chaos.sh
  trap 'bash scripts/cluster.sh stop; log_summary' EXIT
  timed "cluster sale" bash scripts/cluster.sh sale
  bash scripts/cluster.sh stop
  trap 'log_summary' EXIT
}

case "$MODE" in
  all) lints; rust_suites; e2e; faults ;;
  rust) lints; rust_suites ;;
  e2e) e2e ;;
esac
log "scripts/test.sh ${1:-}: passed in $((SECONDS - RUN_START)) s"
