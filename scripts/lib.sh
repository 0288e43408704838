# Shared helpers for the project's scripts. Source it; do not run it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUN_DIR="$ROOT/.run"
mkdir -p "$RUN_DIR"
# .tools/ holds what the scripts install from npm for the build (Binaryen's wasm-opt; see setup.sh).
export PATH="$ROOT/.tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# Builds go to a directory of this machine's, outside the checkout: a fresh clone (as CI makes one) finds
# the ~700 dependencies that earlier runs compiled — for the tests, clippy, the wasm and the site — and
# builds only the project's own crates, as a CI cache keyed by Cargo.lock would. Set CARGO_TARGET_DIR to
# build elsewhere (./target, say).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/haodian/target}"
TARGET="$CARGO_TARGET_DIR"
mkdir -p "$TARGET"

# Pinned tool versions (wasm-bindgen and sqlx-cli come from Cargo.lock so each CLI always matches its crate).
CARGO_LEPTOS_VERSION="0.3.11"
NISSHI_VERSION="0.8.1"
# Where setup.sh's bench part installs the optimised broker the benchmarks run beside.
NISSHI_RELEASE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/haodian/nisshi-release"
BINARYEN_VERSION="132"

log() { printf '\033[1;34m[haodian]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[haodian] %s\033[0m\n' "$*" >&2; exit 1; }

# Runs "$@" and logs how long it took (the README quotes these timings); `log_summary` lists them all.
TIMINGS=()
timed() {
  local label="$1"; shift
  local start=$SECONDS status=0
  "$@" || status=$?
  log "$label: $((SECONDS - start)) s$([ "$status" -eq 0 ] || echo ", failed ($status)")"
  TIMINGS+=("$(printf '%6d s  %s' $((SECONDS - start)) "$label")")
  return "$status"
}

# What the browser tests, the chaos suite and the cluster sale run: the site's browser half (the wasm
# bundle, styles and assets) from cargo-leptos, and the server and the drivers from the Rust suites' own
# build — the same features (`app/testing`, which only adds the tests' support functions; the demo of
# serve.sh and the benchmarks build without it), so after `scripts/test.sh`'s suites nothing is compiled
# twice. (cargo-leptos would build the server without the tests' features: all of `app` again.)
build_for_runs() {
  timed "site: browser bundle, styles, assets" cargo leptos build --split --frontend-only
  timed "server and drivers (the Rust suites' build)" cargo build -p server -p bench --bins --features app/testing
}

# The time of every step `timed` ran so far, one a line (scripts call it on exit).
log_summary() {
  [ ${#TIMINGS[@]} -gt 0 ] || return 0
  log "steps and their times:"
  printf '%s\n' "${TIMINGS[@]}" >&2
}

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Waits up to $2 seconds for port $1.
wait_port() {
  local port="$1" limit="${2:-30}" i=0
  until port_open "$port"; do
    i=$((i + 1)); [ "$i" -gt $((limit * 5)) ] && return 1
    sleep 0.2
  done
}

wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# sqlx-cli comes from Cargo.lock too: `cargo sqlx prepare` writes the offline metadata in the format of its
# own sqlx, which must be the one the query macros read.
sqlx_version() {
  awk '/^name = "sqlx"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# Free space on the project's disk, in GiB.
free_gib() { echo $(( $(df -Pk "$ROOT" | awk 'NR == 2 { print $4 }') / 1024 / 1024 )); }

# Makes room before a build: a full disk fails the tests far from the cause (Postgres cannot create the
# per-test databases), so drop the incremental caches, then the whole build directory, before it comes to that.
ensure_disk() {
  local need="${1:-10}"
  [ "$(free_gib)" -ge "$need" ] && return 0
  log "only $(free_gib) GiB free: removing the incremental build caches"
  rm -rf "$TARGET"/*/incremental
  [ "$(free_gib)" -ge "$need" ] && return 0
  log "only $(free_gib) GiB free: cargo clean (the next build is a cold one)"
  cargo clean --manifest-path "$ROOT/Cargo.toml"
  [ "$(free_gib)" -ge "$need" ] || die "only $(free_gib) GiB free on $(df -P "$ROOT" | awk 'NR == 2 { print $6 }'); a build and its tests need about $need GiB"
}
