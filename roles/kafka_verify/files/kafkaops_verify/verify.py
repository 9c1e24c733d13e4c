"""Proves that every acknowledged record is in Kafka exactly once, in order per key, and intact.

Reads the chosen topics with Spark's Kafka source in batch, from each partition's log start to the
end offset captured when the job starts, and checks per partition and key:

- lost: a sequence a manifest says was acknowledged has no record.
- duplicates: a record whose (run, key, sequence) already appeared earlier in its partition; each
  extra copy counts once.
- out_of_order: a record whose sequence is below the one before it in its key and partition, by
  offset; extra copies of a record count as duplicates, not here.
- corrupt: a value that does not parse, whose key field differs from the record key, or whose
  payload does not match its crc32.
- offset_gaps: offsets in [start, end) with no record. Spark's Kafka source skips unreadable
  offsets without a word, so this is counted here. It assumes plain topics: compaction removes
  offsets (which show up as gaps), so verify topics with cleanup.policy=delete.
- aborted_visible: a record of a transaction its producer saw aborted (a transactional manifest's
  aborted_keys) that a read_committed reader was given.

The topics of transactional manifests are read with read_committed, up to their last stable offset.
There a transaction marker takes an offset and an aborted record is not given to the reader, so
offsets without a record are expected, and telling them from a hole would take a second, uncommitted
read of the topic: their missing offsets are reported (committed_read_gaps), not counted as offset
gaps. What the offset check is for still holds where it matters: every committed record is in the
manifest, so one the reader was not given counts as lost.

Values are parsed in the JVM (Spark SQL expressions). The checks then run one of two ways, with the
same results: the scan engine (the default) reads each partition once, in offset order, and checks
it in a single pass in Spark's Python workers (mapInArrow, numpy), shuffling nothing; the sql engine
evaluates them as Spark SQL window functions, joins and aggregates over the records shuffled by
partition and key. Writes the JSON report, prints a summary and exits 1 when a check fails (2 when
the job cannot run).
"""

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime

from kafkaops_verify.connection import ConnectionSettingsError, add_connection_option, job_clients, print_failure
from kafkaops_verify.engines.scan import SCAN_BATCH_RECORDS, verify_with_scan
from kafkaops_verify.engines.sql import verify_with_sql
from kafkaops_verify.kafka_io import capture_offsets, read_topics
from kafkaops_verify.manifests import (
    ManifestError,
    aborted_from_manifests,
    is_transactional,
    ranges_from_manifests,
    read_manifest,
)
from kafkaops_verify.options import add_pairs_option
from kafkaops_verify.progress import add_progress_options, following
from kafkaops_verify.report import summary_lines
from kafkaops_verify.session import add_spark_setting_option, build_session, executor_addresses, spark_settings

# Spark's default spark.sql.sources.useV1SourceList without kafka.
V1_SOURCES_BUT_KAFKA = "avro,csv,json,orc,parquet,text"
SESSION_SETTINGS = {
    "spark.sql.session.timeZone": "UTC",
    # Lets adaptive execution shrink the cached per-group counts to a few partitions; without it
    # every later query over them runs spark.sql.shuffle.partitions tiny tasks.
    "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning": "true",
    # The DataSource V2 Kafka reader hands Spark its rows directly; the V1 one (Spark's default)
    # turns every record into an external Row and back.
    "spark.sql.sources.useV1SourceList": V1_SOURCES_BUT_KAFKA,
    "spark.sql.execution.arrow.maxRecordsPerBatch": str(SCAN_BATCH_RECORDS),
    # Any other value makes Spark measure the Arrow batch after every record it adds.
    "spark.sql.execution.arrow.maxBytesPerBatch": str(2**31 - 1),
}


def verify(spark, read, bounds, range_rows, examples_per_kind=5, engine="scan", aborted_rows=(),
           committed_topics=()):
    """Runs every check; read(bounds) returns the raw DataFrame of those partitions. Returns the report.

    aborted_rows: (topic, run_id, key, start, end) of aborted transactions' records; committed_topics:
    the topics read with read_committed (their missing offsets are not offset gaps).

    engine "scan" (engines.scan) reads once and shuffles nothing; "sql" (engines.sql) runs the checks
    as Spark SQL (windows over a shuffle by partition and key), for executors without pyarrow and numpy.
    """
    committed_topics = frozenset(committed_topics)
    if engine == "sql":
        return verify_with_sql(spark, read, bounds, range_rows, examples_per_kind, aborted_rows, committed_topics)
    return verify_with_scan(read, bounds, range_rows, examples_per_kind, aborted_rows, committed_topics)


def transactional_figures(manifests):
    """The report's transactional section: the topics read with read_committed and what their producers
    saw committed, aborted and left uncertain; None without a transactional manifest."""
    transactional = [manifest for manifest in manifests if is_transactional(manifest)]
    if not transactional:
        return None
    return {
        "topics": sorted({manifest["topic"] for manifest in transactional}),
        "committed": sum(manifest.get("acknowledged") or 0 for manifest in transactional),
        "aborted": sum(manifest.get("aborted") or 0 for manifest in transactional),
        "uncertain": sum(manifest.get("uncertain") or 0 for manifest in transactional),
    }


