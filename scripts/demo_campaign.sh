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
$PY manage.py submission_add examples/kem-ex1.toml examples/sign-ex1.toml examples/hash-ex1.toml
done_before=$($PY manage.py shell -c "from measurements.models import Campaign; print(Campaign.objects.filter(system__key='$SYSTEM', status='complete').count())")
if [ "$done_before" != "0" ] && [ -z "${NGCC_DEMO_REMEASURE:-}" ]; then
  echo "a complete campaign on $SYSTEM exists already (NGCC_DEMO_REMEASURE=1 measures again)"
  exit 0
fi
$PY manage.py campaign_start --system "$SYSTEM" --quick --planner guide
mkdir -p var
$PY manage.py box_worker > var/demo-worker.log 2>&1 &
worker=$!
trap 'kill $worker 2>/dev/null || true; wait $worker 2>/dev/null || true' EXIT
$PY manage.py campaign_status --watch --interval 1
