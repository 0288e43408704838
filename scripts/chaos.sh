#!/usr/bin/env bash
# The fault-injection suite: a real flash sale on two server instances while, one scenario at a time,
# the broker is killed (-9), an instance is killed (-9), Redis restarts empty, Postgres restarts, and the
# order writer dies between its DB commit and its offset commit. `target/debug/chaos` plays the shoppers
# (logging every answer) and then checks the database; this prints one table of scenario × check and
# fails if any check failed. Everything it breaks is its own — a Postgres cluster in a temporary
# directory, a Redis and a Nisshi broker on their own ports, two servers — and it stops them by PID.
# Run by scripts/test.sh; alone: `bash scripts/chaos.sh` (after a build).
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

PG_PORT=5442
REDIS_PORT=6391
KAFKA_PORT=9095
PORTS=(3201 3202)
DIR="$RUN_DIR/chaos"
rm -rf "$DIR"
mkdir -p "$DIR"

for port in "$PG_PORT" "$REDIS_PORT" "$KAFKA_PORT" "${PORTS[@]}" 4201 4202; do
  port_open "$port" && die "port $port is taken: the chaos suite needs it"
done
# Up to date after scripts/test.sh's own build: then this takes seconds.
build_for_runs

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  [ -n "${PG_DATA:-}" ] && as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate stop >/dev/null 2>&1 || true
  [ -n "${PG_ROOT:-}" ] && rm -rf "$PG_ROOT"
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS haodian_chaos_kafka WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# --- Postgres: a cluster of our own, so restarting it disturbs nothing else on the machine.
PG_BIN="/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -V | tail -n1)/bin"
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PG_ROOT="$(mktemp -d /tmp/haodian-chaos-pg.XXXXXX)"
[ "$(id -u)" -eq 0 ] && chown postgres: "$PG_ROOT"
PG_DATA="$PG_ROOT/data"
as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -A trust -U postgres >"$DIR/initdb.log" 2>&1 || die "initdb failed (see $DIR/initdb.log)"
pg_start() {
  as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_ROOT/postgres.log" -w \
    -o "-p $PG_PORT -k $PG_ROOT -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
}
pg_start
psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE haodian_chaos"

# --- Redis: ours, nothing on disk (a restart empties it, like the machine's).
redis_start() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >"$DIR/redis.log" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  wait_port "$REDIS_PORT" 10 || die "redis did not start"
}
redis_start

# --- The broker: ours, storing in a database of its own on the machine's Postgres.
psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS haodian_chaos_kafka WITH (FORCE)"
psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE haodian_chaos_kafka"
mkdir -p "$DIR/nisshi"
: >"$DIR/nisshi/.env"
broker_start() {
  (
    cd "$DIR/nisshi"
    exec nisshi broker --group-initial-rebalance-delay 250ms \
      --listener-url "tcp://127.0.0.1:$KAFKA_PORT" --advertised-listener-url "tcp://127.0.0.1:$KAFKA_PORT" \
      --storage-engine "postgres://postgres:postgres@127.0.0.1/haodian_chaos_kafka?sslmode=disable"
  ) >>"$DIR/nisshi.log" 2>&1 &
  BROKER_PID=$!
  PIDS+=("$BROKER_PID")
  wait_port "$KAFKA_PORT" 30 || die "broker did not start"
}
broker_start

export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/haodian_chaos"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
export REDIS_KEY_PREFIX="chaos:" KAFKA_TOPIC_PREFIX="chaos."
# Every shopper comes from 127.0.0.1; nobody pays (stock conservation is then exact); a grab with no order
# anywhere is given back after 10 s instead of 30 (the least the server takes with a 3 s produce timeout:
# a grab must have sent its order before the sweeper looks for it).
export IP_RATE_LIMIT=100000000 PAY_TIMEOUT_SECS=3600 STRANDED_GRAB_SECS=10 KAFKA_PRODUCE_TIMEOUT_MS=3000
# Visitor counts are copied to Postgres every second, so the check can tell "kept to the last copy".
export VISITOR_SNAPSHOT_SECS=1
export RUST_LOG="${RUST_LOG:-info,sqlx=warn,rdkafka=warn,tower_sessions=warn}"
export CHAOS_URLS="http://127.0.0.1:${PORTS[0]},http://127.0.0.1:${PORTS[1]}"
"$TARGET"/debug/server seed --reset >"$DIR/seed.log" 2>&1 || { tail -n 20 "$DIR/seed.log" >&2; die "seeding failed"; }

