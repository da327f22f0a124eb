#!/usr/bin/env bash
# Set up NGCC Perf on the embedded default (SQLite, ORM broker), load data and serve the app
# on http://127.0.0.1:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
PY=.venv/bin/python
# The demo is a local development server: DEBUG on (and its development key) unless overridden.
export DEBUG=${DEBUG:-1}
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
fi
if [ -x scripts/demo_campaign.sh ]; then
  scripts/demo_campaign.sh
fi
echo "NGCC Perf is serving on http://127.0.0.1:8000/ (Ctrl-C stops it)"
exec $PY manage.py runserver 127.0.0.1:8000
