#!/usr/bin/env bash
# Catalog benchmark: builds the server and the load generator in release mode, serves the demo data on
# 127.0.0.1:3100 (its own database and key namespace), runs bench-catalog against it and prints figures.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/setup.sh
bash scripts/services.sh
# The wasm/CSS bundle only matters for pages; the benchmark reads JSON. Build it if missing.
[ -f target/site/pkg/haodian.wasm ] || cargo leptos build
# cargo-leptos normally provides this at compile time; a plain cargo build must set it.
LEPTOS_OUTPUT_NAME=haodian timed "release build" cargo build --release -p server -p bench

DB="haodian_bench"
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $DB"
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB" REDIS_KEY_PREFIX="bench:" KAFKA_TOPIC_PREFIX="bench."
export LISTEN_ADDR="127.0.0.1:3100" RUST_LOG=warn
target/release/server seed --reset
target/release/server serve >"$RUN_DIR/bench-server.log" 2>&1 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true' EXIT
wait_port 3100 60 || die "server did not start"
BENCH_URL="http://127.0.0.1:3100" target/release/bench-catalog
