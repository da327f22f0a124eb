#!/usr/bin/env bash
# Create the virtual environment and install NGCC Perf's Python dependencies (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
# Candidate code only runs inside bubblewrap (runner/harness/sandbox.py).
if ! command -v bwrap >/dev/null 2>&1; then
  echo "installing Debian's bubblewrap (the sandbox for candidate code)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) \
    || echo "bubblewrap could not be installed: register systems with --allow-unsandboxed"
fi
