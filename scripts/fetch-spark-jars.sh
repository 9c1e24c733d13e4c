#!/usr/bin/env bash
# Resolves the jars Spark's Kafka source and sink need beside a pip-installed PySpark, which does not
# ship them: the connector, its token provider, and the connector's own runtime dependencies
# (kafka-clients, commons-pool2) at the versions the connector's POM names. Everything PySpark
# already ships (compression codecs, slf4j, Scala modules) is excluded, so no second copy of a
# class ends up on Spark's classpath. Maven resolves through its own settings (mirrors, proxies,
# local repository), so the same script works against a mirror or from a pre-filled repository.
#
# The jars are cached and resolved only when missing. Prints the jar paths comma-separated on
# stdout (ready for spark.jars / --jars); everything else goes to stderr.
#
# Usage: scripts/fetch-spark-jars.sh
# Environment: SPARK_VERSION (default: the pyspark pin in requirements-verify.txt),
#              KAFKAOPS_CACHE (default ~/.cache/kafkaops)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
scala_version=2.13
spark_version=${SPARK_VERSION:-$(sed -n 's/^pyspark==//p' "$here/../requirements-verify.txt")}
if [ -z "$spark_version" ]; then
  echo "no SPARK_VERSION given and no pyspark pin found in requirements-verify.txt" >&2
  exit 2
fi
cache_dir=${KAFKAOPS_CACHE:-$HOME/.cache/kafkaops}
jars_dir="$cache_dir/spark-jars-$spark_version"

# The artifacts that must be present afterwards; a resolution missing one of them is an error.
required_artifacts=(
  "spark-sql-kafka-0-10_$scala_version"
  "spark-token-provider-kafka-0-10_$scala_version"
  kafka-clients
  commons-pool2
)

print_jars() {
  local jars=() artifact jar
  for artifact in "${required_artifacts[@]}"; do
    jar=$(find "$jars_dir" -maxdepth 1 -name "$artifact-[0-9]*.jar" | sort | head -n 1)
    if [ -z "$jar" ]; then
      echo "missing $artifact in $jars_dir" >&2
      return 1
    fi
    jars+=("$jar")
  done
  (IFS=,; echo "${jars[*]}")
}

# build-kafka-archive.sh resolves Kafka's jars the same way, yet this script sources nothing: the
# kafka_verify role runs it on the Spark client host with ansible.builtin.script, which copies this
# one file there.
resolve_jars() {
  local work
  work=$(mktemp -d)
  # A throwaway pom whose only purpose is to let Maven resolve the connector's runtime closure
  # minus what PySpark's own jars/ folder already provides.
  cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafkaops.cluster</groupId>
  <artifactId>spark-kafka-connector</artifactId>
  <version>$spark_version</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-sql-kafka-0-10_$scala_version</artifactId>
      <version>$spark_version</version>
      <exclusions>
        <exclusion><groupId>org.apache.spark</groupId><artifactId>spark-tags_$scala_version</artifactId></exclusion>
        <exclusion><groupId>org.scala-lang.modules</groupId><artifactId>scala-parallel-collections_$scala_version</artifactId></exclusion>
        <exclusion><groupId>org.scala-lang</groupId><artifactId>scala-library</artifactId></exclusion>
        <exclusion><groupId>com.google.code.findbugs</groupId><artifactId>jsr305</artifactId></exclusion>
        <exclusion><groupId>com.github.luben</groupId><artifactId>zstd-jni</artifactId></exclusion>
        <exclusion><groupId>org.lz4</groupId><artifactId>lz4-java</artifactId></exclusion>
        <exclusion><groupId>at.yawk.lz4</groupId><artifactId>lz4-java</artifactId></exclusion>
        <exclusion><groupId>org.xerial.snappy</groupId><artifactId>snappy-java</artifactId></exclusion>
        <exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId></exclusion>
        <exclusion><groupId>org.apache.hadoop</groupId><artifactId>*</artifactId></exclusion>
      </exclusions>
    </dependency>
  </dependencies>
</project>
POM
  rm -rf "$jars_dir.tmp"
  mvn -q -B -f "$work/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$jars_dir.tmp" >&2
  rm -rf "$work" "$jars_dir"
  mv "$jars_dir.tmp" "$jars_dir"
  # Only a complete, checked set is marked as cached.
  print_jars > /dev/null
  touch "$jars_dir/.complete"
}

mkdir -p "$cache_dir"
if [ -f "$jars_dir/.complete" ]; then
  echo "cached: $jars_dir" >&2
else
  resolve_jars
  echo "resolved: $jars_dir" >&2
fi
print_jars