declare -A SERVER_PID
server_start() {
  local i="$1"; shift
  env "$@" LISTEN_ADDR="127.0.0.1:${PORTS[$i]}" ADMIN_ADDR="127.0.0.1:$((PORTS[i] + 1000))" "$TARGET"/debug/server serve >>"$DIR/server-$i.log" 2>&1 &
  SERVER_PID[$i]=$!
  PIDS+=("${SERVER_PID[$i]}")
  wait_port "${PORTS[$i]}" 60 || { tail -n 30 "$DIR/server-$i.log" >&2; die "server $i did not start"; }
}
server_start 0
server_start 1

# --- The faults, each injected about two seconds into an eight-second wave of shoppers.
# Kills with -9 and reaps quietly (the shell would otherwise report each "Killed" job).
kill9() { kill -9 "$1"; wait "$1" 2>/dev/null || true; }
fault_broker() {
  kill9 "$BROKER_PID"; sleep 4; broker_start
}
fault_server() {
  kill9 "${SERVER_PID[1]}"; sleep 3; server_start 1
}
fault_redis() {
  kill9 "$REDIS_PID"; redis_start
}
fault_postgres() {
  as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate stop >/dev/null; sleep 3; pg_start
}
fault_writer() {
  # Instance 0 was restarted with FAULT_WRITER_ABORTS=1 before the wave: it dies by itself after its
  # first batch reaches Postgres. Bring it back (without the fault) once it has.
  local waited=0
  while kill -0 "${SERVER_PID[0]}" 2>/dev/null && [ "$waited" -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "${SERVER_PID[0]}" 2>/dev/null; then
    log "writer fault: instance 0 had no batch to die on"; kill "${SERVER_PID[0]}"
  fi
  wait "${SERVER_PID[0]}" 2>/dev/null || true
  sleep 1; server_start 0
}

FAILED=0
run_scenario() {
  local name="$1" fault="$2" dir="$DIR/$1"
  log "chaos: $name"
  "$TARGET"/debug/chaos prepare "$dir" 120 300 >/dev/null
  "$TARGET"/debug/chaos load "$dir" 25 >"$dir.load.log" 2>&1 &
  local load=$!
  sleep 2
  "$fault"
  wait "$load" || { cat "$dir.load.log" >&2; die "$name: the shoppers' driver failed"; }
  "$TARGET"/debug/chaos check "$dir" "$name" >"$dir.check.log" 2>&1 || { FAILED=$((FAILED + 1)); cat "$dir.check.log" >&2; }
}

START=$SECONDS
run_scenario "broker kill -9" fault_broker
run_scenario "server kill -9" fault_server
run_scenario "Redis restarted empty" fault_redis
run_scenario "Postgres restarted" fault_postgres
kill "${SERVER_PID[0]}"; wait "${SERVER_PID[0]}" 2>/dev/null || true
server_start 0 FAULT_WRITER_ABORTS=1
run_scenario "writer dies after DB commit" fault_writer

{
  echo
  echo "| scenario | answers | no oversell | no duplicate (user, sale) | acknowledged ≤ stock, every one stored | stock conserved | drift back to 0 | sessions kept | check-ins | likes | follows and feed | visitors (to the last copy) | drain |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  cat "$DIR/table.md"
} | tee "$DIR/report.md"
log "chaos suite: $((SECONDS - START)) s; answers in $DIR/*/answers.jsonl"
[ "$FAILED" -eq 0 ] || die "chaos: $FAILED scenario(s) failed a check"
