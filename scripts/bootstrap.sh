#!/usr/bin/env bash
# Installs what the project needs, idempotently, and quickly when nothing is missing:
# npm dependencies when node_modules is missing or older than the lock file, then the
# Temporal CLI (built once per pin in tools/temporal-cli from the Go module proxy into .tools/), and Debian's
# chromium for the browser tests when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.installed-from-lock
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "installing npm dependencies..." >&2
  npm ci --no-audit --no-fund
  touch "$stamp"
fi

# The browser tests drive Debian's Chromium through playwright-core; no browser is ever
# downloaded. Installing it needs root and apt-get, so anywhere else we only say what is missing.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the browser tests (apt-get)..." >&2
    # apt's chatter goes to a log that is shown only when the install fails.
    apt_log=$(mktemp)
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends chromium; } >"$apt_log" 2>&1; then
      tail -n 20 "$apt_log" >&2
      rm -f "$apt_log"
      echo "installing chromium failed" >&2
      exit 1
    fi
    rm -f "$apt_log"
  else
    echo "chromium is missing: install Debian's chromium package (/usr/bin/chromium) as root to run the browser tests" >&2
  fi
fi

exec node --import tsx tools/bootstrap.ts "$@"
