#!/usr/bin/env bash
# Installs every tool the build and the tests need, when missing. Idempotent: a warm run takes seconds.
# Usage: setup.sh [build] [broker] [browser] [lint] [bench] — what to install (default: the first four). serve.sh
# installs the broker while it builds the site, and never waits for the browser the tests drive nor for what
# only the Rust suites use (lint: sqlx-cli for the query-metadata check, cargo-nextest to run them). bench:
# the broker built as a release is, which only scripts/bench.sh runs.
source "$(dirname "$0")/lib.sh"
# The tools below build in cargo's own scratch directories, side by side; in the project's build directory
# they would wait on its lock one after another (and leave their objects there).
unset CARGO_TARGET_DIR

WANTED=("$@")
[ ${#WANTED[@]} -gt 0 ] || WANTED=(build broker browser lint)
for w in "${WANTED[@]}"; do
  case "$w" in build|broker|browser|lint|bench) ;; *) die "setup.sh: unknown part '$w' (build, broker, browser, lint, bench)";; esac
done
want() { local w; for w in "${WANTED[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

# lld: .cargo/config.toml links every native build with it, the tools installed below included. Each part
# needs it first; the lock keeps two parts started side by side (serve.sh) from running apt-get together.
if ! command -v ld.lld >/dev/null; then
  timed "lld install" flock "$RUN_DIR/apt.lock" bash -c "command -v ld.lld >/dev/null || { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq lld >/dev/null; }"
fi

# Only the build part touches rustup, so two parts started side by side never race on its lock.
want build && for component in clippy rustfmt; do
  if ! rustup component list --installed | grep -q "^$component"; then
    timed "rustup component $component" rustup component add "$component"
  fi
done

if want build && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  timed "rustup target wasm32" rustup target add wasm32-unknown-unknown
fi

# The tools built from source are tools, not our hot path: no LTO, no debuginfo, and little optimisation.
# cargo-leptos and wasm-bindgen-cli only drive and post-process our builds, so they are not optimised at
# all (cargo-leptos: 519 s here, against 1,693 s at opt-level 3 without LTO); Nisshi is the broker every
# test and benchmark talks to, so its own crates keep opt-level 1. Set per install below.
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_INCREMENTAL=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16

# cargo-leptos and nisshi need rustc >= 1.96: the machine's nightly builds them (they are tools, not
# project code, which builds on stable). no_downloads: cargo-leptos must never fetch binaries itself.
install_cargo_leptos() {
  if ! cargo-leptos --version 2>/dev/null | grep -q "$CARGO_LEPTOS_VERSION"; then
    timed "cargo-leptos install" env CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
      cargo +nightly install --locked --features no_downloads cargo-leptos \
      --version "$CARGO_LEPTOS_VERSION"
  fi
}

install_wasm_bindgen() {
  local wbg
  wbg="$(wasm_bindgen_version)"
  [ -n "$wbg" ] || die "no wasm-bindgen in Cargo.lock"
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wbg"; then
    # No --locked: its lock file names a webpki-roots release the registry does not serve.
    timed "wasm-bindgen-cli install" env CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo install wasm-bindgen-cli --version "=$wbg"
  fi
}

# sqlx-cli: builds a scratch database from migrations/ and runs `cargo sqlx prepare`, which writes .sqlx/
# (and, with --check in scripts/test.sh, compares it). Postgres only; rustls, so no OpenSSL headers.
install_sqlx_cli() {
  local v
  v="$(sqlx_version)"
  [ -n "$v" ] || die "no sqlx in Cargo.lock"
  if ! sqlx --version 2>/dev/null | grep -qx "sqlx-cli $v"; then
    timed "sqlx-cli install" env CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo install sqlx-cli --version "=$v" --locked \
      --no-default-features --features postgres,rustls
  fi
}

# Nisshi's own crates (the protocol codec, the broker, its storage) keep opt-level 1; the libraries under
# them, most of its build time, are not optimised.
install_nisshi() {
  local own=() crate
  for crate in nisshi nisshi-broker nisshi-storage nisshi-sans-io nisshi-model nisshi-schema nisshi-cli; do
    own+=(--config "profile.release.package.$crate.opt-level=1")
  done
  if ! nisshi --version 2>/dev/null | grep -q "$NISSHI_VERSION"; then
    timed "nisshi install" env CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
      cargo +nightly install nisshi --version "$NISSHI_VERSION" --locked \
      --no-default-features --features dynostore,postgres "${own[@]}"
  fi
}

# The benchmarks' broker: the same Nisshi with everything optimised, in a directory of its own. The tests'
# broker above is built for a newcomer's first wait; beside the server on the same two cores, its unoptimised
# libraries took more of the machine than the server did (docs/benchmarks.md, "the broker as a release is").
install_nisshi_release() {
  if ! "$NISSHI_RELEASE_ROOT/bin/nisshi" --version 2>/dev/null | grep -q "$NISSHI_VERSION"; then
    timed "nisshi (optimised) install" env CARGO_PROFILE_RELEASE_OPT_LEVEL=3 \
      cargo +nightly install nisshi --version "$NISSHI_VERSION" --locked --root "$NISSHI_RELEASE_ROOT" \
      --no-default-features --features dynostore,postgres
  fi
}

# cargo-nextest runs the Rust suites (scripts/test.sh); machines of this kind come with it, others build it.
install_nextest() {
  if ! cargo nextest --version >/dev/null 2>&1; then
    timed "cargo-nextest install" env CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo install cargo-nextest --locked
  fi
}

# The installs run side by side: each spends long stretches in one crate on one core.
pids=()
if want build; then
  install_cargo_leptos & pids+=($!)
  install_wasm_bindgen & pids+=($!)
fi
if want broker; then
  install_nisshi & pids+=($!)
fi
if want bench; then
  install_nisshi_release & pids+=($!)
fi
if want lint; then
  install_sqlx_cli & pids+=($!)
  install_nextest & pids+=($!)
fi
for pid in "${pids[@]}"; do
  wait "$pid" || die "installing a tool failed (its output is above)"
done

# wasm-opt (Binaryen): a release site build (`cargo leptos build --release`) shrinks the hydrate bundle with
# it and, built with no_downloads, cargo-leptos fails without one on the PATH. Binaryen from npm (version
# $BINARYEN_VERSION, run by node) into .tools/, which lib.sh puts first on the PATH: Debian's (108) is too
# old for today's wasm-bindgen output — a bundle it had optimised failed in the browser before hydrating.
if want build && ! "$ROOT/.tools/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version $BINARYEN_VERSION"; then
  timed "binaryen install" npm install --prefix "$ROOT/.tools" --no-audit --no-fund --loglevel=error \
    "binaryen@$BINARYEN_VERSION.0.0"
fi

want browser || { log "tools ready: ${WANTED[*]}"; exit 0; }
if [ ! -x /usr/bin/chromium ]; then
  timed "chromium install" bash -c "$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null"
fi

# Fonts for the screenshots: without CJK and emoji fonts every Chinese name renders as boxes.
if ! dpkg -s fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1; then
  timed "fonts install" bash -c "$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fonts-noto-cjk fonts-noto-color-emoji >/dev/null"
fi

if [ ! -d "$ROOT/end2end/node_modules/@playwright/test" ] || [ ! -d "$ROOT/end2end/node_modules/@axe-core/playwright" ]; then
  # Playwright drives Debian's chromium; its own browser download cannot work here.
  timed "end2end npm install" bash -c "cd '$ROOT/end2end' && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error"
fi

log "tools ready"
