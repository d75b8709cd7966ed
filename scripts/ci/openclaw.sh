#!/usr/bin/env bash
# Prints the path of the `openclaw` entry script, installing the pinned `openclaw`
# package from the npm registry into a cache folder the first time (reused afterwards).
# Run it with the Node 24 from scripts/ci/node24.sh (OpenClaw needs Node >= 22).
# Used by .ci/run, the OpenClaw e2e suite and `npm run bench -- --openclaw`.
#   OPENCLAW_VERSION exact version (default below)
#   INBOUND_CI_CACHE cache folder (default ~/.cache/inbound-webhooks-ci)
# With --if-cached it installs nothing: it prints the path when the cache holds the
# pinned version and exits 3 otherwise (how `npm test` finds out whether to skip).
set -euo pipefail
version="${OPENCLAW_VERSION:-2026.9.6}"
cache="${INBOUND_CI_CACHE:-$HOME/.cache/inbound-webhooks-ci}"
dir="$cache/openclaw-$version"
pkg="$dir/node_modules/openclaw"
entry="$pkg/openclaw.mjs"
installed() {
  [ -f "$entry" ] && [ -f "$dir/.complete" ] &&
    grep -q "\"version\": *\"$version\"" "$pkg/package.json" 2>/dev/null
}
if ! installed; then
  [ "${1:-}" = "--if-cached" ] && exit 3
  rm -rf "$dir"
  mkdir -p "$dir"
  # Node 24 on PATH so install scripts that check the engine see a supported version.
  node24="$("$(dirname "$0")/node24.sh")"
  PATH="$(dirname "$node24"):$PATH" npm install --prefix "$dir" --no-audit --no-fund \
    --no-save --loglevel=error "openclaw@$version" >&2
  [ -f "$entry" ] || { echo "openclaw.sh: $entry missing after install" >&2; exit 1; }
  touch "$dir/.complete"
fi
printf '%s\n' "$entry"
