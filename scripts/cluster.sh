#!/usr/bin/env bash
# The scale-out shape on one machine, from real engines:
# - a Redis Cluster from Debian's redis-server: 6 nodes on 127.0.0.1:7000-7005 (3 primaries, 3 replicas),
#   joined by `redis-cli --cluster create`; like Redis on :6379 it keeps nothing on disk;
# - two Nisshi brokers on one Postgres storage (9092 from services.sh, and 9093): stateless, each leads
#   every partition, clients fail over between them;
# - three app instances (release build) on 3401-3403, operators' ports 4401-4403;
# - nginx on 127.0.0.1:3400 in front of them.
#   scripts/cluster.sh redis   starts the Redis Cluster only (idempotent) and prints the REDIS_URL naming it
#   scripts/cluster.sh up      starts everything (idempotent) and serves the demo on http://127.0.0.1:3400
#   scripts/cluster.sh stop    stops what this script started, by PID
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

CLUSTER_DIR="$RUN_DIR/redis-cluster"
PORTS=(7000 7001 7002 7003 7004 7005)
# What the app reads as "a cluster": several seed nodes, comma-separated (app/src/redis_conn.rs).
CLUSTER_URL="$(printf 'redis://127.0.0.1:%s,' "${PORTS[@]:0:3}")"
CLUSTER_URL="${CLUSTER_URL%,}"

# Starts "$@" in a session of its own (a Ctrl-C in the caller's terminal does not reach it), logging to $2;
# the process itself writes its PID to $1 before it becomes the command, so the file names the right
# process even where setsid has to fork.
spawn_detached() {
  local pidfile="$1" logfile="$2"; shift 2
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$pidfile" "$@" >>"$logfile" 2>&1 </dev/null &
  for _ in $(seq 50); do [ -s "$pidfile" ] && return 0; sleep 0.1; done
  die "no pid file from $*"
}

