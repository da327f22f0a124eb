#!/usr/bin/env bash
# Set up NGCC Perf on the embedded default (SQLite, ORM broker), load data and serve the app
# on http://127.0.0.1:${PORT:-8000} (PORT= chooses the port; a busy port is reported first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
PY=.venv/bin/python
PORT=${PORT:-8000}
if ! $PY -c "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1])))" "$PORT" 2>/dev/null; then
  echo "port $PORT on 127.0.0.1 is busy: choose another one with PORT=<port> make demo" >&2
  exit 1
fi
# Setting up runs with DEBUG on (and its development key); the server itself runs with DEBUG off
# unless DEBUG=1 is given, so that a missing page shows the project's 404 page.
serve_debug=${DEBUG:-0}
export DEBUG=1
$PY manage.py migrate --noinput -v0
$PY manage.py createcachetable  # the database cache (throttling, pages); a no-op with Redis
shared=${NGCC_SHARED_DIR:-../shared}
data="$shared/reference/harness-data/performance"
if [ -d "$data" ]; then
  $PY manage.py import_catalogs "$data"
  for dir in "$data"/data/*/; do
    $PY manage.py import_harness "$dir" --system "$(basename "$dir")"
  done
  $PY manage.py import_published_pages "$shared/reference/pages"
  # Figures of the published x86_1 pages, kept as "published page, no raw trials".
  $PY manage.py import_published_campaign "$shared/reference/pages" --system x86_1
fi
if [ -x scripts/demo_campaign.sh ]; then
  scripts/demo_campaign.sh
fi
echo "NGCC Perf is serving on http://127.0.0.1:$PORT/ (Ctrl-C stops it)"
# DEBUG off so that a missing page shows the project's 404 page (static files still served),
# with a secret key of this run unless one is given.
SECRET_KEY=${SECRET_KEY:-$($PY -c "import secrets; print(secrets.token_urlsafe(50))")}
export SECRET_KEY
DEBUG=$serve_debug exec $PY manage.py runserver --insecure "127.0.0.1:$PORT"
