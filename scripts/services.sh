#!/usr/bin/env bash
# Starts what is not running: PostgreSQL, Redis, and the Nisshi Kafka-protocol broker (storing its log in
# PostgreSQL, so messages survive a broker restart). Idempotent.
source "$(dirname "$0")/lib.sh"

PG_HOST=127.0.0.1
if ! pg_isready -q -h "$PG_HOST" -p 5432; then
  log "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start
  for _ in $(seq 50); do pg_isready -q -h "$PG_HOST" -p 5432 && break; sleep 0.2; done
  pg_isready -q -h "$PG_HOST" -p 5432 || die "PostgreSQL did not start"
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port 6379 10 || die "Redis did not start"
fi

ensure_db() {
  psql -h "$PG_HOST" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'" | grep -q 1 \
    || psql -h "$PG_HOST" -U postgres -d postgres -qc "CREATE DATABASE \"$1\""
}
ensure_db haodian
ensure_db nisshi

if ! port_open 9092; then
  log "starting Nisshi on 127.0.0.1:9092"
  # The broker reads .env from its working directory: give it a directory whose .env we write.
  mkdir -p "$RUN_DIR/nisshi"
  cat > "$RUN_DIR/nisshi/.env" <<ENV
# Written by scripts/services.sh
ENV
  (
    cd "$RUN_DIR/nisshi"
    # The URL must carry a password even though local auth is trust; sslmode=disable avoids TLS.
    # A short first-rebalance delay: consumer groups here have one member, waiting 3 s buys nothing.
    nohup setsid nisshi broker \
      --group-initial-rebalance-delay "${NISSHI_REBALANCE_DELAY:-250ms}" \
      --listener-url tcp://127.0.0.1:9092 \
      --advertised-listener-url tcp://127.0.0.1:9092 \
      --storage-engine "postgres://postgres:postgres@127.0.0.1/nisshi?sslmode=disable" \
      >"$RUN_DIR/nisshi.log" 2>&1 &
    echo $! >"$RUN_DIR/nisshi.pid"
  )
  wait_port 9092 30 || { tail -n 30 "$RUN_DIR/nisshi.log" >&2; die "Nisshi did not start (log above)"; }
fi

log "services up: postgres :5432, redis :6379, kafka (nisshi) :9092"