cluster_ok() { redis-cli -p "${PORTS[0]}" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

start_redis() {
  if cluster_ok; then
    log "redis cluster already up on :${PORTS[0]}-${PORTS[5]}"
    echo "$CLUSTER_URL"
    return 0
  fi
  mkdir -p "$CLUSTER_DIR"
  for port in "${PORTS[@]}"; do
    port_open "$port" && die "port $port is taken by something that is not a healthy cluster: stop it first"
    # Each node starts from an empty directory of its own: no nodes.conf (so `--cluster create` forms the
    # cluster anew) and no RDB a replica's full sync left behind (a node that loads keys is "not empty").
    rm -rf "$CLUSTER_DIR/node-$port" "$CLUSTER_DIR/redis-$port.pid"
    mkdir -p "$CLUSTER_DIR/node-$port"
    spawn_detached "$CLUSTER_DIR/redis-$port.pid" "$CLUSTER_DIR/redis-$port.log" \
      redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
      --save "" --appendonly no --dir "$CLUSTER_DIR/node-$port"
  done
  for port in "${PORTS[@]}"; do wait_port "$port" 10 || die "redis on :$port did not start"; done
  local nodes=()
  for port in "${PORTS[@]}"; do nodes+=("127.0.0.1:$port"); done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$CLUSTER_DIR/create.log" 2>&1 \
    || { cat "$CLUSTER_DIR/create.log" >&2; die "redis-cli --cluster create failed"; }
  for _ in $(seq 100); do cluster_ok && break; sleep 0.1; done
  cluster_ok || die "the cluster did not reach cluster_state:ok"
  # Every replica attached, so a primary's failover has somewhere to go.
  for _ in $(seq 100); do
    [ "$(redis-cli -p "${PORTS[0]}" cluster nodes | grep -c ' slave ')" -eq 3 ] && break
    sleep 0.1
  done
  log "redis cluster up: ${nodes[*]}"
  echo "$CLUSTER_URL"
}

# Ends the processes named by the PID files and waits for them to exit: a node still shutting down writes
# its nodes.conf after we removed it, and a cluster started next would load the old one.
stop_pids() {
  local pidfile pid pids=()
  for pidfile in "$@"; do
    [ -e "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null && pids+=("$pid")
    rm -f "$pidfile"
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}

stop_redis() {
  stop_pids "$CLUSTER_DIR"/redis-*.pid
  log "redis cluster stopped"
}

APP_PORTS=(3401 3402 3403)
LB_PORT=3400
BROKERS="127.0.0.1:9092,127.0.0.1:9093"

start_broker() {
  port_open 9093 && return 0
  mkdir -p "$CLUSTER_DIR/nisshi"
  : >"$CLUSTER_DIR/nisshi/.env"
  (
    # The broker reads .env from its working directory: one whose .env we write.
    cd "$CLUSTER_DIR/nisshi"
    # The same storage as the broker services.sh starts on 9092: two stateless brokers, one log.
    rm -f "$CLUSTER_DIR/nisshi-9093.pid"
    spawn_detached "$CLUSTER_DIR/nisshi-9093.pid" "$CLUSTER_DIR/nisshi-9093.log" \
      nisshi broker --group-initial-rebalance-delay 250ms \
      --listener-url tcp://127.0.0.1:9093 --advertised-listener-url tcp://127.0.0.1:9093 \
      --storage-engine "postgres://postgres:postgres@127.0.0.1/nisshi?sslmode=disable"
  )
  wait_port 9093 30 || { tail -n 20 "$CLUSTER_DIR/nisshi-9093.log" >&2; die "the second broker did not start"; }
}

# The cluster's own database, key and topic namespace; every instance behind nginx, which it trusts for
# X-Forwarded-For.
cluster_env() {
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/haodian_cluster" REDIS_URL="$CLUSTER_URL"
  export KAFKA_BROKERS="$BROKERS" REDIS_KEY_PREFIX="cluster:" KAFKA_TOPIC_PREFIX="cluster."
  export TRUSTED_PROXIES="127.0.0.1/32" LEPTOS_SITE_ROOT="target/site" RUST_LOG="${RUST_LOG:-warn}"
  # One puzzle key for all instances: a puzzle drawn by one is answered through whichever nginx picks.
  [ -s "$CLUSTER_DIR/human-check-secret" ] || od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$CLUSTER_DIR/human-check-secret"
  HUMAN_CHECK_SECRET="$(cat "$CLUSTER_DIR/human-check-secret")"
  export HUMAN_CHECK_SECRET
}

start_app() {
  local i="$1" port="${APP_PORTS[$1]}"
  port_open "$port" && return 0
  rm -f "$CLUSTER_DIR/app-$i.pid"
  LISTEN_ADDR="127.0.0.1:$port" ADMIN_ADDR="127.0.0.1:$((port + 1000))" \
    spawn_detached "$CLUSTER_DIR/app-$i.pid" "$CLUSTER_DIR/app-$i.log" target/release/server serve
}

start_lb() {
  port_open "$LB_PORT" && return 0
  if ! command -v nginx >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    timed "nginx install" bash -c "$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx-light >/dev/null"
  fi
  mkdir -p "$CLUSTER_DIR/nginx/logs"
  local upstreams=""
  for port in "${APP_PORTS[@]}"; do upstreams+="    server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n'; done
  # A request nginx could not hand to one instance (refused, reset before an answer) goes to the next;
  # a POST that reached an instance is never sent twice (nginx's default for non-idempotent methods).
  cat >"$CLUSTER_DIR/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $CLUSTER_DIR/nginx/nginx.pid;
error_log $CLUSTER_DIR/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  upstream haodian {
$upstreams    keepalive 64;
  }
  server {
    listen 127.0.0.1:$LB_PORT;
    location / {
      proxy_pass http://haodian;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
    }
  }
}
CONF
  nginx -p "$CLUSTER_DIR/nginx" -c "$CLUSTER_DIR/nginx/nginx.conf"
  wait_port "$LB_PORT" 10 || die "nginx did not start"
}

up() {
  bash scripts/setup.sh build broker
  bash scripts/services.sh
  start_redis >/dev/null
  start_broker
  timed "release build" cargo leptos build --release
  psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='haodian_cluster'" | grep -q 1 \
    || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE haodian_cluster"
  cluster_env
  target/release/server seed
  for i in "${!APP_PORTS[@]}"; do start_app "$i"; done
  for port in "${APP_PORTS[@]}"; do wait_port "$port" 60 || die "app on :$port did not start (see $CLUSTER_DIR)"; done
  start_lb
  log "cluster up: http://127.0.0.1:$LB_PORT (nginx) → apps ${APP_PORTS[*]} → Redis Cluster 7000-7005, brokers $BROKERS"
}

stop_all() {
  [ -e "$CLUSTER_DIR/nginx/nginx.pid" ] && kill "$(cat "$CLUSTER_DIR/nginx/nginx.pid")" 2>/dev/null || true
  stop_pids "$CLUSTER_DIR"/app-*.pid "$CLUSTER_DIR"/nisshi-*.pid
  stop_redis
}

case "${1:-}" in
  redis) start_redis ;;
  up) up ;;
  stop) stop_all ;;
  *) die "usage: scripts/cluster.sh redis|up|stop" ;;
esac
