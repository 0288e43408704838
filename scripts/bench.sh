#!/usr/bin/env bash
# Benchmarks: builds the server and the load generators in release mode, serves the demo data on
# 127.0.0.1:3100 (its own database, key and topic namespace) and runs them; each prints its figures.
# `scripts/bench.sh` runs them all; `scripts/bench.sh catalog`, `seckill`, `orders`, `reviews` or `budget` runs one
# (`budget`: the shop page's cold load in Chromium, a Lighthouse-style table — end2end/budget.mjs).
# `scripts/bench.sh scale` (not part of "all") runs the server on a local Redis Cluster (scripts/cluster.sh)
# and measures one sale against 8 (docs/scaling.md), with grabs waiting for a Redis replica and without.
# `scripts/bench.sh city` (not part of "all") measures the demo city's pages, then the same pages of a city of
# a million shops (`server city`: its own database haodian_city and key prefix, built once and kept; a
# build takes minutes; CITY_SCALE=0.01 builds a hundredth to try it) and prints how much each grew; then it
# measures the city again with its reads on a hot standby (scripts/cluster.sh replica) and prints the
# primary's share of the databases' CPU.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/setup.sh
bash scripts/setup.sh bench
bash scripts/services.sh
ensure_disk
WHICH="${1:-all}"
# The release site: the hydrate bundle a browser downloads (bench-seckill weighs it, gzipped; the budget
# loads it) and the CSS. The other benchmarks read JSON and HTML only.
case "$WHICH" in
  all|seckill|budget|scale)
    timed "release site build" cargo leptos build --release --split --precompress --frontend-only ;;
esac
timed "release build" cargo build --release -p server -p bench

