#!/usr/bin/env bash
# Runs Molecule scenarios in lanes side by side: the scenarios of one lane one after another, the lanes
# at the same time. A scenario spends a third of its time or more waiting on Kafka (throttled moves,
# restarts, producers that run for a while) with the 2 cores partly idle, which the other lane uses.
# Scenarios do not share containers or networks (each has its own), so lanes cannot cut each other off.
#
# Usage: scripts/molecule-lanes.sh LANE [LANE ...]   each LANE a comma-separated list of scenarios
# Each scenario's log goes to .cache/logs/molecule-<scenario>.log, and its lines to standard output
# prefixed with [<scenario>]. After a failure its lane stops, the other lanes finish the scenario they
# are in and start no other, and what failed is printed last (scripts/failure-summary.py).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
logs=.cache/logs
mkdir -p "$logs"
# What the lanes tell each other: a stop file once one failed, and the failed scenarios' names.
state=$(mktemp -d)
stop_file=$state/stop
failed_file=$state/failed
touch "$failed_file"

run_lane() {
  local scenario started status network
  for scenario in ${1//,/ }; do
    [ -e "$stop_file" ] && return 0
    started=$(date +%s)
    echo "[$scenario] started $(date +%T)"
    # Its wall time and CPU-seconds, with its containers' (on the scenario's own network), go to make
    # test's table (scripts/step-usage.py).
    network=$(sed -n 's/.*networks: \[{name: \(kafkaops-[a-z0-9-]*\).*/\1/p' "molecule/$scenario/molecule.yml" 2>/dev/null | head -n 1)
    python3 scripts/step-usage.py run "$scenario" --within molecule --network "${network:-kafkaops-$scenario}" \
      --log "$logs/molecule-$scenario.log" -- \
      molecule test -s "$scenario" 2>&1 | tee "$logs/molecule-$scenario.log" | sed -u "s/^/[$scenario] /"
    status=${PIPESTATUS[0]}
    echo "[$scenario] ended with $status after $(( $(date +%s) - started )) s"
    if [ "$status" -ne 0 ]; then
      echo "$scenario" >> "$failed_file"
      touch "$stop_file"
      return 1
    fi
  done
}

pids=()
for lane in "$@"; do
  run_lane "$lane" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid"
done

status=0
while read -r scenario; do
  python scripts/failure-summary.py "$logs/molecule-$scenario.log"
  status=1
done < "$failed_file"
rm -rf "$state"
exit "$status"
