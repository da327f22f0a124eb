#!/usr/bin/env bash
# Set up and run the whole test suite: lint, then pytest on SQLite, then on PostgreSQL and with
# the Redis broker where those services are reachable (they are on our machines and in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! command -v chromium >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1; then
  echo "installing Debian's chromium (browser tests) and bubblewrap (the sandbox)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium bubblewrap) \
    || echo "chromium/bubblewrap could not be installed: browser tests will be skipped"
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# The house plan (import-linter contracts in pyproject.toml; see docs/architecture.md).
.venv/bin/lint-imports

reachable() { .venv/bin/python - "$1" "$2" <<'PY'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2).close()
except OSError:
    sys.exit(1)
PY
}

status=0
echo "== test suite on SQLite (ORM broker)"
env -u DATABASE_URL -u REDIS_URL .venv/bin/pytest -q "$@" || status=$?
if reachable 127.0.0.1 5432; then
  echo "== test suite on PostgreSQL"
  pg_url=${NGCC_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
  redis_env=()
  if reachable 127.0.0.1 6379; then
    redis_env=(NGCC_TEST_REDIS_URL=${NGCC_TEST_REDIS_URL:-redis://127.0.0.1:6379/0})
  fi
  env DATABASE_URL="$pg_url" "${redis_env[@]}" .venv/bin/pytest -q "$@" || status=$?
else
  echo "== PostgreSQL not reachable on 127.0.0.1:5432: PostgreSQL run skipped"
fi
exit $status
