#!/usr/bin/env bash
# A throwaway Kafka 4.x cluster in KRaft mode, as JVMs on this machine's loopback, for running the
# admin modules' integration tests against KRaft (tests/integration; `make integration-kraft`):
# nodes 1-3 are combined (broker and controller, a dynamic quorum formatted with
# --initial-controllers), node 4 is a broker only (the reassignment tests' spare broker). The ACL
# authorizer is on with User:ANONYMOUS as super user, as the cluster scenario runs it in ZooKeeper mode.
#
# Usage: scripts/kraft-host-cluster.sh start|stop|servers
# Environment: KAFKA_KRAFT_VERSION (default 4.4.0; the archive comes from build-kafka-archive.sh),
#              KAFKAOPS_CACHE (default ~/.cache/kafkaops), KRAFT_HOST_DIR (default .cache/kraft-host),
#              KRAFT_HOST_HEAP (default 256m, each node), KRAFT_HOST_JVM_OPTIONS (further JVM options, each
#              node), KRAFT_HOST_PROPERTIES (further server.properties lines, each node; bench/idle-brokers)
# Ports: 39091-39094 (clients), 39191-39193 (controllers), on 127.0.0.1 only.
set -euo pipefail

version=${KAFKA_KRAFT_VERSION:-4.4.0}
heap=${KRAFT_HOST_HEAP:-256m}
cache_dir=${KAFKAOPS_CACHE:-$HOME/.cache/kafkaops}
here=$(cd "$(dirname "$0")/.." && pwd)
base=${KRAFT_HOST_DIR:-$here/.cache/kraft-host}
home=$base/kafka_2.13-$version
nodes=(1 2 3 4)
controllers=(1 2 3)

servers() {
  local list="" node
  for node in "${nodes[@]}"; do list="$list${list:+,}127.0.0.1:3909$node"; done
  echo "$list"
}

storage_tool() {
  java -Xmx128m -cp "$home/libs/*" -Dlog4j2.configurationFile="$home/config/log4j2.properties" \
    -Dkafka.logs.dir="$base" kafka.tools.StorageTool "$@"
}

stop() {
  local node pid waited
  # Brokers first, then the controllers together: a controller left alone without its quorum would
  # wait for it in its controlled shutdown.
  for group in 4 "1 2 3"; do
    for node in $group; do
      if [ -f "$base/node-$node.pid" ]; then kill "$(cat "$base/node-$node.pid")" 2>/dev/null || true; fi
    done
    for node in $group; do
      [ -f "$base/node-$node.pid" ] || continue
      pid=$(cat "$base/node-$node.pid")
      for waited in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$base/node-$node.pid"
    done
  done
}

start() {
  local archive=$cache_dir/kafka_2.13-$version.tgz cluster_id voters="" node roles listeners waited
  [ -f "$archive" ] || { echo "$archive is missing: run make archive" >&2; exit 1; }
  stop
  rm -rf "$base" && mkdir -p "$base"
  tar -C "$base" -xzf "$archive"
  cluster_id=$(storage_tool random-uuid | tail -1)
  for node in "${controllers[@]}"; do
    voters="$voters${voters:+,}$node@127.0.0.1:3919$node:$(storage_tool random-uuid | tail -1)"
  done
  for node in "${nodes[@]}"; do
    if [ "$node" -le 3 ]; then
      roles=broker,controller
      listeners="PLAINTEXT://127.0.0.1:3909$node,CONTROLLER://127.0.0.1:3919$node"
    else
      roles=broker
      listeners="PLAINTEXT://127.0.0.1:3909$node"
    fi
    cat > "$base/node-$node.properties" <<PROPERTIES
process.roles=$roles
node.id=$node
controller.quorum.bootstrap.servers=127.0.0.1:39191,127.0.0.1:39192,127.0.0.1:39193
controller.listener.names=CONTROLLER
listeners=$listeners
advertised.listeners=PLAINTEXT://127.0.0.1:3909$node
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$base/data-$node
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS
allow.everyone.if.no.acl.found=false
${KRAFT_HOST_PROPERTIES:-}
PROPERTIES
    if [ "$node" -le 3 ]; then
      storage_tool format --cluster-id="$cluster_id" --config "$base/node-$node.properties" \
        --initial-controllers "$voters" >/dev/null
    else
      storage_tool format --cluster-id="$cluster_id" --config "$base/node-$node.properties" \
        --no-initial-controllers >/dev/null
    fi
    mkdir -p "$base/logs-$node"
    # shellcheck disable=SC2086 # the options are words
    nohup java ${KRAFT_HOST_JVM_OPTIONS:-} -Xms"$heap" -Xmx"$heap" -cp "$home/libs/*" -Dlog4j2.configurationFile="$home/config/log4j2.properties" \
      -Dkafka.logs.dir="$base/logs-$node" kafka.Kafka "$base/node-$node.properties" \
      > "$base/logs-$node/stdout.log" 2>&1 &
    echo $! > "$base/node-$node.pid"
  done
  for node in "${nodes[@]}"; do
    for waited in $(seq 1 90); do
      grep -q "Kafka Server started" "$base/logs-$node/server.log" 2>/dev/null && break
      if ! kill -0 "$(cat "$base/node-$node.pid")" 2>/dev/null; then
        echo "node $node exited; its log ends:" >&2; tail -20 "$base/logs-$node/server.log" "$base/logs-$node/stdout.log" >&2
        stop; exit 1
      fi
      [ "$waited" = 90 ] && { echo "node $node did not start in 90 s:" >&2; tail -20 "$base/logs-$node/server.log" >&2; stop; exit 1; }
      sleep 1
    done
  done
  echo "Kafka $version in KRaft mode on $(servers) (cluster $cluster_id)"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  servers) servers ;;
  *) echo "usage: $0 start|stop|servers" >&2; exit 2 ;;
esac
