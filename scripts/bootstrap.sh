#!/usr/bin/env bash
# Installs what the project needs, idempotently, and quickly when nothing is missing:
# npm dependencies when node_modules is missing or older than the lock file, then the
# Temporal CLI (built once per version from the Go module proxy into .tools/).
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.installed-from-lock
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "installing npm dependencies..." >&2
  npm ci --no-audit --no-fund
  touch "$stamp"
fi

exec node --import tsx src/cli/bootstrap.ts "$@"