DB="haodian_bench"
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $DB"
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB" REDIS_KEY_PREFIX="bench:" KAFKA_TOPIC_PREFIX="bench."
# Every simulated buyer comes from 127.0.0.1: the per-IP limits (the grab's, and the searches' and the
# other actions') would measure themselves, not the server.
export LISTEN_ADDR="127.0.0.1:3100" ADMIN_ADDR="127.0.0.1:3101" RUST_LOG=warn IP_RATE_LIMIT=100000000 ABUSE_LIMIT_FACTOR=100000
# A thousand concurrent connections on each side need more than the default 1,024 descriptors.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
"$TARGET"/release/server seed --reset
SERVER_PID=
WORKER_PID=
stop_server() {
  for pid in $SERVER_PID $WORKER_PID; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SERVER_PID= WORKER_PID=
  unset BENCH_WORKER_PID
}
# Starts the server (extra settings as arguments, e.g. GRAB_ADMIT_PER_SEC=3000) and exports its pid for the
# benchmarks that read its CPU time and memory from /proc.
start_server() {
  env "$@" "$TARGET"/release/server serve >>"$RUN_DIR/bench-server.log" 2>&1 &
  SERVER_PID=$!
  export BENCH_SERVER_PID=$SERVER_PID
  wait_port 3100 60 || die "server did not start"
}
# The same as two processes, as a deployment that keeps its web instances for requests runs them: `server
# web` on 3100 and `server work` (the orders' writing, closing and the sweeps; health on 3102) beside it.
start_web_and_worker() {
  env "$@" ADMIN_ADDR="127.0.0.1:3102" "$TARGET"/release/server work >>"$RUN_DIR/bench-worker.log" 2>&1 &
  WORKER_PID=$!
  export BENCH_WORKER_PID=$WORKER_PID
  env "$@" "$TARGET"/release/server web >>"$RUN_DIR/bench-server.log" 2>&1 &
  SERVER_PID=$!
  export BENCH_SERVER_PID=$SERVER_PID
  wait_port 3100 60 || die "server did not start"
  wait_port 3102 60 || die "worker did not start"
}
# The benchmarks' own broker: Nisshi optimised as a release is (setup.sh's bench part) on 9094. The tests'
# broker on 9092 is built for a newcomer's first wait, and its unoptimised libraries took more of the two
# cores than the server did; the benchmarks measure our code beside a broker built as one in production
# would be (docs/benchmarks.md, "the broker as a release is"). Its storage is emptied for each run:
# `seed --reset` empties the orders, and the last run's close checks, due 15 minutes after its grabs, would
# otherwise fall due in this one (95,399 closes of orders that no longer existed, in one run).
BROKER_DB="nisshi_bench"
BROKER_PID=
start_broker() {
  port_open 9094 && die "something already listens on 127.0.0.1:9094 (a broker left by an earlier run?)"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $BROKER_DB WITH (FORCE)"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $BROKER_DB"
  mkdir -p "$RUN_DIR/nisshi-bench"
  echo "# Written by scripts/bench.sh" >"$RUN_DIR/nisshi-bench/.env"
  (
    cd "$RUN_DIR/nisshi-bench"
    exec "$NISSHI_RELEASE_ROOT/bin/nisshi" broker --group-initial-rebalance-delay 250ms \
      --listener-url tcp://127.0.0.1:9094 --advertised-listener-url tcp://127.0.0.1:9094 \
      --storage-engine "postgres://postgres:postgres@127.0.0.1/$BROKER_DB?sslmode=disable"
  ) >"$RUN_DIR/nisshi-bench.log" 2>&1 &
  BROKER_PID=$!
  wait_port 9094 30 || { tail -n 20 "$RUN_DIR/nisshi-bench.log" >&2; die "the benchmarks' broker did not start"; }
}
finish() {
  stop_server
  [ -z "$BROKER_PID" ] || { kill "$BROKER_PID" 2>/dev/null || true; wait "$BROKER_PID" 2>/dev/null || true; }
}
trap finish EXIT
start_broker
export KAFKA_BROKERS="127.0.0.1:9094"
: >"$RUN_DIR/bench-server.log"
start_server
export BENCH_URL="http://127.0.0.1:3100"
if [ "$WHICH" = all ] || [ "$WHICH" = catalog ]; then "$TARGET"/release/bench-catalog; fi
if [ "$WHICH" = all ] || [ "$WHICH" = seckill ]; then
  # Closed loop first, with the default token bucket (20,000/s: far above what 2 cores take, so it sheds
  # nothing and the figure is the capacity). Then the open loop and the overload against the server
  # restarted with the bucket at that capacity (bench-seckill writes it down), then shed grabs against it
  # restarted with a bucket of one a second. The last phase prints the table.
  # The grab is measured on a `server web` with its orders written by a `server work` beside it: the web
  # instance's CPU per grab is the request's alone, the worker's per order is printed beside it.
  # SECKILL_ONE_PROCESS=1 measures one `server serve` doing both, as before.
  export BENCH_STATE="$RUN_DIR/bench-seckill.json"
  start_sale_server() {
    stop_server
    if [ "${SECKILL_ONE_PROCESS:-0}" = 1 ]; then start_server "$@"; else start_web_and_worker "$@"; fi
  }
  start_sale_server
  BENCH_TABLE_LATER=1 "$TARGET"/release/bench-seckill closed
  # The floor under point 1: the same grab service on a bare axum server (bench/src/floor.rs), set beside
  # the closed loop's figures while the sale's server idles.
  "$TARGET"/release/bench-floor
  ADMIT="$(sed -n 's/.*"admit_per_sec": *\([0-9]*\).*/\1/p' "$BENCH_STATE")"
  [ -n "$ADMIT" ] || die "no admit_per_sec in $BENCH_STATE"
  log "restarting the server with GRAB_ADMIT_PER_SEC=$ADMIT for the open loop and the overload"
  start_sale_server GRAB_ADMIT_PER_SEC="$ADMIT"
  BENCH_TABLE_LATER=1 "$TARGET"/release/bench-seckill open
  log "restarting the server with GRAB_ADMIT_PER_SEC=1 for the shed grabs"
  start_sale_server GRAB_ADMIT_PER_SEC=1
  "$TARGET"/release/bench-seckill shed
  stop_server
  start_server
