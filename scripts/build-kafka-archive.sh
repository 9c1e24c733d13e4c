#!/usr/bin/env bash
# Assembles a Kafka distribution archive from Maven Central jars, because the usual download sites
# are not always reachable. Two layouts are produced from the same jars:
#   apache:    kafka_2.13-<version>/{libs/*.jar, config/}                 (Apache's tarball)
#   confluent: confluent-kafka-<version>/{share/java/kafka/*.jar, etc/kafka/}  (Confluent's tarball)
# Each archive gets a .sha256 beside it. Archives are cached and rebuilt only when missing.
# No bin/ scripts are shipped: the roles start the JVM themselves.
#
# Four versions of Kafka are built by default:
#   3.8.1  the newest 3.8, which the multi-broker scenario deploys first, to upgrade it to 3.9.2
#          (playbooks/upgrade.yml) in ZooKeeper mode;
#   3.9.2  the newest 3.9, the last line with ZooKeeper mode (and ZooKeeper's server in its jars);
#          it logs through log4j 1 (reload4j), configured by config/log4j.properties.
#   4.3.1  the 4.x the combined scenario deploys first, to upgrade it to 4.4.0 (playbooks/upgrade.yml);
#   4.4.0  the newest 4.x on Maven Central (its kafka-tools jar, the command-line tools, resolves
#          there since 2026-11-25; an archive without the tools would not be a Kafka distribution):
#          KRaft only, logging through log4j 2 (config/log4j2.properties).
#
# Usage: scripts/build-kafka-archive.sh [apache|confluent|all]   (default: all)
# Environment: KAFKA_VERSIONS (default "3.8.1 3.9.2 4.3.1 4.4.0"; KAFKA_VERSION, one version, still works),
#              KAFKAOPS_CACHE (default ~/.cache/kafkaops)
set -euo pipefail

kafka_versions=${KAFKA_VERSIONS:-${KAFKA_VERSION:-3.8.1 3.9.2 4.3.1 4.4.0}}
scala_version=2.13
slf4j_version=1.7.36
reload4j_version=1.2.25
cache_dir=${KAFKAOPS_CACHE:-$HOME/.cache/kafkaops}
layouts=${1:-all}
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$cache_dir"

# The logging jars a version needs besides its own closure: 3.x binds slf4j to reload4j; 4.x brings
# log4j 2 and binds slf4j to it with the adapter of the same log4j version.
logging_dependencies() {
  case $kafka_version in
    3.*) echo "org.slf4j:slf4j-reload4j:$slf4j_version ch.qos.reload4j:reload4j:$reload4j_version" ;;
    *) echo "org.apache.logging.log4j:log4j-slf4j-impl:LOG4J" ;;
  esac
}

config_folder() {
  case $kafka_version in
    3.*) echo "$here/kafka-archive-config/zookeeper-mode" ;;
    *) echo "$here/kafka-archive-config/kraft" ;;
  esac
}

resolve_jars() {
  [ -f "$jars_dir/.complete" ] && return 0
  local work coordinates log4j_version
  work=$(mktemp -d)
  # A throwaway pom whose only purpose is to let Maven resolve the runtime closure.
  cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafkaops.cluster</groupId>
  <artifactId>kafka-distribution</artifactId>
  <version>$kafka_version</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_$scala_version</artifactId><version>$kafka_version</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$kafka_version</version></dependency>
  </dependencies>
</project>
POM
  rm -rf "$jars_dir.tmp"
  mvn -q -B -f "$work/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$jars_dir.tmp"
  log4j_version=$(find "$jars_dir.tmp" -name 'log4j-core-*.jar' -printf '%f\n' | sed -n 's/^log4j-core-\(.*\)[.]jar$/\1/p')
  for coordinates in $(logging_dependencies); do
    mvn -q -B -f "$work/pom.xml" dependency:copy -Dartifact="${coordinates/LOG4J/$log4j_version}" \
        -DoutputDirectory="$jars_dir.tmp"
  done
  rm -rf "$work" "$jars_dir"
  mv "$jars_dir.tmp" "$jars_dir"
  touch "$jars_dir/.complete"
}

# Writes the archive named $1 with top folder $2, jars under $3 and configuration under $4.
build_archive() {
  local archive=$1 top=$2 jar_subdir=$3 config_subdir=$4
  if [ -f "$cache_dir/$archive" ] && [ -f "$cache_dir/$archive.sha256" ]; then
    echo "cached: $cache_dir/$archive"
    return 0
  fi
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/$top/$jar_subdir" "$stage/$top/$config_subdir"
  cp "$jars_dir"/*.jar "$stage/$top/$jar_subdir/"
  cp "$(config_folder)/"* "$stage/$top/$config_subdir/"
  # Fixed owner and sorted names make the archive reproducible from the same jars.
  tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01' \
      -czf "$cache_dir/$archive.tmp" "$top"
  rm -rf "$stage"
  mv "$cache_dir/$archive.tmp" "$cache_dir/$archive"
  (cd "$cache_dir" && sha256sum "$archive" > "$archive.sha256")
  echo "built: $cache_dir/$archive"
}

case $layouts in
  apache|confluent|all) ;;
  *) echo "unknown layout '$layouts': use apache, confluent or all" >&2; exit 2 ;;
esac
for kafka_version in $kafka_versions; do
  jars_dir="$cache_dir/kafka-jars-$kafka_version"
  resolve_jars
  case $layouts in
    apache|all)
      build_archive "kafka_$scala_version-$kafka_version.tgz" "kafka_$scala_version-$kafka_version" libs config ;;&
    confluent|all)
      build_archive "confluent-kafka-$kafka_version.tgz" "confluent-kafka-$kafka_version" share/java/kafka etc/kafka ;;
  esac
done
