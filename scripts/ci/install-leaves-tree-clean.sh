#!/usr/bin/env bash
# Fails when the README's `npm install` changes a checkout (e.g. rewrites package-lock.json,
# as npm 11 once did to a lockfile that lacked optional platform bindings). Run after
# `npm ci` in .ci/run; needs a git checkout (skipped, with a note, otherwise).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "install check: not a git checkout; skipped"
  exit 0
fi
before=$(git status --porcelain)
npm install --no-audit --no-fund --loglevel=error
after=$(git status --porcelain)
if [ "$after" != "$before" ]; then
  echo "install check: \`npm install\` changed the checkout (run it and commit the result, e.g. the lockfile):" >&2
  diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
  exit 1
fi
echo "install check: npm $(npm --version) leaves the checkout unchanged"
