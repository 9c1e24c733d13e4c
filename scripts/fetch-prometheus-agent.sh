#!/usr/bin/env bash
# Resolves the Prometheus JMX exporter's Java agent (io.prometheus.jmx:jmx_prometheus_javaagent) from
# Maven Central into the cache, for the roles' *_prometheus_agent_src on the controller: hosts that
# cannot reach Maven Central get the jar copied from there. Maven resolves through its own settings
# (mirrors, proxies, local repository), like build-kafka-archive.sh.
#
# The 1.x line ships one self-contained jar under this artifact id (the 0.x line's "_java6" variant
# and the separate httpserver jar are gone); it needs Java 11 or later.
#
# The jar is cached (with a .sha256 beside it) and resolved only when missing. Prints its path.
#
# Usage: scripts/fetch-prometheus-agent.sh
# Environment: PROMETHEUS_AGENT_VERSION (default 1.0.1, the newest that resolves on Maven Central,
#              checked 2026-11-25), KAFKAOPS_CACHE (default ~/.cache/kafkaops)
set -euo pipefail

version=${PROMETHEUS_AGENT_VERSION:-1.0.1}
cache_dir=${KAFKAOPS_CACHE:-$HOME/.cache/kafkaops}
jar="$cache_dir/jmx_prometheus_javaagent-$version.jar"

mkdir -p "$cache_dir"
if [ -f "$jar" ] && [ -f "$jar.sha256" ]; then
  echo "$jar"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mvn -q -B dependency:copy -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$version" \
    -Dtransitive=false -DoutputDirectory="$work" >&2
# An agent jar names its entry class in the manifest; anything else is not the agent.
if ! python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("META-INF/MANIFEST.MF").decode())' \
     "$work/jmx_prometheus_javaagent-$version.jar" | grep '^Premain-Class:' >/dev/null; then
  echo "jmx_prometheus_javaagent-$version.jar has no Premain-Class: not a Java agent" >&2
  exit 1
fi
mv "$work/jmx_prometheus_javaagent-$version.jar" "$jar.tmp"
mv "$jar.tmp" "$jar"
(cd "$cache_dir" && sha256sum "$(basename "$jar")" > "$jar.sha256")
echo "$jar"
