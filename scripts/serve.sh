#!/usr/bin/env bash
# README command 1: install what is missing, start the services, build, seed the demo data and serve
# the whole site at http://127.0.0.1:3000 . Pass --reset to restore the pristine demo state first.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/setup.sh
bash scripts/services.sh
ensure_disk
timed "cargo leptos build" cargo leptos build
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/haodian}"
if [ "${1:-}" = "--reset" ]; then
  target/debug/server seed --reset
else
  target/debug/server seed
fi
log "serving on http://${LISTEN_ADDR:-127.0.0.1:3000} (Ctrl-C to stop)"
exec target/debug/server serve
