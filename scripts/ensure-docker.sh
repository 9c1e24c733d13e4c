#!/usr/bin/env bash
# Makes sure a Docker engine answers. On a machine with only the docker client (no engine, no
# systemd), installs Debian's docker.io and starts dockerd in the background.
set -euo pipefail

log_dir=${KAFKAOPS_CACHE:-$HOME/.cache/kafkaops}
mkdir -p "$log_dir"

if docker info >/dev/null 2>&1; then
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "No Docker engine: installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q docker.io >/dev/null
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "Starting dockerd in the background (log: $log_dir/dockerd.log)"
  nohup dockerd >"$log_dir/dockerd.log" 2>&1 &
fi

for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "Docker engine $(docker info --format '{{.ServerVersion}}') is up"
    exit 0
  fi
  sleep 1
done
echo "The Docker engine did not answer within 60 s; see $log_dir/dockerd.log" >&2
exit 1
