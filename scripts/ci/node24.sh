#!/usr/bin/env bash
# Prints the path of a Node 24 binary, installing the pinned `node` package from the
# npm registry into a cache folder the first time (reused afterwards). Used by .ci/run
# and by the test suites that need Node 24 (node:sqlite, OpenClaw).
#   NODE24_VERSION   exact version (default below)
#   INBOUND_CI_CACHE cache folder (default ~/.cache/inbound-webhooks-ci)
# With --if-cached it installs nothing: it prints the path when the cache holds the
# pinned version and exits 3 otherwise (how `npm test` finds out whether to skip).
set -euo pipefail
version="${NODE24_VERSION:-24.21.0}"
cache="${INBOUND_CI_CACHE:-$HOME/.cache/inbound-webhooks-ci}"
dir="$cache/node-$version"
bin="$dir/node_modules/node/bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" --version 2>/dev/null)" != "v$version" ]; then
  [ "${1:-}" = "--if-cached" ] && exit 3
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "node@$version" >&2
fi
"$bin" --version >/dev/null
printf '%s\n' "$bin"
