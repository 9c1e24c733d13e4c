#!/usr/bin/env bash
# Prints how to reach the demo cluster: each broker's client address and the ZooKeeper servers (or,
# in KRaft mode, the controllers).
set -euo pipefail
brokers=()
zookeepers=()
controllers=()
for container in $(docker ps --filter label=kafkaops.cluster=local --format '{{.Names}}' | sort); do
  address=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$container")
  # Only nodes that run the service: a spare node has neither until it joins.
  if docker exec "$container" systemctl is-active --quiet zookeeper; then
    zookeepers+=("$address:2181")
  fi
  if docker exec "$container" systemctl is-active --quiet kafka-controller; then
    controllers+=("$address:9093")
  fi
  if docker exec "$container" systemctl is-active --quiet 'kafka-broker-*'; then
    brokers+=("$address:9092")
  fi
done
echo
echo "The cluster is up."
echo "  bootstrap servers: $(IFS=,; echo "${brokers[*]}")"
if [ ${#controllers[@]} -gt 0 ]; then
  echo "  KRaft controllers: $(IFS=,; echo "${controllers[*]}")"
else
  echo "  zookeeper.connect: $(IFS=,; echo "${zookeepers[*]}")"
fi
echo "  a shell on a node: docker exec -it kafkaops-node1 bash"
echo "  broker units:      systemctl status 'kafka-broker-*'   (inside a node)"
echo "  remove it all:     make clean"