fi
if [ "$WHICH" = all ] || [ "$WHICH" = orders ]; then "$TARGET"/release/bench-orders; fi
if [ "$WHICH" = all ] || [ "$WHICH" = reviews ]; then "$TARGET"/release/bench-reviews; fi
if [ "$WHICH" = all ] || [ "$WHICH" = budget ]; then (cd end2end && node budget.mjs); fi
if [ "$WHICH" = city ]; then
  export BENCH_STATE_DIR="$RUN_DIR"
  "$TARGET"/release/bench-city measure demo
  stop_server
  CITY_DB="haodian_city"
  psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$CITY_DB'" | grep -q 1 \
    || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $CITY_DB"
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$CITY_DB" REDIS_KEY_PREFIX="city:" KAFKA_TOPIC_PREFIX="city."
  WANT_SHOPS="$(awk -v f="${CITY_SCALE:-1}" 'BEGIN { printf "%d", 1000000 * f + 0.5 }')"
  HAVE_SHOPS="$(psql -h 127.0.0.1 -U postgres -d "$CITY_DB" -tAc "SELECT count(*) FROM shops" 2>/dev/null || echo 0)"
  # A city left half-built (or of another size) is built again from the demo.
  if [ "${HAVE_SHOPS:-0}" != "$WANT_SHOPS" ]; then "$TARGET"/release/server seed --reset; fi
  timed "the big city" "$TARGET"/release/server city ${CITY_SCALE:+--scale "$CITY_SCALE"}
  start_server
  "$TARGET"/release/bench-city measure city
  "$TARGET"/release/bench-city compare demo city
  # The same pages with the catalog's reads on a hot standby (scripts/cluster.sh replica, stopped after
  # if this run started it): how much of the databases' work leaves the primary.
  stop_server
  REPLICA_WAS_UP=no
  pg_isready -q -h 127.0.0.1 -p 5433 && REPLICA_WAS_UP=yes
  REPLICA_URL="$(bash scripts/cluster.sh replica | tail -n 1)"
  [ "$REPLICA_WAS_UP" = yes ] || trap 'finish; bash scripts/cluster.sh replica-stop' EXIT
  # The standby has replayed everything the primary had written when it answers with the same position.
  for _ in $(seq 600); do
    WANT="$(psql -h 127.0.0.1 -U postgres -d "$CITY_DB" -tAc "SELECT pg_current_wal_lsn()")"
    psql "$REPLICA_URL/$CITY_DB" -tAc "SELECT pg_last_wal_replay_lsn() >= '$WANT'::pg_lsn" | grep -q t && break
    sleep 1
  done
  start_server DATABASE_READ_URL="$REPLICA_URL/$CITY_DB"
  DATABASE_READ_URL="$REPLICA_URL/$CITY_DB" "$TARGET"/release/bench-city measure city-replica
  "$TARGET"/release/bench-city share city city-replica
fi
if [ "$WHICH" = scale ]; then
  stop_server
  # Stop the cluster afterwards only if this run started it.
  CLUSTER_WAS_UP=no
  redis-cli -p 7000 cluster info 2>/dev/null | grep -q '^cluster_state:ok' && CLUSTER_WAS_UP=yes
  REDIS_URL="$(bash scripts/cluster.sh redis)"
  export REDIS_URL
  [ "$CLUSTER_WAS_UP" = yes ] || trap 'finish; bash scripts/cluster.sh stop' EXIT
  # Twice in one run: grabs acknowledged once a replica holds them (GRAB_REPLICAS=1, the cluster's
  # default), then without waiting (0) — what that safety costs, side by side.
  for replicas in 1 0; do
    log "bench-scale with GRAB_REPLICAS=$replicas"
    start_server GRAB_REPLICAS="$replicas"
    echo "### GRAB_REPLICAS=$replicas"
    BENCH_URLS="$BENCH_URL" "$TARGET"/release/bench-scale
    stop_server
  done
fi
