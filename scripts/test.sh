#!/usr/bin/env bash
# README command 2: every test — Rust unit and integration tests against real Postgres, Redis and Kafka,
# then Playwright in Debian Chromium against a freshly built and seeded server.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/setup.sh
bash scripts/services.sh
ensure_disk

# sqlx::test creates a throw-away database per test from this server; Redis keys and Kafka topics get a
# unique prefix per test, so tests run in any order and in parallel.
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/haodian_test"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:9092}"
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='haodian_test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE haodian_test'

# Lints first, as they fail fastest: one format, and clippy clean on the server side and the wasm side.
timed "cargo fmt --check" cargo fmt --all --check
timed "clippy (ssr)" cargo clippy -p app -p server -p bench --all-targets --features app/ssr -- -D warnings
timed "clippy (hydrate)" cargo clippy -p app -p frontend --features app/hydrate --target wasm32-unknown-unknown -- -D warnings

timed "cargo test -p app" cargo test -p app --features ssr
timed "cargo test -p server" cargo test -p server
# The benchmarks' own arithmetic (Redis counters, the bundle's files per split).
timed "cargo test -p bench" cargo test -p bench --lib

# The same suites against a local Redis Cluster (6 nodes, scripts/cluster.sh): every script and pipeline
# must keep to one hash slot, SCAN must visit every primary, pub/sub must reach every instance.
CLUSTER_URL="$(bash scripts/cluster.sh redis)"
trap 'bash scripts/cluster.sh stop' EXIT
REDIS_URL="$CLUSTER_URL" timed "cargo test -p app (Redis Cluster)" cargo test -p app --features ssr
REDIS_URL="$CLUSTER_URL" timed "cargo test -p server (Redis Cluster)" cargo test -p server
bash scripts/cluster.sh stop
trap - EXIT

timed "cargo leptos build" cargo leptos build --split

# End-to-end: a dedicated database and key/topic namespace, reset to the demo state.
E2E_DB="haodian_e2e"
psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $E2E_DB WITH (FORCE)"
psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $E2E_DB"
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$E2E_DB"
export REDIS_KEY_PREFIX="e2e:"
export KAFKA_TOPIC_PREFIX="e2e."
# Ports of its own (3300, operators' 3301; the chaos suite takes 32xx and 42xx), so QA can run the tests
# while the demo site is up on 3000.
export LISTEN_ADDR="127.0.0.1:3300" ADMIN_ADDR="127.0.0.1:3301"
# Short enough for the browser tests to watch an unpaid order close, long enough to pay one by hand.
export PAY_TIMEOUT_SECS=8
# Every browser-test user comes from 127.0.0.1: one address's budgets (5 new accounts an hour…) would
# measure the budget, not the pages. server/tests/security.rs checks the budgets at their real size.
export ABUSE_LIMIT_FACTOR=50
# The code-login test reads the texted code where a developer would: the local outbox page.
export DEV_OUTBOX=true
port_open 3300 && die "port 3300 is taken: is another test run going on?"
target/site-dev/server seed --reset
target/site-dev/server serve >"$RUN_DIR/e2e-server.log" 2>&1 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true; wait $SERVER_PID 2>/dev/null || true' EXIT
wait_port 3300 60 || { tail -n 40 "$RUN_DIR/e2e-server.log" >&2; die "server did not start"; }

cd end2end
BASE_URL="http://127.0.0.1:3300" timed "playwright" npx playwright test
kill $SERVER_PID 2>/dev/null || true; wait $SERVER_PID 2>/dev/null || true
trap - EXIT

# Faults: a real sale on two instances through a broker kill, an instance kill, Redis and Postgres
# restarts and a writer dying mid-commit; prints its table and fails on any broken promise.
cd "$ROOT"
timed "chaos suite" bash scripts/chaos.sh

# Scale-out under faults: 5,000 shoppers through nginx and three instances on a Redis Cluster, with the
# sale's Redis primary and one instance killed mid-sale.
trap 'bash scripts/cluster.sh stop' EXIT
timed "cluster sale" bash scripts/cluster.sh sale
bash scripts/cluster.sh stop
trap - EXIT
