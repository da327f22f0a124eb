#!/usr/bin/env bash
# Measure the example submissions on this machine through a real worker cluster (ORM broker):
# register the machine (its host problems are recorded and flagged), add the manifests, queue a
# short campaign, run the box's worker until the campaign is done.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
SYSTEM=${NGCC_DEMO_SYSTEM:-local_1}
export NGCC_CLUSTER=$SYSTEM
$PY manage.py system_register "$SYSTEM" --allow-unfixed-host \
  --description "this machine (demo; not a fixed measurement host)"
$PY manage.py submission_add examples/kem-ex1.toml examples/sign-ex1.toml examples/hash-ex1.toml examples/kex-ex1.toml
if [ -n "${NGCC_DEMO_REMEASURE:-}" ]; then unless=""; else unless="--unless-complete"; fi
started=$($PY manage.py campaign_start --system "$SYSTEM" --quick --planner guide $unless)
echo "$started"
case "$started" in *"nothing started"*) exit 0 ;; esac
mkdir -p var
$PY manage.py box_worker > var/demo-worker.log 2>&1 &
worker=$!
trap 'kill $worker 2>/dev/null || true; wait $worker 2>/dev/null || true' EXIT
$PY manage.py campaign_status --watch --interval 1