def verify_session(master, jars, shuffle_partitions, driver_memory, app_name, extra_settings=None):
    """The job's SparkSession: build_session with the settings the checks are tuned for, and the user's."""
    settings = dict(SESSION_SETTINGS)
    if shuffle_partitions:
        settings["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
    settings.update(extra_settings or {})
    return build_session(master, app_name, jars, settings, driver_memory)


def argument_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--bootstrap-servers", required=True, help="host:port[,host:port...]")
    parser.add_argument(
        "--topics", default="", help="comma-separated topics to read (default: the topics of the manifests)"
    )
    parser.add_argument(
        "--manifest", action="append", default=[], help="a producer's manifest of acknowledged records; repeatable"
    )
    parser.add_argument("--report", required=True, help="where to write the JSON report")
    parser.add_argument(
        "--master", default="local[*]", help="any Spark master URL: local[N], spark://..., yarn, k8s://... (local[*])"
    )
    parser.add_argument(
        "--jars",
        default=os.environ.get("KAFKAOPS_SPARK_JARS", ""),
        help="comma-separated Kafka connector jars for spark.jars (scripts/fetch-spark-jars.sh prints them;"
        " default: $KAFKAOPS_SPARK_JARS)",
    )
    parser.add_argument("--shuffle-partitions", type=int, default=0, help="spark.sql.shuffle.partitions (Spark's)")
    parser.add_argument("--driver-memory", default="2g", help="spark.driver.memory when run with python (2g)")
    parser.add_argument("--examples", type=int, default=5, help="offending records shown per kind (5)")
    parser.add_argument(
        "--engine",
        choices=("scan", "sql"),
        default="scan",
        help="scan: one ordered pass per partition in Python workers, no shuffle (needs pyarrow, pandas and"
        " numpy where Spark runs Python); sql: Spark SQL windows over a shuffle (scan)",
    )
    add_connection_option(parser)
    add_spark_setting_option(parser)
    add_progress_options(parser)
    add_pairs_option(
        parser, "--kafka-option", "a Java consumer property for Spark's Kafka source, e.g. fetch.min.bytes=1"
    )
    add_pairs_option(
        parser,
        "--client-option",
        "a kafka-python KafkaConsumer setting for capturing offsets, e.g. request_timeout_ms=60000",
    )
    return parser


def main(argv=None):
    args = argument_parser().parse_args(argv)
    started = time.monotonic()
    settings = spark_settings(args.spark_setting)
    try:
        manifests = [read_manifest(path) for path in args.manifest]
    except (OSError, ManifestError) as error:
        print("verify: %s" % error, file=sys.stderr)
        return 2
    topics = sorted({topic for topic in args.topics.split(",") if topic} | {m["topic"] for m in manifests})
    if not topics:
        print("verify: no topic to read: give --topics or --manifest", file=sys.stderr)
        return 2

    try:
        clients = job_clients(args.connection_file, args.kafka_option, args.client_option)
    except ConnectionSettingsError as error:
        print("verify: %s" % error, file=sys.stderr)
        return 2
    transactional = transactional_figures(manifests)
    committed_topics = frozenset(transactional["topics"] if transactional else ())
    try:
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        bounds, missing_topics = capture_offsets(args.bootstrap_servers, topics, clients.python_settings,
                                                 committed_topics)
        spark = verify_session(
            args.master,
            args.jars,
            args.shuffle_partitions,
            args.driver_memory,
            "kafkaops-verify " + ",".join(topics),
            settings,
        )
        try:

            def read(partition_bounds):
                return read_topics(spark, args.bootstrap_servers, partition_bounds, clients.java_properties,
                                   committed_topics)

            expected = sum(end - start for start, end in bounds.values())
            with following(spark, args.progress_file, "verify", expected, args.progress_interval):
                report = verify(spark, read, bounds, ranges_from_manifests(manifests), args.examples, args.engine,
                                aborted_from_manifests(manifests), committed_topics)
            executors = executor_addresses(spark)
        except Exception as error:
            # Exit 1 means "records are wrong"; a job that could not run must not be read that way.
            print("verify: the Spark job failed: %s" % clients.redact(str(error)), file=sys.stderr)
            return 2
        finally:
            spark.stop()
    except Exception:  # the offsets could not be captured, or Spark could not start
        return print_failure("verify", clients, 2)
    report.update(
        {
            "topics": topics,
            "missing_topics": missing_topics,
            "manifests": [
                {"path": path, "run_id": m["run_id"], "topic": m["topic"], "acknowledged": m.get("acknowledged")}
                for path, m in zip(args.manifest, manifests, strict=True)
            ],
            "lost_checked": bool(manifests),
            "transactional": transactional,
            "spark_master": args.master,
            "spark_executors": executors,
            "started_at": started_at,
            "elapsed_seconds": round(time.monotonic() - started, 1),
        }
    )
    with open(args.report, "w") as stream:
        json.dump(report, stream, indent=1, sort_keys=True, default=str)
        stream.write("\n")
    print("\n".join(summary_lines(report)))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
