#!/usr/bin/env bash
# Benchmarks: builds the server and the load generators in release mode, serves the demo data on
# 127.0.0.1:3100 (its own database, key and topic namespace) and runs them; each prints its figures.
# `scripts/bench.sh` runs them all; `scripts/bench.sh catalog`, `seckill` or `orders` runs one.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/setup.sh
bash scripts/services.sh
ensure_disk
# The wasm/CSS bundle only matters for pages; the benchmark reads JSON. Build it if missing.
[ -f target/site/pkg/haodian.wasm ] || cargo leptos build
# cargo-leptos normally provides this at compile time; a plain cargo build must set it.
LEPTOS_OUTPUT_NAME=haodian timed "release build" cargo build --release -p server -p bench

DB="haodian_bench"
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $DB"
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB" REDIS_KEY_PREFIX="bench:" KAFKA_TOPIC_PREFIX="bench."
# Every simulated buyer comes from 127.0.0.1: the per-IP limit would measure itself, not the sale.
export LISTEN_ADDR="127.0.0.1:3100" ADMIN_ADDR="127.0.0.1:3101" RUST_LOG=warn IP_RATE_LIMIT=100000000
# A thousand concurrent connections on each side need more than the default 1,024 descriptors.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
target/release/server seed --reset
target/release/server serve >"$RUN_DIR/bench-server.log" 2>&1 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true' EXIT
wait_port 3100 60 || die "server did not start"
export BENCH_URL="http://127.0.0.1:3100"
WHICH="${1:-all}"
if [ "$WHICH" = all ] || [ "$WHICH" = catalog ]; then target/release/bench-catalog; fi
if [ "$WHICH" = all ] || [ "$WHICH" = seckill ]; then target/release/bench-seckill; fi
if [ "$WHICH" = all ] || [ "$WHICH" = orders ]; then target/release/bench-orders; fi
