#!/usr/bin/env bash
# README command 1: install what is missing, start the services, build, seed the demo data and serve
# the whole site at http://127.0.0.1:3000 . Pass --reset to restore the pristine demo state first.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

# The broker is needed only once the site is built: it compiles alongside the build tools and the site.
bash scripts/setup.sh broker &
broker_setup=$!
bash scripts/setup.sh build
ensure_disk
timed "cargo leptos build" cargo leptos build --split
wait "$broker_setup" || die "installing the broker failed (its output is above)"
bash scripts/services.sh
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/haodian}"
if [ "${1:-}" = "--reset" ]; then
  "$TARGET"/debug/server seed --reset
else
  "$TARGET"/debug/server seed
fi
log "ready $SECONDS s after start; serving on http://${LISTEN_ADDR:-127.0.0.1:3000} (Ctrl-C to stop)"
exec "$TARGET"/debug/server serve
